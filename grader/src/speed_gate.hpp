// What must hold before a lab is timed (design §9, §13). A speed figure is a grade only for a
// lab that every check found correct, and only for the code those checks saw:
//  - the verdicts already recorded for it (correctness and races on this backend, the CPU
//    emulator's correctness on a GPU machine) all passed;
//  - its file cannot tell the builds apart (build_tells.hpp);
//  - the timed build launches exactly the kernels the counted build launches, as the GPU's own
//    activity records list them (kernel_trace.hpp).
// Each function returns an empty optional when the lab may be timed, else the refusal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "kernel_trace.hpp"
#include "modules.hpp"

namespace reduce_lab::grader {

struct Refusal {
  std::string summary;  // for the table: "not correct yet", "build-dependent code"
  std::string message;  // what was found, what is expected, where to read
};

// A recorded verdict of lab `lab` that says it is not correct (wrong, racy, deadlocked, a
// fault) on either backend. Records older than the lab's file are from an earlier version of
// it and do not count. Read from REDUCE_LAB_RESULTS_DIR (this backend's tests, and the
// emulator's copied in as lab<N>.correctness.emu) and REDUCE_LAB_EMU_RESULTS_DIR (the
// emulator's own results folder, when a GPU grade ran the emulator first).
std::optional<Refusal> recorded_failure(int lab);

// The lab's file names something that differs between the builds.
std::optional<Refusal> build_dependent_code(int lab);

// The timed (plain) build of lab `lab` runs other code on `input` than its counted build:
//  - other kernels: `timed` is what the caller traced around its first run of the timed build
//    (a second untimed call would meet host code that remembers the first), compared with a
//    traced run of the counted build, by name, grid, block and dynamic shared memory;
//  - other global-memory traffic in the same kernels: where Nsight Compute may read the GPU's
//    counters, the timed build's whole reduction of n elements, measured in a process of its
//    own, against what the kit counted in that run of the counted build.
// Where activity records or counters cannot be taken, that part refuses nothing; `note` gets
// one line for the speed test's message saying what was compared.
std::optional<Refusal> timed_code_differs(int lab, const std::vector<KernelLaunch>& timed, const HostArray& input,
                                          std::string* note);

// The page a refusal for build-dependent code points to.
extern const char* const kOneKernelDoc;

}  // namespace reduce_lab::grader
