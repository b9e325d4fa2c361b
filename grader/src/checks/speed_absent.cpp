// A student's grader on the CPU emulator never times a lab: its speed tests are skipped before
// they start (speed is graded only on a GPU), and it never measures the device. So it is linked
// without the speed tests' code (reduce_lab_speed), which a first grade would otherwise wait to
// compile, and these stand in for the entry points its tests and commands name. The kit's own
// test builds, GPU builds and labtools link the real ones.
#include <stdexcept>

#include "measure/device_figures.hpp"
#include "checks/rows_speed_check.hpp"
#include "checks/speed_check.hpp"
#include "checks/timed_traffic.hpp"
#include "checks/sweep_speed_check.hpp"
#include "checks/variant_speed_check.hpp"

namespace reduce_lab::grader {

namespace {

constexpr const char* kNoSpeed = "speed is never graded on the emulator, only on a machine with an NVIDIA GPU";

}  // namespace

Verdict check_speedup(int) { return skip("skipped", kNoSpeed); }

Verdict check_rows_speedup(int) { return skip("skipped", kNoSpeed); }

Verdict check_variant_speedup(int) { return skip("skipped", kNoSpeed); }

Verdict check_sweep_speedup(int) { return skip("skipped", kNoSpeed); }

// Nothing here will time the lab, so nothing reads the comparison.
std::optional<Verdict> record_timed_traffic(int) { return std::nullopt; }

std::size_t benchmark_floats() { throw std::runtime_error(kNoSpeed); }

nlohmann::json measure_device(std::size_t, int) { throw std::runtime_error(kNoSpeed); }

}  // namespace reduce_lab::grader
