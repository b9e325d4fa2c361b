// The reference solution of lab 7 against cub::DeviceReduce::Sum, side by side in one run
// (interleaved samples, same input, same L2 flush) at 2^24, 2^26 and 2^28 floats.
#include <cstdio>
#include <memory>

#include "cub_baseline.hpp"
#include "kit.hpp"
#include "lab_runner.hpp"
#include "reference.hpp"
#include "timing.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

TEST_CASE("kit cub") {
  const LoadedLab lab7 = load_lab(7, Flavor::plain);
  REQUIRE(lab7);
  // "Matches" allows the two medians' own spread between runs (about 1% on an H100/H200).
  const double tolerance = 1.02;
  for (int log = 24; log <= 28; log += 2) {
    const std::size_t n = std::size_t{1} << log;
    if (n * 4 * 4 > device_facts().free_bytes) {
      WARN("not enough device memory for 2^" << log << " floats");
      continue;
    }
    const HostArray input = make_input(Pattern::uniform, DType::f32, n);
    DeviceBuffer staged(n, sizeof(float));
    staged.upload(input.data(), n * sizeof(float));
    LabRunner runner(lab7.info, DType::f32, Op::sum);
    runner.allocate_for_timing(n);
    runner.load(staged);
    CubSum cub(n);
    DeviceBuffer output(1, sizeof(float));
    L2Flush flush;
    Contender ours{"lab 7 solution", [&] { flush(); },
                   [&] {
                     const double ms = time_device_ms([&] { runner.enqueue(); });
                     REQUIRE(runner.finish().ran);
                     return ms;
                   }};
    Contender theirs{"cub::DeviceReduce::Sum", [&] { flush(); },
                     [&] {
                       return time_device_ms([&] {
                         cub.enqueue(static_cast<const float*>(runner.timed_input()), static_cast<float*>(output.data()), n);
                       });
                     }};
    const Duel duel = interleave(theirs, ours, sample_count());
    float cub_result = 0;
    output.download(&cub_result, sizeof cub_result);
    const Comparison cub_check = compare(cub_result, reference(input, Op::sum), DType::f32, n);
    INFO("CUB's own result: " << cub_check.text);
    CHECK(cub_check.ok);
    std::printf("2^%d floats: lab 7 %.4f ms, CUB %.4f ms, CUB/lab 7 = %.3f\n", log, duel.b_median, duel.a_median,
                duel.a_median / duel.b_median);
    CHECK(duel.b_median <= tolerance * duel.a_median);
  }
}
