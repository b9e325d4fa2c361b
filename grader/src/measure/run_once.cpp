#include "measure/run_once.hpp"

#include "measure/phase_times.hpp"
#include "run/lab_runner.hpp"

namespace reduce_lab::grader {

RunOnce run_once(const ModuleInfo* module, const HostArray& input, const std::vector<Reference>& expected,
                 std::vector<KernelLaunch>* kernels, unsigned variant) {
  const Phase phase("verified run");
  RunOutcome outcome;
  auto run = [&] {
    LabRunner runner(module, input.dtype, Op::sum, Flavor::counted, variant);
    outcome = runner.reduce(input);
  };
  if (kernels && kernel_trace_available(nullptr))
    *kernels = trace_kernels(run);
  else
    run();
  RunOnce once;
  once.outcome = outcome;
  if (outcome.todo) {
    once.problem = RunOnce::Problem::todo;
  } else if (!outcome.ran) {
    once.problem = RunOnce::Problem::fault;
    once.fault = classify_fault(outcome.error).kind;
    once.detail = outcome.error;
  } else if (input.rows > 1) {
    if (auto wrong = first_wrong_row(outcome.values, expected, input.dtype, input.n / input.rows)) {
      once.problem = RunOnce::Problem::wrong;
      once.detail = *wrong;
    }
  } else if (const Comparison cmp = compare(outcome.value, expected.front(), input.dtype, input.n); !cmp.ok) {
    once.problem = RunOnce::Problem::wrong;
    once.detail = cmp.text;
  }
  return once;
}

RunOnce run_once(const ModuleInfo* module, const HostArray& input, const Reference& expected,
                 std::vector<KernelLaunch>* kernels, unsigned variant) {
  return run_once(module, input, std::vector<Reference>{expected}, kernels, variant);
}

std::string problem_text(const RunOnce& once, const std::string& who, const std::string& where) {
  switch (once.problem) {
    case RunOnce::Problem::none: return std::string();
    case RunOnce::Problem::todo: return who + " is not implemented yet";
    case RunOnce::Problem::fault:
      return who + " stopped with " + fault_name(once.fault) + " at " + where + ": " + once.detail;
    case RunOnce::Problem::wrong: return who + " is not correct yet at " + where + ": " + once.detail;
  }
  return std::string();
}

RunOnce run_once_rows(const ModuleInfo* module, const HostArray& matrix) {
  return run_once(module, matrix, row_references(matrix, Op::sum));
}

}  // namespace reduce_lab::grader
