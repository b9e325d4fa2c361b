#include "calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "base/catalog.hpp"
#include "base/text.hpp"
#include "base/files.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

namespace {

nlohmann::json spread(std::vector<double> values) {
  if (values.empty()) return nullptr;
  std::sort(values.begin(), values.end());
  return {{"min", values.front()}, {"median", median(values)}, {"max", values.back()}, {"rounds", values.size()}};
}


std::string speedup_variable(int lab) { return "REDUCE_LAB_MIN_SPEEDUP_LAB" + std::to_string(lab); }
std::string bandwidth_variable(int lab) { return "REDUCE_LAB_MIN_BANDWIDTH_LAB" + std::to_string(lab); }

// What each lab's ratio is taken against (its baseline in grader/labs.json), for the cache
// file's descriptions.
std::string against(int lab) {
  const int baseline = lab_info(lab).baseline;
  return "lab " + std::to_string(lab) + " over " +
         (baseline == 0 ? std::string("the sequential CPU loop") : "lab " + std::to_string(baseline));
}

}  // namespace

double suggested_minimum(double lowest, double margin) {
  // The small epsilon keeps 1.2 x 0.9 = 1.08 from rounding down to 1.07 through binary error.
  return std::floor(lowest * margin * 100 + 1e-9) / 100;
}

nlohmann::json calibrate(const std::string& rounds_dir, double margin, const std::string& kit_version) {
  if (!(margin > 0 && margin <= 1)) throw std::runtime_error("the margin must be above 0 and at most 1, not " + format("%g", margin));
  std::vector<std::filesystem::path> rounds;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(rounds_dir, error))
    if (entry.is_directory() && entry.path().filename().string().rfind("round-", 0) == 0) rounds.push_back(entry.path());
  if (error) throw std::runtime_error("cannot read the rounds in " + rounds_dir + ": " + error.message());
  std::sort(rounds.begin(), rounds.end());

  std::map<int, std::vector<double>> ratios, gbs, fractions;
  std::map<int, nlohmann::json> used;
  std::vector<double> copy, cub;
  std::string device;
  int usable_rounds = 0;
  for (const std::filesystem::path& round : rounds) {
    bool any = false;
    for (int lab = 1; lab <= lab_count(); ++lab) {
      const std::filesystem::path file = round / ("lab" + std::to_string(lab) + ".speedup.json");
      if (!std::filesystem::exists(file)) continue;
      const nlohmann::json record = read_json(file.string());
      if (record.contains("thresholds")) used[lab] = record["thresholds"];
      const nlohmann::json& figures = record.value("figures", nlohmann::json::object());
      if (!figures.contains("ratio")) continue;  // not timed this round: its message says why
      any = true;
      ratios[lab].push_back(figures["ratio"].get<double>());
      gbs[lab].push_back(figures["lab"].value("gbs", 0.0));
      if (figures.contains("bandwidth_fraction")) fractions[lab].push_back(figures["bandwidth_fraction"].get<double>());
      if (device.empty()) device = figures.value("device", "");
    }
    const std::filesystem::path device_file = round / "device.json";
    if (std::filesystem::exists(device_file)) {
      const nlohmann::json measured = read_json(device_file.string());
      if (measured.contains("copy_gbs") && measured["copy_gbs"].is_number()) copy.push_back(measured["copy_gbs"]);
      if (measured.contains("cub") && measured["cub"].is_object()) cub.push_back(measured["cub"].value("gbs", 0.0));
      if (device.empty()) device = measured.value("name", "");
    }
    if (any) ++usable_rounds;
  }
  if (usable_rounds == 0)
    throw std::runtime_error("no round in " + rounds_dir + " timed any lab: the speed tests' output says why");

  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &parts);
  nlohmann::json calibration = {{"kind", "calibration"},
                                {"device", device},
                                {"kit_version", kit_version},
                                {"created", created},
                                {"rounds", usable_rounds},
                                {"margin", margin},
                                {"copy_gbs", spread(copy)},
                                {"cub_gbs", spread(cub)},
                                {"labs", nlohmann::json::object()}};
  for (int lab = 1; lab <= lab_count(); ++lab) {
    nlohmann::json entry = {{"name", lab_info(lab).name},
                            {"against", against(lab)},
                            {"ratio", spread(ratios[lab])},
                            {"gbs", spread(gbs[lab])},
                            {"used", used.count(lab) ? used[lab] : nlohmann::json()},
                            {"suggested", nlohmann::json::object()}};
    if (!ratios[lab].empty()) {
      double minimum = suggested_minimum(*std::min_element(ratios[lab].begin(), ratios[lab].end()), margin);
      // A lab gated on its share of the copy bandwidth (lab 7) only has to keep up with its baseline.
      if (lab_info(lab).min_bandwidth) minimum = std::min(minimum, 1.0);
      entry["suggested"][speedup_variable(lab)] = minimum;
    }
    if (!fractions[lab].empty()) {
      entry["bandwidth_fraction"] = spread(fractions[lab]);
      entry["suggested"][bandwidth_variable(lab)] =
          suggested_minimum(*std::min_element(fractions[lab].begin(), fractions[lab].end()), margin);
    }
    calibration["labs"][std::to_string(lab)] = entry;
  }
  return calibration;
}

std::string calibration_table(const nlohmann::json& calibration) {
  std::ostringstream out;
  const int rounds = calibration["rounds"].get<int>();
  out << "\nCalibration on " << calibration.value("device", std::string("this GPU")) << ": " << rounds
      << (rounds == 1 ? " round" : " rounds") << " of the reference solutions' speed tests\n";
  char line[200];
  std::snprintf(line, sizeof line, "%s %-34s %8s %8s %8s %8s %10s\n", lab_row_title("lab").c_str(), "ratio", "min", "median", "max", "in use",
                "suggested");
  out << line;
  auto row = [&](const std::string& title, const std::string& what, const nlohmann::json& values, const nlohmann::json& in_use,
                 const nlohmann::json& suggestion) {
    if (!values.is_object()) {
      std::snprintf(line, sizeof line, "%s %-34s %8s (never timed: see the rounds' output)\n", lab_row_title(title).c_str(), what.c_str(), "-");
    } else {
      std::snprintf(line, sizeof line, "%s %-34s %8.3f %8.3f %8.3f %8s %10s\n", lab_row_title(title).c_str(), what.c_str(),
                    values["min"].get<double>(), values["median"].get<double>(), values["max"].get<double>(),
                    in_use.is_number() ? format("%.2f", in_use.get<double>()).c_str() : "-",
                    suggestion.is_number() ? format("%.2f", suggestion.get<double>()).c_str() : "-");
    }
    out << line;
  };
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const nlohmann::json& entry = calibration["labs"][std::to_string(lab)];
    const nlohmann::json used = entry["used"].is_object() ? entry["used"] : nlohmann::json::object();
    const std::string title = std::to_string(lab) + " " + entry["name"].get<std::string>();
    row(title, entry["against"].get<std::string>(), entry["ratio"], used.value("min_speedup", nlohmann::json()),
        entry["suggested"].value(speedup_variable(lab), nlohmann::json()));
    if (entry.contains("bandwidth_fraction"))
      row("", "share of the copy bandwidth", entry["bandwidth_fraction"],
          used.value("min_bandwidth_fraction", nlohmann::json()),
          entry["suggested"].value(bandwidth_variable(lab), nlohmann::json()));
  }
  auto gbs = [&](const char* name, const nlohmann::json& values) {
    if (!values.is_object()) return;
    std::snprintf(line, sizeof line, "%s %-34s %8.0f %8.0f %8.0f\n", lab_row_title(name).c_str(), "GB/s", values["min"].get<double>(),
                  values["median"].get<double>(), values["max"].get<double>());
    out << line;
  };
  gbs("copy", calibration["copy_gbs"]);
  gbs("CUB", calibration["cub_gbs"]);
  out << "Suggested: the lowest value of the rounds x " << format("%.2f", calibration["margin"].get<double>())
      << ", rounded down to 0.01 (lab 7's ratio at most 1.00: its gate is the bandwidth).\n";
  return out.str();
}

std::string thresholds_cache(const nlohmann::json& calibration) {
  std::ostringstream out;
  out << "# reduction-labs speed thresholds, calibrated by ./lab calibrate on "
      << calibration.value("device", std::string("an unnamed GPU")) << ":\n"
      << "# " << calibration["rounds"].get<int>() << (calibration["rounds"] == 1 ? " round" : " rounds")
      << " of the reference solutions' speed tests, kit "
      << calibration.value("kit_version", std::string("unknown")) << ", " << calibration.value("created", std::string()) << ".\n"
      << "# Each minimum is the lowest value measured x " << format("%.2f", calibration["margin"].get<double>())
      << ", rounded down to 0.01 (lab 7's ratio at most 1.00).\n"
      << "# Use: ./lab grade --thresholds THIS_FILE   (or: cmake -C THIS_FILE -B BUILD_DIR ...)\n";
  auto describe = [](const nlohmann::json& values) {
    return "measured min " + format("%.3f", values["min"].get<double>()) + ", median " +
           format("%.3f", values["median"].get<double>()) + ", max " + format("%.3f", values["max"].get<double>());
  };
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const nlohmann::json& entry = calibration["labs"][std::to_string(lab)];
    const std::string variable = speedup_variable(lab);
    if (entry["suggested"].contains(variable))
      out << "set(" << variable << " \"" << format("%.2f", entry["suggested"][variable].get<double>()) << "\" CACHE STRING \""
          << entry["against"].get<std::string>() << "; " << describe(entry["ratio"]) << "\" FORCE)\n";
    else
      out << "# " << variable << ": never timed in these rounds, left as it is\n";
    const std::string bandwidth = bandwidth_variable(lab);
    if (entry["suggested"].contains(bandwidth))
      out << "set(" << bandwidth << " \"" << format("%.2f", entry["suggested"][bandwidth].get<double>())
          << "\" CACHE STRING \"lab " << lab << ": fraction of the device's copy bandwidth; "
          << describe(entry["bandwidth_fraction"]) << "\" FORCE)\n";
  }
  return out.str();
}

}  // namespace reduce_lab::grader
