#include "base/thread_order.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>

#include "base/settings.hpp"

#if defined(REDUCE_LAB_EMU)
#include <reduce_emu/emu.h>
#endif

namespace reduce_lab::grader::thread_order {

bool available() {
#if defined(REDUCE_LAB_EMU)
  return true;
#else
  return false;
#endif
}

std::uint64_t process_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const std::optional<std::uint64_t> chosen = settings().emu_seed) return *chosen;
    std::random_device device;
    // Short enough to type: the replay command carries it.
    return (static_cast<std::uint64_t>(device()) << 32 | device()) & 0xffffffffull;
  }();
  return seed;
}

void use(std::uint64_t seed) {
#if defined(REDUCE_LAB_EMU)
  reduce_emu::set_seed(seed);
#else
  (void)seed;
#endif
}

std::vector<std::uint64_t> other_seeds(int count) {
  std::vector<std::uint64_t> seeds;
  std::uint64_t state = process_seed();
  while (static_cast<int>(seeds.size()) < count) {
    // splitmix64: well-spread seeds from consecutive states.
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = (z ^ (z >> 31)) & 0xffffffffull;
    if (z != process_seed()) seeds.push_back(z);
  }
  return seeds;
}

std::string hex(std::uint64_t seed) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(seed));
  return text;
}

}  // namespace reduce_lab::grader::thread_order
