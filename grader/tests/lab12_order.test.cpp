// Lab 12: the trees of labs 1, 2, 4 and 7 with any operator: every tree sums ints exactly at every
// power of two, and Order (an operator that is not commutative) shows which trees keep order; lab
// 1's must, the others must not. Its requests and speed are not graded (grader/labs.json).
#include "grade.hpp"
#include "checks/order_check.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab12 correctness") { grade(12, "correctness", check_order(12, correctness_plan(12))); }

TEST_CASE("lab12 races") { grade(12, "races", check_correctness(12, races_plan(12))); }
