// What every check's messages share: the closing lines of a failure (the idea to revisit,
// the page to read, the picture to look at) and the two verdicts any check may give before it
// runs anything. The number formats are text.hpp's, included here for every check.
#pragma once

#include <cstddef>
#include <string>

#include "run/modules.hpp"
#include "base/text.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

// The closing lines of every failure: the idea the failure points to (`hint`, else the lab's
// own idea), and the page.
std::string doc_line(int lab, const std::string& hint);
std::string doc_line(int lab);

// A wrong or miscounted lab also points at its picture: what the kernel did, step by step,
// beside the reference's (./lab show, drawn from the emulator's record of a small run); in the
// variant that went wrong where the lab has variants (./lab show 9 --variant 8).
std::string picture_line(int lab, unsigned variant = 0);

// The standard "not implemented yet" / "does not compile" verdicts, shared by all checks.
Verdict not_loadable(int lab, const LoadedLab& loaded);
Verdict not_implemented(int lab, Origin origin);

}  // namespace reduce_lab::grader
