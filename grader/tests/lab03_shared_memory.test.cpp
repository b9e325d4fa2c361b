// Lab 3: correct at every power of two, the book's requests exactly, faster than its baseline.
#include "kit.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab3 correctness") { grade(3, "correctness", check_correctness(3, power_of_two_plan())); }

TEST_CASE("lab3 requests") { grade(3, "requests", check_book_requests(3, powers_of_two(2, std::size_t{1} << 20))); }

TEST_CASE("lab3 speedup") { grade(3, "speedup", check_speedup(3)); }

TEST_CASE("lab3 races") { grade(3, "races", check_correctness(3, sanitizer_plan({256, 2048, 1u << 16}))); }
