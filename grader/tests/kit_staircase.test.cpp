// The staircase and bench charts (the sweep and lab 8's rows) as a browser draws them: headless
// Chromium parses each SVG as XML and lays it out, and a script on the page measures what was
// drawn. Every graded lab that was timed must have one bar, as tall as its GB/s says, with its
// label under it inside the picture; an untimed lab only its label; the copy and CUB lines where
// their GB/s say.
// Skipped (with a message) where no Chromium is installed: CI installs Debian's chromium.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "base/catalog.hpp"
#include "measure/charts.hpp"
#include "kit.hpp"

using namespace reduce_lab::grader;

namespace {

// What the staircase test reads of each chart: every drawn element's box, by kind.
const char* const kMeasure = R"(
function measure(svg, view) {
  const boxes = (selector) => Array.from(svg.querySelectorAll(selector)).map((e) => {
    const b = e.getBBox();
    return {lab: e.getAttribute('data-lab'), series: e.getAttribute('data-series'), text: e.textContent,
            x: b.x, y: b.y, width: b.width, height: b.height, points: e.points ? e.points.numberOfItems : 0};
  });
  return {width: view.width, height: view.height, bars: boxes('rect.bar'), labels: boxes('text.label'),
          names: boxes('text.label-name'), untimed: boxes('text.untimed'), references: boxes('rect.reference'),
          copy: boxes('line.copy'), cub: boxes('line.cub'), series: boxes('polyline.series'),
          ticks: boxes('text.x-tick'), keys: boxes('text.key')};
}
)";

bool inside(const nlohmann::json& box, const nlohmann::json& chart) {
  return box["x"] >= 0 && box["y"] >= 0 && box["x"].get<double>() + box["width"].get<double>() <= chart["width"].get<double>() &&
         box["y"].get<double>() + box["height"].get<double>() <= chart["height"].get<double>();
}

}  // namespace

TEST_CASE("kit staircase") {
  // A grade with labs 1-5 and 7: 4 fails its speed test, 5 was never timed, 6 was not graded.
  Staircase staircase;
  staircase.device = "Test GPU";
  staircase.n = std::size_t{1} << 26;
  staircase.copy_gbs = 4100;
  staircase.cub_gbs = 3600;
  staircase.reference_note = "./lab calibrate, median of 10 rounds";
  const double gbs[] = {460, 1090, 1150, 1160, 0, 0, 3590};
  for (int lab : {1, 2, 3, 4, 5, 7}) {
    StaircaseStep step;
    step.lab = lab;
    step.name = lab_info(lab).name;
    step.timed = gbs[lab - 1] > 0;
    step.gbs = gbs[lab - 1];
    step.passed = lab != 4;
    step.summary = step.timed ? "1.50x (min 1.00x)" : "not correct yet";
    if (lab == 2 || lab == 7) step.reference_gbs = gbs[lab - 1] * 1.05;
    staircase.steps.push_back(step);
  }
  nlohmann::json bench = {{"device", "Test GPU"}, {"sources", "solutions"}, {"samples", 30}, {"series", nlohmann::json::array()}};
  for (const auto& [name, kind, scale] : {std::tuple<const char*, const char*, double>{"lab 1 (simple)", "lab", 0.1},
                                          {"lab 7 (templated)", "lab", 0.8},
                                          {"cub::DeviceReduce::Sum", "cub", 0.8},
                                          {"copy (read + write)", "copy", 1.0}}) {
    nlohmann::json series = {{"name", name}, {"kind", kind}, {"points", nlohmann::json::array()}};
    for (int log = 16; log <= 28; ++log)
      series["points"].push_back({{"n", std::ldexp(1.0, log)}, {"gbs", scale * 4000 * (log - 15) / 13.0}});
    bench["series"].push_back(series);
  }

  // Lab 8's rows table (bench.json's "rows") with the figures docs/08-rows.md gives for an H200:
  // CUB above the copy line at n = 4096, lab 8's best below it.
  nlohmann::json rows = {{"lab", 8},          {"name", "lab 8 (rows)"},       {"device", "Test GPU"},
                         {"samples", 30},     {"elements", std::size_t{1} << 26}, {"copy_gbs", 4274.0},
                         {"shapes", nlohmann::json::array()}};
  const double row_lengths[] = {1, 7, 32, 33, 1000, 4096, 1e5, 1e7};
  const double lab_gbs[] = {1849, 2524, 2591, 417, 3714, 4166, 3941, 3905};
  const double cub_gbs[] = {4, 25, 115, 118, 1699, 4302, 3905, 116};
  for (int i = 0; i < 8; ++i)
    rows["shapes"].push_back({{"rows", std::floor(std::ldexp(1.0, 26) / row_lengths[i])},
                              {"columns", row_lengths[i]},
                              {"lab", {{"gbs", lab_gbs[i]}}},
                              {"cub", {{"gbs", cub_gbs[i]}}}});

  const auto dir = fresh_dir("staircase");
  const nlohmann::json drawn = render_in_chromium(
      dir, {{"staircase", staircase_svg(staircase)}, {"bench", bench_svg(bench)}, {"rows", bench_rows_svg(rows)}},
      kMeasure);
  const nlohmann::json& chart = drawn["staircase"];
  INFO(chart.dump(1));
  REQUIRE_FALSE(chart.contains("error"));

  std::map<std::string, nlohmann::json> bars, labels, names;
  for (const nlohmann::json& bar : chart["bars"]) bars[bar["lab"]] = bar;
  for (const nlohmann::json& label : chart["labels"]) labels[label["lab"]] = label;
  for (const nlohmann::json& name : chart["names"]) names[name["lab"]] = name;
  CHECK(chart["bars"].size() == 5);  // one per timed lab
  CHECK(chart["labels"].size() == staircase.steps.size());
  double previous_right = 0;
  for (const StaircaseStep& step : staircase.steps) {
    const std::string lab = std::to_string(step.lab);
    INFO("lab " << lab);
    REQUIRE(labels.count(lab));
    const nlohmann::json& label = labels[lab];
    CHECK(label["text"] == "lab " + lab);
    CHECK(names[lab]["text"] == step.name);
    CHECK(label["width"] > 0);
    CHECK(inside(label, chart));
    CHECK(inside(names[lab], chart));
    CHECK(label["x"].get<double>() >= previous_right);  // labels do not overlap
    CHECK(names[lab]["x"].get<double>() >= previous_right);
    previous_right = std::max(label["x"].get<double>() + label["width"].get<double>(),
                              names[lab]["x"].get<double>() + names[lab]["width"].get<double>());
    if (!step.timed) {
      CHECK_FALSE(bars.count(lab));
      continue;
    }
    REQUIRE(bars.count(lab));
    const nlohmann::json& bar = bars[lab];
    CHECK(inside(bar, chart));
    CHECK(bar["width"] > 0);
    // The label sits under its bar, centred on it.
    const double centre = bar["x"].get<double>() + bar["width"].get<double>() / 2;
    CHECK(std::abs(label["x"].get<double>() + label["width"].get<double>() / 2 - centre) < 2);
    CHECK(label["y"].get<double>() >= bar["y"].get<double>() + bar["height"].get<double>());
    // Heights in proportion to GB/s: against lab 7's bar.
    const nlohmann::json& seven = bars["7"];
    CHECK(bar["height"].get<double>() / seven["height"].get<double>() == Approx(step.gbs / gbs[6]).epsilon(0.02));
  }
  CHECK(chart["untimed"].size() == 1);
  CHECK(chart["references"].size() == 2);
  REQUIRE(chart["copy"].size() == 1);
  REQUIRE(chart["cub"].size() == 1);
  // The copy line is higher (smaller y) than CUB's, and both above lab 1's bar top.
  CHECK(chart["copy"][0]["y"] < chart["cub"][0]["y"]);
  CHECK(chart["cub"][0]["y"] < bars["1"]["y"]);

  const nlohmann::json& sweep = drawn["bench"];
  REQUIRE_FALSE(sweep.contains("error"));
  REQUIRE(sweep["series"].size() == 4);
  for (const nlohmann::json& series : sweep["series"]) {
    INFO(series["series"]);
    CHECK(series["points"] == 13);
    CHECK(series["width"] > 0);
    CHECK(inside(series, sweep));
  }

  // The rows chart: lab 8 and CUB a point per row length, the copy bandwidth a line across
  // between lab 8's best (4166) and CUB's (4302), the row lengths' powers of ten under the axis.
  const nlohmann::json& by_row = drawn["rows"];
  INFO(by_row.dump(1));
  REQUIRE_FALSE(by_row.contains("error"));
  std::map<std::string, nlohmann::json> row_series;
  for (const nlohmann::json& series : by_row["series"]) row_series[series["series"]] = series;
  REQUIRE(by_row["series"].size() == 2);
  REQUIRE(row_series.count("lab 8 (rows)"));
  REQUIRE(row_series.count("CUB DeviceSegmentedReduce"));
  for (const auto& [name, series] : row_series) {
    INFO(name);
    CHECK(series["points"] == 8);
    CHECK(inside(series, by_row));
  }
  REQUIRE(by_row["copy"].size() == 1);
  const nlohmann::json& copy_line = by_row["copy"][0];
  CHECK(inside(copy_line, by_row));
  CHECK(copy_line["y"] > row_series["CUB DeviceSegmentedReduce"]["y"]);
  CHECK(copy_line["y"] < row_series["lab 8 (rows)"]["y"]);
  // Both lines run from n = 1 to n = 10^7, the axis's ends, as the copy line does.
  for (const auto& [name, series] : row_series) {
    INFO(name);
    CHECK(series["x"].get<double>() == Approx(copy_line["x"].get<double>()).margin(1));
    CHECK(series["width"].get<double>() == Approx(copy_line["width"].get<double>()).margin(1));
  }
  REQUIRE(by_row["keys"].size() == 3);  // lab 8, CUB, copy: named inside the picture
  for (const nlohmann::json& key : by_row["keys"]) {
    INFO(key["text"]);
    CHECK(inside(key, by_row));
  }
  REQUIRE(by_row["ticks"].size() == 8);
  CHECK(by_row["ticks"][0]["text"] == "1");
  CHECK(by_row["ticks"][7]["text"] == "10^7");
  double previous_tick = 0;
  for (const nlohmann::json& tick : by_row["ticks"]) {
    INFO(tick["text"]);
    CHECK(inside(tick, by_row));
    CHECK(tick["x"].get<double>() >= previous_tick);
    previous_tick = tick["x"].get<double>() + tick["width"].get<double>();
  }
  std::filesystem::remove_all(dir);
}
