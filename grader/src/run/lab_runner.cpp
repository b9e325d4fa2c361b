#include "run/lab_runner.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "base/catalog.hpp"
#include "base/faults.hpp"
#include "run/limits.hpp"
#include "run/modules.hpp"
#include "base/reference.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"
#include "run/supervision.hpp"

namespace reduce_lab::grader {

namespace {

// A lab stopped at the time limit in one test of a grade is not run again by the others (its
// speed test, its race check, the next lab's speed test): each would only wait out the limit
// once more, and on a GPU that time is the device's. The note lives beside the results, for
// the build of the lab that was stopped: a rebuilt lab runs again.
std::string stopped_note_path(int lab) {
  const std::string& dir = settings().results_dir;
  if (dir.empty()) return {};
  return dir + "/stopped/lab" + std::to_string(lab);
}

void note_stopped(int lab, const std::string& where) {
  const std::string path = stopped_note_path(lab);
  const std::string fingerprint = module_fingerprint(lab);
  if (path.empty() || fingerprint.empty()) return;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << fingerprint << "\n" << where << "\n";
    if (!out) return;
  }
  std::filesystem::rename(temporary, path, ignored);  // whole or not at all, for tests running beside it
}

// Where this build of the lab was stopped before, or nothing.
std::optional<std::string> stopped_before(int lab) {
  const std::string path = stopped_note_path(lab);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path);
  std::string fingerprint, where;
  if (!in || !std::getline(in, fingerprint) || !std::getline(in, where)) return std::nullopt;
  if (fingerprint != module_fingerprint(lab)) return std::nullopt;
  return where;
}

class WatchdogThread {
 public:
  static WatchdogThread& instance() {
    static WatchdogThread* watcher = new WatchdogThread;  // never destroyed: it may outlive main
    return *watcher;
  }

  void arm(int lab, std::string what, std::string where) {
    if (const std::optional<std::string> before = stopped_before(lab)) {
      // Ends the process as the limit would have, at once.
      stop(lab, "time limit: " + where,
           what + " was not run: " + lab_title(lab) + " did not finish within " + limit_text() +
               " (REDUCE_LAB_RUN_TIMEOUT) in an earlier test of this grade, on " + *before +
               ", so it was stopped there and is not waited for again.");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    lab_ = lab;
    what_ = std::move(what);
    where_ = std::move(where);
    const auto now = std::chrono::steady_clock::now();
    deadline_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                          std::chrono::duration<double>(limit_seconds_));
    note_at_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(note_after_seconds()));
    armed_ = true;
    changed_.notify_one();
  }

  void disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }

 private:
  WatchdogThread() : limit_seconds_(limits().call) { std::thread([this] { watch(); }).detach(); }

  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return armed_; });
      const auto deadline = deadline_;
      // A call that runs long says so before the limit ends it: a hanging kernel is otherwise
      // silent for a minute or more, and ./lab grade shows the note as it appears.
      if (note_at_ < deadline) {
        if (changed_.wait_until(lock, note_at_, [&] { return !armed_ || deadline_ != deadline; })) continue;
        note_progress(lab_title(lab_) + " at " + where_ + " has run for " + seconds_text(note_after_seconds()) +
                      "; still waiting: the time limit stops it after " + first_limit_text() + " at most.");
      }
      if (changed_.wait_until(lock, deadline, [&] { return !armed_ || deadline_ != deadline; })) continue;
      note_stopped(lab_, where_);
      stop(lab_, "time limit: " + where_,
           what_ + " did not finish within " + limit_text() + " (REDUCE_LAB_RUN_TIMEOUT), so it was stopped.");
    }
  }

  static std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f s", seconds);
    return text;
  }

  std::string limit_text() const { return seconds_text(limit_seconds_); }

  // The limit that stops a hanging call first: on the emulator, one launch's own limit
  // (REDUCE_LAB_EMU_TIMEOUT) when it is the shorter.
  std::string first_limit_text() const {
    std::string text = seconds_text(limit_seconds_) + " (REDUCE_LAB_RUN_TIMEOUT)";
#if defined(REDUCE_LAB_EMU)
    const double launch_seconds = limits().launch;
    if (launch_seconds < limit_seconds_) text = seconds_text(launch_seconds) + " per launch (REDUCE_LAB_EMU_TIMEOUT)";
#endif
    return text;
  }

  // When a call that has not returned is worth a note: long for a correct lab even on a busy
  // machine, well before any limit.
  double note_after_seconds() const { return limit_seconds_ > 45 ? 15.0 : limit_seconds_ / 3; }

  // The process ends here, with the kernel still running. Why goes to the supervising parent,
  // which turns the exit into the test's verdict (supervisor.hpp); the runner judges nothing.
  [[noreturn]] static void stop(int lab, const std::string& summary, const std::string& what) {
    const std::string message = what + "\nRevisit: " + fault_hint(FaultKind::time_limit) + " On the GPU, also " +
                                fault_hint(FaultKind::deadlock) + "\nRead: " + lab_info(lab).doc;
    // Unsupervised (./lab bench), the process says it itself, as the table would.
    if (!supervision::note_stop(summary, message))
      std::fprintf(stderr, "\nFAILED: %s\n%s\n", summary.c_str(), message.c_str());
    std::fflush(stderr);
    std::_Exit(kTimeLimitExit);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  std::chrono::steady_clock::time_point deadline_, note_at_;
  int lab_ = 1;
  std::string what_, where_;
  double limit_seconds_ = 30;
};

}  // namespace

std::string case_label(LabKind kind, DType dtype, Op op, std::size_t n, std::size_t rows, const std::string& variant) {
  const std::string size = kind == LabKind::rows ? shape_text({rows, n / rows}) : "n = " + std::to_string(n);
  const std::string ahead = variant.empty() ? std::string() : variant + ", ";
  if (kind == LabKind::multipass || kind == LabKind::single) return ahead + size;
  return ahead + dtype_name(dtype) + " " + op_name(op) + " " + size;
}

Watchdog::Watchdog(int lab, std::size_t n, std::string where) {
  WatchdogThread::instance().arm(lab, lab_title(lab) + " on " + std::to_string(n) + " elements", std::move(where));
}

Watchdog::~Watchdog() { WatchdogThread::instance().disarm(); }

LabRunner::LabRunner(const ModuleInfo* module, DType dtype, Op op, Flavor flavor, unsigned variant)
    : module_(module), dtype_(dtype), op_(op), variant_(variant),
      count_(module->counting != 0 && flavor == Flavor::counted), counters_(1, sizeof(Counters)) {}

std::string LabRunner::label(std::size_t n, std::size_t rows) const {
  return case_label(module_->kind, dtype_, op_, n, rows, variant_text(module_->lab, variant_));
}

void LabRunner::note_case(std::size_t n, std::size_t rows) const { supervision::note_case(label(n, rows)); }

RunOutcome LabRunner::reduce(const HostArray& input, bool first_pass_only) {
  RunOutcome outcome;
  const std::string title = lab_title(module_->lab);
  const bool multipass = module_->kind == LabKind::multipass;
  const std::size_t rows = module_->kind == LabKind::rows ? input.rows : 1;
  const bool count = count_;
  const std::size_t element = dtype_bytes(dtype_);
  const std::string label = this->label(input.n, rows);
  note_case(input.n, rows);
  try {
    // Everything up to the lab's run is queued without waiting for the device, and what it left
    // is read back with one wait (run/device.cpp says why).
    if (count) check(cudaMemsetAsync(counters_.data(), 0, sizeof(Counters)), "zeroing the counters");
    DeviceBuffer in(input.n, element);
    in.upload_queued(input.data(), input.n * element);
    std::size_t remaining = input.n;
    do {
      DeviceBuffer out(multipass ? std::max<std::size_t>(remaining / 2, 1) : rows, element);
      out.poison();
      Call call{};
      call.dtype = dtype_;
      call.op = op_;
      call.input = in.data();
      call.n = remaining / rows;
      call.rows = rows;
      call.output = out.data();
      call.output_capacity = out.count();
      call.device_counters = count ? static_cast<Counters*>(counters_.data()) : nullptr;
      call.synchronize = 1;
      call.variant = variant_;
      int status;
      {
        Watchdog watchdog(module_->lab, remaining, label);
        status = module_->run(&call);
      }
      outcome.passes += 1;
      outcome.launches.launches += call.launches.launches;
      outcome.launches.blocks += call.launches.blocks;
      outcome.launches.warps += call.launches.warps;
      outcome.todo = outcome.todo || call.todo != 0;
      outcome.variant_used = call.variant_used;
      if (status != 0) {
        outcome.error = call.error;
        return outcome;
      }
      if (!multipass) {
        in = std::move(out);
        break;
      }
      if (call.outputs_written == 0 || call.outputs_written >= remaining) {
        outcome.error = "the host code reduced " + std::to_string(remaining) + " values to " +
                        std::to_string(call.outputs_written) + ", so the passes would never end";
        return outcome;
      }
      remaining = call.outputs_written;
      if (remaining == out.count()) {
        in = std::move(out);
      } else {
        // The next pass gets exactly the values this one wrote, in an allocation of its own.
        DeviceBuffer exact(remaining, element);
        exact.copy_from(out);
        in = std::move(exact);
      }
    } while (remaining > 1 && !first_pass_only);
    std::vector<unsigned char> bytes(rows * element);
    std::vector<Readback> copies{{in.data(), bytes.data(), bytes.size()}};
    if (count) copies.push_back({counters_.data(), &outcome.counters, sizeof(Counters)});
    read_back(copies, "copying the result back from the device");
    outcome.values = values_of(bytes, rows);
    outcome.value = outcome.values.front();
    outcome.ran = true;
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  return outcome;
}

std::vector<double> LabRunner::read_values(const DeviceBuffer& buffer, std::size_t count) const {
  std::vector<unsigned char> bytes(count * dtype_bytes(dtype_));
  buffer.download(bytes.data(), bytes.size());
  return values_of(bytes, count);
}

std::vector<double> LabRunner::values_of(const std::vector<unsigned char>& bytes, std::size_t count) const {
  const std::size_t element = dtype_bytes(dtype_);
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = value_of(dtype_, bytes.data() + i * element);
  return values;
}

void LabRunner::allocate_for_timing(std::size_t n, std::size_t rows) {
  n_ = n;
  rows_ = module_->kind == LabKind::rows ? rows : 1;
  const bool multipass = module_->kind == LabKind::multipass;
  input_ = DeviceBuffer(n, dtype_bytes(dtype_));
  work_ = DeviceBuffer(multipass ? std::max<std::size_t>(n / 2, 1) : rows_, dtype_bytes(dtype_));
}

void LabRunner::load(const DeviceBuffer& source) {
  input_.copy_from(source);
  work_.poison();
}

void LabRunner::set_input_element(std::size_t index, const void* element) {
  input_.upload_at(index, element, 1);
}

void LabRunner::enqueue() { pending_ = run_timed_passes(); }

RunOutcome LabRunner::finish() { return finish_timed(true); }

RunOutcome LabRunner::finish_on_device() { return finish_timed(false); }

RunOutcome LabRunner::finish_timed(bool read) {
  RunOutcome outcome = pending_;
  if (!outcome.ran) return outcome;
  try {
    {
      Watchdog watchdog(module_->lab, n_, label(n_, rows_));
      check(cudaDeviceSynchronize(), "running the timed kernels");
    }
    if (read) {
      outcome.values = read_values(*result_, rows_);
      outcome.value = outcome.values.front();
    }
  } catch (const std::exception& e) {
    outcome.ran = false;
    outcome.error = e.what();
  }
  return outcome;
}

RunOutcome LabRunner::run_timed_passes() {
  RunOutcome outcome;
  note_case(n_, rows_);
  try {
    // Ping-pong: pass 1 reads the input and writes work_, pass 2 reads work_ and writes the
    // input's buffer, and so on (timing needs no exact allocations: it is checked beforehand).
    DeviceBuffer* in = &input_;
    DeviceBuffer* out = &work_;
    std::size_t remaining = n_;
    const bool multipass = module_->kind == LabKind::multipass;
    do {
      Call call{};
      call.dtype = dtype_;
      call.op = op_;
      call.input = in->data();
      call.n = remaining / rows_;
      call.rows = rows_;
      call.output = out->data();
      call.output_capacity = out->count();
      call.synchronize = 0;
      call.variant = variant_;
      int status;
      {
        Watchdog watchdog(module_->lab, remaining, label(n_, rows_));
        status = module_->run(&call);
      }
      outcome.passes += 1;
      outcome.launches.launches += call.launches.launches;
      outcome.todo = outcome.todo || call.todo != 0;
      outcome.variant_used = call.variant_used;
      if (status != 0) {
        outcome.error = call.error;
        return outcome;
      }
      if (!multipass) break;
      if (call.outputs_written == 0 || call.outputs_written >= remaining) {
        outcome.error = "the host code reduced " + std::to_string(remaining) + " values to " +
                        std::to_string(call.outputs_written) + ", so the passes would never end";
        return outcome;
      }
      remaining = call.outputs_written;
      std::swap(in, out);
    } while (remaining > 1);
    result_ = multipass ? in : out;
    outcome.ran = true;
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  return outcome;
}

}  // namespace reduce_lab::grader
