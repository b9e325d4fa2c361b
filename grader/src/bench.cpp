#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "base/catalog.hpp"
#include "base/text.hpp"
#include "measure/device_figures.hpp"
#include "run/device.hpp"
#include "base/faults.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "base/reference.hpp"
#include "checks/rows_speed_check.hpp"
#include "measure/run_once.hpp"
#include "checks/sweep_speed_check.hpp"
#include "measure/timing.hpp"
#if defined(REDUCE_LAB_HAVE_CUB)
#include "measure/cub_baseline.hpp"
#endif

namespace reduce_lab::grader {

namespace {

// A row lab is benched once it is right on this matrix: rows of an odd length, past a warp.
constexpr Shape kRowsCheckShape{100, 33};

// The block-size table's n: the speed tests' size, or the sweep's largest if smaller.
constexpr std::size_t kBlockSizeTableFloats = std::size_t{1} << 26;

// One lab's median time and GB/s at n (4 bytes x n / median), its result checked every sample.
nlohmann::json time_lab_at(const ModuleInfo* module, unsigned variant, const std::string& title,
                           const DeviceBuffer& pristine, std::size_t n, const Reference& ref, L2Flush& flush,
                           int samples) {
  LabRunner runner(module, DType::f32, Op::sum, Flavor::counted, variant);
  runner.allocate_for_timing(n);
  std::optional<RunOutcome> last;
  auto prepare = [&] {
    runner.load(pristine);  // labs 1-2 reduce in place
    flush();
  };
  auto verify = [&] {
    last = runner.finish();
    if (!last->ran) throw std::runtime_error(title + " at n = " + size_text(n) + ": " + last->error);
    return compare(last->value, ref, DType::f32, n).ok;
  };
  const Timed timed = time_samples(samples, prepare, [&] { runner.enqueue(); }, verify);
  nlohmann::json point = sample_figures(timed.ms, 4.0 * static_cast<double>(n));
  point["n"] = n;
  point["ok"] = !timed.wrong;
  return point;
}

// Every variant of a lab with block sizes (lab 9's K) in its own block size and each of the
// plan's others, at n: {"lab", "n", "block_sizes", "series": [{"variant", "points": [{"block_size", ...}]}]}.
nlohmann::json bench_block_sizes(int lab, const ModuleInfo* module, int samples, std::size_t n, L2Flush& flush) {
  const LabInfo& info = lab_info(lab);
  std::vector<unsigned> sizes = info.block_sizes;
  sizes.push_back(kVariantOwnBlockSize);  // the module's own, asked for as any other
  const HostArray input = make_input(Pattern::uniform, DType::f32, n);
  const Reference ref = reference(input, Op::sum);
  DeviceBuffer pristine(n, sizeof(float));
  pristine.upload(input.data(), n * sizeof(float));
  nlohmann::json table = {{"lab", lab}, {"name", lab_title(lab)}, {"device", device_facts().name},
                          {"variant_name", info.variant_name}, {"n", n}, {"samples", samples},
                          {"series", nlohmann::json::array()}};
  for (unsigned variant : info.variants) {
    nlohmann::json series = {{"variant", variant}, {"points", nlohmann::json::array()}};
    for (unsigned size : sizes) {
      const unsigned asked = with_block_size(variant, size);
      nlohmann::json point =
          time_lab_at(module, asked, lab_title(lab) + " at " + variant_text(lab, asked), pristine, n, ref, flush, samples);
      point["block_size"] = size;
      series["points"].push_back(point);
    }
    std::sort(series["points"].begin(), series["points"].end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return a["block_size"].get<unsigned>() < b["block_size"].get<unsigned>();
    });
    table["series"].push_back(series);
  }
  return table;
}

}  // namespace

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

  // The labs that can be timed: built, written, and right at the smallest size (a row lab: on
  // a small matrix; it is timed after the sweep, on its own table).
  // A lab with variants (lab 9's fan-in K) is a line per variant.
  struct Contender {
    int lab;
    const ModuleInfo* module;
    nlohmann::json series;
    unsigned variant = 0;
  };
  std::vector<Contender> labs;
  std::optional<Contender> rows_lab, sweep_lab;  // lab 8's table, lab 10's sweep: after the sizes
  const std::size_t smallest = std::size_t{1} << plan.low_log;
  auto problem_of = [](const RunOnce& once, const std::string& where) -> std::string {
    switch (once.problem) {
      case RunOnce::Problem::todo: return "not implemented yet";
      case RunOnce::Problem::fault: return std::string(fault_name(once.fault)) + " at " + where;
      case RunOnce::Problem::wrong: return "wrong at " + where + ": " + once.detail;
      case RunOnce::Problem::none: break;
    }
    return "";
  };
  for (int lab = 1; lab <= lab_count(); ++lab)
    for (unsigned variant : has_check(lab, "speedup") ? lab_info(lab).variants : std::vector<unsigned>{}) {
      const bool rows = lab_info(lab).kind == LabKind::rows;
      const LoadedLab loaded = load_lab(lab, Flavor::plain);
      const std::string variant_name = variant_text(lab, variant);
      const std::string name = lab_title(lab) + (variant_name.empty() ? "" : " at " + variant_name);
      std::string problem;
      if (!loaded) {
        problem = loaded.problem.substr(0, loaded.problem.find('\n'));
      } else if (rows) {
        const Shape shape = kRowsCheckShape;
        problem = problem_of(run_once_rows(loaded.info, make_matrix(Pattern::uniform, DType::f32, shape)),
                             shape_text(shape));
      } else {
        const HostArray input = make_input(Pattern::uniform, DType::f32, smallest);
        problem = problem_of(run_once(loaded.info, input, reference(input, Op::sum), nullptr, variant),
                             "n = " + size_text(smallest));
      }
      if (!problem.empty()) {
        bench["left_out"].push_back({{"lab", lab}, {"name", name}, {"why", problem}});
        std::printf("%s left out: %s\n", name.c_str(), problem.c_str());
        std::fflush(stdout);  // before the next lab's kernel, which may take the process down
        continue;
      }
      if (rows) {
        rows_lab = Contender{lab, loaded.info, nullptr};
        continue;
      }
      if (!lab_info(lab).sweep.values.empty()) sweep_lab = Contender{lab, loaded.info, nullptr};
      nlohmann::json series = {{"name", name}, {"kind", "lab"}, {"lab", lab}, {"points", nlohmann::json::array()}};
      if (variant) series["variant"] = variant;
      labs.push_back({lab, loaded.info, series, variant});
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
    for (Contender& contender : labs)
      contender.series["points"].push_back(time_lab_at(contender.module, contender.variant, lab_title(contender.lab),
                                                       pristine, n, ref, flush, samples));
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

  // A lab whose variants also run in other block sizes (lab 9): each variant in each, at one n.
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const auto found = std::find_if(labs.begin(), labs.end(), [lab](const Contender& c) { return c.lab == lab; });
    if (lab_info(lab).block_sizes.empty() || found == labs.end()) continue;
    const std::size_t n = std::min(kBlockSizeTableFloats, std::size_t{1} << plan.high_log);
    std::printf("%s: every %s in every block size at n = %s ...\n", lab_title(lab).c_str(),
                lab_info(lab).variant_name.c_str(), size_text(n).c_str());
    std::fflush(stdout);
    try {
      bench["block_sizes"] = bench_block_sizes(lab, found->module, samples, n, flush);
    } catch (const std::exception& error) {
      bench["left_out"].push_back({{"lab", lab}, {"name", lab_title(lab) + "'s block sizes"}, {"why", error.what()}});
    }
  }
  if (sweep_lab) {
    // The lab's own speed test's sweep, at its sizes up to the sweep's largest (a quick run's
    // --sizes may leave none).
    const std::size_t largest = std::size_t{1} << plan.high_log;
    std::printf("%s: its sweep of %s ...\n", lab_title(sweep_lab->lab).c_str(),
                lab_info(sweep_lab->lab).sweep.name.c_str());
    std::fflush(stdout);
    try {
      nlohmann::json sweep = time_sweep(sweep_lab->lab, sweep_lab->module, samples, largest);
      if (sweep["sizes"].empty())
        bench["notes"].push_back(lab_title(sweep_lab->lab) + "'s sweep is timed from n = " +
                                 size_text(lab_info(sweep_lab->lab).sweep.sizes.front()) + ", past this run's sizes");
      else
        bench["sweep"] = sweep;
    } catch (const std::exception& error) {
      bench["left_out"].push_back(
          {{"lab", sweep_lab->lab}, {"name", lab_title(sweep_lab->lab) + "'s sweep"}, {"why", error.what()}});
    }
  }
  if (rows_lab) {
    // The rows table at the size docs/08-rows.md measures, or the sweep's largest if smaller.
    const std::size_t elements = std::min(kRowsTableFloats, std::size_t{1} << plan.high_log);
    std::printf("%s: rows of a %s-float matrix ...\n", lab_title(rows_lab->lab).c_str(), size_text(elements).c_str());
    std::fflush(stdout);
    try {
      bench["rows"] = bench_rows(rows_lab->module, samples, elements);
    } catch (const std::exception& error) {
      bench["left_out"].push_back({{"lab", rows_lab->lab}, {"name", lab_title(rows_lab->lab)}, {"why", error.what()}});
    }
  }
  return bench;
}

std::string bench_table(const nlohmann::json& bench) {
  std::ostringstream out;
  auto table = [&](const char* title, const char* key, const char* pattern) {
    out << "\n" << title << "\n" << "n      ";
    for (const nlohmann::json& series : bench["series"]) {
      const std::string kind = series.value("kind", "lab");
      // "lab 7", or a variant's line "9 K=16"
      const std::string lab = std::to_string(series.value("lab", 0));
      const std::string head = kind != "lab"                ? (kind == "cub" ? "CUB" : "copy")
                               : series.contains("variant") ? lab + " K=" + std::to_string(series["variant"].get<unsigned>())
                                                            : "lab " + lab;
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
  if (bench.contains("rows")) out << "\n" << bench_rows_table(bench["rows"]);
  if (bench.contains("sweep")) out << "\n" << sweep_table(bench["sweep"]);
  if (bench.contains("block_sizes")) out << "\n" << block_sizes_table(bench["block_sizes"]);
  for (const nlohmann::json& left : bench["left_out"])
    out << left["name"].get<std::string>() << " was left out: " << left["why"].get<std::string>() << "\n";
  for (const nlohmann::json& note : bench["notes"]) out << "Note: " << note.get<std::string>() << "\n";
  return out.str();
}

std::string block_sizes_table(const nlohmann::json& table) {
  std::ostringstream out;
  const std::string name = table["variant_name"].get<std::string>();
  out << table["name"].get<std::string>() << " on " << table["device"].get<std::string>() << ": GB/s at n = "
      << size_text(table["n"].get<std::size_t>()) << " (4 bytes x n / median of " << table["samples"].get<int>()
      << " samples), every " << name << " in every block size\n";
  char cell[32];
  std::snprintf(cell, sizeof cell, "%-8s", "threads");
  out << cell;
  for (const nlohmann::json& series : table["series"]) {
    std::snprintf(cell, sizeof cell, " %9s", (name + " = " + std::to_string(series["variant"].get<unsigned>())).c_str());
    out << cell;
  }
  out << "\n";
  const nlohmann::json& first = table["series"].at(0)["points"];
  for (std::size_t row = 0; row < first.size(); ++row) {
    std::snprintf(cell, sizeof cell, "%-8u", first[row]["block_size"].get<unsigned>());
    out << cell;
    for (const nlohmann::json& series : table["series"]) {
      const nlohmann::json& point = series["points"].at(row);
      std::snprintf(cell, sizeof cell, " %9s",
                    (format("%.0f", point["gbs"].get<double>()) + (point.value("ok", true) ? "" : "!")).c_str());
      out << cell;
    }
    out << "\n";
  }
  return out.str();
}

std::string bench_rows_table(const nlohmann::json& rows) {
  std::ostringstream out;
  const double copy = rows["copy_gbs"].get<double>();
  const std::string lab = "lab " + std::to_string(rows["lab"].get<int>());
  out << rows["name"].get<std::string>() << " on " << rows["device"].get<std::string>()
      << ": each row of an m x n matrix of " << size_text(rows["elements"].get<std::size_t>())
      << " floats summed, median of " << rows["samples"].get<int>() << " samples\n"
      << "GB/s: 4 (m n + m) / median time, the matrix read and a float a row written; (%): its share of the copy "
         "bandwidth, " << format("%.0f", copy)
      << " GB/s (bytes read + written by a device-to-device copy)\n";
  char line[160];
  std::snprintf(line, sizeof line, "%10s %9s %11s %15s %11s %15s %8s\n", "m", "n", (lab + " ms").c_str(),
                (lab + " GB/s").c_str(), "CUB ms", "CUB GB/s", "vs CUB");
  out << line;
  bool cub = false;
  for (const nlohmann::json& shape : rows["shapes"]) {
    const nlohmann::json& mine = shape["lab"];
    std::string cub_ms = "-", cub_gbs = "-", ratio = "-";
    if (shape.contains("cub")) {
      cub = true;
      cub_ms = format("%.4f", shape["cub"]["median_ms"].get<double>());
      cub_gbs = format("%.0f", shape["cub"]["gbs"].get<double>()) +
                format(" (%3.0f%%)", 100 * shape["cub"]["copy_share"].get<double>());
      ratio = format("%.2fx", shape["cub_ratio"].get<double>());
    }
    std::snprintf(line, sizeof line, "%10s %9s %11.4f %8.0f (%3.0f%%) %11s %15s %8s\n",
                  size_text(shape["rows"].get<std::size_t>()).c_str(),
                  size_text(shape["columns"].get<std::size_t>()).c_str(),
                  mine["median_ms"].get<double>(), mine["gbs"].get<double>(), 100 * mine["copy_share"].get<double>(),
                  cub_ms.c_str(), cub_gbs.c_str(), ratio.c_str());
    out << line;
  }
  if (cub) out << "vs CUB: CUB's time over " << lab << "'s (above 1: " << lab << " is faster).\n";
  return out.str();
}

}  // namespace reduce_lab::grader
