// report.json, Gradescope's results.json and the staircase, built from records that the real
// checks write: correctness, requests and speed of the reference solutions, measured here
// (on the emulator the times mean nothing, but every figure is there and must add up). The
// report's fields must be exactly those docs/grading.md documents, and every score must follow
// the table's cell.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "bench.hpp"
#include "base/catalog.hpp"
#include "measure/charts.hpp"
#include "checks/timed_traffic.hpp"
#include "commands.hpp"
#include "measure/device_figures.hpp"
#include "base/files.hpp"
#include "report/gradescope.hpp"
#include "kit.hpp"
#include "run/records.hpp"
#include "report/report.hpp"
#include "base/settings.hpp"
#include "report/table.hpp"
#include "measure/timing.hpp"

using namespace reduce_lab;
using namespace reduce_lab::grader;

namespace {

// The lab whose "N name" is the longest of the manifest.
int longest_named_lab() {
  int longest = 1;
  auto title_size = [](int lab) { return std::to_string(lab).size() + 1 + lab_info(lab).name.size(); };
  for (const LabInfo& info : labs())
    if (title_size(info.number) > title_size(longest)) longest = info.number;
  return longest;
}

// The paths of a report as docs/grading.md names them: labs.<lab>.checks.<check>.status, but
// figures and thresholds under the check's own name (races and correctness.emu hold the
// correctness figures). Counter objects, CUB's figures and the emulator's own entry are not
// descended into: the page describes them as a whole.
void walk(const nlohmann::json& value, std::vector<std::string> parts, std::set<std::string>& paths) {
  auto path_of = [](std::vector<std::string> p) {
    if (p.size() >= 2 && p[0] == "labs") p[1] = "<lab>";
    if (p.size() >= 2 && p[0] == "seeds") p[1] = "<test>";
    if (p.size() >= 4 && p[0] == "labs" && p[2] == "checks") {
      const bool own_figures = p.size() >= 6 && (p[4] == "figures" || p[4] == "thresholds");
      if (!own_figures)
        p[3] = "<check>";
      else if (p[3] == "races" || p[3] == "correctness.emu")
        p[3] = "correctness";
    }
    std::string text;
    for (const std::string& part : p) text += (text.empty() || part == "[]" ? "" : ".") + part;
    return text;
  };
  static const std::set<std::string> opaque = {"measured", "book", "expected", "launches", "emu", "cub"};
  if (!parts.empty() && opaque.count(parts.back())) {
    paths.insert(path_of(parts));
    return;
  }
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, child] : value.items()) {
      std::vector<std::string> next = parts;
      next.push_back(key);
      walk(child, next, paths);
    }
  } else if (value.is_array() && !value.empty() && value.front().is_object()) {
    parts.push_back("[]");
    for (const nlohmann::json& item : value) walk(item, parts, paths);
  } else {
    paths.insert(path_of(parts));
  }
}

// The field paths in docs/grading.md's report.json tables: every row's first `code`.
std::set<std::string> documented_paths() {
  const std::string page = read_text(source_root() + "/docs/grading.md");
  const std::size_t begin = page.find("\n## report.json");
  if (begin == std::string::npos) return {};
  const std::size_t end = page.find("\n## ", begin + 1);
  const std::string section = page.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  std::set<std::string> paths;
  static const std::regex row(R"(\n\| `([^`]+)` \|)");
  for (std::sregex_iterator it(section.begin(), section.end(), row), stop; it != stop; ++it) paths.insert((*it)[1]);
  return paths;
}

nlohmann::json record_of(const std::filesystem::path& results, const std::string& name) {
  return read_json((results / (name + ".json")).string());
}

}  // namespace

TEST_CASE("kit report") {
  const auto dir = fresh_dir("report");
  const auto results = dir / "results";
  set_environment("REDUCE_LAB_RESULTS_DIR", results);
  set_environment("REDUCE_LAB_BENCH_N", "4096");
  set_environment("REDUCE_LAB_SAMPLES", "20");
  set_environment("REDUCE_LAB_MIN_SPEEDUP", std::nullopt);
  set_environment("REDUCE_LAB_MIN_BANDWIDTH", std::nullopt);
  // The verdicts below are all there is: on a GPU the emulator's are not asked for here.
  set_environment("REDUCE_LAB_EMU_REQUIRED", std::nullopt);
  set_environment("REDUCE_LAB_EMU_RESULTS_DIR", std::nullopt);

  // Real checks, on plans small enough for the emulator.
  CorrectnessPlan small;
  small.sizes = powers_of_two(2, 4096);
  small.special_sizes = {64};
  small.special_patterns = {Pattern::ones};
  record(1, "correctness", check_correctness(1, small));
  record(1, "requests", check_book_requests(1, {256, 2048}));
  record(3, "requests", check_book_requests(3, {2048}));  // lab 3's shared-memory figures
  // A lab is timed only on passing verdicts of its file and its baseline's (design §13): the
  // timed labs 2 and 7 and their baselines 1 and 6 get theirs, as a grade on the emulator would.
  for (const int lab : {2, 6, 7}) record(lab, "correctness", check_correctness(lab, small));
  for (const int lab : {1, 2, 6, 7}) record(lab, "races", skip("skipped", "compute-sanitizer needs a GPU"));
  // and, on a GPU, the comparison of each timed build's traffic with its counted build's, which a
  // grade's traffic test records (timed_traffic.hpp).
  for (const int lab : {2, 7}) record_timed_traffic(lab);
  // Timed while lab 2's and lab 7's recorded verdicts are still clean: a lab with a failed
  // correctness record is not timed, and the next records fail on purpose.
  record(2, "speedup", check_speedup(2));
  record(7, "speedup", check_speedup(7));
  // Failed correctness records, from solutions written for powers of two given n = 6 and
  // recorded as other labs': lab 3's tree then leaves two elements out (a wrong result), and
  // lab 1 reads past the input, which the emulator reports as out of bounds.
  CorrectnessPlan odd;
  odd.sizes = {6};
  record(2, "correctness", check_correctness(3, odd));
  record(3, "correctness", check_correctness(1, odd));
  {  // a lab with variants names the variant its first wrong case ran, for the picture after a failed
     // grade: lab 9 asked for a fan-in K = 3 it does not have
    CorrectnessPlan no_such_k;
    no_such_k.sizes = {31};
    no_such_k.variants = {3};
    const Verdict k3 = check_correctness(9, no_such_k);
    CHECK(k3.status == Status::fail);
    CHECK(k3.figures["first_wrong_variant"] == 3);
    CHECK(k3.message.find("./lab show 9 --variant 3") != std::string::npos);
    record(9, "correctness", k3);
  }
  {  // now that lab 2's correctness record says FAIL, its speed is not measured (design §13)
    const Verdict refused = check_speedup(2);
    CHECK(refused.status == Status::fail);
    CHECK(refused.summary == "not correct yet");
    CHECK(refused.message.find("correctness test on the") != std::string::npos);
    CHECK_FALSE(refused.figures.contains("lab"));
  }
  TrafficPlan traffic = traffic_plan(4);
  traffic.sizes = {31, 2049};
  record(4, "requests", check_traffic(4, traffic));
  write_json((results / "device.json").string(), measure_device(4096, 20));

  {  // the checks record their figures and thresholds
    const nlohmann::json correctness = record_of(results, "lab1.correctness");
    CHECK(correctness["status"] == "PASS");
    CHECK(correctness["figures"]["cases_run"] == correctness["figures"]["cases_planned"]);
    CHECK(correctness["figures"]["cases_run"] == case_count(small));
    CHECK(correctness["thresholds"].contains("tolerance"));
    CHECK(correctness["seeds"]["inputs"] == std::to_string(process_seed()));

    // The book's counts at n = 256 (design §4): 95 loads and 48 stores.
    const nlohmann::json requests = record_of(results, "lab1.requests");
    const nlohmann::json& at256 = requests["figures"]["sizes"][0];
    CHECK(at256["n"] == 256);
    CHECK(at256["measured"]["requests"]["load"] == 95);
    CHECK(at256["measured"]["requests"]["store"] == 48);
    CHECK(at256["measured"] == at256["book"]);
    CHECK(at256["equal"] == true);

    const nlohmann::json wrong = record_of(results, "lab2.correctness");
    CHECK(wrong["status"] == "FAIL");
    REQUIRE(wrong["figures"].contains("wrong"));
    CHECK(wrong["figures"]["wrong"].size() == 1);
    CHECK(wrong["figures"]["cases_wrong"] == 1);
#if defined(REDUCE_LAB_EMU)
    const nlohmann::json fault = record_of(results, "lab3.correctness");
    REQUIRE(fault["figures"].contains("fault"));
    CHECK(fault["figures"]["fault"]["kind"] == "an out-of-bounds access");
#endif

    // One atomic per 2048 elements: n = 2049 takes two.
    const nlohmann::json lab4 = record_of(results, "lab4.requests");
    const nlohmann::json& last = lab4["figures"]["cases"][1];
    CHECK(last["n"] == 2049);
    CHECK(last["expected"]["atomics"] == 2);
    CHECK(last["measured"]["requests"]["atomic"] == 2);
    CHECK(lab4["thresholds"]["elements_per_block"] == 2048);

    for (const int number : {2, 7}) {
      const std::string name = "lab" + std::to_string(number) + ".speedup";
      INFO(name);
      const nlohmann::json speed = record_of(results, name);
      const nlohmann::json& figures = speed["figures"];
      REQUIRE(figures.contains("lab"));
      const nlohmann::json& lab = figures["lab"];
      CHECK(figures["n"] == 4096);
      CHECK(lab["samples"] == 20);
      CHECK(lab["min_ms"] <= lab["q1_ms"]);
      CHECK(lab["q1_ms"] <= lab["median_ms"]);
      CHECK(lab["median_ms"] <= lab["q3_ms"]);
      CHECK(lab["q3_ms"] <= lab["max_ms"]);
      CHECK(lab["gbs"].get<double>() == Approx(4.0 * 4096 / (lab["median_ms"].get<double>() * 1e-3) / 1e9));
      CHECK(figures["ratio"].get<double>() ==
            Approx(figures["baseline"]["median_ms"].get<double>() / lab["median_ms"].get<double>()));
      CHECK(figures["baseline"]["kind"] == "lab");
      // Without CMake's threshold in the environment, the lab's own gate from grader/labs.json.
      CHECK(speed["thresholds"]["min_speedup"] == lab_info(number).min_speedup);
    }
    const nlohmann::json lab7 = record_of(results, "lab7.speedup")["figures"];
    CHECK(lab7["bandwidth_fraction"].get<double>() ==
          Approx(lab7["lab"]["gbs"].get<double>() / lab7["copy_gbs"].get<double>()));
    CHECK(record_of(results, "lab7.speedup")["thresholds"]["min_bandwidth_fraction"] == 0.75);
  }

  // On a GPU grade, the emulator's correctness sits beside the GPU's (./lab copies it in).
  std::filesystem::copy_file(results / "lab1.correctness", results / "lab1.correctness.emu");
  std::filesystem::copy_file(results / "lab1.correctness.json", results / "lab1.correctness.emu.json");
  const Points points = load_points(source_root() + "/grader/points.json");
  nlohmann::json report = build_report({results.string(), "test", "v-test", &points});
  const std::string table = table_text(results.string(), "test", nullptr);

  {  // scores follow the table's cells
    CHECK(report["schema"] == kReportSchema);
    CHECK(report["kit_version"] == "v-test");
    CHECK(report["device"]["copy_gbs"].get<double>() > 0);
    CHECK(report["seeds"].contains("lab1.correctness"));
    const nlohmann::json& lab1 = report["labs"]["1"]["checks"];
    CHECK(lab1["correctness"]["status"] == "PASS");
    CHECK(lab1["correctness"]["emu"]["status"] == "PASS");
    CHECK(lab1["correctness"]["score"] == points.of(1, "correctness"));
    CHECK(lab1["races"]["status"] == "SKIP");
    CHECK(lab1["races"]["max_score"] == 0);
    // Lab 1's speed test never ran: a graded lab's missing result is an error, counted as failed.
    CHECK(lab1["speedup"]["status"] == "ERROR");
    CHECK(lab1["speedup"]["max_score"] == points.of(1, "speedup"));
    double total = 0, maximum = 0;
    for (const auto& [number, lab] : report["labs"].items()) {
      const int n = std::stoi(number);
      for (const std::string& check : check_names()) {
        const nlohmann::json& entry = lab["checks"][check];
        INFO("lab" << n << "." << check << " " << entry["status"]);
        const std::string status = entry["status"];
        // The table's cell, from the same records: a score never disagrees with it.
        const std::string path = (results / ("lab" + std::to_string(n) + "." + check)).string();
        const auto own = read_result(path), emu = read_result(path + ".emu");
        if (own || emu)
          CHECK(table_cell(own ? &*own : nullptr, emu ? &*emu : nullptr).status == status);
        else
          CHECK(status == "ERROR");
        CHECK(entry["score"] == (status == "PASS" ? points.of(n, check) : 0.0));
        CHECK(entry["max_score"] == (status == "SKIP" ? 0.0 : points.of(n, check)));
        total += entry["score"].get<double>();
        maximum += entry["max_score"].get<double>();
      }
    }
    CHECK(report["score"] == total);
    CHECK(report["max_score"] == maximum);
    // A failed emulator cell fails the merged cell, and its points.
    std::ofstream(results / "lab1.correctness.emu") << "FAIL\ndeadlock at 01_simple.cu:20\nThe emulator found a deadlock.\n";
    std::filesystem::remove(results / "lab1.correctness.emu.json");
    const nlohmann::json failed = build_report({results.string(), "test", "v-test", &points});
    CHECK(failed["labs"]["1"]["checks"]["correctness"]["status"] == "FAIL");
    CHECK(failed["labs"]["1"]["checks"]["correctness"]["summary"] == "gpu ok, emu deadlock at 01_simple.cu:20");
    CHECK(failed["labs"]["1"]["checks"]["correctness"]["score"] == 0);
  }

  {  // the labs graded and those handed in: a lab not handed in is MISSING, out of the same maximum
    ReportInput input{results.string(), "test", "v-test", &points};
    input.labs = std::vector<int>{1, 5};
    input.handed_in = std::vector<int>{1};
    const nlohmann::json partial = build_report(input);
    CHECK(partial["labs"].size() == 2);  // lab 5 has no records, lab 2 has but was not graded
    CHECK(partial["labs"]["1"]["checks"] == build_report({results.string(), "test", "v-test", &points})["labs"]["1"]["checks"]);
    const nlohmann::json& lab5 = partial["labs"]["5"];
    for (const std::string& check : check_names()) {
      INFO("lab5." << check);
      const nlohmann::json& entry = lab5["checks"][check];
      CHECK(entry["status"] == "MISSING");
      CHECK(entry["score"] == 0);
      // Out of the maximum a handed-in lab is, on this backend: what never runs here counts not.
      const bool runs_here = not_run_on(built_backend(), check).empty();
      CHECK(entry["max_score"] == (runs_here ? points.of(5, check) : 0.0));
      CHECK(entry["counted"] == runs_here);
    }
    CHECK(partial["passed"] == false);
    // Handed in, but no record at all: every check an ERROR, and every one in the maximum.
    input.handed_in = std::vector<int>{1, 5};
    const nlohmann::json errors = build_report(input);
    for (const std::string& check : check_names()) {
      CHECK(errors["labs"]["5"]["checks"][check]["status"] == "ERROR");
      CHECK(errors["labs"]["5"]["checks"][check]["max_score"] == points.of(5, check));
    }
    // Nothing handed in (a submission with no lab file): every lab graded MISSING.
    input.labs = std::vector<int>{};
    for (int lab = 1; lab <= lab_count(); ++lab) input.labs->push_back(lab);
    input.handed_in = std::vector<int>{};
    const nlohmann::json empty = build_report(input);
    CHECK(empty["labs"].size() == static_cast<std::size_t>(lab_count()));
    CHECK(empty["score"] == 0);
    CHECK(empty["max_score"].get<double>() == points_out_of(points, built_backend()));
    CHECK(empty["seeds"].empty());
  }

  {  // scored again with other points (labgrader --rescore): the same scorer, the same statuses
    const auto dir = fresh_dir("rescore");
    std::ofstream(dir / "points.json") << "{\"lab1\": {\"correctness\": 10, \"requests\": 0, \"speedup\": 7, \"races\": 1}}";
    const Points other = load_points((dir / "points.json").string());
    nlohmann::json rescored = report;
    score_report(rescored, other);
    const nlohmann::json& lab1 = rescored["labs"]["1"]["checks"];
    CHECK(lab1["correctness"]["score"] == 10);
    CHECK(lab1["requests"]["max_score"] == 0);
    CHECK(lab1["speedup"]["status"] == "ERROR");
    CHECK(lab1["speedup"]["max_score"] == 7);
    CHECK(rescored["points_file"] == (dir / "points.json").string());
    // Back to the first points, the first scores, to the point.
    score_report(rescored, points);
    CHECK(rescored["labs"] == report["labs"]);
    CHECK(rescored["score"] == report["score"]);
    CHECK(rescored["max_score"] == report["max_score"]);
    // A rescore that changes nothing leaves the file as it was (grade-all's second run reads
    // its time as "not graded again"); one that changes a score writes it.
    const std::string file = (dir / "report.json").string();
    write_json(file, rescored);
    const auto written = std::filesystem::last_write_time(file);
    CHECK_FALSE(rescore_file(file, read_json(file), points));
    CHECK(std::filesystem::last_write_time(file) == written);
    CHECK(rescore_file(file, read_json(file), other));
    CHECK(read_json(file)["labs"]["1"]["checks"]["correctness"]["score"] == 10);
    std::filesystem::remove_all(dir);
  }

  {  // Gradescope's results.json: one test per check that ran here
    // As the emulator's report (whichever backend this suite runs on), then as a GPU's.
    nlohmann::json on_emu = report;
    on_emu["backend"] = "emu";
    const nlohmann::json gradescope = gradescope_results(on_emu, table, 12.4, "lab 3 was not in the submission");
    CHECK(gradescope["score"] == report["score"]);
    CHECK(gradescope["execution_time"] == 12);
    CHECK(gradescope["output"].get<std::string>().rfind("lab 3 was not in the submission\n", 0) == 0);
    CHECK(gradescope["output"].get<std::string>().find("lab1.races") != std::string::npos);
    CHECK(gradescope["output"].get<std::string>().find("CPU emulator") != std::string::npos);
    CHECK_FALSE(gradescope.contains("leaderboard"));  // no GPU, no bandwidth
    double sum = 0;
    for (const nlohmann::json& test : gradescope["tests"]) {
      INFO(test.dump());
      for (const char* field : {"name", "score", "max_score", "status", "output", "visibility"}) CHECK(test.contains(field));
      std::smatch match;
      const std::string name = test["name"];
      REQUIRE(std::regex_match(name, match, std::regex("lab ([1-9][0-9]*) \\([a-z-]+\\): ([a-z.]+)")));
      const nlohmann::json& entry = report["labs"][match[1].str()]["checks"][match[2].str()];
      CHECK(entry["status"] != "SKIP");
      CHECK(test["status"] == (entry["status"] == "PASS" ? "passed" : "failed"));
      CHECK(test["score"] == entry["score"]);
      CHECK(test["max_score"] == entry["max_score"]);
      sum += test["score"].get<double>();
    }
    CHECK(sum == gradescope["score"]);
    nlohmann::json on_gpu = report;
    on_gpu["backend"] = "gpu";
    const nlohmann::json leaderboard = gradescope_results(on_gpu, table, 1, "")["leaderboard"];
    REQUIRE(leaderboard.size() == 1);
    CHECK(leaderboard[0]["value"] == report["labs"]["7"]["checks"]["speedup"]["figures"]["lab"]["gbs"]);
  }

  {  // every failure printed once, after the table's run: lab 2's wrong correctness is one paragraph
    const std::string failures = failures_text(results.string());
    const std::string heading = "lab2 correctness: FAIL wrong";
    CHECK(failures.find(heading) != std::string::npos);
    CHECK(failures.find(heading) == failures.rfind(heading));
    CHECK(failures.find("Catch") == std::string::npos);

    // A cell too long for its column is cut between figures, never inside one.
    const auto long_cells = dir / "long";
    set_environment("REDUCE_LAB_RESULTS_DIR", long_cells);
    record(5, "requests", fail("1151 = 1151 @2048, 1151 = 1151 @2048, 1151 = 1151 @2048, 1151 = 1151 @2048", "long"));
    set_environment("REDUCE_LAB_RESULTS_DIR", results);
    const std::string table = table_text(long_cells.string(), "test", nullptr);
    const std::regex cut("FAIL (1151 = 1151 @2048, )*1151 = 1151 @2048 ~");
    CHECK(std::regex_search(table, cut));

    // The first check's column starts in the same place on every row, past the longest lab name
    // of the manifest and a blank ("11 neighbored-less" once ran into it).
    const int longest = longest_named_lab();
    set_environment("REDUCE_LAB_RESULTS_DIR", long_cells);
    record(longest, "correctness", pass("ok", "a long name"));
    set_environment("REDUCE_LAB_RESULTS_DIR", results);
    std::istringstream lines(table_text(long_cells.string(), "test", nullptr));
    std::string line;
    std::size_t column = std::string::npos;
    int rows = 0;
    while (std::getline(lines, line)) {
      INFO(line);
      if (line.rfind("lab ", 0) == 0) column = line.find("correctness");
      if (line.empty() || line[0] < '1' || line[0] > '9') continue;
      REQUIRE(column != std::string::npos);
      REQUIRE(line.size() > column);
      CHECK(line[column - 1] == ' ');
      CHECK((line.compare(column, 4, "PASS") == 0 || line.compare(column, 1, "-") == 0));
      ++rows;
    }
    CHECK(rows == 2);
  }

  {  // nothing graded (every test skipped: GPU tests where no GPU can run them) is no grade
    const auto skipped = dir / "skipped";
    set_environment("REDUCE_LAB_RESULTS_DIR", skipped);
    const std::string why = "no usable NVIDIA GPU here (CUDA driver version is insufficient for CUDA runtime version)";
    for (const std::string& check : check_names()) record(1, check, skip("skipped", why));
    set_environment("REDUCE_LAB_RESULTS_DIR", results);
    bool passed = true;
    const std::string text = table_text(skipped.string(), "GPU", &passed);
    CHECK_FALSE(passed);  // ./lab grade exits non-zero
    CHECK(text.find("nothing was graded") != std::string::npos);
    const Points points = load_points(source_root() + "/grader/points.json");
    const nlohmann::json none = build_report({skipped.string(), "GPU", "v-test", &points});
    CHECK(none["max_score"] == 0);
    const std::string said = gradescope_results(none, text, 1, "")["output"];
    CHECK(said.rfind("NOT GRADED", 0) == 0);  // a 0 of 0 says why, first
    CHECK(said.find("driver version is insufficient") != std::string::npos);
  }

  {  // the staircase: drawn from a GPU's figures, not from the emulator's
    const std::string svg = (dir / "staircase.svg").string();
    std::ofstream(svg) << "stale";
    nlohmann::json on_emu = report;
    on_emu["backend"] = "emu";
    const nlohmann::json none = draw_staircase(on_emu, nullptr, "", svg, false);
    CHECK(none["drawn"] == false);
    CHECK(none["why"].get<std::string>().find("emulator") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(svg));

    nlohmann::json on_gpu = report;
    on_gpu["backend"] = "gpu";
    const std::string device = report["device"]["name"];
    const nlohmann::json reference = {{"kind", "calibration"},
                                      {"device", device},
                                      {"rounds", 3},
                                      {"labs", {{"7", {{"gbs", {{"median", 123.0}}}}}}}};
    const nlohmann::json drawn = draw_staircase(on_gpu, reference, "", svg, false);
    CHECK(drawn["drawn"] == true);
    CHECK(std::filesystem::exists(svg));
    CHECK(drawn["copy_gbs"] == report["device"]["copy_gbs"]);
    std::map<int, nlohmann::json> steps;
    for (const nlohmann::json& step : drawn["labs"]) steps[step["lab"].get<int>()] = step;
    CHECK(steps.size() == report["labs"].size());
    CHECK(steps[7]["gbs"] == report["labs"]["7"]["checks"]["speedup"]["figures"]["lab"]["gbs"]);
    CHECK(steps[7]["reference_gbs"] == 123.0);
    CHECK(steps[1]["gbs"].is_null());  // lab 1 was not timed

    std::string note;
    const nlohmann::json elsewhere = {{"kind", "calibration"}, {"device", "another GPU"}, {"rounds", 3},
                                      {"labs", {{"7", {{"gbs", {{"median", 123.0}}}}}}}};
    const Staircase other = staircase_of(on_gpu, elsewhere, &note);
    CHECK(note.find("another GPU") != std::string::npos);
    CHECK_FALSE(other.steps.back().reference_gbs.has_value());

    const Staircase staircase = staircase_of(on_gpu, reference, &note);
    const std::string plain = staircase_terminal(staircase, false);
    const std::string coloured = staircase_terminal(staircase, true);
    CHECK(plain.find('\033') == std::string::npos);
    CHECK(coloured.find("\033[") != std::string::npos);
    CHECK(plain.find("7 templated") != std::string::npos);
    CHECK(plain.find("not timed") != std::string::npos);
    CHECK(plain.find("copy") != std::string::npos);
    {  // the longest lab name's bar starts where lab 7's does, so its GB/s line up
      Staircase long_name = staircase;
      StaircaseStep step;
      step.lab = longest_named_lab();
      step.name = lab_info(step.lab).name;
      step.timed = step.passed = true;
      step.gbs = 100;
      long_name.steps.push_back(step);
      std::istringstream drawn(staircase_terminal(long_name, false));
      std::size_t seventh = std::string::npos, last = std::string::npos;
      for (std::string line; std::getline(drawn, line);) {
        if (line.rfind("7 templated", 0) == 0) seventh = line.find(" GB/s");
        if (line.rfind(std::to_string(step.lab) + " " + step.name + " ", 0) == 0) last = line.find(" GB/s");
      }
      CHECK(seventh != std::string::npos);
      CHECK(last == seventh);
    }
    setenv("NO_COLOR", "1", 1);
    CHECK_FALSE(colour_wanted());
    unsetenv("NO_COLOR");
  }

  {  // report.json holds exactly the fields docs/grading.md documents
    nlohmann::json on_gpu = report, on_emu = report;
    on_gpu["backend"] = "gpu";
    on_emu["backend"] = "emu";
    on_gpu["staircase"] = draw_staircase(on_gpu, nullptr, "", (dir / "staircase.svg").string(), false);
    on_emu["staircase"] = draw_staircase(on_emu, nullptr, "", (dir / "staircase.svg").string(), false);
    std::set<std::string> found;
    walk(on_emu, {}, found);
    walk(on_gpu, {}, found);
    const std::set<std::string> documented = documented_paths();
    REQUIRE_FALSE(documented.empty());
    for (const std::string& path : found) {
      INFO("report.json has " << path << ", which docs/grading.md does not document");
      CHECK(documented.count(path));
    }
    for (const std::string& path : documented) {
#if !defined(REDUCE_LAB_EMU)
      // Only the emulator names faults of reads past n, and only it has thread orders.
      if (path.find(".fault.") != std::string::npos || path.find("thread_order") != std::string::npos) continue;
#endif
      // An object the page introduces before its fields ("device", then "device.name") is there
      // when any of its fields is.
      const auto after = found.lower_bound(path);
      const bool present = after != found.end() && (*after == path || after->rfind(path + ".", 0) == 0 ||
                                                    after->rfind(path + "[]", 0) == 0);
      INFO("docs/grading.md documents " << path << ", which the report does not have");
      CHECK(present);
    }
  }
  std::filesystem::remove_all(dir);
}
