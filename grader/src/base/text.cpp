#include "base/text.hpp"

#include <cstdio>

namespace reduce_lab::grader {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string value_text(double value) { return format("%.9g", value); }

std::string indented(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

bool is_power_of_two(std::size_t n) { return n >= 1 && (n & (n - 1)) == 0; }

}  // namespace reduce_lab::grader
