// The kit's own suite's ways into this program: the broken-lab runner, the count dump and the
// headless browser its picture tests render in. They are defined under grader/tests and
// compiled only into a self-test build (REDUCE_LAB_SELFTEST), where main.cpp calls them: a
// student's grader carries no test machinery it never runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace reduce_lab::grader {

// Writes the counts of every loaded lab (labs 1-3: one pass at every power of two to 2^20;
// labs 4-7: the traffic sizes, every type and op lab 7 has), one line per case, so that the
// emulator's counts can be compared with the GPU's line by line. Returns false on a fault.
bool dump_counts(const std::string& path);

// Dumps this backend's counts into `own_path` with the device shape recorded in the GPU's
// dump (lab 7 sizes its grid from it; the emulator then launches as that GPU did) and
// compares line by line, printing differences. Returns 0 equal, 1 different, 77 when
// `gpu_path` does not exist (nothing to compare with on this machine).
int compare_counts(const std::string& gpu_path, const std::string& own_path);

// The headless browser the staircase test renders SVG in: REDUCE_LAB_CHROMIUM, else chromium,
// chromium-browser or google-chrome on the PATH; empty when there is none.
std::string find_chromium();

namespace traffic_batch {

// labgrader --traffic-batch MANIFEST: each manifest line (ID, LAB, MODULE_DIR and OUT_FILE,
// separated by tabs; cmake/ReduceLab.cmake writes it) is a timed build whose traffic test reads
// OUT_FILE (REDUCE_LAB_PROFILED_COUNTS). Profiles them all at their compared shapes in one ncu
// run (again after any that fails there) and writes each one's counts. 0 when it ran (a build not
// profiled here is left to its own test), 77 when ncu cannot read the counters here.
int run(const std::string& manifest_path);

// ./lab test makes this run while the suite still builds (the target traffic_batch_early,
// cmake/ReduceLab.cmake): it needs only the grader and the timed builds, which are done before the
// counted builds, and the GPU, which the build leaves idle. Run after the build, alone, it had held
// every other test back for its 15 s. ./lab then names its record (REDUCE_LAB_TRAFFIC_BATCH_EARLY:
// RECORD.status, its exit status; RECORD.log, what it said) for that ctest run only, and run()
// reports it through this. The record is taken once (removed as it is read), so a later run of the
// suite (ctest -L broken) profiles again. Returns the early run's status where it ended 0 or 77
// (nothing to profile here); none where it did not run or ended otherwise: then run() profiles as
// it always has, and meets any failure itself.
std::optional<int> take_early_record(const std::string& record);

// labgrader --profile-batch LIST: the profiled process. Each line (DIR, LAB and SIZE, separated
// by tabs) is lab LAB's timed build from the module folder DIR, run on SIZE as --profile-all runs
// it, in a numbered range (measure/profile_part.hpp). Returns 1 at the first run that faults.
int profile(const std::string& list_path);

}  // namespace traffic_batch

namespace broken {

// labgrader --broken FILE BACKEND [--part all|verdicts|traffic|speed] [--check NAME COUNT ARG...]...:
// runs one case of the broken-lab suite (grader/tests/broken_suite.hpp), or one part of it (all
// but the speed test; the comparison of the timed build's traffic with the counted build's; or
// the speed test alone on what those parts recorded). Each --check group is
// the grader's argument list for that check as the lab's own CTest test has it
// (cmake/ReduceLab.cmake, reduce_lab_check_arguments). Returns the process status: 0 when every
// verdict met its expectation, 77 when the case expects nothing here, else 1.
int run_case(const std::vector<std::string>& arguments);

}  // namespace broken

}  // namespace reduce_lab::grader
