// A traffic test's Nsight Compute counts, measured ahead of it in a run shared with other builds
// (the kit's suite: tests/traffic_batch.cpp), handed over in a file. A profiled process costs
// about a second more than the kernels it profiles (docs/instructors.md), and the suite's GPU
// tree has some forty traffic tests that otherwise take ncu's turns one after another.
//
// The file names the module it measured by its bytes: a test takes the counts only for the very
// module it would have profiled itself, at the shapes it compares; for any other it runs ncu as
// before. A test takes the file once (it is removed as it is read), so counts are never read by
// a later run.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/inputs.hpp"
#include "measure/hardware_counts.hpp"

namespace reduce_lab::grader {

// The bytes of the file at `path` summed up ("size:hash"); empty when it cannot be read.
std::string file_digest(const std::string& path);

// Writes the counts of the timed module at `module_path`, at each shape, to `path`.
void write_profiled_counts(const std::string& path, const std::string& module_path,
                           const std::vector<std::pair<Shape, HardwareCounts>>& counts);

// The counts handed to lab `lab`'s traffic test (REDUCE_LAB_PROFILED_COUNTS), by shape
// (profile_size()), when they were measured on this build's timed module of the lab as it is now;
// else none. The file is removed either way.
std::map<std::string, HardwareCounts> take_profiled_counts(int lab);

}  // namespace reduce_lab::grader
