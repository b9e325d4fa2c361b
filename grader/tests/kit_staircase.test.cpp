// The staircase and bench charts as a browser draws them: headless Chromium parses each SVG
// as XML and lays it out, and a script on the page measures what was drawn. Every graded lab
// that was timed must have one bar, as tall as its GB/s says, with its label under it inside
// the picture; an untimed lab only its label; the copy and CUB lines where their GB/s say.
// Skipped (with a message) where no Chromium is installed: CI installs Debian's chromium.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include "catalog.hpp"
#include "charts.hpp"
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
          copy: boxes('line.copy'), cub: boxes('line.cub'), series: boxes('polyline.series')};
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

  const auto dir = fresh_dir("staircase");
  const nlohmann::json drawn = render_in_chromium(dir, {{"staircase", staircase_svg(staircase)}, {"bench", bench_svg(bench)}}, kMeasure);
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
  std::filesystem::remove_all(dir);
}
