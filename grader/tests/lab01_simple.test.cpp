// Lab 1: correct at every power of two, the book's requests exactly, faster than its baseline.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab1 correctness") { grade(1, "correctness", check_correctness(1, correctness_plan(1))); }

TEST_CASE("lab1 requests") { grade(1, "requests", check_book_requests(1, book_request_sizes())); }

TEST_CASE("lab1 speedup") { grade(1, "speedup", check_speedup(1)); }

TEST_CASE("lab1 races") { grade(1, "races", check_correctness(1, races_plan(1))); }
