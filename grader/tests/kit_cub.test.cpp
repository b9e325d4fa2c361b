// The reference solution of lab 7 against cub::DeviceReduce::Sum, side by side in one run
// (interleaved samples, same input, same L2 flush) at 2^24, 2^26 and 2^28 floats; a duel lab 7
// loses is run again, up to three times, since a shared GPU is disturbed now and then.
#include <cstdio>
#include <memory>

#include "measure/cub_baseline.hpp"
#include "kit.hpp"
#include "run/lab_runner.hpp"
#include "base/reference.hpp"
#include "measure/timing.hpp"

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
    // A shared GPU is disturbed now and then: in 2 of 15 runs of this test on an H100 one size
    // had both medians far above their quiet values (CUB 0.062 ms instead of 0.029 at 2^24),
    // and lab 7, whose one wave of blocks waits for its slowest, suffered more. A duel lab 7
    // loses is run again (duels_until), and the test fails only when it loses all of them.
    const std::vector<Duel> duels = duels_until(theirs, ours, 1 / tolerance, sample_count());
    for (std::size_t i = 0; i < duels.size(); ++i) {
      const Duel& duel = duels[i];
      std::printf("2^%d floats, duel %zu: lab 7 %.4f ms, CUB %.4f ms, CUB/lab 7 = %.3f\n", log, i + 1, duel.b_median,
                  duel.a_median, duel.ratio());
      UNSCOPED_INFO("2^" << log << " floats, duel " << i + 1 << ": lab 7 " << duel.b_median << " ms, CUB "
                         << duel.a_median << " ms");
    }
    const bool matched = duels.back().ratio() >= 1 / tolerance;
    float cub_result = 0;
    output.download(&cub_result, sizeof cub_result);
    const Comparison cub_check = compare(cub_result, reference(input, Op::sum), DType::f32, n);
    INFO("CUB's own result: " << cub_check.text);
    CHECK(cub_check.ok);
    INFO("lab 7 must take at most " << tolerance << "x CUB's median time in one of " << kDuels << " interleaved duels");
    CHECK(matched);
  }
}
