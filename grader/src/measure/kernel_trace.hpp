// The kernels one piece of host work ran on the device, as the GPU's own activity records
// (CUPTI) list them: every launch, whoever made it (the kit's launch(), a <<<...>>> in the
// lab, a library), by name and shape. The speed test compares the timed build's trace with
// the counted build's (design §13): the timed code must be the code the counters saw.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace reduce_lab::grader {

struct KernelLaunch {
  std::string name;  // demangled, without the parameter list (it names Global<T> in one build, T* in the other)
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned dynamic_shared = 0;

  std::string text() const;  // "TemplatedReductionKernel<float, reduce_lab::Sum, 512u> <<<264, 512>>>"
  bool operator==(const KernelLaunch& other) const;
};

// True where activity records can be taken (a GPU build with CUPTI); `why` says why not.
bool kernel_trace_available(std::string* why);

// Runs `work` (which must leave nothing running on the device) and returns the kernels it
// launched, in launch order. Throws std::runtime_error when the trace cannot be taken.
std::vector<KernelLaunch> trace_kernels(const std::function<void()>& work);

// The name as a kernel launch trace compares it: demangled, the parameter list dropped.
std::string kernel_name_without_parameters(const std::string& mangled_or_demangled);

}  // namespace reduce_lab::grader
