// Reading and writing the grader's JSON and text files (report.json, calibration, the
// staircase's SVG): whole files, each written in one step.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// Reads a JSON file; throws std::runtime_error naming the file when it is missing or invalid.
nlohmann::json read_json(const std::string& path);
// Writes `value` to `path` in one step (a temporary file renamed over it). Throws
// std::runtime_error naming the path when it cannot be written.
void write_json(const std::string& path, const nlohmann::json& value);
void write_text(const std::string& path, const std::string& text);

}  // namespace reduce_lab::grader
