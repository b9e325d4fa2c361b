// Every counter of every lab at the sizes its graders use (the plans of kit.cpp), one line
// per case, so that the emulator's counts can be compared with the GPU's line by line.
#pragma once

#include <string>

namespace reduce_lab::grader {

// Writes the counts of every loaded lab (labs 1-3: one pass at every power of two to 2^20;
// labs 4-7: the traffic sizes, every type and op lab 7 has). Returns false on a fault.
bool dump_counts(const std::string& path);

// Dumps this backend's counts into `own_path` with the device shape recorded in the GPU's
// dump (lab 7 sizes its grid from it; the emulator then launches as that GPU did) and
// compares line by line, printing differences. Returns 0 equal, 1 different, 77 when
// `gpu_path` does not exist (nothing to compare with on this machine).
int compare_counts(const std::string& gpu_path, const std::string& own_path);

}  // namespace reduce_lab::grader
