// The picture in a terminal: Unicode cells, ANSI colour when `colour` (NO_COLOR and a pipe turn
// it off: charts.hpp colour_wanted()), no line wider than `width` columns. The reference and
// the student's pictures sit side by side where both fit, one above the other where not.
#pragma once

#include <string>

#include "show/drawing.hpp"

namespace reduce_lab::grader::show {

std::string terminal(const Drawing& drawing, bool colour, unsigned width = 100);

}  // namespace reduce_lab::grader::show
