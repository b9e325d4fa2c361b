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

CorrectnessPlan any_size_plan() {
  CorrectnessPlan plan;
  plan.sizes = powers_of_two(2, std::size_t{1} << 20);
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{1000}, std::size_t{2047},
                        std::size_t{2049}, std::size_t{1000007}, (std::size_t{1} << 24) + 1})
    plan.sizes.push_back(n);
  plan.special_sizes = {1, 31, 2049, 1000007};
  plan.special_patterns = {Pattern::ones, Pattern::cancellation, Pattern::integers, Pattern::all_negative,
                           Pattern::large};
  return plan;
}

std::vector<std::size_t> traffic_sizes() { return {1, 31, 1000, 2049, 1000007, std::size_t{1} << 20}; }

CorrectnessPlan sanitizer_plan(const std::vector<std::size_t>& sizes) {
  CorrectnessPlan plan;
  plan.sizes = sizes;
  return plan;
}

}  // namespace reduce_lab::grader
