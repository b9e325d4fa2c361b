// One timed contender of a speed test (speed_check.hpp): a lab (one variant of it) that reduces
// one of kTimedInputs device copies a sample, each with one element changed at a random place,
// the L2 flushed before, and its result checked after the timed region.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "run/device.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "base/reference.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

struct TimedInputs {
  std::vector<HostArray> host;
  std::vector<Reference> references;
  std::vector<DeviceBuffer> device;
};

// kTimedInputs float inputs of n elements, each with its reference sum (device copies not yet made).
TimedInputs draw_timed_inputs(std::size_t n);
// Their device copies, each allocated once, outside every timed region.
void upload_timed_inputs(TimedInputs& inputs);

// Before each sample (untimed) it copies one of the inputs into the buffer the lab is given,
// changes one element at a random place, and flushes the L2; after each sample (untimed) it
// checks output[0] against that sample's own reference, throwing TimedWrong (speed_check.hpp)
// when it differs.
class TimedLab {
 public:
  TimedLab(const ModuleInfo* module, TimedInputs& inputs, std::uint64_t seed, unsigned variant = 0);

  Contender contender(const std::string& name, L2Flush& flush);

 private:
  void prepare(L2Flush& flush);
  double timed(const std::string& name);

  LabRunner runner_;
  TimedInputs& inputs_;
  std::mt19937_64 rng_;
  int sample_ = 0;
  Reference expected_;
  std::vector<Reference> earlier_;  // what the earlier samples' contents sum to
};

}  // namespace reduce_lab::grader
