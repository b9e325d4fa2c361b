// Where the lab's own calls of one profiled run begin and end, for Nsight Compute: an NVTX range
// around them. The kit's ncu command profiles only kernels inside such a range (and not the
// kit's fill kernel), so neither the grader's own work nor anything between the parts costs a
// profiled kernel: each costs about 0.25 s with the kit's metrics on an H200, whatever its size,
// which made the marker kernels this replaced a third of the suite's shared run. The range's
// number is the part's, so one run of several labs (tests/traffic_batch.cpp) is read apart.
// Without a profiler attached, NVTX calls do nothing.
#pragma once

#include <string>

namespace reduce_lab::grader {

// The ranges' names: this prefix and the part's number (0, 1, ...). ncu's filter and the reading
// of its report (hardware_counts.cpp) both use it.
inline constexpr const char* kProfilePartPrefix = "reduce_lab_part_";

// The lab's calls of part `part` while it lives.
class ProfilePart {
 public:
  explicit ProfilePart(unsigned part);
  ~ProfilePart();
  ProfilePart(const ProfilePart&) = delete;
  ProfilePart& operator=(const ProfilePart&) = delete;
};

}  // namespace reduce_lab::grader
