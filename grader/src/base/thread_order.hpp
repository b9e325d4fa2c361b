// The emulator's thread order, which a seed chooses (design §8). Every correctness case runs
// under one seed per process, so one REDUCE_LAB_EMU_SEED replays every case; a wrong case is
// run again under other seeds to tell a race (the result depends on the order) from a
// mistake that gives the same wrong result every time. On the GPU the order cannot be
// chosen: available() is false and the rest does nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace reduce_lab::grader::thread_order {

bool available();

// REDUCE_LAB_EMU_SEED when set, otherwise drawn once per process.
std::uint64_t process_seed();
// Makes the next launches run in the order of `seed` (from its first launch on).
void use(std::uint64_t seed);
// `count` seeds other than the process's, the same ones for the same process seed.
std::vector<std::uint64_t> other_seeds(int count);

std::string hex(std::uint64_t seed);

}  // namespace reduce_lab::grader::thread_order
