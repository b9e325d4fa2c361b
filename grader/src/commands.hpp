// The grader's commands that grade nothing themselves: they turn what the tests recorded into
// the table, report.json, the staircase and Gradescope's results.json (--table), thresholds
// (--calibrate), and the size sweep (--bench); --probe-gpu answers whether the CUDA runtime can
// use a GPU here (./lab's last check before a GPU grade). ./lab runs them; docs/instructors.md
// shows each.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Runs the command that argv[1] names and returns its exit status, or -1 when argv[1] names
// none of them (the caller then runs a test).
int run_command(int argc, char** argv);

// The staircase of `report` (report.json's content): on a GPU, where labs were timed, it is
// printed (when `print`) and written to `svg_path`; elsewhere a stale `svg_path` is removed.
// Returns report.json's "staircase" entry. `reference` (may be null) holds the reference
// solutions' figures; `reference_note` says why none could be read.
nlohmann::json draw_staircase(const nlohmann::json& report, const nlohmann::json& reference, std::string reference_note,
                              const std::string& svg_path, bool print);

// --device-figures: measures the device for the staircase and records results/device.json.
int record_device_figures();

}  // namespace reduce_lab::grader
