#include "tool_commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench.hpp"
#include "calibration.hpp"
#include "measure/charts.hpp"
#include "command_line.hpp"
#include "run/device.hpp"
#include "base/files.hpp"
#include "run/modules.hpp"
#include "checks/rows_speed_check.hpp"
#include "show/command.hpp"
#include "sum_spread.hpp"
#include "run/supervision.hpp"
#include "run/supervisor.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

namespace {

constexpr const char* kCalibrateUsage = "labtools --calibrate ROUNDS_DIR THRESHOLDS_FILE [--margin M]";

int calibrate_command(int argc, char** argv) {
  if (argc < 4) throw UsageError(std::string("usage: ") + kCalibrateUsage);
  const Options options = parse_options(argc, argv, 4, {{"--margin", 1}}, kCalibrateUsage);
  const std::string rounds = argv[2], out = argv[3];
  if (!std::filesystem::is_directory(rounds)) throw UsageError(rounds + " is not a folder of calibration rounds");
  const nlohmann::json calibration =
      calibrate(rounds, number_option(options, "--margin", kDefaultCalibrationMargin), kit_version());
  std::fputs(calibration_table(calibration).c_str(), stdout);
  write_text(out, thresholds_cache(calibration));
  const std::filesystem::path beside = std::filesystem::path(out).parent_path() / "calibration.json";
  write_json(beside.string(), calibration);
  std::printf("\nThresholds: %s\nFigures: %s\nGrade with them: ./lab grade --thresholds %s\n", out.c_str(),
              beside.string().c_str(), out.c_str());
  return 0;
}

constexpr const char* kBenchUsage = "labtools --bench OUT_DIR [--sizes LOW HIGH] [--sources labs|solutions]";

int bench_command(int argc, char** argv) {
  if (argc < 3) throw UsageError(std::string("usage: ") + kBenchUsage);
  const Options options = parse_options(argc, argv, 3, {{"--sizes", 2}, {"--sources", 1}}, kBenchUsage);
  BenchPlan plan;
  if (options.count("--sizes")) {
    plan.low_log = std::atoi(options.at("--sizes")[0].c_str());
    plan.high_log = std::atoi(options.at("--sizes")[1].c_str());
  }
  plan.sources = option(options, "--sources", "solutions");
  const std::filesystem::path out = argv[2];
  auto sweep = [&] {
    std::string why;
    if (!gpu_present(&why)) throw UsageError("./lab bench needs a usable GPU: " + why);
    const nlohmann::json bench = run_bench(plan);
    std::fputs(bench_table(bench).c_str(), stdout);
    write_json((out / "bench.json").string(), bench);
    write_text((out / "bench.svg").string(), bench_svg(bench));
    std::printf("\nBench: %s, %s", (out / "bench.json").string().c_str(), (out / "bench.svg").string().c_str());
    if (bench.contains("rows")) {
      write_text((out / "bench-rows.svg").string(), bench_rows_svg(bench["rows"]));
      std::printf(", %s", (out / "bench-rows.svg").string().c_str());
    }
    if (bench.contains("sweep")) {
      write_text((out / "bench-sweep.svg").string(), sweep_svg(bench["sweep"]));
      std::printf(", %s", (out / "bench-sweep.svg").string().c_str());
    }
    if (bench.contains("block_sizes")) {
      write_text((out / "bench-block-sizes.svg").string(), block_sizes_svg(bench["block_sizes"]));
      std::printf(", %s", (out / "bench-block-sizes.svg").string().c_str());
    }
    std::printf("\n");
    return 0;
  };
  // The sweep runs students' kernels: in a child this process supervises, as a test is run, so
  // a lab that takes the process down, or runs past the watchdog's limit (REDUCE_LAB_RUN_TIMEOUT),
  // ends the sweep with the grade's words for it. Nothing touches the GPU before the fork.
  return supervise(0, [&] {
    int code = 2;
    try {
      code = sweep();
    } catch (const std::exception& error) {
      std::fprintf(stderr, "labtools --bench: %s\n", error.what());
    }
    supervision::note_verdict();
    return code;
  });
}

constexpr const char* kBenchRowsUsage = "labtools --bench-rows OUT_DIR";

// Lab 8's table (docs/08-rows.md): the lab's module against CUB's segmented reduction and the
// copy bandwidth, one row length per line, m filling 2^26 floats; ./lab bench's "rows" alone.
int bench_rows_command(int argc, char** argv) {
  if (argc != 3) throw UsageError(std::string("usage: ") + kBenchRowsUsage);
  std::string why;
  if (!gpu_present(&why)) throw UsageError("the rows table needs a usable GPU: " + why);
  const LoadedLab lab = load_lab(8, Flavor::plain);
  if (!lab) throw UsageError("lab 8 cannot be loaded: " + lab.problem);
  const nlohmann::json table = bench_rows(lab.info, sample_count(), kRowsTableFloats);
  std::fputs(bench_rows_table(table).c_str(), stdout);
  const std::filesystem::path out = argv[2];
  write_json((out / "rows.json").string(), table);
  write_text((out / "rows.svg").string(), bench_rows_svg(table));
  std::printf("\nTable: %s, %s\n", (out / "rows.json").string().c_str(), (out / "rows.svg").string().c_str());
  return 0;
}

constexpr const char* kSpreadUsage = "labtools --spread OUT_DIR [--log-n K] [--runs R]";

// The spread of one input's float sums across labs 1, 2, 4 and 7, the CPU loop and repeated runs
// (sum_spread.hpp): docs/grading.md's figures behind the tolerance. 2^24 floats, 20 runs unless
// told otherwise.
int spread_command(int argc, char** argv) {
  if (argc < 3) throw UsageError(std::string("usage: ") + kSpreadUsage);
  const Options options = parse_options(argc, argv, 3, {{"--log-n", 1}, {"--runs", 1}}, kSpreadUsage);
  const int log_n = options.count("--log-n") ? std::atoi(options.at("--log-n")[0].c_str()) : 24;
  const int runs = options.count("--runs") ? std::atoi(options.at("--runs")[0].c_str()) : 20;
  if (log_n < 1 || log_n > 30 || runs < 1 || runs > 1000)
    throw UsageError("--log-n is 1 to 30 and --runs 1 to 1000 (" + std::string(kSpreadUsage) + ")");
  const std::filesystem::path out = argv[2];
  return supervise(0, [&] {
    int code = 2;
    try {
      const nlohmann::json spread = sum_spread(std::size_t{1} << log_n, runs);
      std::fputs(sum_spread_table(spread).c_str(), stdout);
      write_json((out / "spread.json").string(), spread);
      std::printf("\nSpread: %s\n", (out / "spread.json").string().c_str());
      code = 0;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "labtools --spread: %s\n", error.what());
    }
    supervision::note_verdict();
    return code;
  });
}

}  // namespace

int run_tool_command(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string command = argv[1];
  try {
    if (command == "--calibrate") return calibrate_command(argc, argv);
    if (command == "--bench") return bench_command(argc, argv);
    if (command == "--bench-rows") return bench_rows_command(argc, argv);
    if (command == "--spread") return spread_command(argc, argv);
    if (command == "--show") return show::show_command(argc, argv);
    if (command == "--show-docs") return show::show_docs_command(argc, argv);
  } catch (const std::exception& e) {  // a UsageError (a bad command line or input file) too
    std::fprintf(stderr, "labtools %s: %s\n", command.c_str(), e.what());
    return 2;
  }
  return -1;
}

}  // namespace reduce_lab::grader
