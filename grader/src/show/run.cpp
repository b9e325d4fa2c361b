#include "show/run.hpp"

#include <cstring>

#include <reduce_emu/record.h>

#include "base/catalog.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader::show {

namespace {

constexpr std::size_t kBookSize = 16;      // Fig. 10.7's sixteen elements
constexpr std::size_t kOneBlock = 4096;    // a 1024-thread block coarsened twice (labs 5-6); lab 4 in two blocks
constexpr std::size_t kLargest = 1 << 16;  // beyond this a picture is all summary
constexpr std::size_t kMatrixRows = 4;     // a row lab is drawn on 4 rows: 4 x 10 by default
constexpr std::size_t kMatrix = kMatrixRows * 10;

// The allocation the run reduced: n elements, the first such one the kernel read.
std::uintptr_t input_allocation(const reduce_emu::Record& record, std::size_t n) {
  for (const reduce_emu::RecordedLaunch& launch : record.launches)
    for (const reduce_emu::RecordedInstruction& ins : launch.instructions)
      if (ins.space == reduce_emu::MemorySpace::global && ins.kind == reduce_emu::AccessKind::load &&
          ins.allocation_bytes == n * sizeof(float))
        return ins.allocation;
  return 0;
}

}  // namespace

std::size_t default_size(const ModuleInfo& module) {
  if (module.kind == LabKind::rows) return kMatrix;
  return module.kind == LabKind::multipass ? kBookSize : kOneBlock;
}

std::string size_problem(const ModuleInfo& module, std::size_t n) {
  if (n < 1 || n > kLargest)
    return "the picture is drawn for 1 to " + std::to_string(kLargest) + " elements, not " + std::to_string(n);
  if (module.kind == LabKind::multipass && (n < 2 || (n & (n - 1)) != 0))
    return "lab " + std::to_string(module.lab) +
           " reduces whole segments of 2 x blockDim elements: its size is a power of two from 2";
  if (module.kind == LabKind::rows && n % kMatrixRows != 0)
    return "lab " + std::to_string(module.lab) + " is drawn on a matrix of " + std::to_string(kMatrixRows) +
           " rows: its size is a multiple of " + std::to_string(kMatrixRows);
  return {};
}

unsigned drawn_variant(const ModuleInfo& module) {
  const std::vector<unsigned>& variants = lab_info(module.lab).variants;
  return variants.size() > 1 ? variants[1] : variants.front();
}

std::string variant_problem(const ModuleInfo& module, unsigned variant) {
  const LabInfo& info = lab_info(module.lab);
  if (info.variant_name.empty())
    return "lab " + std::to_string(module.lab) + " has no variants to choose from";
  if (std::find(info.variants.begin(), info.variants.end(), variant) != info.variants.end()) return {};
  std::string values;
  for (unsigned value : info.variants) values += (values.empty() ? "" : ", ") + std::to_string(value);
  return "lab " + std::to_string(module.lab) + "'s " + info.variant_name + " is one of " + values + ", not " +
         std::to_string(variant);
}

RecordedRun record_run(const ModuleInfo& module, std::size_t n, unsigned asked) {
  HostArray input;
  input.dtype = DType::f32;
  input.n = n;
  input.rows = module.kind == LabKind::rows ? kMatrixRows : 1;
  input.bytes.resize(n * sizeof(float));
  for (std::size_t i = 0; i < n; ++i) {
    const float value = static_cast<float>(i % 3 + 1);
    std::memcpy(input.bytes.data() + i * sizeof(float), &value, sizeof value);
  }
  thread_order::use(1);  // one fixed order: the docs' figures come out the same every time
  const unsigned variant = asked != 0 ? asked : drawn_variant(module);
  LabRunner runner(&module, DType::f32, Op::sum, Flavor::counted, variant);
  reduce_emu::start_recording();
  const RunOutcome outcome = runner.reduce(input, true);
  const reduce_emu::Record record = reduce_emu::take_record();
  RecordedRun run;
  run.variant = variant_text(module.lab, variant);
  run.ran = outcome.ran;
  run.error = outcome.error;
  run.value = outcome.value;
  run.todo = outcome.todo;
  run.picture = layout(record, input_allocation(record, n), n);
  if (module.kind == LabKind::rows)
    run.picture.matrix = matrix_layout(record, input_allocation(record, n), kMatrixRows, n / kMatrixRows);
  return run;
}

}  // namespace reduce_lab::grader::show
