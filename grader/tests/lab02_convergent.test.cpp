// Lab 2: correct at every power of two, the book's requests exactly, faster than its baseline.
#include "kit.hpp"

using namespace reduce_lab::grader;

TEST_CASE("lab2 correctness") { grade(2, "correctness", check_correctness(2, power_of_two_plan())); }

TEST_CASE("lab2 requests") { grade(2, "requests", check_book_requests(2, powers_of_two(2, std::size_t{1} << 20))); }

TEST_CASE("lab2 speedup") { grade(2, "speedup", check_speedup(2)); }

TEST_CASE("lab2 races") { grade(2, "races", check_correctness(2, sanitizer_plan({256, 2048, 1u << 16}))); }
