#include "measure/phase_times.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "base/process_status.hpp"

namespace reduce_lab::grader {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
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
    // What a test spends before its first phase (loading the grader and the lab, the GPU's
    // context, the gate's reading of verdicts) shows beside the phases.
    if (started_age_) {
      std::snprintf(figure, sizeof figure, ", which began %.2f s after the process did", *started_age_);
      text += figure;
    }
    return text;
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<const char*, double>> totals_;
  double started_ = now_seconds();
  std::optional<double> started_age_ = process_age(getpid());
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
