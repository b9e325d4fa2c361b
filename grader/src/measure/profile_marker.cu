#include "measure/profile_marker.hpp"

#include <cuda_runtime.h>

#include <reduce_lab/check.h>

// Outside any namespace, so that ncu's report names it as kProfileMarkerName reads.
__global__ void reduce_lab_profile_marker() {}

namespace reduce_lab::grader {

void mark_profile_part(unsigned part) {
  reduce_lab_profile_marker<<<part + 1, 1>>>();
  check(cudaGetLastError(), "launching the profiled run's marker");
  check(cudaDeviceSynchronize(), "waiting for the profiled run's marker");
}

}  // namespace reduce_lab::grader
