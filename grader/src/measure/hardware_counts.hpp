// The timed build's global-memory traffic as the GPU's own counters see it: Nsight Compute
// (ncu) runs one pass of the plain (timed) module, and its counts must match what the kit's
// counters saw in the counted build on the same size (design §13). Where ncu is missing or
// not permitted to read the counters (ERR_NVGPUCTRPERM on many machines), nothing is
// compared, and the caller says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <reduce_lab/abi.h>

#include "base/inputs.hpp"

namespace reduce_lab::grader {

struct HardwareCounts {
  bool measured = false;
  std::string why_not;  // when !measured (a part of a shared run: a count ncu could not read)
  // Summed over the lab's kernels (the kit's own fill kernel left out), by access kind.
  unsigned long long sectors[kAccessKinds] = {0, 0, 0};
  unsigned long long instructions[kAccessKinds] = {0, 0, 0};
};

// One run of this grader, with `arguments` (each passed as one word), under ncu: the counters of
// each of its parts (the kernels of each numbered range, measure/profile_part.hpp; a report
// without ranges is one part). A part whose kernels ncu never reported is left unmeasured.
struct ProfiledRun {
  std::string why_not;  // ncu could not run or read the counters: nothing was measured
  int exit_status = 0;  // the profiled program's (ncu passes it on); -1: ended by a signal
  std::string output;   // ncu's and the profiled program's, together
  std::vector<HardwareCounts> parts;
};
ProfiledRun profile_self(const std::vector<std::string>& arguments);
// The parts of ncu's CSV report `output` (--csv --print-units base), as profile_self() reads them.
ProfiledRun parse_profiled_output(const std::string& output);

// The whole reduction (labgrader --profile-all LAB N, a row lab's matrix ROWSxCOLUMNS) of the
// timed build under ncu, in a process of its own: host code that remembers earlier calls meets
// this one first.
HardwareCounts timed_build_counts(int lab, Shape shape);

// The kind whose figures differ by more than the compiler may explain, as a sentence, or
// nothing. `counted` is the counted build's whole reduction of the same n.
std::optional<std::string> traffic_difference(const HardwareCounts& timed, const Counters& counted);

}  // namespace reduce_lab::grader
