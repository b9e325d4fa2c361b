#include "run/limits.hpp"

#include <algorithm>

#include "base/settings.hpp"

#if defined(REDUCE_LAB_EMU)
#include <reduce_emu/emu.h>
#endif

namespace reduce_lab::grader {

namespace {

// Before CTest's own limit, the time the supervising parent needs to record why it stopped the test.
constexpr double kRecordMargin = 15;

bool& picture_limits_chosen() {
  static bool chosen = false;
  return chosen;
}

}  // namespace

Limits derive_limits(double test_budget, bool emulator) {
  Limits limits;
  limits.test = test_budget > 0 ? test_budget : 0;
  limits.supervisor = limits.test > 2 * kRecordMargin ? limits.test - kRecordMargin : 0;
  // Without a budget, the limits of CTest's default (600 s).
  const double budget = limits.test > 0 ? limits.test : 600;
  limits.launch = std::clamp(budget / 4, 5.0, 60.0);
  limits.call = emulator ? std::clamp(budget / 2, 10.0, 300.0) : std::clamp(budget / 20, 10.0, 30.0);
  return limits;
}

Limits derive_picture_limits(double test_budget) {
  Limits limits;
  limits.test = test_budget > 0 ? test_budget : 30;
  // The parent's own stop comes first; nothing outside it (CTest) needs a margin here.
  limits.supervisor = limits.test;
  limits.call = std::clamp(limits.test / 3, 2.0, 60.0);
  limits.launch = std::clamp(limits.call / 2, 1.0, 30.0);
  return limits;
}

Limits limits() {
  const Settings& s = settings();
#if defined(REDUCE_LAB_EMU)
  constexpr bool emulator = true;
#else
  constexpr bool emulator = false;
#endif
  Limits derived =
      picture_limits_chosen() ? derive_picture_limits(s.test_timeout) : derive_limits(s.test_timeout, emulator);
  if (s.run_timeout && *s.run_timeout > 0) derived.call = *s.run_timeout;
  if (s.emu_timeout && *s.emu_timeout > 0) derived.launch = *s.emu_timeout;
  return derived;
}

void use_picture_limits() { picture_limits_chosen() = true; }

void apply_emulator_limit() {
#if defined(REDUCE_LAB_EMU)
  reduce_emu::set_timeout(limits().launch);
#endif
}

}  // namespace reduce_lab::grader
