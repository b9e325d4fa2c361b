// Runs one loaded lab on the device: uploads an input, repeats passes for the multipass
// labs, poisons outputs, counts, and turns every fault into a message.
#pragma once

#include <string>

#include "device.hpp"
#include "inputs.hpp"
#include "modules.hpp"

namespace reduce_lab::grader {

struct RunOutcome {
  bool ran = false;          // no fault: the value is what the lab computed
  std::string error;         // the fault, when !ran
  bool todo = false;         // the kernel still runs REDUCE_LAB_TODO()
  double value = 0;          // output[0] after the last pass
  Counters counters{};       // counting flavours only
  LaunchStats launches{};
  unsigned passes = 0;
};

class LabRunner {
 public:
  // Buffers for inputs of up to `capacity` elements of `dtype`.
  LabRunner(const ModuleInfo* module, DType dtype, Op op, std::size_t capacity);

  // Reduces `input` to one value, checking every pass. `first_pass_only` stops after one
  // call (the counters of labs 1-3 are graded on one pass).
  RunOutcome reduce(const HostArray& input, bool first_pass_only = false);

  // Timing: stage() copies the input in (before the timed region; labs 1-2 overwrite it),
  // enqueue() issues every pass without waiting, finish() waits and reads the value.
  void stage(const HostArray& input);
  void restore();
  void enqueue();
  RunOutcome finish();
  // The staged input on the device (read-only), for timing another reduction beside the lab.
  const void* staged_input() const { return pristine_.data(); }

 private:
  RunOutcome run_passes(bool synchronize, bool count, bool first_pass_only);

  const ModuleInfo* module_;
  DType dtype_;
  Op op_;
  std::size_t n_ = 0;
  DeviceBuffer pristine_, work_a_, work_b_, counters_;
  RunOutcome pending_;
};

// Stops the process with a message when a lab call takes longer than the limit: a kernel
// that never finishes must fail its own test with a reason, not hang the grade. One thread
// per process watches; arming it costs a lock, so it may sit inside timed regions.
class Watchdog {
 public:
  explicit Watchdog(std::string what);  // arms
  ~Watchdog();                          // disarms
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
};

}  // namespace reduce_lab::grader
