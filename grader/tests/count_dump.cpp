#include "selftest.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/catalog.hpp"
#include "checks/counter_fields.hpp"
#include "checks/plans.hpp"
#include "run/lab_runner.hpp"

namespace reduce_lab::grader {

namespace {

std::string line_of(int lab, Shape shape, DType dtype, Op op, unsigned variant, const Counters& c) {
  std::ostringstream line;
  line << "lab=" << lab << " n=" << shape.columns;
  if (shape.rows > 1) line << " rows=" << shape.rows;  // row labs' matrices
  if (variant) line << " variant=" << variant;        // lab 9's fan-in K
  line << " " << dtype_name(dtype) << " " << op_name(op);
  line << counts_dump_text(c);
  return line.str();
}

}  // namespace

bool dump_counts(const std::string& path) {
  std::ofstream out(path);
  cudaDeviceProp properties{};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess) return false;
  out << "# " << properties.name << ": multiprocessors=" << properties.multiProcessorCount
      << " threads_per_multiprocessor=" << properties.maxThreadsPerMultiProcessor << "\n";
  int labs = 0;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const LoadedLab loaded = load_lab(lab, Flavor::counted);
    if (!loaded) continue;
    ++labs;
    const bool multipass = loaded.info->kind == LabKind::multipass;
    std::vector<std::size_t> sizes = book_request_sizes();
    std::vector<Shape> shapes;
    std::vector<DType> dtypes{DType::f32};
    std::vector<Op> ops{Op::sum};
    std::vector<unsigned> variants{0};
    if (!multipass) {
      // The GPU's plan on both backends, so the two dumps list the same cases: the emulator runs
      // the reference's every shape in seconds (its once-only shapes are for a student's slow lab).
      const TrafficPlan plan = traffic_plan(lab, PlanFor::gpu);
      sizes = plan.sizes;
      shapes = plan.shapes;
      dtypes = plan.dtypes;
      ops = plan.ops;
      variants = plan.variants;
    }
    for (std::size_t n : sizes) shapes.push_back({1, n});
    for (DType dtype : dtypes)
      for (Op op : ops)
        for (unsigned variant : variants) {
          LabRunner runner(loaded.info, dtype, op, Flavor::counted, variant);
          for (const Shape& shape : shapes) {
            const RunOutcome outcome = runner.reduce(make_matrix(Pattern::uniform, dtype, shape), multipass);
            if (!outcome.ran || outcome.todo) {
              const std::string where = shape.rows > 1 ? shape_text(shape) : "n = " + std::to_string(shape.columns);
              std::printf("%s failed at %s: %s\n", lab_title(lab).c_str(), where.c_str(),
                          outcome.todo ? "not implemented" : outcome.error.c_str());
              return false;
            }
            out << line_of(lab, shape, dtype, op, variant, outcome.counters) << "\n";
          }
        }
  }
  std::printf("counts of %d labs written to %s\n", labs, path.c_str());
  return labs > 0 && static_cast<bool>(out);
}

int compare_counts(const std::string& gpu_path, const std::string& own_path) {
  std::ifstream gpu(gpu_path);
  if (!gpu) {
    std::printf("SKIPPED: no GPU counts at %s to compare with (./lab test writes them on a machine with a GPU)\n",
                gpu_path.c_str());
    return 77;
  }
  std::vector<std::string> gpu_lines, own_lines;
  for (std::string line; std::getline(gpu, line);) gpu_lines.push_back(line);
  int multiprocessors = 0, threads = 0;
  if (gpu_lines.empty() ||
      std::sscanf(gpu_lines[0].c_str() + gpu_lines[0].find(": "), ": multiprocessors=%d threads_per_multiprocessor=%d",
                  &multiprocessors, &threads) != 2) {
    std::printf("%s does not start with the device line of --dump-counts\n", gpu_path.c_str());
    return 1;
  }
  setenv("REDUCE_LAB_EMU_MULTIPROCESSORS", std::to_string(multiprocessors).c_str(), 1);
  setenv("REDUCE_LAB_EMU_THREADS_PER_MULTIPROCESSOR", std::to_string(threads).c_str(), 1);
  if (!dump_counts(own_path)) return 1;
  std::ifstream own(own_path);
  for (std::string line; std::getline(own, line);) own_lines.push_back(line);
  int differences = 0;
  const std::size_t cases = std::max(gpu_lines.size(), own_lines.size());
  for (std::size_t i = 1; i < cases; ++i) {
    const std::string g = i < gpu_lines.size() ? gpu_lines[i] : "(missing)";
    const std::string e = i < own_lines.size() ? own_lines[i] : "(missing)";
    if (g != e && ++differences <= 10) std::printf("GPU:      %s\nemulator: %s\n", g.c_str(), e.c_str());
  }
  std::printf("%s\n%zu cases compared with %s: %d differ\n", gpu_lines[0].c_str(), cases - 1, gpu_path.c_str(),
              differences);
  return differences == 0 && cases > 1 ? 0 : 1;
}

}  // namespace reduce_lab::grader
