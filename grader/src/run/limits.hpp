// Every time limit of a graded test, derived from one budget: the seconds CTest allows the test
// (REDUCE_LAB_TEST_TIMEOUT, which CTest sets from the CMake variable of that name, and
// grade-all from its --timeout). Each limit is shorter than the one around it, so the innermost
// stop names what hung: one emulated launch (the emulator's report says which threads wait
// where), then one call into the lab (the watchdog names the case), then the test itself (the
// supervising parent, a little before CTest would kill the process without a word).
#pragma once

namespace reduce_lab::grader {

struct Limits {
  double test = 0;        // seconds CTest allows the test; 0: none known
  double supervisor = 0;  // the supervising parent stops its child after this; 0: never
  double call = 0;        // one call into a lab: the watchdog's limit
  double launch = 0;      // one emulated launch: the emulator's limit
};

// The limits inside a test of `test_budget` seconds (0: none known, the defaults of a grade
// whose budget is unknown) on the emulator or a GPU. On a GPU one call into a correct lab takes
// milliseconds (under a second under compute-sanitizer), and a hanging kernel holds a device
// others may be waiting for, so its limit stays short.
Limits derive_limits(double test_budget, bool emulator);

// The limits of a run outside the graded tests that draws a picture (./lab show, the picture
// after a grade): a small run that takes well under a second when right, so a few seconds.
// `test_budget` (REDUCE_LAB_TEST_TIMEOUT; 0: the default of 30 s) bounds the whole command,
// which records two runs (yours and the reference's) and draws them.
Limits derive_picture_limits(double test_budget);

// This process's limits: derived from its budget (as a graded test's, or as a picture's after
// use_picture_limits()), with REDUCE_LAB_RUN_TIMEOUT and REDUCE_LAB_EMU_TIMEOUT, where set, in
// place of the call's and the launch's.
Limits limits();

// From here on this process draws a picture: limits() are derive_picture_limits()'s. Call it
// before anything reads them (the watchdog reads them when first armed).
void use_picture_limits();

// Gives the emulator (where this grader was built for it) the launch limit of limits().
void apply_emulator_limit();

}  // namespace reduce_lab::grader
