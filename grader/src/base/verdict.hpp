// What a check concludes: a line for the grade table, the whole story for the student, and
// the figures behind both (counts, medians, ratios, thresholds) for report.json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reduce_lab::grader {

enum class Status { pass, fail, skip };

struct Verdict {
  Status status = Status::fail;
  std::string summary;  // short, for the table: "143 = 143 @256", "not implemented yet"
  std::string message;  // what was measured, what was expected, what to revisit, which page
  // What was measured and the thresholds it was held to, as docs/grading.md's report.json
  // section lists them per check; an empty object when the check measured nothing.
  nlohmann::json figures = nlohmann::json::object();
};

inline Verdict pass(std::string summary, std::string message, nlohmann::json figures = nlohmann::json::object()) {
  return {Status::pass, std::move(summary), std::move(message), std::move(figures)};
}
inline Verdict fail(std::string summary, std::string message, nlohmann::json figures = nlohmann::json::object()) {
  return {Status::fail, std::move(summary), std::move(message), std::move(figures)};
}
inline Verdict skip(std::string summary, std::string message) {
  return {Status::skip, std::move(summary), std::move(message), nlohmann::json::object()};
}

const char* status_word(Status status);  // PASS, FAIL, SKIP

}  // namespace reduce_lab::grader
