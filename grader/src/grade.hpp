// What every lab test file (grader/tests/labNN_*.test.cpp) uses: the checks, the plans each
// lab is graded with (plans.hpp), and grade(), which records a verdict for the table, prints
// it once, and fails the Catch2 test case when the verdict does.
#pragma once

#include "catch_compat.hpp"
#include "checks/correctness_check.hpp"
#include "checks/count_checks.hpp"
#include "checks/plans.hpp"
#include "checks/speed_check.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

void grade(int lab, const char* test, const Verdict& verdict);
// How grade() prints it: "PASS lab3.requests: summary", the message, and where a speed test's
// time went; labN.traffic prints its comparison the same way.
void print_verdict(int lab, const char* test, const Verdict& verdict);
// True once grade() has printed a failed verdict in this process.
bool graded_failure();

}  // namespace reduce_lab::grader
