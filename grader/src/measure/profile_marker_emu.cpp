// No profiler reads the emulator's runs: Nsight Compute profiles only a GPU build, so there is
// no part to mark here.
#include "measure/profile_marker.hpp"

namespace reduce_lab::grader {

void mark_profile_part(unsigned /*part*/) {}

}  // namespace reduce_lab::grader
