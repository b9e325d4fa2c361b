// Lab 2: correct at every power of two, the book's requests exactly, faster than its baseline.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab2 correctness") { grade(2, "correctness", check_correctness(2, correctness_plan(2))); }

TEST_CASE("lab2 requests") { grade(2, "requests", check_book_requests(2, book_request_sizes())); }

TEST_CASE("lab2 speedup") { grade(2, "speedup", check_speedup(2)); }

TEST_CASE("lab2 races") { grade(2, "races", check_correctness(2, races_plan(2))); }
