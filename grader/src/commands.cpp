#include "commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench.hpp"
#include "calibration.hpp"
#include "charts.hpp"
#include "speed_check.hpp"
#include "device.hpp"
#include "grade_report.hpp"
#include "report.hpp"
#include "show/command.hpp"
#include "timing.hpp"

namespace reduce_lab::grader {

namespace {

// Thrown for a bad command line or input file: main prints it and exits with 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "--name value" options after a command's positional arguments.
using Options = std::map<std::string, std::vector<std::string>>;

Options parse_options(int argc, char** argv, int first, const std::map<std::string, int>& allowed, const char* usage) {
  Options options;
  for (int i = first; i < argc; ++i) {
    const std::string name = argv[i];
    const auto known = allowed.find(name);
    if (known == allowed.end()) throw UsageError("unknown option '" + name + "'\nusage: " + usage);
    if (i + known->second >= argc)
      throw UsageError(name + " needs " + std::to_string(known->second) + " value(s)\nusage: " + usage);
    std::vector<std::string>& values = options[name];
    for (int k = 0; k < known->second; ++k) values.push_back(argv[++i]);
  }
  return options;
}

std::string option(const Options& options, const std::string& name, const std::string& fallback = "") {
  const auto it = options.find(name);
  return it == options.end() || it->second.empty() ? fallback : it->second.front();
}

double number_option(const Options& options, const std::string& name, double fallback) {
  const std::string text = option(options, name);
  if (text.empty()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') throw UsageError(name + " takes a number, not '" + text + "'");
  return value;
}

std::string source_root() {
#if defined(REDUCE_LAB_SOURCE_ROOT_DIR)
  return REDUCE_LAB_SOURCE_ROOT_DIR;
#else
  return ".";
#endif
}

std::string first_line_of_command(const std::string& command) {
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[256];
    if (std::fgets(buffer, sizeof buffer, pipe)) text = buffer;
    pclose(pipe);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// ./lab passes the version it computed; by hand, the kit this grader was built from answers.
std::string kit_version() {
  if (const char* version = std::getenv("REDUCE_LAB_KIT_VERSION"); version && *version) return version;
  const std::string root = source_root();
  std::ifstream handed_out(root + "/.kit-version");  // a handout or an autograder copy
  std::string version;
  if (handed_out && std::getline(handed_out, version) && !version.empty()) return version;
  version = first_line_of_command("git -C '" + root + "' describe --always --dirty 2>/dev/null");
  return version.empty() ? "unknown" : version;
}

std::string default_points_file() {
  if (const char* file = std::getenv("REDUCE_LAB_POINTS"); file && *file) return file;
  const std::string file = source_root() + "/grader/points.json";
  return std::filesystem::exists(file) ? file : "";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + " cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

nlohmann::json draw_staircase(const nlohmann::json& report, const nlohmann::json& reference, std::string reference_note,
                              const std::string& svg_path, bool print) {
  const Staircase staircase = staircase_of(report, reference, &reference_note);
  std::error_code ignored;
  if (report["backend"] != "gpu" || !staircase.drawable()) {
    std::filesystem::remove(svg_path, ignored);  // a stale chart from an earlier grade would mislead
    const std::string why = report["backend"] == "emu"
                                ? "the CPU emulator does not model time, so no lab is timed: the staircase of GB/s per lab "
                                  "is drawn by ./lab grade on a machine with an NVIDIA GPU"
                                : "no lab was timed in this grade (each speed test's message says why)";
    // On the emulator the table's title already says that speed needs a GPU.
    if (print && report["backend"] == "gpu" && !report["labs"].empty()) std::printf("\n(No staircase: %s.)\n", why.c_str());
    return {{"drawn", false}, {"why", why}};
  }
  if (print) {
    std::fputs(staircase_terminal(staircase, colour_wanted()).c_str(), stdout);
    if (!reference_note.empty()) std::printf("(No reference outlines: %s.)\n", reference_note.c_str());
  }
  write_text(svg_path, staircase_svg(staircase));
  nlohmann::json steps = nlohmann::json::array();
  for (const StaircaseStep& step : staircase.steps)
    steps.push_back({{"lab", step.lab},
                     {"gbs", step.timed ? nlohmann::json(step.gbs) : nlohmann::json()},
                     {"reference_gbs", step.reference_gbs ? nlohmann::json(*step.reference_gbs) : nlohmann::json()},
                     {"speed_passed", step.passed}});
  auto known = [](double value) { return value > 0 ? nlohmann::json(value) : nlohmann::json(); };
  return {{"drawn", true},
          {"svg", svg_path},
          {"device", staircase.device},
          {"n", staircase.n},
          {"copy_gbs", known(staircase.copy_gbs)},
          {"cub_gbs", known(staircase.cub_gbs)},
          {"reference", staircase.reference_note.empty() ? nlohmann::json() : nlohmann::json(staircase.reference_note)},
          {"labs", steps}};
}

namespace {

constexpr const char* kTableUsage =
    "labgrader --table RESULTS_DIR TITLE [--report FILE] [--svg FILE] [--points FILE] [--gradescope FILE] "
    "[--reference FILE] [--elapsed SECONDS] [--notes FILE]";

int table_command(int argc, char** argv) {
  if (argc < 4) throw UsageError(std::string("usage: ") + kTableUsage);
  const std::string dir = argv[2], title = argv[3];
  const Options options = parse_options(argc, argv, 4,
                                        {{"--report", 1}, {"--svg", 1}, {"--points", 1}, {"--gradescope", 1},
                                         {"--reference", 1}, {"--elapsed", 1}, {"--notes", 1}},
                                        kTableUsage);
  const std::filesystem::path build = std::filesystem::path(dir).parent_path().empty()
                                          ? std::filesystem::path(".")
                                          : std::filesystem::path(dir).parent_path();
  const std::string report_path = option(options, "--report", (build / "report.json").string());
  const std::string svg_path = option(options, "--svg", (build / "staircase.svg").string());
  const std::string gradescope_path = option(options, "--gradescope");

  const bool passed = print_table(dir, title);

  Points points;
  const std::string points_file = option(options, "--points", default_points_file());
  if (!points_file.empty()) {
    try {
      points = load_points(points_file);
    } catch (const std::exception& e) {
      throw UsageError(std::string("the points file: ") + e.what());
    }
  } else if (!gradescope_path.empty()) {
    throw UsageError("--gradescope needs the points per lab and check: grader/points.json, or --points FILE");
  }
  nlohmann::json report = build_report({dir, title, kit_version(), points_file.empty() ? nullptr : &points});

  // The staircase: drawn where labs were timed, which only a GPU does.
  nlohmann::json reference;
  std::string reference_note;
  if (const std::string file = option(options, "--reference"); !file.empty()) {
    try {
      reference = read_json(file);
    } catch (const std::exception& e) {
      reference_note = e.what();
    }
  }
  report["staircase"] = draw_staircase(report, reference, reference_note, svg_path, true);
  write_json(report_path, report);
  std::printf("\nReport: %s\n", report_path.c_str());
  if (report["staircase"]["drawn"] == true) std::printf("Staircase: %s\n", svg_path.c_str());

  if (!gradescope_path.empty()) {
    const std::string notes_file = option(options, "--notes");
    const std::string notes = notes_file.empty() ? "" : read_text(notes_file);
    const nlohmann::json results =
        gradescope_results(report, table_text(dir, title, nullptr), number_option(options, "--elapsed", 0), notes);
    write_json(gradescope_path, results);
    std::printf("Gradescope results: %s (score %g of %g)\n", gradescope_path.c_str(), results["score"].get<double>(),
                report["max_score"].get<double>());
  }
  std::fflush(stdout);
  return passed ? 0 : 1;
}

constexpr const char* kCalibrateUsage = "labgrader --calibrate ROUNDS_DIR THRESHOLDS_FILE [--margin M]";

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

constexpr const char* kBenchUsage = "labgrader --bench OUT_DIR [--sizes LOW HIGH] [--sources labs|solutions]";

int bench_command(int argc, char** argv) {
  if (argc < 3) throw UsageError(std::string("usage: ") + kBenchUsage);
  const Options options = parse_options(argc, argv, 3, {{"--sizes", 2}, {"--sources", 1}}, kBenchUsage);
  BenchPlan plan;
  if (options.count("--sizes")) {
    plan.low_log = std::atoi(options.at("--sizes")[0].c_str());
    plan.high_log = std::atoi(options.at("--sizes")[1].c_str());
  }
  plan.sources = option(options, "--sources", "solutions");
  std::string why;
  if (!gpu_present(&why)) throw UsageError("./lab bench needs a usable GPU: " + why);
  const std::filesystem::path out = argv[2];
  const nlohmann::json bench = run_bench(plan);
  std::fputs(bench_table(bench).c_str(), stdout);
  write_json((out / "bench.json").string(), bench);
  write_text((out / "bench.svg").string(), bench_svg(bench));
  std::printf("\nBench: %s, %s\n", (out / "bench.json").string().c_str(), (out / "bench.svg").string().c_str());
  return 0;
}

}  // namespace

int record_device_figures() {
  nlohmann::json device;
  int status = 0;
  try {
    device = measure_device(benchmark_floats(), sample_count());
    std::printf("%s: copy %.0f GB/s", device["name"].get<std::string>().c_str(), device["copy_gbs"].get<double>());
    if (device["cub"].is_object())
      std::printf(", cub::DeviceReduce::Sum %.0f GB/s (%.4f ms)%s", device["cub"]["gbs"].get<double>(),
                  device["cub"]["median_ms"].get<double>(), device["cub"]["ok"] == true ? "" : ", WRONG RESULT");
    std::printf(" at n = %zu floats\n", device["n"].get<std::size_t>());
    if (device["cub"].is_object() && device["cub"]["ok"] != true) status = 1;
  } catch (const std::exception& e) {
    device = {{"error", e.what()}};
    std::printf("could not measure the device: %s\n", e.what());
    status = 1;
  }
  if (const char* dir = std::getenv("REDUCE_LAB_RESULTS_DIR"); dir && *dir)
    write_json(std::string(dir) + "/device.json", device);
  return status;
}

int run_command(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string command = argv[1];
  try {
    if (command == "--table") return table_command(argc, argv);
    if (command == "--calibrate") return calibrate_command(argc, argv);
    if (command == "--bench") return bench_command(argc, argv);
    if (command == "--show") return show::show_command(argc, argv);
    if (command == "--show-docs") return show::show_docs_command(argc, argv);
    if (command == "--probe-gpu") {
      // ./lab's last word on whether this machine's GPU can run the labs: the CUDA runtime's
      // own answer (a driver older than the toolkit, no device, no permission).
      std::string why;
      if (!gpu_present(&why)) {
        std::printf("the CUDA runtime cannot use a GPU here (%s)\n", why.c_str());
        return 1;
      }
      std::printf("%s\n", device_facts().name.c_str());
      return 0;
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "labgrader %s: %s\n", command.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "labgrader %s: %s\n", command.c_str(), e.what());
    return 2;
  }
  return -1;
}

}  // namespace reduce_lab::grader
