#include "lab_runner.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "catalog.hpp"
#include "reference.hpp"

namespace reduce_lab::grader {

namespace {

class WatchdogThread {
 public:
  static WatchdogThread& instance() {
    static WatchdogThread* watcher = new WatchdogThread;  // never destroyed: it may outlive main
    return *watcher;
  }

  void arm(std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = std::move(what);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                        std::chrono::duration<double>(limit_seconds_));
    armed_ = true;
    changed_.notify_one();
  }

  void disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }

 private:
  WatchdogThread() {
    const char* text = std::getenv("REDUCE_LAB_RUN_TIMEOUT");
#if defined(REDUCE_LAB_EMU)
    limit_seconds_ = text ? std::atof(text) : 300.0;
#else
    limit_seconds_ = text ? std::atof(text) : 30.0;
#endif
    std::thread([this] { watch(); }).detach();
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return armed_; });
      const auto deadline = deadline_;
      if (changed_.wait_until(lock, deadline, [&] { return !armed_ || deadline_ != deadline; })) continue;
      std::fprintf(stderr,
                   "\nFAILED: %s did not finish within %.0f s, so it was stopped.\n"
                   "A kernel that never ends usually waits at a __syncthreads() that some threads of the\n"
                   "block never reach (one inside an if), or loops on a condition that never changes.\n",
                   what_.c_str(), limit_seconds_);
      std::fflush(stderr);
      std::_Exit(1);
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::string what_;
  double limit_seconds_ = 30;
};

}  // namespace

Watchdog::Watchdog(std::string what) { WatchdogThread::instance().arm(std::move(what)); }

Watchdog::~Watchdog() { WatchdogThread::instance().disarm(); }

LabRunner::LabRunner(const ModuleInfo* module, DType dtype, Op op, std::size_t capacity)
    : module_(module),
      dtype_(dtype),
      op_(op),
      pristine_(capacity, dtype_bytes(dtype)),
      work_a_(capacity, dtype_bytes(dtype)),
      // A pass of a multipass lab writes at most half its input; the single-launch labs
      // write output[0]; the rest is room for a lab that writes past it to be caught poisoned.
      work_b_(std::max<std::size_t>(capacity / 2, 32), dtype_bytes(dtype)),
      counters_(1, sizeof(Counters)) {}

void LabRunner::stage(const HostArray& input) {
  n_ = input.n;
  pristine_.upload(input.data(), input.n * dtype_bytes(dtype_));
}

void LabRunner::restore() { work_a_.copy_from(pristine_); }

RunOutcome LabRunner::reduce(const HostArray& input, bool first_pass_only) {
  stage(input);
  restore();
  return run_passes(true, module_->counting != 0, first_pass_only);
}

void LabRunner::enqueue() { pending_ = run_passes(false, false, false); }

RunOutcome LabRunner::finish() {
  RunOutcome outcome = pending_;
  if (!outcome.ran) return outcome;
  cudaError_t status;
  {
    Watchdog watchdog(lab_title(module_->lab) + " on " + std::to_string(n_) + " elements");
    status = cudaDeviceSynchronize();
  }
  if (status != cudaSuccess) {
    outcome.ran = false;
    outcome.error = std::string("the kernels failed: ") + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    return outcome;
  }
  return outcome;
}

RunOutcome LabRunner::run_passes(bool synchronize, bool count, bool first_pass_only) {
  RunOutcome outcome;
  const std::string title = lab_title(module_->lab);
  try {
    if (count) check(cudaMemset(counters_.data(), 0, sizeof(Counters)), "zeroing the counters");
    DeviceBuffer* in = &work_a_;
    DeviceBuffer* out = &work_b_;
    std::size_t remaining = n_;
    const bool multipass = module_->kind == LabKind::multipass;
    do {
      if (synchronize) out->poison();
      Call call{};
      call.dtype = dtype_;
      call.op = op_;
      call.input = in->data();
      call.n = remaining;
      call.output = out->data();
      call.output_capacity = out->count();
      call.device_counters = count ? static_cast<Counters*>(counters_.data()) : nullptr;
      call.synchronize = synchronize ? 1 : 0;
      int status;
      {
        Watchdog watchdog(title + " on " + std::to_string(remaining) + " elements");
        status = module_->run(&call);
      }
      outcome.passes += 1;
      outcome.launches.launches += call.launches.launches;
      outcome.launches.blocks += call.launches.blocks;
      outcome.launches.warps += call.launches.warps;
      outcome.todo = outcome.todo || call.todo != 0;
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
    } while (remaining > 1 && !first_pass_only);
    const DeviceBuffer& result = multipass ? *in : *out;
    if (synchronize) {
      unsigned char element[8] = {};
      result.download(element, dtype_bytes(dtype_));
      outcome.value = value_of(dtype_, element);
      if (count) counters_.download(&outcome.counters, sizeof(Counters));
    }
    outcome.ran = true;
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  return outcome;
}

}  // namespace reduce_lab::grader
