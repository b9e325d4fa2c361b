// Nsight Compute profiles one process at a time on a machine: a second ncu waits inside its
// profiled program, at that program's first kernel, so the wait counts against the program's own
// time limit (run/limits.hpp) as if the lab had run long. NcuTurn makes every grader process on
// the machine take turns before it starts ncu at all, so the traffic tests of a grade or of the
// kit's suite may run side by side and wait only where they do profile (most of the suite's take
// their counts from kit.traffic_batch's one shared run and never start ncu).
#pragma once

#include <string>

namespace reduce_lab::grader {

class NcuTurn {
 public:
  // Waits until no other process holds the turn (a lock on one file in the temporary folder,
  // shared by every user). Where the file cannot be opened, nothing is held: ncu's own lock
  // still orders the runs, as before this class.
  NcuTurn();
  ~NcuTurn();
  NcuTurn(const NcuTurn&) = delete;
  NcuTurn& operator=(const NcuTurn&) = delete;

  bool held() const { return fd_ >= 0; }
  // Whether another process holds the turn now (for tests: never waits).
  static bool taken_elsewhere();
  static std::string lock_path();

 private:
  int fd_ = -1;
};

}  // namespace reduce_lab::grader
