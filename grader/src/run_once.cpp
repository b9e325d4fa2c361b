#include "run_once.hpp"

#include "lab_runner.hpp"

namespace reduce_lab::grader {

namespace {

// What an outcome says before its values are compared: not written yet, or a fault.
RunOnce judged_run(const RunOutcome& outcome) {
  RunOnce once;
  if (outcome.todo) {
    once.problem = RunOnce::Problem::todo;
  } else if (!outcome.ran) {
    once.problem = RunOnce::Problem::fault;
    once.fault = classify_fault(outcome.error).kind;
    once.detail = outcome.error;
  }
  return once;
}

}  // namespace

RunOnce run_once(const ModuleInfo* module, const HostArray& input, const Reference& expected,
                 std::vector<KernelLaunch>* kernels) {
  RunOutcome outcome;
  auto run = [&] {
    LabRunner runner(module, input.dtype, Op::sum);
    outcome = runner.reduce(input);
  };
  if (kernels && kernel_trace_available(nullptr))
    *kernels = trace_kernels(run);
  else
    run();
  RunOnce once = judged_run(outcome);
  if (once.problem != RunOnce::Problem::none) return once;
  if (const Comparison cmp = compare(outcome.value, expected, input.dtype, input.n); !cmp.ok) {
    once.problem = RunOnce::Problem::wrong;
    once.detail = cmp.text;
  }
  return once;
}

RunOnce run_once_rows(const ModuleInfo* module, const HostArray& matrix) {
  LabRunner runner(module, matrix.dtype, Op::sum);
  const RunOutcome outcome = runner.reduce(matrix);
  RunOnce once = judged_run(outcome);
  if (once.problem != RunOnce::Problem::none) return once;
  const std::vector<Reference> expected = row_references(matrix, Op::sum);
  const std::size_t columns = matrix.n / matrix.rows;
  for (std::size_t row = 0; row < expected.size(); ++row)
    if (const Comparison cmp = compare(outcome.values.at(row), expected[row], matrix.dtype, columns); !cmp.ok) {
      once.problem = RunOnce::Problem::wrong;
      once.detail = "row " + std::to_string(row) + ": " + cmp.text;
      break;
    }
  return once;
}

}  // namespace reduce_lab::grader
