#include "report/gradescope.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "base/catalog.hpp"
#include "report/report.hpp"

namespace reduce_lab::grader {

namespace {

// A message that names the compiler's log by a path on the grading machine ("Full compiler
// output: /autograder/.../lab04.emu.log") is useless where students cannot open that path
// (Gradescope): the log's own first lines replace the path.
std::string with_compiler_output(const std::string& message) {
  static const std::string named = "Full compiler output: ";
  const auto at = message.find(named);
  if (at == std::string::npos) return message;
  const auto begin = at + named.size();
  const auto end = message.find_first_of(" \t\r\n\f\v", begin);
  const std::string path = message.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (path.empty()) return message;
  std::ifstream in(path);
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
  return message.substr(0, at) + "The compiler's output:\n" + lines + message.substr(begin + path.size());
}

}  // namespace

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
      if (check == "correctness") order.push_back(kEmulatorCorrectness);
    }
    for (const std::string& check : order) {
      // A check the lab does not have (lab 12's requests) is graded nowhere: not a test, not a "not graded here".
      if (!entry["checks"].contains(check) || !has_check(lab, check)) continue;
      const nlohmann::json& result = entry["checks"][check];
      ++index;
      // A check that could not run here (SKIP, or one of a lab not handed in that never runs on
      // this backend) is no test: it is in neither the score nor the maximum.
      if (result["status"] == "SKIP" || !result.value("counted", true)) {
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
