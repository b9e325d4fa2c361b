// The grader's environment, read in one place: every REDUCE_LAB_* variable the harness obeys is
// named, parsed and given its default here, once per process, so two readers cannot disagree on
// a name or a default (docs/grading.md, "Environment"). CTest sets most of them from the CMake
// build (cmake/ReduceLab.cmake, reduce_lab_test_environment); a person sets the rest to replay or
// tune a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace reduce_lab::grader {

struct Settings {
  // Where things are.
  std::string results_dir;      // REDUCE_LAB_RESULTS_DIR: each test's record; empty: none kept
  std::string emu_results_dir;  // REDUCE_LAB_EMU_RESULTS_DIR: the emulator's verdicts in a GPU grade
  bool emu_required = false;    // REDUCE_LAB_EMU_REQUIRED=1: a GPU speed test needs them (design §13)
  std::string emu_not_run;      // REDUCE_LAB_EMU_NOT_RUN: why a GPU grade has none ("Boost.Context missing")
  std::string baseline_results_dir;  // REDUCE_LAB_BASELINE_RESULTS_DIR: the broken-lab suite's reference verdicts
  std::string module_dir;       // REDUCE_LAB_MODULE_DIR: the built lab modules (".")
  std::string stub_dir;         // REDUCE_LAB_STUB_DIR: the stubs' modules, for the kit's own tests (".")
  std::string source_folder;    // REDUCE_LAB_SOURCE_FOLDER: the graded lab files ("labs" or "solutions")
  std::string source_root;      // REDUCE_LAB_SOURCE_ROOT: the kit's folder (".")
  std::string temp_dir;         // TMPDIR, else /tmp
  std::string points_file;      // REDUCE_LAB_POINTS: a points file other than grader/points.json
  std::string kit_version;      // REDUCE_LAB_KIT_VERSION: the version reports name, when set
  // Tools.
  std::string compute_sanitizer;    // REDUCE_LAB_COMPUTE_SANITIZER (CMake found it with the toolkit)
  std::string ncu;                  // REDUCE_LAB_NCU: Nsight Compute, for the speed test's cross-check
  std::string profiled_counts;      // REDUCE_LAB_PROFILED_COUNTS: the traffic test's counts from a shared ncu run
  std::string traffic_batch_early;  // REDUCE_LAB_TRAFFIC_BATCH_EARLY: that run's record, made as ./lab test built
  // Replaying a run.
  std::optional<std::uint64_t> seed;      // REDUCE_LAB_SEED: the inputs' seed
  std::optional<std::uint64_t> emu_seed;  // REDUCE_LAB_EMU_SEED: the emulator's thread order
  std::string profile_dtype;              // REDUCE_LAB_PROFILE_DTYPE: --profile's type (float)
  // Timing and its gates.
  int samples = 30;                       // REDUCE_LAB_SAMPLES (at least 20 are taken)
  std::size_t bench_n = 0;                // REDUCE_LAB_BENCH_N: the speed tests' size; 0: chosen
  std::optional<double> min_speedup;      // REDUCE_LAB_MIN_SPEEDUP: CMake's threshold of this lab
  std::optional<double> min_bandwidth;    // REDUCE_LAB_MIN_BANDWIDTH: its bandwidth gate, as a fraction
  // Time limits (limits.hpp derives them from the test's budget).
  double test_timeout = 0;                // REDUCE_LAB_TEST_TIMEOUT: CTest's limit for the test; 0: unknown
  std::optional<double> run_timeout;      // REDUCE_LAB_RUN_TIMEOUT: one call into a lab
  std::optional<double> emu_timeout;      // REDUCE_LAB_EMU_TIMEOUT: one emulated launch
  // Supervision (main.cpp, supervisor.hpp): set by the supervising parent for its child.
  bool supervised = false;                // REDUCE_LAB_SUPERVISED
  int supervisor_fd = -1;                 // REDUCE_LAB_SUPERVISOR_FD
};

// This process's settings, read from the environment on first use.
const Settings& settings();

// Sets (or, with no value, removes) an environment variable and reads the settings again: how
// the supervisor hands values to the process it starts, and how the kit's tests change them.
void set_environment(const char* name, const std::optional<std::string>& value);

}  // namespace reduce_lab::grader
