#include "commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/catalog.hpp"
#include "command_line.hpp"
#include "measure/charts.hpp"
#include "checks/speed_check.hpp"
#include "run/device.hpp"
#include "measure/device_figures.hpp"
#include "base/files.hpp"
#include "report/gradescope.hpp"
#include "run/records.hpp"
#include "report/report.hpp"
#include "base/settings.hpp"
#include "report/table.hpp"
#include "tool_commands.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

namespace {

std::string default_points_file() {
  if (!settings().points_file.empty()) return settings().points_file;
  const std::string file = grader_source_root() + "/grader/points.json";
  return std::filesystem::exists(file) ? file : "";
}

// The whole file, for a command that cannot go on without it.
std::string required_text(const std::string& path) {
  bool found = false;
  std::string text = read_text(path, &found);
  if (!found) throw UsageError(path + " cannot be read");
  return text;
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
    "[--reference FILE] [--elapsed SECONDS] [--notes FILE] [--labs LIST] [--handed-in LIST] [--quiet]";

// "1,2,5" (or "" for none) as lab numbers of this kit.
std::vector<int> lab_list(const std::string& name, const std::string& text) {
  std::vector<int> labs;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    if (part.empty()) continue;
    char* end = nullptr;
    const long lab = std::strtol(part.c_str(), &end, 10);
    if (end == part.c_str() || *end != '\0' || !is_lab(static_cast<int>(lab)))
      throw UsageError(name + " takes lab numbers of this kit, such as 1,2,5 (labs 1-" + std::to_string(lab_count()) +
                       "), not '" + text + "'");
    labs.push_back(static_cast<int>(lab));
  }
  return labs;
}

std::optional<std::vector<int>> lab_list_option(const Options& options, const std::string& name) {
  const auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return lab_list(name, it->second.front());
}

Points points_from(const std::string& file) {
  try {
    return load_points(file);
  } catch (const std::exception& e) {
    throw UsageError(std::string("the points file: ") + e.what());
  }
}

int table_command(int argc, char** argv) {
  if (argc < 4) throw UsageError(std::string("usage: ") + kTableUsage);
  const std::string dir = argv[2], title = argv[3];
  const Options options = parse_options(argc, argv, 4,
                                        {{"--report", 1}, {"--svg", 1}, {"--points", 1}, {"--gradescope", 1},
                                         {"--reference", 1}, {"--elapsed", 1}, {"--notes", 1}, {"--labs", 1},
                                         {"--handed-in", 1}, {"--quiet", 0}},
                                        kTableUsage);
  const bool quiet = options.count("--quiet") != 0;
  const std::filesystem::path build = std::filesystem::path(dir).parent_path().empty()
                                          ? std::filesystem::path(".")
                                          : std::filesystem::path(dir).parent_path();
  const std::string report_path = option(options, "--report", (build / "report.json").string());
  const std::string svg_path = option(options, "--svg", (build / "staircase.svg").string());
  const std::string gradescope_path = option(options, "--gradescope");

  ReportInput input{dir, title, kit_version()};
  input.labs = lab_list_option(options, "--labs");
  input.handed_in = lab_list_option(options, "--handed-in");
  // Quiet (grade-all), nothing is printed, so the table is not made: the report says whether
  // every lab passed.
  const bool table_passed = !quiet && print_table(dir, title);

  Points points;
  const std::string points_file = option(options, "--points", default_points_file());
  if (!points_file.empty()) {
    points = points_from(points_file);
    input.points = &points;
  } else if (!gradescope_path.empty()) {
    throw UsageError("--gradescope needs the points per lab and check: grader/points.json, or --points FILE");
  }
  nlohmann::json report = build_report(input);
  const bool passed = quiet ? report["passed"] == true : table_passed;

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
  report["staircase"] = draw_staircase(report, reference, reference_note, svg_path, !quiet);
  write_json(report_path, report);
  if (!quiet) std::printf("\nReport: %s\n", report_path.c_str());
  if (!quiet && report["staircase"]["drawn"] == true) std::printf("Staircase: %s\n", svg_path.c_str());

  if (!gradescope_path.empty()) {
    const std::string notes_file = option(options, "--notes");
    const std::string notes = notes_file.empty() ? "" : required_text(notes_file);
    const nlohmann::json results =
        gradescope_results(report, table_text(dir, title, nullptr), number_option(options, "--elapsed", 0), notes);
    write_json(gradescope_path, results);
    if (!quiet)
      std::printf("Gradescope results: %s (score %g of %g)\n", gradescope_path.c_str(), results["score"].get<double>(),
                  report["max_score"].get<double>());
  }
  std::fflush(stdout);
  return passed ? 0 : 1;
}

constexpr const char* kCheckPointsUsage = "labgrader --check-points [POINTS_FILE]";

// Checks a points file as every grade reads it (load_points) and says what a grade is out of:
// on a GPU, and on the CPU emulator, which is what Gradescope grades. A file that gives the
// emulator's checks nothing is refused: every Gradescope submission would score 0 of 0.
int check_points_command(int argc, char** argv) {
  if (argc > 3) throw UsageError(std::string("usage: ") + kCheckPointsUsage);
  const std::string file = argc == 3 ? argv[2] : default_points_file();
  if (file.empty()) throw UsageError("no points file: grader/points.json is missing; name one");
  const Points points = points_from(file);
  std::string emulator_checks;
  for (const std::string& check : check_names())
    if (not_run_on("emu", check).empty()) emulator_checks += (emulator_checks.empty() ? "" : " and ") + check;
  const double gpu = points_out_of(points, "gpu"), emulator = points_out_of(points, "emu");
  if (emulator == 0)
    throw UsageError(file + " gives no points to " + emulator_checks +
                     ", the checks the CPU emulator (and so Gradescope) grades: every submission would score 0 of 0.");
  std::error_code error;
  const std::filesystem::path relative = std::filesystem::relative(file, grader_source_root(), error);
  const std::string shown = !error && !relative.empty() && relative.native().rfind("..", 0) != 0 ? relative.string() : file;
  std::printf("%s: %g points on a GPU; %g on the CPU emulator (%s), which is what Gradescope grades.\n", shown.c_str(), gpu,
              emulator, emulator_checks.c_str());
  return 0;
}

constexpr const char* kRescoreUsage = "labgrader --rescore REPORT... [--points FILE]";

// Scores reports written before again, in place, with the points file as it is now: a class's
// points change without grading anyone again, by the scorer that scored them first.
int rescore_command(int argc, char** argv) {
  std::vector<std::string> reports;
  std::string file = default_points_file();
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--points" && i + 1 < argc)
      file = argv[++i];
    else if (arg.rfind("--", 0) == 0)
      throw UsageError("unknown option " + arg + "; usage: " + kRescoreUsage);
    else
      reports.push_back(arg);
  }
  if (reports.empty()) throw UsageError(std::string("usage: ") + kRescoreUsage);
  if (file.empty()) throw UsageError("no points file: grader/points.json is missing; name one with --points");
  const Points points = points_from(file);
  for (const std::string& path : reports) {
    nlohmann::json report = read_json(path);
    if (!report.is_object() || !report.contains("labs"))
      throw UsageError(path + " is not a report.json (it has no labs)");
    rescore_file(path, std::move(report), points);
  }
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
  if (const std::string& dir = settings().results_dir; !dir.empty()) write_json(dir + "/device.json", device);
  return status;
}

int run_command(int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string command = argv[1];
  try {
    if (command == "--table") return table_command(argc, argv);
    if (command == "--check-points") return check_points_command(argc, argv);
    if (command == "--rescore") return rescore_command(argc, argv);
    if (command == "--kit-version") {
      std::printf("%s\n", kit_version().c_str());
      return 0;
    }
    if (is_tool_command(command)) {
#if REDUCE_LAB_SELFTEST
      return run_tool_command(argc, argv);  // the kit's tests call them in this program too
#else
      throw UsageError("this command is labtools', beside labgrader in the build folder (./lab show, bench and "
                       "calibrate build it)");
#endif
    }
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
  } catch (const std::exception& e) {  // a UsageError (a bad command line or input file) too
    std::fprintf(stderr, "labgrader %s: %s\n", command.c_str(), e.what());
    return 2;
  }
  return -1;
}

}  // namespace reduce_lab::grader
