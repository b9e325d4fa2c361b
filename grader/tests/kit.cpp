#include "kit.hpp"

#include <cstdio>

#include "report.hpp"

namespace reduce_lab::grader {

void grade(int lab, const char* test, const Verdict& verdict) {
  record(lab, test, verdict);
  const char* status = verdict.status == Status::pass ? "PASS" : verdict.status == Status::skip ? "SKIP" : "FAIL";
  std::printf("%s lab%d.%s: %s\n%s\n", status, lab, test, verdict.summary.c_str(), verdict.message.c_str());
  std::fflush(stdout);
  INFO(verdict.message);
  REQUIRE(verdict.status != Status::fail);
}

CorrectnessPlan power_of_two_plan() {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  plan.special_sizes = {2, 64, 2048, std::size_t{1} << 16, std::size_t{1} << 20};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers};
  return plan;
}

CorrectnessPlan sanitizer_plan(const std::vector<std::size_t>& sizes) {
  CorrectnessPlan plan;
  plan.sizes = sizes;
  return plan;
}

}  // namespace reduce_lab::grader
