// What a check concludes: a line for the grade table and the whole story for the student.
#pragma once

#include <string>

namespace reduce_lab::grader {

enum class Status { pass, fail, skip };

struct Verdict {
  Status status = Status::fail;
  std::string summary;  // short, for the table: "143 = 143 @256", "not implemented yet"
  std::string message;  // what was measured, what was expected, what to revisit, which page
};

inline Verdict pass(std::string summary, std::string message) {
  return {Status::pass, std::move(summary), std::move(message)};
}
inline Verdict fail(std::string summary, std::string message) {
  return {Status::fail, std::move(summary), std::move(message)};
}
inline Verdict skip(std::string summary, std::string message) {
  return {Status::skip, std::move(summary), std::move(message)};
}

}  // namespace reduce_lab::grader
