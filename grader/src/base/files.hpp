// The grader's files, whole: the records, logs and notes it reads back, and the JSON and text
// it writes (report.json, calibration, the staircase's SVG), each written in one step.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

// The whole file at `path`; empty when it cannot be read (`found`, when given, says which).
std::string read_text(const std::string& path, bool* found = nullptr);
// The same, none when it cannot be read: for files whose being there is itself the answer.
std::optional<std::string> read_file(const std::string& path);

// Reads a JSON file; throws std::runtime_error naming the file when it is missing or invalid.
nlohmann::json read_json(const std::string& path);
// Writes `value` to `path` in one step (a temporary file renamed over it), so a reader, or a
// process stopped half-way, never sees half a file. Throws std::runtime_error naming the path
// when it cannot be written.
void write_json(const std::string& path, const nlohmann::json& value);
void write_text(const std::string& path, const std::string& text);

// The path of this process's own executable (the grader starting itself again: under ncu, as a
// broken-lab case's checks); empty when it cannot be found.
std::string own_executable();

}  // namespace reduce_lab::grader
