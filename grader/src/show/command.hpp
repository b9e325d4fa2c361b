// ./lab show's grader side (labtools --show, --show-docs): loads the student's lab and the
// reference's, records one small run of each on the emulator, and draws them in the terminal
// and as SVG. On a GPU build it says to use the emulator build, which ./lab show does.
#pragma once

#include <string>

#include <reduce_lab/abi.h>

namespace reduce_lab::grader::show {

//   labtools --show N --student DIR [--reference DIR] [--size n] [--svg FILE] [--note TEXT]
// DIR: a build's module folder. Prints the picture; writes the SVG when asked. Without a
// reference, the note says why (by default: this copy of the kit has no solutions/).
int show_command(int argc, char** argv);

//   labtools --show-docs OUT_DIR --reference DIR
// The reference's picture of every lab at its default size, as the lab pages show them.
int show_docs_command(int argc, char** argv);

// The docs' figure of lab `lab` (docs/figures/<its page's name>.svg), drawn from `reference`.
std::string docs_figure_file(int lab);
std::string docs_figure_svg(const ModuleInfo& reference);

}  // namespace reduce_lab::grader::show
