// What must hold before a lab is timed (design §9, §13). A speed figure is a grade only for a
// lab that every check found correct, and only for the code those checks saw:
//  - this grade's verdicts of the very file it times (correctness and races on this backend,
//    the CPU emulator's correctness on a GPU machine) all exist and passed;
//  - its file cannot tell the builds apart (build_tells.hpp);
//  - the timed build launches exactly the kernels the counted build launches, as the GPU's own
//    activity records list them (kernel_trace.hpp).
// Each function returns an empty optional when the lab may be timed, else the refusal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/inputs.hpp"
#include "measure/kernel_trace.hpp"
#include "run/modules.hpp"

namespace reduce_lab::grader {

struct Refusal {
  std::string summary;  // for the table: "not correct yet", "build-dependent code"
  std::string message;  // what was found, what is expected, where to read
};

// Why lab `lab` may not be timed on `backend` ("gpu" or "emu") yet, judged by the verdicts
// this grade recorded for it; none when they all allow it. Each verdict must exist, be of the
// very file the timed build was compiled from (the copy it carries, records.hpp, equal byte for
// byte to the build's own, modules.hpp; that copy equal to the lab file as it is now), and pass:
//  - the correctness test on this backend (REDUCE_LAB_RESULTS_DIR/lab<N>.correctness);
//  - the races test (lab<N>.races), which may also be skipped where it is not run;
//  - on a GPU, the CPU emulator's correctness test (REDUCE_LAB_EMU_RESULTS_DIR/lab<N>.correctness,
//    or lab<N>.correctness.emu copied into the grade). It is required where the emulator can
//    be built (REDUCE_LAB_EMU_REQUIRED); elsewhere, when it is missing, `gpu_alone` gets why
//    the figure rests on the GPU alone (REDUCE_LAB_EMU_NOT_RUN).
// The refusals' summaries: "no verdict yet", "verdict of another version", "not correct yet"
// and "file changed since its build".
std::optional<Refusal> verdict_refusal(int lab, const std::string& backend, std::string* gpu_alone);

// The lab's file names something that differs between the builds.
std::optional<Refusal> build_dependent_code(int lab);

// The timed (plain) build of lab `lab` runs other code on `input` (a row lab's: a matrix of
// input.rows rows) than its counted build:
//  - other kernels: `timed` is what the caller traced around its first run of the timed build
//    (a second untimed call would meet host code that remembers the first), compared with a
//    traced run of the counted build, by name, grid, block and dynamic shared memory;
//  - other global-memory traffic in the same kernels: where Nsight Compute may read the GPU's
//    counters, the timed build's whole reduction of n elements, measured in a process of its
//    own, on an input of the same shape, against what the kit counted in that run of the counted build.
// Where activity records or counters cannot be taken, that part refuses nothing; `note` gets
// one line for the speed test's message saying what was compared. Other traffic is named a
// difference between the builds' code where the file tells them apart or the CPU emulator
// found it correct (`emulator_judged`); otherwise undefined behaviour (a barrier not every
// thread reaches, a race) is the likelier cause, and the message says so.
// `traffic_not_compared`, where given, says why the traffic is not compared at this input (the
// kernels still are). `variant`: the lab's variant both builds run (Call::variant).
std::optional<Refusal> timed_code_differs(int lab, const std::vector<KernelLaunch>& timed, const HostArray& input,
                                          bool emulator_judged, std::string* note,
                                          const char* traffic_not_compared = nullptr, unsigned variant = 0);

// The page a refusal for build-dependent code points to.
extern const char* const kOneKernelDoc;
// The page a refusal for missing, stale or failed verdicts points to.
extern const char* const kVerdictsDoc;

}  // namespace reduce_lab::grader
