// A test run again under compute-sanitizer (labN.races on a GPU): memcheck, then racecheck, each
// running this grader as its target, and what they find turned into the test's verdict.
#pragma once

#include <vector>

namespace reduce_lab::grader {

// The seconds compute-sanitizer gets to end after its target has been stopped by the watchdog
// (supervision::note_stop): then it, and every process it started, are stopped too.
inline constexpr double kSanitizerEndGrace = 10;

// Runs `self` with `args` (args[0] is skipped: the program's own name) under each tool. 0 when
// both ran to the end and found nothing; 1 after recording what one found, or when a run failed
// (the target's own verdict or stop then stands). `end_grace` is kSanitizerEndGrace but in tests.
int run_under_sanitizer(int lab, const char* self, const std::vector<char*>& args,
                        double end_grace = kSanitizerEndGrace);

}  // namespace reduce_lab::grader
