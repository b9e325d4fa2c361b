// The picture as a standalone SVG page (any browser opens it): the same rows and columns as the
// terminal (drawing.hpp decides both), with each cell's use and value in its tooltip, the
// per-step counts at the right of each row, and the first difference outlined and named.
// Elements a test reads carry classes: text.step-label, text.panel-title, rect.cell,
// rect.difference, text.difference, text.stop; a row lab's matrix text.row-label,
// rect.matrix-cell and rect.result-cell (with class again: more than once, never: not at all),
// and rect.again-hatch, the hatch over an again cell.
#pragma once

#include <string>

#include "show/drawing.hpp"

namespace reduce_lab::grader::show {

std::string svg(const Drawing& drawing);

}  // namespace reduce_lab::grader::show
