#include "base/settings.hpp"

#include <cstdlib>
#include <memory>

namespace reduce_lab::grader {

namespace {

std::string text(const char* name, const char* fallback = "") {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

std::optional<double> number(const char* name) {
  const std::string value = text(name);
  if (value.empty()) return std::nullopt;
  return std::atof(value.c_str());
}

// Seeds are printed in decimal (inputs) or hexadecimal (thread order); base 0 reads both.
std::optional<std::uint64_t> seed(const char* name, int base) {
  const std::string value = text(name);
  if (value.empty()) return std::nullopt;
  return std::strtoull(value.c_str(), nullptr, base);
}

Settings read_settings() {
  Settings s;
  s.results_dir = text("REDUCE_LAB_RESULTS_DIR");
  s.emu_results_dir = text("REDUCE_LAB_EMU_RESULTS_DIR");
  s.emu_required = text("REDUCE_LAB_EMU_REQUIRED") == "1";
  s.emu_not_run = text("REDUCE_LAB_EMU_NOT_RUN");
  s.baseline_results_dir = text("REDUCE_LAB_BASELINE_RESULTS_DIR");
  s.module_dir = text("REDUCE_LAB_MODULE_DIR", ".");
  s.stub_dir = text("REDUCE_LAB_STUB_DIR", ".");
  s.source_folder = text("REDUCE_LAB_SOURCE_FOLDER", "labs");
  s.source_root = text("REDUCE_LAB_SOURCE_ROOT", ".");
  s.temp_dir = text("TMPDIR", "/tmp");
  s.points_file = text("REDUCE_LAB_POINTS");
  s.kit_version = text("REDUCE_LAB_KIT_VERSION");
  s.compute_sanitizer = text("REDUCE_LAB_COMPUTE_SANITIZER");
  s.ncu = text("REDUCE_LAB_NCU");
  s.profiled_counts = text("REDUCE_LAB_PROFILED_COUNTS");
  s.traffic_batch_early = text("REDUCE_LAB_TRAFFIC_BATCH_EARLY");
  s.seed = seed("REDUCE_LAB_SEED", 10);
  s.emu_seed = seed("REDUCE_LAB_EMU_SEED", 0);
  s.profile_dtype = text("REDUCE_LAB_PROFILE_DTYPE");
  if (const std::optional<double> samples = number("REDUCE_LAB_SAMPLES")) s.samples = static_cast<int>(*samples);
  if (const std::optional<std::uint64_t> n = seed("REDUCE_LAB_BENCH_N", 10)) s.bench_n = *n;
  s.min_speedup = number("REDUCE_LAB_MIN_SPEEDUP");
  s.min_bandwidth = number("REDUCE_LAB_MIN_BANDWIDTH");
  s.test_timeout = number("REDUCE_LAB_TEST_TIMEOUT").value_or(0);
  s.run_timeout = number("REDUCE_LAB_RUN_TIMEOUT");
  s.emu_timeout = number("REDUCE_LAB_EMU_TIMEOUT");
  s.supervised = !text("REDUCE_LAB_SUPERVISED").empty();
  if (const std::optional<double> fd = number("REDUCE_LAB_SUPERVISOR_FD")) s.supervisor_fd = static_cast<int>(*fd);
  return s;
}

std::unique_ptr<Settings>& current() {
  static std::unique_ptr<Settings> settings;
  return settings;
}

}  // namespace

const Settings& settings() {
  if (!current()) current() = std::make_unique<Settings>(read_settings());
  return *current();
}

void set_environment(const char* name, const std::optional<std::string>& value) {
  if (value)
    setenv(name, value->c_str(), 1);
  else
    unsetenv(name);
  current() = std::make_unique<Settings>(read_settings());
}

}  // namespace reduce_lab::grader
