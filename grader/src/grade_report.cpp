#include "grade_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "catalog.hpp"
#include "report.hpp"

namespace reduce_lab::grader {

namespace {

const char* const kEmuCorrectness = "correctness.emu";

// "correctness, requests, speedup, races, correctness.emu": what a points file may name.
std::string known_checks_text() {
  std::string text;
  for (const std::string& check : check_names()) text += check + ", ";
  return text + kEmuCorrectness;
}

bool known_check(const std::string& check) {
  for (const std::string& test : check_names())
    if (check == test) return true;
  return check == kEmuCorrectness;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

// What a recorded result holds beyond the table's two columns.
nlohmann::json detail_of(const RecordedResult& result, const char* key, nlohmann::json fallback) {
  return result.detail.is_object() && result.detail.contains(key) ? result.detail[key] : fallback;
}

nlohmann::json side_json(const RecordedResult& result) {
  return {{"status", result.status},
          {"summary", result.summary},
          {"message", result.message},
          {"figures", detail_of(result, "figures", nlohmann::json::object())},
          {"thresholds", detail_of(result, "thresholds", nlohmann::json::object())},
          {"seeds", detail_of(result, "seeds", nullptr)}};
}

// Points of a check: a pass earns them; a failure (or a test that left no result) earns none
// but counts in the maximum; a check that could not run here counts in neither.
void score(nlohmann::json& entry, double worth) {
  const std::string status = entry["status"];
  const bool counted = status != "SKIP";
  entry["score"] = status == "PASS" ? worth : 0.0;
  entry["max_score"] = counted ? worth : 0.0;
  entry["counted"] = counted;
}

// A message that names the compiler's log by a path on the grading machine ("Full compiler
// output: /autograder/.../lab04.emu.log") is useless where students cannot open that path
// (Gradescope): the log's own first lines replace the path.
std::string with_compiler_output(const std::string& message) {
  static const std::regex named("Full compiler output: (\\S+)");
  std::smatch match;
  if (!std::regex_search(message, match, named)) return message;
  std::ifstream in(match[1].str());
  if (!in) return message;
  std::string lines, line;
  int kept = 0, more = 0;
  while (std::getline(in, line)) {
    if (kept < 40 && lines.size() < 6000) {
      lines += "  " + line + "\n";
      ++kept;
    } else {
      ++more;
    }
  }
  if (more) lines += "  ... (" + std::to_string(more) + " more lines)\n";
  return match.prefix().str() + "The compiler's output:\n" + lines + match.suffix().str();
}

}  // namespace

bool Points::has(int lab, const std::string& check) const {
  const auto it = labs.find(lab);
  return it != labs.end() && it->second.count(check) != 0;
}

double Points::of(int lab, const std::string& check) const {
  const auto it = labs.find(lab);
  if (it == labs.end()) return 0;
  const auto points = it->second.find(check);
  return points == it->second.end() ? 0 : points->second;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + " cannot be read (missing, or not a file)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + " is not valid JSON: " + e.what());
  }
}

void write_text(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  std::error_code ignored;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ignored);
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path + " (is its folder writable?)");
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) throw std::runtime_error("cannot write " + path + ": " + error.message());
}

void write_json(const std::string& path, const nlohmann::json& value) { write_text(path, value.dump(2) + "\n"); }

Points load_points(const std::string& path) {
  const nlohmann::json data = read_json(path);
  const std::string example = "{\"lab1\": {\"correctness\": 6, \"requests\": 4, \"speedup\": 3, \"races\": 1}, ...}";
  if (!data.is_object()) throw std::runtime_error(path + ": expected an object such as " + example);
  Points points;
  points.file = path;
  static const std::regex lab_key("lab([1-9][0-9]*)");
  for (const auto& [key, checks] : data.items()) {
    std::smatch match;
    const int lab = std::regex_match(key, match, lab_key) ? std::stoi(match[1]) : 0;
    if (lab < 1 || lab > lab_count())
      throw std::runtime_error(path + ": '" + key + "' is not a lab of this kit (lab1 ... lab" + std::to_string(lab_count()) +
                               ")");
    if (!checks.is_object()) throw std::runtime_error(path + ": " + key + " must map check names to points, as in " + example);
    for (const auto& [check, value] : checks.items()) {
      if (!known_check(check))
        throw std::runtime_error(path + ": " + key + " has an unknown check '" + check +
                                 "' (the checks are " + known_checks_text() + ")");
      if (!value.is_number() || value.get<double>() < 0 || !std::isfinite(value.get<double>()))
        throw std::runtime_error(path + ": " + key + "." + check + " must be a number of points, 0 or more, not " +
                                 value.dump());
      points.labs[lab][check] = value.get<double>();
    }
  }
  // A lab the file leaves out is worth its default points in grader/labs.json: a new lab counts
  // from its first grade, and the file holds only what an instructor changed.
  for (int lab = 1; lab <= lab_count(); ++lab)
    if (!points.labs.count(lab))
      for (const auto& [check, worth] : lab_info(lab).points) points.labs[lab][check] = worth;
  return points;
}

nlohmann::json build_report(const ReportInput& input) {
  nlohmann::json report = {{"schema", kReportSchema},
                           {"kit_version", input.kit_version.empty() ? "unknown" : input.kit_version},
                           {"created", utc_now()},
                           {"backend", built_backend()},
                           {"title", input.title},
                           {"sources", nullptr},
                           {"device", nullptr},
                           {"seeds", nlohmann::json::object()},
                           {"points_file", input.points ? nlohmann::json(input.points->file) : nlohmann::json()},
                           {"labs", nlohmann::json::object()}};
  const std::string dir = input.results_dir;
  try {
    if (std::filesystem::exists(dir + "/device.json")) report["device"] = read_json(dir + "/device.json");
  } catch (const std::exception& e) {
    report["device"] = {{"error", e.what()}};
  }
  double total = 0, maximum = 0;
  bool all_passed = true, any = false;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const std::string stem = dir + "/lab" + std::to_string(lab) + ".";
    std::map<std::string, std::optional<RecordedResult>> own, emu;
    bool seen = false;
    for (const std::string& test : check_names()) {
      own[test] = read_result(stem + test);
      emu[test] = read_result(stem + test + ".emu");
      seen = seen || own[test] || emu[test];
    }
    if (!seen) continue;
    any = true;
    const bool separate_emu = input.points && input.points->has(lab, kEmuCorrectness);
    nlohmann::json checks = nlohmann::json::object();
    for (const std::string& test : check_names()) {
      const std::optional<RecordedResult>& mine = own[test];
      const std::optional<RecordedResult>& theirs = emu[test];
      nlohmann::json entry;
      if (!mine && !theirs) {
        entry = {{"status", "MISSING"},
                 {"summary", "no result"},
                 {"message", std::string("The test ") + "lab" + std::to_string(lab) + "." + test +
                                 " left no result: it did not run, or its process could not start."},
                 {"figures", nlohmann::json::object()},
                 {"thresholds", nlohmann::json::object()},
                 {"seeds", nullptr}};
      } else if (separate_emu || !theirs) {
        entry = mine ? side_json(*mine) : side_json(*theirs);
      } else {
        const RecordedResult cell = table_cell(mine ? &*mine : nullptr, &*theirs);
        entry = mine ? side_json(*mine) : side_json(*theirs);
        entry["status"] = cell.status;
        entry["summary"] = cell.summary;
        if (mine)
          entry["message"] = "GPU: " + mine->message + "\n\nCPU emulator: " + theirs->message;
        entry["emu"] = side_json(*theirs);
      }
      if (entry["status"] == "FAIL" || entry["status"] == "MISSING") all_passed = false;
      if (!entry["seeds"].is_null()) report["seeds"]["lab" + std::to_string(lab) + "." + test] = entry["seeds"];
      if (!report["sources"].is_string()) {
        const RecordedResult* any_side = mine ? &*mine : theirs ? &*theirs : nullptr;
        if (any_side && any_side->detail.is_object() && any_side->detail.contains("sources"))
          report["sources"] = any_side->detail["sources"];
      }
      if (input.points) score(entry, input.points->of(lab, test));
      checks[test] = std::move(entry);
      if (separate_emu && theirs && std::string(test) == "correctness") {
        nlohmann::json emu_entry = side_json(*theirs);
        if (emu_entry["status"] == "FAIL") all_passed = false;
        score(emu_entry, input.points->of(lab, kEmuCorrectness));
        checks[kEmuCorrectness] = std::move(emu_entry);
      }
    }
    nlohmann::json lab_entry = {{"name", lab_info(lab).name}, {"title", lab_title(lab)}, {"checks", checks}};
    if (input.points) {
      double lab_score = 0, lab_max = 0;
      for (const auto& [name, entry] : checks.items()) {
        lab_score += entry["score"].get<double>();
        lab_max += entry["max_score"].get<double>();
      }
      lab_entry["score"] = lab_score;
      lab_entry["max_score"] = lab_max;
      total += lab_score;
      maximum += lab_max;
    }
    report["labs"][std::to_string(lab)] = std::move(lab_entry);
  }
  report["passed"] = any && all_passed;
  report["score"] = input.points ? nlohmann::json(total) : nlohmann::json();
  report["max_score"] = input.points ? nlohmann::json(maximum) : nlohmann::json();
  return report;
}

nlohmann::json gradescope_results(const nlohmann::json& report, const std::string& table, double execution_seconds,
                                  const std::string& notes) {
  nlohmann::json tests = nlohmann::json::array();
  std::vector<std::string> not_graded;
  double total = 0;
  std::vector<int> labs;
  for (const auto& [number, lab] : report["labs"].items()) labs.push_back(std::stoi(number));
  std::sort(labs.begin(), labs.end());
  for (int lab : labs) {
    const nlohmann::json& entry = report["labs"][std::to_string(lab)];
    int index = 0;
    // The manifest's checks, the emulator's correctness beside the GPU's.
    std::vector<std::string> order;
    for (const std::string& check : check_names()) {
      order.push_back(check);
      if (check == "correctness") order.push_back(kEmuCorrectness);
    }
    for (const std::string& check : order) {
      if (!entry["checks"].contains(check)) continue;
      const nlohmann::json& result = entry["checks"][check];
      ++index;
      if (result["status"] == "SKIP") {
        not_graded.push_back("lab" + std::to_string(lab) + "." + check);
        continue;
      }
      const double points = result.value("score", 0.0);
      total += points;
      const std::string status = result["status"];
      tests.push_back({{"name", lab_title(lab) + ": " + check},
                       {"number", std::to_string(lab) + "." + std::to_string(index)},
                       {"score", points},
                       {"max_score", result.value("max_score", 0.0)},
                       {"status", status == "PASS" ? "passed" : "failed"},
                       {"output", status + " " + result["summary"].get<std::string>() + "\n\n" +
                                      with_compiler_output(result["message"].get<std::string>())},
                       {"output_format", "text"},
                       {"tags", {"lab" + std::to_string(lab), check}},
                       {"visibility", "visible"}});
    }
  }
  std::string output = notes;
  if (!output.empty() && output.back() != '\n') output += "\n";
  if (!output.empty()) output += "\n";
  // Nothing counted: a score of 0 out of 0 is no grade, and must say why rather than read as one.
  double counted_maximum = 0;
  for (const nlohmann::json& test : tests) counted_maximum += test["max_score"].get<double>();
  if (counted_maximum == 0) {
    std::string why = "no check ran";
    for (const auto& [number, lab] : report["labs"].items())
      for (const auto& [check, result] : lab["checks"].items())
        if (why == "no check ran" && result.value("status", "") == "SKIP")
          why = "every check was skipped here; the first one says: " + result.value("message", std::string("skipped"));
    output += "NOT GRADED: nothing here could be graded, so this is a score of 0 out of 0, not a grade (" + why +
              "). Grade again where the checks can run.\n\n";
  }
  output += table;
  if (!not_graded.empty()) {
    std::string list;
    for (const std::string& name : not_graded) list += (list.empty() ? "" : ", ") + name;
    output += "\nNot graded here, and left out of the maximum score: " + list + ". " +
              (report["backend"] == "emu"
                   ? "This grade ran on the CPU emulator, which does not model time and has no compute-sanitizer: "
                     "speed and the sanitizer's race check are graded only on a machine with an NVIDIA GPU."
                   : "They could not run on this machine (each test's message in the grade log says why).") +
              "\n";
  }
  nlohmann::json results = {{"score", total},
                            {"execution_time", static_cast<long long>(std::lround(std::max(0.0, execution_seconds)))},
                            {"output", output},
                            {"output_format", "text"},
                            {"visibility", "visible"},
                            {"stdout_visibility", "hidden"},
                            {"tests", tests},
                            {"extra_data", {{"kit_version", report["kit_version"]},
                                            {"backend", report["backend"]},
                                            {"max_score", report["max_score"]}}}};
  // The bandwidth of each lab gated on it (lab 7), for a leaderboard; only a GPU measures it.
  if (report["backend"] == "gpu")
    for (const LabInfo& info : grader::labs()) {
      const std::string key = std::to_string(info.number);
      if (!info.min_bandwidth || !report["labs"].contains(key)) continue;
      const nlohmann::json& speed = report["labs"][key]["checks"]["speedup"];
      if (speed.contains("figures") && speed["figures"].contains("lab"))
        results["leaderboard"].push_back(
            {{"name", "lab " + key + " GB/s"}, {"value", speed["figures"]["lab"]["gbs"]}, {"order", "desc"}});
    }
  return results;
}

}  // namespace reduce_lab::grader
