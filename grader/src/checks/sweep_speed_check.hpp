// Speed of a lab that chooses one of its own parameters (lab 10: the coarsening factor, for n and
// the device): at each of its sweep's sizes, its choice (Call::variant 0) timed against every value
// of the sweep, and the value that fills the device with one wave of blocks, interleaved in one run,
// every timed result checked. It passes when at every size the choice reaches the lab's min_speedup
// of the fastest value's speed. Returns a Verdict and never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "run/modules.hpp"
#include "base/verdict.hpp"

namespace reduce_lab::grader {

Verdict check_sweep_speedup(int lab);

// The sweep itself, for the speed test and ./lab bench: per size, each value's sample figures,
// the choice, the device-filling value, Brent's estimate (a thread adds about log2(n) elements:
// log2(n) / 2 for a factor that adds 2 x factor) and the fastest value. Throws where a value is
// wrong at a size (TimedWrong or std::runtime_error naming it). Sizes past `largest` are left out.
nlohmann::json time_sweep(int lab, const ModuleInfo* module, int samples, std::size_t largest = SIZE_MAX);

// The sweep as a table: GB/s of each value at each size, the choice and the fastest marked.
std::string sweep_table(const nlohmann::json& sweep);

}  // namespace reduce_lab::grader
