#include "checks/timed_lab.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "checks/speed_check.hpp"
#include "measure/phase_times.hpp"

namespace reduce_lab::grader {

TimedInputs draw_timed_inputs(std::size_t n) {
  const Phase phase("inputs");
  TimedInputs inputs;
  for (int k = 0; k < kTimedInputs; ++k) {
    // Values in [-1, 1) from a different seed each. Not an offset range: an all-positive
    // input makes a correct lab's atomic accumulation (one add per block into a running
    // sum near n) err by more than the tree tolerance; the per-sample tweak (prepare) keeps
    // every sample's sum apart instead.
    inputs.host.push_back(make_input(Pattern::uniform, DType::f32, n, static_cast<unsigned>(k)));
  }
  // Each a long-double pass over 2^26 floats and more, which reference() shares among threads.
  for (const HostArray& host : inputs.host) inputs.references.push_back(reference(host, Op::sum));
  return inputs;
}

void upload_timed_inputs(TimedInputs& inputs) {
  for (const HostArray& host : inputs.host) {
    inputs.device.emplace_back(host.n, sizeof(float));
    inputs.device.back().upload(host.data(), host.n * sizeof(float));
  }
}

TimedLab::TimedLab(const ModuleInfo* module, TimedInputs& inputs, std::uint64_t seed, unsigned variant)
    : runner_(module, DType::f32, Op::sum, Flavor::counted, variant), inputs_(inputs), rng_(seed) {
  runner_.allocate_for_timing(inputs.host.front().n);
}

Contender TimedLab::contender(const std::string& name, L2Flush& flush) {
  return {name, [this, &flush] { prepare(flush); }, [this, name] { return timed(name); }};
}

void TimedLab::prepare(L2Flush& flush) {
  const int which = sample_ % kTimedInputs;
  const HostArray& host = inputs_.host[which];
  runner_.load(inputs_.device[which]);
  // One element, at a random place, gets a value that moves the sum by more than the
  // tolerance, and by more for every later sample: no two samples' results are alike.
  const Reference& base = inputs_.references[which];
  // Larger than four tolerances plus twice the distance between the inputs' own sums, so
  // no earlier sample's result (of either input) is within the tolerance of this one's.
  double spread = 0, largest_tolerance = 1.0;
  for (const Reference& other : inputs_.references) {
    spread = std::max(spread, std::fabs(other.value - base.value));
    largest_tolerance = std::max(largest_tolerance, tolerance(other, DType::f32, host.n));
  }
  const double step = 4 * largest_tolerance + 2 * spread;
  const double magnitude = step * (sample_ + 2);
  const float value = static_cast<float>((rng_() & 1) ? magnitude : -magnitude);
  const std::size_t index = std::uniform_int_distribution<std::size_t>(0, host.n - 1)(rng_);
  float old;
  std::memcpy(&old, static_cast<const char*>(host.data()) + index * sizeof(float), sizeof old);
  runner_.set_input_element(index, &value);
  if (sample_ > 0) earlier_.push_back(expected_);
  expected_ = base;
  expected_.value += static_cast<double>(value) - old;
  expected_.sum_abs += std::fabs(static_cast<double>(value)) - std::fabs(static_cast<double>(old));
  flush();
}

double TimedLab::timed(const std::string& name) {
  const double ms = time_device_ms([this] { runner_.enqueue(); });
  const RunOutcome outcome = runner_.finish();
  if (!outcome.ran) throw std::runtime_error(outcome.error);
  const std::size_t n = inputs_.host.front().n;
  const Comparison cmp = compare(outcome.value, expected_, DType::f32, n);
  if (!cmp.ok) {
    bool earlier = false;
    for (const Reference& before : earlier_) earlier = earlier || compare(outcome.value, before, DType::f32, n).ok;
    throw TimedWrong{name, sample_, cmp.text, earlier};
  }
  ++sample_;
  return ms;
}

}  // namespace reduce_lab::grader
