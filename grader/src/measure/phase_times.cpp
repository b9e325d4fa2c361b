#include "measure/phase_times.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

namespace reduce_lab::grader {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The phases in the order they first ended, with their summed seconds; printed at exit.
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
  ~PhaseTotals() {
    if (totals_.empty()) return;
    std::fprintf(stderr, "time by phase:");
    for (const auto& [name, seconds] : totals_) std::fprintf(stderr, " %s %.2f s;", name, seconds);
    std::fprintf(stderr, " %.2f s from the first phase to the end\n", now_seconds() - started_);
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<const char*, double>> totals_;
  double started_ = now_seconds();
};

PhaseTotals& totals() {
  static PhaseTotals instance;
  return instance;
}

}  // namespace

Phase::Phase(const char* name) : name_(name), start_(now_seconds()) { totals(); }

Phase::~Phase() { totals().add(name_, now_seconds() - start_); }

}  // namespace reduce_lab::grader
