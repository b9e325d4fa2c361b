// The number formats figures are printed in, and the small text helpers every layer's messages
// share (checks, measurements, tools).
#pragma once

#include <cstddef>
#include <string>

namespace reduce_lab::grader {

// `value` through a printf `pattern` ("%.2fx"); value_text(): "%.9g".
std::string format(const char* pattern, double value);
std::string value_text(double value);

// Every line of `text` indented by two spaces.
std::string indented(const std::string& text);

bool is_power_of_two(std::size_t n);

}  // namespace reduce_lab::grader
