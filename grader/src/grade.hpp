// What every lab test file (grader/tests/labNN_*.test.cpp) uses: the checks, the plans each
// lab is graded with (plans.hpp), and grade() (grade_requests() for the requests test), which records a verdict for the table, prints
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
// The requests test's grade(): on a GPU it then also measures what the speed test will read, the
// timed build's traffic against the counted build's (timed_traffic.hpp), beside the other untimed
// tests rather than in the speed test's time alone on the GPU.
void grade_requests(int lab, const Verdict& verdict);
// True once grade() has printed a failed verdict in this process.
bool graded_failure();

}  // namespace reduce_lab::grader
