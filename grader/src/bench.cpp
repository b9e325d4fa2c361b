#include "bench.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "catalog.hpp"
#include "device.hpp"
#include "faults.hpp"
#include "inputs.hpp"
#include "lab_runner.hpp"
#include "reference.hpp"
#include "run_once.hpp"
#include "timing.hpp"
#if defined(REDUCE_LAB_HAVE_CUB)
#include "cub_baseline.hpp"
#endif

namespace reduce_lab::grader {

namespace {

// Times `run` (which enqueues device work) `samples` times after warm-ups, each sample after
// `prepare` (untimed); `verify` checks the result of every run and returns false when wrong.
struct Timed {
  std::vector<double> ms;
  bool wrong = false;
};
Timed time_samples(int samples, const std::function<void()>& prepare, const std::function<void()>& run,
                   const std::function<bool()>& verify) {
  Timed timed;
  const Contender contender{"", prepare, [&] {
                              const double ms = time_device_ms(run);
                              if (!verify()) timed.wrong = true;
                              return ms;
                            }};
  timed.ms = std::move(take_samples({&contender}, samples).front());
  return timed;
}

#if defined(REDUCE_LAB_HAVE_CUB)
// CUB's sum of `input` (n floats on the device), timed; its result is checked against `ref`.
nlohmann::json time_cub(const DeviceBuffer& input, std::size_t n, const Reference& ref, L2Flush& flush, int samples) {
  CubSum cub(n);
  DeviceBuffer output(1, sizeof(float));
  auto run = [&] { cub.enqueue(static_cast<const float*>(input.data()), static_cast<float*>(output.data()), n); };
  auto verify = [&] {
    float value = 0;
    output.download(&value, sizeof value);
    return compare(value, ref, DType::f32, n).ok;
  };
  const Timed timed = time_samples(samples, [&] { flush(); }, run, verify);
  nlohmann::json figures = sample_figures(timed.ms, 4.0 * static_cast<double>(n));
  figures["ok"] = !timed.wrong;
  return figures;
}
#endif

}  // namespace

nlohmann::json measure_device(std::size_t n, int samples) {
  const DeviceFacts facts = device_facts();
  nlohmann::json device = {{"name", facts.name},
                           {"multiprocessors", facts.multiprocessors},
                           {"l2_bytes", facts.l2_bytes},
                           {"total_bytes", facts.total_bytes},
                           {"n", n},
                           {"samples", samples}};
  device["copy_gbs"] = copy_bandwidth(n * sizeof(float), samples) / 1e9;
#if defined(REDUCE_LAB_HAVE_CUB)
  const HostArray input = make_input(Pattern::uniform, DType::f32, n);
  DeviceBuffer staged(n, sizeof(float));
  staged.upload(input.data(), n * sizeof(float));
  L2Flush flush;
  device["cub"] = time_cub(staged, n, reference(input, Op::sum), flush, samples);
#else
  device["cub"] = nullptr;
#endif
  return device;
}

nlohmann::json run_bench(const BenchPlan& plan) {
  if (plan.low_log < 1 || plan.high_log > 40 || plan.low_log > plan.high_log)
    throw std::invalid_argument("bench sizes must run from 2^LOW to 2^HIGH floats with 1 <= LOW <= HIGH <= 40");
  const int samples = sample_count();
  const DeviceFacts facts = device_facts();
  nlohmann::json bench = {{"device", facts.name},
                          {"sources", plan.sources},
                          {"samples", samples},
                          {"warmups", kWarmups},
                          {"sizes", nlohmann::json::array()},
                          {"series", nlohmann::json::array()},
                          {"left_out", nlohmann::json::array()},
                          {"notes", nlohmann::json::array()}};

  // The labs that can be timed: built, written, and right at the smallest size.
  struct Contender {
    int lab;
    const ModuleInfo* module;
    nlohmann::json series;
  };
  std::vector<Contender> labs;
  const std::size_t smallest = std::size_t{1} << plan.low_log;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    if (lab_info(lab).kind == LabKind::rows) {
      // A sweep over vector sizes says nothing of a reduction per row: its table is its own.
      bench["notes"].push_back(lab_title(lab) + " reduces rows: its table is labgrader --bench-rows (docs/08-rows.md)");
      continue;
    }
    const LoadedLab loaded = load_lab(lab, Flavor::plain);
    std::string problem;
    if (!loaded) {
      problem = loaded.problem.substr(0, loaded.problem.find('\n'));
    } else {
      const HostArray input = make_input(Pattern::uniform, DType::f32, smallest);
      const RunOnce once = run_once(loaded.info, input, reference(input, Op::sum));
      if (once.problem == RunOnce::Problem::todo)
        problem = "not implemented yet";
      else if (once.problem == RunOnce::Problem::fault)
        problem = std::string(fault_name(once.fault)) + " at n = " + size_text(smallest);
      else if (once.problem == RunOnce::Problem::wrong)
        problem = "wrong at n = " + size_text(smallest) + ": " + once.detail;
    }
    if (!problem.empty()) {
      bench["left_out"].push_back({{"lab", lab}, {"name", lab_title(lab)}, {"why", problem}});
      std::printf("%s left out: %s\n", lab_title(lab).c_str(), problem.c_str());
      std::fflush(stdout);  // before the next lab's kernel, which may take the process down
      continue;
    }
    labs.push_back({lab, loaded.info,
                    {{"name", lab_title(lab)}, {"kind", "lab"}, {"lab", lab}, {"points", nlohmann::json::array()}}});
  }
  nlohmann::json cub_series = {{"name", "cub::DeviceReduce::Sum"}, {"kind", "cub"}, {"points", nlohmann::json::array()}};
  nlohmann::json copy_series = {{"name", "copy (read + write)"}, {"kind", "copy"}, {"points", nlohmann::json::array()}};
#if !defined(REDUCE_LAB_HAVE_CUB)
  bench["notes"].push_back("CUB is not part of this build (it needs the GPU backend)");
#endif

  L2Flush flush;
  for (int log = plan.low_log; log <= plan.high_log; ++log) {
    const std::size_t n = std::size_t{1} << log;
    // The pristine input, one lab's copy of it with its pass outputs, and the copy's target.
    const double needed = 4.0 * static_cast<double>(n) * 4.0;
    const double free_bytes = static_cast<double>(device_facts().free_bytes);
    if (needed > 0.8 * free_bytes) {
      bench["notes"].push_back("2^" + std::to_string(log) + " floats and more do not fit in the device's free memory");
      break;
    }
    std::printf("n = 2^%d ...\n", log);
    std::fflush(stdout);
    const HostArray input = make_input(Pattern::uniform, DType::f32, n);
    const Reference ref = reference(input, Op::sum);
    DeviceBuffer pristine(n, sizeof(float));
    pristine.upload(input.data(), n * sizeof(float));
    bench["sizes"].push_back(n);
    for (Contender& contender : labs) {
      LabRunner runner(contender.module, DType::f32, Op::sum);
      runner.allocate_for_timing(n);
      std::optional<RunOutcome> last;
      auto prepare = [&] {
        runner.load(pristine);  // labs 1-2 reduce in place
        flush();
      };
      auto verify = [&] {
        last = runner.finish();
        if (!last->ran) throw std::runtime_error(lab_title(contender.lab) + " at n = " + size_text(n) + ": " + last->error);
        return compare(last->value, ref, DType::f32, n).ok;
      };
      const Timed timed = time_samples(samples, prepare, [&] { runner.enqueue(); }, verify);
      nlohmann::json point = sample_figures(timed.ms, 4.0 * static_cast<double>(n));
      point["n"] = n;
      point["ok"] = !timed.wrong;
      contender.series["points"].push_back(point);
    }
#if defined(REDUCE_LAB_HAVE_CUB)
    nlohmann::json cub = time_cub(pristine, n, ref, flush, samples);
    cub["n"] = n;
    cub_series["points"].push_back(cub);
#endif
    // A device-to-device copy of the input; its GB/s counts the bytes read and written.
    nlohmann::json copy = sample_figures(measure_copy(pristine, n * sizeof(float), flush, samples).ms,
                                         8.0 * static_cast<double>(n));
    copy["n"] = n;
    copy_series["points"].push_back(copy);
  }
  for (Contender& contender : labs) bench["series"].push_back(contender.series);
  if (!cub_series["points"].empty()) bench["series"].push_back(cub_series);
  bench["series"].push_back(copy_series);
  return bench;
}

std::string bench_table(const nlohmann::json& bench) {
  std::ostringstream out;
  auto table = [&](const char* title, const char* key, const char* pattern) {
    out << "\n" << title << "\n" << "n      ";
    for (const nlohmann::json& series : bench["series"]) {
      const std::string kind = series.value("kind", "lab");
      const std::string head = kind == "lab" ? "lab " + std::to_string(series.value("lab", 0)) : kind == "cub" ? "CUB" : "copy";
      char cell[32];
      std::snprintf(cell, sizeof cell, " %9s", head.c_str());
      out << cell;
    }
    out << "\n";
    for (const nlohmann::json& n : bench["sizes"]) {
      char first[16];
      std::snprintf(first, sizeof first, "%-7s", size_text(n.get<std::size_t>()).c_str());
      out << first;
      for (const nlohmann::json& series : bench["series"]) {
        std::string text = "-";
        for (const nlohmann::json& point : series["points"])
          if (point["n"] == n) {
            char value[32];
            std::snprintf(value, sizeof value, pattern, point[key].get<double>());
            text = std::string(value) + (point.value("ok", true) ? "" : "!");
          }
        char cell[32];
        std::snprintf(cell, sizeof cell, " %9s", text.c_str());
        out << cell;
      }
      out << "\n";
    }
  };
  table("GB/s (4 bytes x n / median time; copy: bytes read + written)", "gbs", "%.0f");
  table("median ms", "median_ms", "%.4f");
  out << "\n'!' marks a size where a timed result was wrong.\n";
  for (const nlohmann::json& left : bench["left_out"])
    out << left["name"].get<std::string>() << " was left out: " << left["why"].get<std::string>() << "\n";
  for (const nlohmann::json& note : bench["notes"]) out << "Note: " << note.get<std::string>() << "\n";
  return out.str();
}

}  // namespace reduce_lab::grader
