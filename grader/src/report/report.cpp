#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "base/catalog.hpp"
#include "base/files.hpp"
#include "run/records.hpp"

namespace reduce_lab::grader {

namespace {

// "correctness, requests, speedup, races, correctness.emu": what a points file may name.
std::string known_checks_text() {
  std::string text;
  for (const std::string& check : check_names()) text += check + ", ";
  return text + kEmulatorCorrectness;
}

bool known_check(const std::string& check) {
  for (const std::string& test : check_names())
    if (check == test) return true;
  return check == kEmulatorCorrectness;
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

// Points of a check (report.hpp names the statuses): a pass earns them; a failure, a test
// that left no result and a lab not handed in earn none but count in the maximum; a check
// that could not run here counts in neither, nor does one of a lab not handed in that never
// runs on this backend, so that every student is graded out of the same maximum.
void score(nlohmann::json& entry, double worth, const std::string& check, const std::string& backend) {
  const std::string status = entry["status"];
  const bool counted = status != "SKIP" && !(status == "MISSING" && !not_run_on(backend, check).empty());
  entry["score"] = status == "PASS" ? worth : 0.0;
  entry["max_score"] = counted ? worth : 0.0;
  entry["counted"] = counted;
}

nlohmann::json entry_of(const char* status, const std::string& summary, const std::string& message) {
  return {{"status", status},
          {"summary", summary},
          {"message", message},
          {"figures", nlohmann::json::object()},
          {"thresholds", nlohmann::json::object()},
          {"seeds", nullptr}};
}

bool listed(const std::optional<std::vector<int>>& labs, int lab) {
  return !labs || std::find(labs->begin(), labs->end(), lab) != labs->end();
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

Points load_points(const std::string& path) {
  const nlohmann::json data = read_json(path);
  const std::string example = "{\"lab1\": {\"correctness\": 6, \"requests\": 4, \"speedup\": 3, \"races\": 1}, ...}";
  if (!data.is_object()) throw std::runtime_error(path + ": expected an object such as " + example);
  Points points;
  points.file = path;
  for (const auto& [key, checks] : data.items()) {
    const int lab = lab_key_number(key);
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

std::string not_run_on(const std::string& backend, const std::string& check) {
  // Parsed once from the manifest compiled in (catalog.hpp), as CMake reads it for --skip.
  static const nlohmann::json never = [] {
    const nlohmann::json manifest = nlohmann::json::parse(manifest_text(), nullptr, false);
    return manifest.is_object() && manifest.contains("not_run_on") ? manifest["not_run_on"] : nlohmann::json::object();
  }();
  const std::string name = check == kEmulatorCorrectness ? "correctness" : check;
  if (!never.contains(backend) || !never[backend].contains(name)) return "";
  return never[backend][name].get<std::string>();
}

double points_out_of(const Points& points, const std::string& backend) {
  double total = 0;
  for (const auto& [lab, checks] : points.labs)
    for (const auto& [check, worth] : checks)
      if (not_run_on(backend, check).empty() && !(backend == "emu" && check == kEmulatorCorrectness)) total += worth;
  return total;
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
  bool all_passed = true, any = false;
  // Did the emulator judge correctness beside the GPU in this grade (lab<N>.correctness.emu)?
  bool emulator_beside = false;
  for (int lab = 1; lab <= lab_count(); ++lab)
    emulator_beside = emulator_beside || read_result(dir + "/lab" + std::to_string(lab) + ".correctness.emu");
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const std::string stem = dir + "/lab" + std::to_string(lab) + ".";
    // A lab not handed in has no records to read (a stale one would not be this grade's).
    const bool handed_in = listed(input.handed_in, lab);
    std::map<std::string, std::optional<RecordedResult>> own, emu;
    bool seen = false;
    for (const std::string& test : check_names()) {
      if (!handed_in) continue;
      own[test] = read_result(stem + test);
      emu[test] = read_result(stem + test + ".emu");
      seen = seen || own[test] || emu[test];
    }
    if (input.labs ? !listed(input.labs, lab) : !seen) continue;
    any = any || seen;
    const bool separate_emu = input.points && input.points->has(lab, kEmulatorCorrectness);
    nlohmann::json checks = nlohmann::json::object();
    for (const std::string& test : check_names()) {
      const std::optional<RecordedResult>& mine = own[test];
      const std::optional<RecordedResult>& theirs = emu[test];
      nlohmann::json entry;
      if (!handed_in) {
        entry = entry_of("MISSING", "not handed in", lab_source(lab) + " was not handed in.");
      } else if (!mine && !theirs) {
        entry = entry_of("ERROR", "no result",
                         "The test lab" + std::to_string(lab) + "." + test +
                             " left no result: it did not run, or its process could not start.");
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
      if (entry["status"] != "PASS" && entry["status"] != "SKIP") all_passed = false;
      if (!entry["seeds"].is_null()) report["seeds"]["lab" + std::to_string(lab) + "." + test] = entry["seeds"];
      if (!report["sources"].is_string()) {
        const RecordedResult* any_side = mine ? &*mine : theirs ? &*theirs : nullptr;
        if (any_side && any_side->detail.is_object() && any_side->detail.contains("sources"))
          report["sources"] = any_side->detail["sources"];
      }
      checks[test] = std::move(entry);
      // The emulator's own correctness entry, where the points file scores it apart: also for a
      // lab not handed in, when this grade ran the emulator beside the GPU (out of the same
      // maximum as a lab that was).
      if (separate_emu && test == "correctness" && (theirs || (!handed_in && emulator_beside))) {
        nlohmann::json emu_entry = theirs ? side_json(*theirs) : checks[test];
        if (emu_entry["status"] == "FAIL") all_passed = false;
        checks[kEmulatorCorrectness] = std::move(emu_entry);
      }
    }
    report["labs"][std::to_string(lab)] = {{"name", lab_info(lab).name}, {"title", lab_title(lab)}, {"checks", checks}};
  }
  report["passed"] = any && all_passed;
  report["score"] = nullptr;
  report["max_score"] = nullptr;
  if (input.points) score_report(report, *input.points);
  return report;
}

void score_report(nlohmann::json& report, const Points& points) {
  const std::string backend = report.value("backend", std::string(built_backend()));
  double total = 0, maximum = 0;
  for (auto& [number, lab] : report["labs"].items()) {
    double lab_score = 0, lab_max = 0;
    for (auto& [check, entry] : lab["checks"].items()) {
      score(entry, points.of(std::stoi(number), check), check, backend);
      lab_score += entry["score"].get<double>();
      lab_max += entry["max_score"].get<double>();
    }
    lab["score"] = lab_score;
    lab["max_score"] = lab_max;
    total += lab_score;
    maximum += lab_max;
  }
  report["points_file"] = points.file;
  report["score"] = total;
  report["max_score"] = maximum;
}

bool rescore_file(const std::string& path, nlohmann::json report, const Points& points) {
  const nlohmann::json before = report;
  score_report(report, points);
  if (report == before) return false;
  write_json(path, report);
  return true;
}

}  // namespace reduce_lab::grader
