// Runs one loaded lab on the device: uploads an input, repeats passes for the multipass
// labs, poisons outputs, counts, and turns every fault into a message.
//
// Every checked run allocates exactly what the call may touch, each in its own cudaMalloc:
// n input elements, and as outputs max(n/2, 1) values for a pass of a multipass lab or the
// one value output[0] of the other labs (a row lab: one value per row). A read past n is then past the end of an
// allocation, which the emulator and compute-sanitizer memcheck report as out of bounds at
// the first size where it happens, instead of reading what an earlier case left there.
#pragma once

#include <string>
#include <vector>

#include "run/device.hpp"
#include "base/inputs.hpp"
#include "run/modules.hpp"

namespace reduce_lab::grader {

struct RunOutcome {
  bool ran = false;          // no fault: the value is what the lab computed
  std::string error;         // the fault, when !ran
  bool todo = false;         // the kernel still runs REDUCE_LAB_TODO()
  double value = 0;          // output[0] after the last pass
  std::vector<double> values;  // row labs: output[r] of every row r
  Counters counters{};       // counting flavours only
  LaunchStats launches{};
  unsigned passes = 0;
  unsigned variant_used = 0;  // the variant the module ran (Call::variant_used: lab 10's chosen factor)
};

// Threads in each block of a launch, from its warps (a block of whole warps, as every lab's is).
inline unsigned threads_per_block(const LaunchStats& launches) {
  return launches.blocks ? static_cast<unsigned>(launches.warps * 32 / launches.blocks) : 0;
}

// How a case is named in summaries: "n = 31", or "float max n = 31" for a lab that takes
// every type and op, "float max 70000 x 3" for a row lab (n elements in `rows` rows), with a
// variant's text ahead where the lab has variants: "K = 4, n = 31".
std::string case_label(LabKind kind, DType dtype, Op op, std::size_t n, std::size_t rows = 1,
                       const std::string& variant = std::string());

class LabRunner {
 public:
  // A counted runner adds up the counters of a counting module; a plain one does not (on the
  // emulator that is what its correctness runs are: checked for races between blocks, not
  // counted, docs/emulator.md).
  // `variant` goes to the module with every call (Call::variant: lab 9's fan-in K; 0 for the
  // module's first, and for every lab without variants).
  LabRunner(const ModuleInfo* module, DType dtype, Op op, Flavor flavor = Flavor::counted, unsigned variant = 0);

  // Reduces `input` to one value in exact allocations, checking every pass (a row lab: each
  // of input.rows rows to one value).
  // `first_pass_only` stops after one call (the counters of labs 1-3 are graded on one pass).
  RunOutcome reduce(const HostArray& input, bool first_pass_only = false);

  // Timing. allocate_for_timing() makes the buffers once, outside any timed region; load()
  // copies a device input into the buffer the lab is given (the same address every time:
  // labs 1-2 overwrite it) and poisons the outputs; enqueue() issues every pass without
  // waiting; finish() waits and reads output[0].
  void allocate_for_timing(std::size_t n, std::size_t rows = 1);
  void load(const DeviceBuffer& source);
  // Overwrites one element of the loaded input (bytes of the runner's type).
  void set_input_element(std::size_t index, const void* element);
  void enqueue();
  RunOutcome finish();
  // As finish(), but the results stay on the device (timed_result(), one per row): a row lab's
  // millions of rows are checked there (measure/row_check.hpp).
  RunOutcome finish_on_device();
  const DeviceBuffer& timed_result() const { return *result_; }
  // The loaded input on the device, for timing another reduction of the same buffer.
  const void* timed_input() const { return input_.data(); }

 private:
  RunOutcome run_timed_passes();
  RunOutcome finish_timed(bool read);
  void note_case(std::size_t n, std::size_t rows) const;
  std::string label(std::size_t n, std::size_t rows) const;
  // The first `count` values of a device buffer of the runner's type.
  std::vector<double> read_values(const DeviceBuffer& buffer, std::size_t count) const;
  std::vector<double> values_of(const std::vector<unsigned char>& bytes, std::size_t count) const;

  const ModuleInfo* module_;
  DType dtype_;
  Op op_;
  unsigned variant_;
  bool count_;
  std::size_t n_ = 0;
  std::size_t rows_ = 1;
  DeviceBuffer input_, work_, counters_;
  const DeviceBuffer* result_ = nullptr;  // where the last timed pass left output[0]
  RunOutcome pending_;
};

// Stops the process when a lab call takes longer than the limit (limits.hpp): a kernel that
// never finishes must fail its own test with a reason, not hang the grade. It tells the
// supervising parent why (`time limit: <where>` and the story) and exits with 124; the parent
// records that as the test's verdict (supervisor.hpp). One thread per process watches; arming
// it costs a lock, so it may sit inside timed regions.
class Watchdog {
 public:
  // Arms for a call of lab `lab` on n elements; `where` is the case label for the summary.
  Watchdog(int lab, std::size_t n, std::string where);
  ~Watchdog();  // disarms
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
};

// The exit status of a process stopped for taking too long (the watchdog's, the emulator's).
constexpr int kTimeLimitExit = 124;

}  // namespace reduce_lab::grader
