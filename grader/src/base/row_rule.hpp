// compare()'s rule for one result, in one place for the host and the GPU: lab 8's speed test
// checks the rows of a timed sample on the device (measure/row_check.hpp), and must accept
// exactly what the host's check accepts.
#pragma once

#include <reduce_lab/host_device.h>

#include <cmath>

namespace reduce_lab::grader {

// Right when not NaN and within `allowed` of `expected` (or equal to it: an infinite expected
// value is met only by itself). Every step is exact or correctly rounded in IEEE double on both
// sides, so the host and the GPU agree on every input.
REDUCE_LAB_HOST_DEVICE inline bool within_allowed(double got, double expected, double allowed) {
  return !std::isnan(got) && (std::fabs(got - expected) <= allowed || got == expected);
}

}  // namespace reduce_lab::grader
