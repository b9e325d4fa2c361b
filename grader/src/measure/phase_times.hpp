// Where a test's seconds go: a speed test's inputs, verified runs, counted build, Nsight Compute
// and samples; a correctness test's inputs, runs and references. The GPU suite spends most of its
// time in these tests; this line in each test's log (CTest's LastTest.log) says which part to
// make quicker, instead of a guess, and how long the process took to reach its first phase.
// grade() prints it below the verdict.
#pragma once

#include <string>

namespace reduce_lab::grader {

// Adds the time from its construction to its end to the phase `name` (a string literal). Phases
// may repeat (one per shape); their times add up. Not for nesting: an inner phase's time would
// count twice.
class Phase {
 public:
  explicit Phase(const char* name);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  const char* name_;
  double start_;
};

// "time by phase: inputs 0.41 s; samples 1.20 s; ...; 1.90 s from the first phase's start, which
// began 0.35 s after the process did", or "" when no phase was timed.
std::string phase_times_line();

}  // namespace reduce_lab::grader
