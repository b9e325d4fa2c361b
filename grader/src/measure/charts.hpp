// The pictures of a grade: the staircase (GB/s per lab against the device's copy bandwidth
// and CUB) for the terminal and as SVG, and the bench sweep (GB/s against n) and its rows table
// (GB/s against row length) as SVG. All are drawn from the JSON the grader already wrote
// (report.json, bench.json), never measured here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

struct StaircaseStep {
  int lab = 0;
  std::string name;          // "shared-memory"
  bool timed = false;        // the speed test measured this lab
  double gbs = 0;            // 4 bytes x n / median time of the whole reduction
  bool passed = false;       // its speed test passed
  std::string summary;       // the speed test's table summary
  std::optional<double> reference_gbs;  // the reference solution's, on this GPU
};

struct Staircase {
  std::string device;
  std::size_t n = 0;
  double copy_gbs = 0;  // 0: not measured
  double cub_gbs = 0;   // 0: not measured
  std::string reference_note;  // where the reference figures come from; empty when none
  std::vector<StaircaseStep> steps;  // every graded lab, in order
  bool drawable() const;  // some lab was timed
};

// The staircase of a report (report.hpp). `reference` is a report.json of the reference
// solutions or a calibration.json (./lab calibrate), or null; its figures are used only when
// they were measured on the same device. `note` says why a reference was not used.
Staircase staircase_of(const nlohmann::json& report, const nlohmann::json& reference, std::string* note);

// One bar per lab, CUB and the copy bandwidth below them; ANSI colour when `colour`.
std::string staircase_terminal(const Staircase& staircase, bool colour);

// The same as a standalone SVG: a bar per timed lab with its label ("lab 3" / "shared-memory")
// under it, dashed outlines for the reference solutions, lines for CUB and the copy bandwidth.
std::string staircase_svg(const Staircase& staircase);

// bench.json (./lab bench) as GB/s against n, one line per lab, CUB and copy.
std::string bench_svg(const nlohmann::json& bench);

// bench.json's "rows" (or --bench-rows's rows.json) as GB/s against the row length n on a log
// axis: the row lab and CUB's segmented reduction as two lines, the copy bandwidth across.
std::string bench_rows_svg(const nlohmann::json& rows);

// A swept parameter's chart (sweep_speed_check.hpp's figures): GB/s against the value, a line per
// size as a share of its fastest value's speed, the choice ringed on each, Brent's estimate marked
// and the gate drawn across.
std::string sweep_svg(const nlohmann::json& sweep);

// bench.json's "block_sizes" (lab 9): GB/s against the block size, a line per variant (K).
std::string block_sizes_svg(const nlohmann::json& table);

// Text made safe for SVG (XML) text and attribute values.
std::string xml_escaped(const std::string& text);

// Whether standard output gets colour: a terminal, NO_COLOR unset, TERM not "dumb".
bool colour_wanted();

}  // namespace reduce_lab::grader
