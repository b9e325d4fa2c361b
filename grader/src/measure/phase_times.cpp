#include "measure/phase_times.hpp"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace reduce_lab::grader {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds since this process started (the kernel's record, to 1/100 s), or -1: what a test
// spends before its first phase (loading the grader and the lab, the GPU's context, the gate's
// reading of verdicts) shows beside the phases.
double process_age() {
  std::ifstream file("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');  // the name may hold spaces and parentheses
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  // After the name: state is field 3, starttime field 22.
  for (int index = 3; index < 22 && (fields >> field); ++index) {
  }
  unsigned long long start_ticks = 0;
  if (!(fields >> start_ticks)) return -1;
  timespec boot{};
  if (clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return -1;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return static_cast<double>(boot.tv_sec) + boot.tv_nsec / 1e9 - static_cast<double>(start_ticks) / ticks;
}

// The phases in the order they first ended, with their summed seconds; line() is grade()'s.
class PhaseTotals {
 public:
  void add(const char* name, double seconds) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [known, total] : totals_)
      if (std::strcmp(known, name) == 0) {
        total += seconds;
        return;
      }
    totals_.emplace_back(name, seconds);
  }
  std::string line() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (totals_.empty()) return std::string();
    std::string text = "time by phase:";
    char figure[64];
    for (const auto& [name, seconds] : totals_) {
      std::snprintf(figure, sizeof figure, " %.2f s;", seconds);
      text += " " + std::string(name) + figure;
    }
    std::snprintf(figure, sizeof figure, " %.2f s from the first phase's start", now_seconds() - started_);
    text += figure;
    if (started_age_ >= 0) {
      std::snprintf(figure, sizeof figure, ", which began %.2f s after the process did", started_age_);
      text += figure;
    }
    return text;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<const char*, double>> totals_;
  double started_ = now_seconds();
  double started_age_ = process_age();
};

PhaseTotals& totals() {
  static PhaseTotals instance;
  return instance;
}

}  // namespace

Phase::Phase(const char* name) : name_(name), start_(now_seconds()) { totals(); }

Phase::~Phase() { totals().add(name_, now_seconds() - start_); }

std::string phase_times_line() { return totals().line(); }

}  // namespace reduce_lab::grader
