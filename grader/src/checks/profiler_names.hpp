// The profilers' names for what the kit counts: for each figure a course's sources read in nvprof
// (a CUDA tutorial series measures its reductions with gld_efficiency, inst_per_warp ...), the
// Nsight Compute metric that replaced it, and the kit's own figure of the same run where it counts
// the same thing (docs/11-neighbored-less.md checks them against Nsight Compute on an H200).
#pragma once

#include <string>

#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

// A table, one line per metric: nvprof's name, Nsight Compute's, and the kit's figure (or why it
// has none), for one counted run of `warps` warps.
std::string profiler_names_text(const Counters& c, unsigned long long warps);

}  // namespace reduce_lab::grader
