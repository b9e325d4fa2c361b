// A kernel that does nothing, launched between the parts of one profiled run so that Nsight
// Compute's report says where each part begins. Starting ncu costs about two seconds a process
// on an H200, whatever it profiles (lab 4 at 2^26 and at 4096 floats: 2.5 s and 2.3 s, against
// 0.5 s unprofiled), so the kit's suite profiles the timed builds of all its labs and broken
// cases in one process (tests/traffic_batch.cpp) and tells their kernels apart by these marks.
#pragma once

namespace reduce_lab::grader {

// The marker kernel's name, as ncu reports it (hardware_counts.cpp reads it).
inline constexpr const char* kProfileMarkerName = "reduce_lab_profile_marker";

// Launches the marker of part `part` (0, 1, ...): its grid is part + 1 blocks of one thread, and
// it touches no memory. Waits for it, so that any earlier launch's error is named here.
void mark_profile_part(unsigned part);

}  // namespace reduce_lab::grader
