#include "measure/timing.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "measure/cache_flush.hpp"
#include "measure/phase_times.hpp"
#include "base/settings.hpp"

namespace reduce_lab::grader {

double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const std::size_t mid = samples.size() / 2;
  return samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
}

L2Flush::L2Flush() : scratch_(std::max<std::size_t>(2 * device_facts().l2_bytes, 1 << 20) / 16 * 16, 1), sink_(1, 4) {
  // Written once, here: the flushes only read it.
  check(cudaMemset(scratch_.data(), 0, scratch_.bytes()), "clearing the L2 flush buffer");
}

void L2Flush::operator()() { read_through_cache(scratch_.data(), scratch_.bytes(), sink_.data()); }

double time_device_ms(const std::function<void()>& work) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "creating a timing event");
  check(cudaEventCreate(&stop), "creating a timing event");
  float ms = 0;
  try {
    check(cudaEventRecord(start), "recording the start event");
    work();
    check(cudaEventRecord(stop), "recording the stop event");
    check(cudaEventSynchronize(stop), "waiting for the timed kernels");
    check(cudaEventElapsedTime(&ms, start, stop), "reading the elapsed time");
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

std::vector<std::vector<double>> take_samples(const std::vector<const Contender*>& contenders, int samples,
                                              int warmups) {
  const Phase phase("samples");
  std::vector<std::vector<double>> ms(contenders.size());
  for (int i = 0; i < warmups + samples; ++i)
    for (std::size_t c = 0; c < contenders.size(); ++c) {
      contenders[c]->prepare();
      const double t = contenders[c]->timed();
      if (i >= warmups) ms[c].push_back(t);
    }
  return ms;
}

Duel interleave(const Contender& a, const Contender& b, int samples, int warmups) {
  std::vector<std::vector<double>> ms = take_samples({&a, &b}, samples, warmups);
  Duel duel;
  duel.a_ms = std::move(ms[0]);
  duel.b_ms = std::move(ms[1]);
  duel.a_median = median(duel.a_ms);
  duel.b_median = median(duel.b_ms);
  return duel;
}

std::vector<Duel> duels_until(const Contender& a, const Contender& b, double min_ratio, int samples, int most) {
  std::vector<Duel> duels;
  do {
    duels.push_back(interleave(a, b, samples));
  } while (static_cast<int>(duels.size()) < most && duels.back().ratio() < min_ratio);
  return duels;
}

CopyBandwidth measure_copy(const DeviceBuffer& source, std::size_t bytes, L2Flush& flush, int samples) {
  DeviceBuffer destination(bytes, 1);
  const Contender copy{"copy", [&flush] { flush(); }, [&] {
                         return time_device_ms([&] {
                           check(cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice),
                                 "copying for the bandwidth");
                         });
                       }};
  CopyBandwidth measured;
  measured.ms = std::move(take_samples({&copy}, samples).front());
  measured.bytes_per_second = 2.0 * static_cast<double>(bytes) / (median(measured.ms) * 1e-3);
  return measured;
}

double copy_bandwidth(std::size_t bytes, int samples) {
  DeviceBuffer source(bytes, 1);
  check(cudaMemset(source.data(), 1, bytes), "filling the copy source");
  L2Flush flush;
  return measure_copy(source, bytes, flush, samples).bytes_per_second;
}

nlohmann::json sample_figures(const std::vector<double>& ms, double bytes) {
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double middle = median(sorted);
  auto quartile = [&](double q) {
    if (sorted.empty()) return 0.0;
    const double at = q * static_cast<double>(sorted.size() - 1);
    const std::size_t below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
  };
  return {{"samples", sorted.size()},
          {"median_ms", middle},
          {"min_ms", sorted.empty() ? 0.0 : sorted.front()},
          {"max_ms", sorted.empty() ? 0.0 : sorted.back()},
          {"q1_ms", quartile(0.25)},
          {"q3_ms", quartile(0.75)},
          {"gbs", middle > 0 ? bytes / (middle * 1e-3) / 1e9 : 0.0}};
}

int sample_count() {
  return std::max(settings().samples, 20);
}

}  // namespace reduce_lab::grader
