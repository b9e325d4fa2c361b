// The device's own figures, measured once per GPU grade (device.bandwidth) and again by ./lab
// bench: the copy bandwidth and cub::DeviceReduce::Sum at the speed tests' size, the
// staircase's reference lines. CUB is there only in GPU builds (REDUCE_LAB_HAVE_CUB).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/inputs.hpp"
#include "base/reference.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

// device.json: name, memory, "copy_gbs", and "cub" (sample figures, "ok" when CUB's sum was
// right) for n floats, `samples` samples each.
nlohmann::json measure_device(std::size_t n, int samples);

// Times `run` (which enqueues device work) `samples` times after warm-ups, each sample after
// `prepare` (untimed); `verify` checks the result of every run and returns false when wrong.
struct Timed {
  std::vector<double> ms;
  bool wrong = false;
};
Timed time_samples(int samples, const std::function<void()>& prepare, const std::function<void()>& run,
                   const std::function<bool()>& verify);

#if defined(REDUCE_LAB_HAVE_CUB)
// CUB's sum of `input` (n floats on the device), timed; its result is checked against `ref`.
nlohmann::json time_cub(const DeviceBuffer& input, std::size_t n, const Reference& ref, L2Flush& flush, int samples);
#endif

}  // namespace reduce_lab::grader
