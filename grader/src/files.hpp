// Whole small files as text: the records, logs and notes the grader reads back.
#pragma once

#include <string>

namespace reduce_lab::grader {

// The whole file at `path`; empty when it cannot be read (`found`, when given, says which).
std::string read_text(const std::string& path, bool* found = nullptr);

}  // namespace reduce_lab::grader
