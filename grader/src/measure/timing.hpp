// Timing rules of design §5: device events around the whole reduction, an L2-sized buffer
// rewritten before every sample, warm-up, the two contenders' samples interleaved
// (A B A B ...), the median of each.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/device.hpp"

namespace reduce_lab::grader {

double median(std::vector<double> samples);

// Reads a buffer twice the L2's size before every sample, so no sample starts with its input
// cached, and none pays for write-backs of lines dirtied before it (the input copy, the
// previous sample): they are evicted here, untimed, and the cache is left clean and cold.
class L2Flush {
 public:
  L2Flush();
  void operator()();

 private:
  DeviceBuffer scratch_, sink_;
};

// One contender: prepare() runs untimed before each sample (restoring an input the lab
// overwrites); timed() runs the measured work and returns its milliseconds.
struct Contender {
  std::string name;
  std::function<void()> prepare;
  std::function<double()> timed;
};

// Times device work enqueued by `work` with events on the default stream.
double time_device_ms(const std::function<void()>& work);

struct Duel {
  std::vector<double> a_ms, b_ms;
  double a_median = 0, b_median = 0;
  double ratio() const { return a_median / b_median; }  // a's median over b's: b's speedup over a
};

// Untimed runs of each contender before its samples are taken.
constexpr int kWarmups = 3;

// The one sampling loop: `warmups` rounds, then `samples` rounds, each of which prepares and
// times every contender in turn (A B A B ... with two). Returns each contender's samples.
std::vector<std::vector<double>> take_samples(const std::vector<const Contender*>& contenders, int samples,
                                              int warmups = kWarmups);

// Warm-up runs of each, then `samples` interleaved samples of each.
Duel interleave(const Contender& a, const Contender& b, int samples, int warmups = kWarmups);

// Duels of a and b until one gives a ratio of medians (a's over b's) of at least `min_ratio`,
// `most` at most; every duel run, the last deciding. A shared GPU is disturbed now and then for
// a moment, longer than a duel's samples (about 40 ms at 2^26 floats) and slowing its two
// contenders unequally: on an H100, lab 5's reference measured 1.34x over lab 4 once in the GPU
// suite (0.2210 against 0.2960 ms), and 1.68-1.69x in the lab 4 and lab 6 tests around it and in
// twelve reruns. A real shortfall repeats; a disturbance does not.
constexpr int kDuels = 3;
std::vector<Duel> duels_until(const Contender& a, const Contender& b, double min_ratio, int samples,
                              int most = kDuels);

// A device-to-device copy of `bytes` from `source`, `samples` times after warm-ups, each after
// `flush`: every sample's milliseconds, and bytes read plus bytes written per second at their
// median, the bandwidth a reduction can hope for.
struct CopyBandwidth {
  std::vector<double> ms;
  double bytes_per_second = 0;
};
CopyBandwidth measure_copy(const DeviceBuffer& source, std::size_t bytes, L2Flush& flush, int samples);

// The same from a buffer and flush of its own: bytes read plus bytes written per second.
double copy_bandwidth(std::size_t bytes, int samples);

// One contender's samples as report.json and bench.json record them: their count, median,
// min, max, quartiles (q1_ms, q3_ms) and "gbs", `bytes` over the median time.
nlohmann::json sample_figures(const std::vector<double>& ms, double bytes);

// Samples per contender: REDUCE_LAB_SAMPLES, at least 20 (default 30).
int sample_count();

}  // namespace reduce_lab::grader
