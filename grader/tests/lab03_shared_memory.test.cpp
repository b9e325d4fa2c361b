// Lab 3: correct at every power of two, the book's requests exactly, faster than its baseline.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab3 correctness") { grade(3, "correctness", check_correctness(3, correctness_plan(3))); }

TEST_CASE("lab3 requests") { grade(3, "requests", check_book_requests(3, book_request_sizes())); }

TEST_CASE("lab3 speedup") { grade(3, "speedup", check_speedup(3)); }

TEST_CASE("lab3 races") { grade(3, "races", check_correctness(3, races_plan(3))); }
