// What must hold before a lab is timed (design §9, §13). A speed figure is a grade only for a
// lab that every check found correct, and only for the code those checks saw:
//  - this grade's verdicts of the very file it times (correctness and races on this backend,
//    the CPU emulator's correctness on a GPU machine) all exist and passed;
//  - its file cannot tell the builds apart (build_tells.hpp);
//  - the timed build launches exactly the kernels the counted build launches, as the GPU's own
//    activity records list them (kernel_trace.hpp), and they move the traffic the counted build
//    counted, as the GPU's own counters read it (timed_traffic.hpp).
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

// The timed (plain) build of lab `lab` runs other kernels on `input` (a row lab's: a matrix of
// input.rows rows) than its counted build: `timed` is what the caller traced around its first
// run of the timed build (a second untimed call would meet host code that remembers the first),
// compared with a traced run of the counted build, by name, grid, block and dynamic shared
// memory. Where activity records cannot be taken, it refuses nothing. `note` gets one sentence
// for the speed test's message saying what was compared. `variant`: the lab's variant both
// builds run (Call::variant).
std::optional<Refusal> timed_code_differs(int lab, const std::vector<KernelLaunch>& timed, const HostArray& input,
                                          std::string* note, unsigned variant = 0);

// What the same kernels did: the timed build's global-memory traffic against the counted
// build's, as this grade's traffic test measured and recorded it (timed_traffic.hpp), read like
// a verdict: it must exist and be of the very file the timed build was compiled from, else the
// lab is not timed ("no verdict yet", "verdict of another version"). Other traffic is named a
// difference between the builds' code where the file tells them apart or the CPU emulator found
// it correct (`emulator_judged`); otherwise undefined behaviour (a barrier not every thread
// reaches, a race) is the likelier cause, and the message says so. Where the traffic was not
// compared (no ncu, counters not readable) it refuses nothing. What was compared is added to
// `note`, after the kernels' sentence it already holds (timed_code_differs).
std::optional<Refusal> timed_traffic_refusal(int lab, bool emulator_judged, std::string* note);
// Its reading of the record alone, which it applies where kernels can be traced (a GPU).
std::optional<Refusal> recorded_traffic_refusal(int lab, bool emulator_judged, std::string* note);

// The page a refusal for build-dependent code points to.
extern const char* const kOneKernelDoc;
// The page a refusal for missing, stale or failed verdicts points to.
extern const char* const kVerdictsDoc;

}  // namespace reduce_lab::grader
