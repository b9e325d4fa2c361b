// Lab 11: lab 1's pairs with the owners kept together: correct at every power of two, exactly the
// requests of its model (lab 1's, in fewer warp instructions), timed against the student's own lab 1.
#include "grade.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab11 correctness") { grade(11, "correctness", check_correctness(11, correctness_plan(11))); }

TEST_CASE("lab11 requests") { grade(11, "requests", check_book_requests(11, book_request_sizes())); }

TEST_CASE("lab11 speedup") { grade(11, "speedup", check_speedup(11)); }

TEST_CASE("lab11 races") { grade(11, "races", check_correctness(11, races_plan(11))); }
