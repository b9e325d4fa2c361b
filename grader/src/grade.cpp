#include "grade.hpp"

#include <cstdio>

#include "measure/phase_times.hpp"
#include "run/records.hpp"

namespace reduce_lab::grader {

namespace {
bool graded_failure_seen = false;
}  // namespace

bool graded_failure() { return graded_failure_seen; }

void print_verdict(int lab, const char* test, const Verdict& verdict) {
  std::printf("%s lab%d.%s: %s\n%s\n", status_word(verdict.status), lab, test, verdict.summary.c_str(),
              verdict.message.c_str());
  if (const std::string phases = phase_times_line(); !phases.empty()) std::printf("%s\n", phases.c_str());
  std::fflush(stdout);
}

void grade(int lab, const char* test, const Verdict& verdict) {
  record(lab, test, verdict);
  // The verdict is printed here, once; Catch2's own report of the failed assertion below
  // would repeat the message, wrapped mid-figure, so a lab test's runner discards it.
  print_verdict(lab, test, verdict);
  graded_failure_seen = graded_failure_seen || verdict.status == Status::fail;
  REQUIRE(verdict.status != Status::fail);
}

}  // namespace reduce_lab::grader
