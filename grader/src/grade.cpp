#include "grade.hpp"

#include <cstdio>

#include "measure/phase_times.hpp"
#include "checks/timed_traffic.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"

namespace reduce_lab::grader {

namespace {

bool graded_failure_seen = false;

// Records the verdict and prints it, once: Catch2's own report of the failed assertion would
// repeat the message, wrapped mid-figure, so a lab test's runner discards it.
void record_and_print(int lab, const char* test, const Verdict& verdict) {
  record(lab, test, verdict);
  const char* status = verdict.status == Status::pass ? "PASS" : verdict.status == Status::skip ? "SKIP" : "FAIL";
  std::printf("%s lab%d.%s: %s\n%s\n", status, lab, test, verdict.summary.c_str(), verdict.message.c_str());
  if (const std::string phases = phase_times_line(); !phases.empty()) std::printf("%s\n", phases.c_str());
  std::fflush(stdout);
  graded_failure_seen = graded_failure_seen || verdict.status == Status::fail;
}

}  // namespace

bool graded_failure() { return graded_failure_seen; }

void grade(int lab, const char* test, const Verdict& verdict) {
  record_and_print(lab, test, verdict);
  REQUIRE(verdict.status != Status::fail);
}

void grade_requests(int lab, const Verdict& verdict) {
  record_and_print(lab, "requests", verdict);
  // After the verdict is recorded: a lab whose timed build hangs or crashes here leaves the
  // requests verdict as it was, and a failed comparison for the speed test to name.
  if (settings().timed_traffic) record_timed_traffic(lab);
  REQUIRE(verdict.status != Status::fail);
}

}  // namespace reduce_lab::grader
