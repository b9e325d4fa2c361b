// One process's line in /proc (/proc/PID/stat), read for what the grader asks of a process: its
// state and parent (a compute-sanitizer run's descendants, run/sanitizer.cpp) and when it
// started (where a speed test's seconds went before its first phase, measure/phase_times.cpp).
#pragma once

#include <sys/types.h>

#include <optional>

namespace reduce_lab::grader {

struct ProcessStatus {
  char state = '?';  // 'R', 'S', 'Z' for one ended and not yet reaped, ...
  long parent = 0;
  unsigned long long start_ticks = 0;  // when it started, in clock ticks after the machine booted
};

// Nothing when there is no such process.
std::optional<ProcessStatus> process_status(pid_t pid);

// Seconds since process `pid` started (to a clock tick, 1/100 s on Linux), or nothing.
std::optional<double> process_age(pid_t pid);

}  // namespace reduce_lab::grader
