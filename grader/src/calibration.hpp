// ./lab calibrate: K rounds of the speed tests on the reference solutions become thresholds
// for this GPU. Each round's records (lab<N>.speedup.json, device.json) sit in
// ROUNDS/round-<k>/; from them come per lab the min / median / max of the speedup ratio (and
// of lab 7's share of the copy bandwidth), and a suggested minimum: the lowest value measured
// times a margin, rounded down to 0.01.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

constexpr double kDefaultCalibrationMargin = 0.9;

// calibration.json: {"kind": "calibration", "device", "rounds", "margin", "labs": {"1": {"ratio":
// {min, median, max}, "gbs": {...}, "used": the minimum the rounds ran with, "suggested":
// {"REDUCE_LAB_MIN_SPEEDUP_LAB1": 2.85}}, ...}, "copy_gbs": {...}, "cub_gbs": {...}}.
// Throws std::runtime_error when the folder holds no round with speed figures.
nlohmann::json calibrate(const std::string& rounds_dir, double margin, const std::string& kit_version);

// The rounds as a table: per lab min / median / max, the minimum in use and the suggestion.
std::string calibration_table(const nlohmann::json& calibration);

// A CMake initial-cache file (cmake -C FILE, or ./lab grade --thresholds FILE) that sets every
// suggested minimum, with the measurements in comments.
std::string thresholds_cache(const nlohmann::json& calibration);

// The lowest value times `margin`, rounded down to 0.01: what a threshold may ask for so that
// the reference solutions pass it on this GPU with room for run-to-run noise.
double suggested_minimum(double lowest, double margin);

}  // namespace reduce_lab::grader
