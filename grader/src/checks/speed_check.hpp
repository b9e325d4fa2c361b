// Speed (design §5): a lab's median time against its baseline, interleaved, every timed
// result checked, and for a lab gated on bandwidth the fraction of the device's copy
// bandwidth it reaches. Returns a Verdict and never throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run/modules.hpp"

#include "base/verdict.hpp"

namespace reduce_lab::grader {

// Device copies the timed samples of a speed test draw their inputs from, alternating: contents
// that differ between samples at the same address, so a lab cannot pass by remembering an
// earlier result.
constexpr int kTimedInputs = 2;

// A timed sample whose result was wrong although the lab is right when run alone: thrown by a
// contender, caught by its speed test, which fails with it.
struct TimedWrong {
  std::string contender;
  int sample = 0;
  std::string text;
  bool earlier_result = false;  // the result of another sample's input
};

// Median time of lab `lab` against its baseline in grader/labs.json (the CPU loop of Fig. 10.1,
// or the student's own earlier lab). The minimum comes from REDUCE_LAB_MIN_SPEEDUP, else the
// lab's gates; a lab gated on bandwidth must also reach REDUCE_LAB_MIN_BANDWIDTH (else its
// gate) of the device's measured copy bandwidth. Every timed sample gets one of two inputs of
// different contents at the same address, and its result is checked: work cannot be cached or
// skipped.
Verdict check_speedup(int lab);

// What every speed test settles before it times (check_speedup, and lab 8's in rows_speed_check.hpp):
// the lab loads and every check of this grade found it correct, its file cannot tell the builds
// apart, and its baseline lab is correct and loads (unless `against_baseline` is false: a lab
// timed against one of its own variants, variant_speed_check.hpp). `refusal` is the verdict when not.
struct SpeedSetup {
  LoadedLab lab, baseline;
  nlohmann::json figures;  // the thresholds
  std::optional<Verdict> refusal;
  // Why the CPU emulator's correctness of the lab or its baseline is missing where it is not
  // required (no emulator can be built here): the figure then rests on the GPU alone. Empty when
  // the emulator judged both.
  std::string gpu_alone;
};
SpeedSetup prepare_speed_test(int lab, bool against_baseline = true);

// The minimum a lab's speed test asks: CMake's REDUCE_LAB_MIN_SPEEDUP_LAB<N> (an instructor's
// override) where CTest set it, else the lab's gates in grader/labs.json, never a silent 1.0.
double minimum_speedup(int lab);

// The words every speed test shares:
// - the refusal to time a lab found wrong at the size it times (`problem`: run_once's problem_text);
Verdict not_correct_for_timing(int lab, const std::string& problem, const nlohmann::json& figures);
// - the line its message adds where the figure rests on the GPU alone (SpeedSetup::gpu_alone; empty
//   when the emulator judged the lab, and then no line);
std::string gpu_alone_line(const std::string& gpu_alone);
// - a fault while the lab was timed: `error`, the case `where` for the summary.
Verdict timing_fault(int lab, const std::string& error, const std::string& where, const nlohmann::json& figures);

// The number of floats the speed tests time: 2^26, less when the device has too little free
// memory, or REDUCE_LAB_BENCH_N.
std::size_t benchmark_floats();

}  // namespace reduce_lab::grader
