// A lab run once, untimed, and judged: what the speed test and ./lab bench ask of a lab before
// they time it, since the time of a wrong result means nothing. Each says what it found in its
// own words.
#pragma once

#include <string>
#include <vector>

#include "base/faults.hpp"
#include "base/inputs.hpp"
#include "measure/kernel_trace.hpp"
#include "run/lab_runner.hpp"
#include "run/modules.hpp"
#include "base/reference.hpp"

namespace reduce_lab::grader {

struct RunOnce {
  enum class Problem { none, todo, fault, wrong };
  Problem problem = Problem::none;
  FaultKind fault = FaultKind::none;  // Problem::fault: which
  std::string detail;                 // the fault's error, or how the value is wrong ("got 1, expected 2 ...")
  RunOutcome outcome;                 // the run itself: its launches, the variant the module ran
};

// The speed tests' words for what a run found: "<who> is not correct yet at n = 2^26: got ...";
// empty when it found nothing wrong. `where` names the input ("n = 2^26").
std::string problem_text(const RunOnce& once, const std::string& who, const std::string& where);

// Sums `input` once with `module` and compares the result with `expected`: one reference per
// row of a matrix (a row lab, input.rows rows; `detail` then names the first wrong row), else the
// whole input's. Where `kernels` is given and this build can trace them, the kernels of that run
// are recorded there.
RunOnce run_once(const ModuleInfo* module, const HostArray& input, const std::vector<Reference>& expected,
                 std::vector<KernelLaunch>* kernels = nullptr, unsigned variant = 0);
// The same for a lab that reduces all of `input` to one value.
RunOnce run_once(const ModuleInfo* module, const HostArray& input, const Reference& expected,
                 std::vector<KernelLaunch>* kernels = nullptr, unsigned variant = 0);

// The same for a row lab (lab 8): sums every row of `matrix` (make_matrix) once and compares
// each with its own reference; `detail` names the first wrong row.
RunOnce run_once_rows(const ModuleInfo* module, const HostArray& matrix);

}  // namespace reduce_lab::grader
