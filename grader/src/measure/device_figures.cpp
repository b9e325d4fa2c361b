#include "measure/device_figures.hpp"

#include <utility>

#include "run/device.hpp"
#if defined(REDUCE_LAB_HAVE_CUB)
#include "measure/cub_baseline.hpp"
#endif

namespace reduce_lab::grader {

Timed time_samples(int samples, const std::function<void()>& prepare, const std::function<void()>& run,
                   const std::function<bool()>& verify) {
  Timed timed;
  const Contender contender{"", prepare, [&] {
                              const double ms = time_device_ms(run);
                              if (!verify()) timed.wrong = true;
                              return ms;
                            }};
  timed.ms = std::move(take_samples({&contender}, samples).front());
  return timed;
}

#if defined(REDUCE_LAB_HAVE_CUB)
nlohmann::json time_cub(const DeviceBuffer& input, std::size_t n, const Reference& ref, L2Flush& flush, int samples) {
  CubSum cub(n);
  DeviceBuffer output(1, sizeof(float));
  auto run = [&] { cub.enqueue(static_cast<const float*>(input.data()), static_cast<float*>(output.data()), n); };
  auto verify = [&] {
    float value = 0;
    output.download(&value, sizeof value);
    return compare(value, ref, DType::f32, n).ok;
  };
  const Timed timed = time_samples(samples, [&] { flush(); }, run, verify);
  nlohmann::json figures = sample_figures(timed.ms, 4.0 * static_cast<double>(n));
  figures["ok"] = !timed.wrong;
  return figures;
}
#endif

nlohmann::json measure_device(std::size_t n, int samples) {
  const DeviceFacts facts = device_facts();
  nlohmann::json device = {{"name", facts.name},
                           {"multiprocessors", facts.multiprocessors},
                           {"l2_bytes", facts.l2_bytes},
                           {"total_bytes", facts.total_bytes},
                           {"n", n},
                           {"samples", samples}};
  device["copy_gbs"] = copy_bandwidth(n * sizeof(float), samples) / 1e9;
#if defined(REDUCE_LAB_HAVE_CUB)
  const HostArray input = make_input(Pattern::uniform, DType::f32, n);
  DeviceBuffer staged(n, sizeof(float));
  staged.upload(input.data(), n * sizeof(float));
  L2Flush flush;
  device["cub"] = time_cub(staged, n, reference(input, Op::sum), flush, samples);
#else
  device["cub"] = nullptr;
#endif
  return device;
}

}  // namespace reduce_lab::grader
