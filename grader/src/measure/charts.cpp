#include "measure/charts.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <sstream>

#include "base/catalog.hpp"
#include "base/text.hpp"
#include "base/inputs.hpp"

namespace reduce_lab::grader {

namespace {


}  // namespace

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// A round step for axis ticks: 1, 2 or 5 times a power of ten, about `top` / 5.
double tick_step(double top) {
  const double rough = std::max(top, 1e-9) / 5;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (double factor : {1.0, 2.0, 5.0, 10.0})
    if (factor * power >= rough) return factor * power;
  return 10 * power;
}

double number_at(const nlohmann::json& value, const char* key) {
  return value.is_object() && value.contains(key) && value[key].is_number() ? value[key].get<double>() : 0.0;
}

// The reference solutions' GB/s per lab, and the device they were measured on.
struct SolutionSpeeds {
  std::string device;
  std::string source;
  std::map<int, double> gbs;
};

std::optional<SolutionSpeeds> reference_of(const nlohmann::json& data) {
  if (!data.is_object() || !data.contains("labs") || !data["labs"].is_object()) return std::nullopt;
  SolutionSpeeds reference;
  if (data.value("kind", "") == "calibration") {
    reference.device = data.value("device", "");
    reference.source = "./lab calibrate, median of " + std::to_string(data.value("rounds", 0)) + " rounds";
    for (const auto& [lab, entry] : data["labs"].items())
      if (entry.contains("gbs") && entry["gbs"].is_object()) reference.gbs[std::stoi(lab)] = number_at(entry["gbs"], "median");
  } else {
    if (data.value("sources", "") != "solutions") return std::nullopt;
    reference.source = "a grade of the reference solutions (" + data.value("created", std::string("undated")) + ")";
    for (const auto& [lab, entry] : data["labs"].items()) {
      const nlohmann::json& speed = entry["checks"].value("speedup", nlohmann::json::object());
      const nlohmann::json figures = speed.value("figures", nlohmann::json::object());
      if (!figures.contains("lab")) continue;
      reference.gbs[std::stoi(lab)] = number_at(figures["lab"], "gbs");
      reference.device = figures.value("device", reference.device);
    }
  }
  if (reference.gbs.empty()) return std::nullopt;
  return reference;
}

}  // namespace

bool Staircase::drawable() const {
  return std::any_of(steps.begin(), steps.end(), [](const StaircaseStep& s) { return s.timed; });
}

bool colour_wanted() {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string(term) == "dumb") return false;
  return isatty(STDOUT_FILENO) != 0;
}

Staircase staircase_of(const nlohmann::json& report, const nlohmann::json& reference, std::string* note) {
  Staircase staircase;
  const nlohmann::json& device = report.value("device", nlohmann::json());
  if (device.is_object()) {
    staircase.device = device.value("name", "");
    staircase.copy_gbs = number_at(device, "copy_gbs");
    if (device.contains("cub")) staircase.cub_gbs = number_at(device["cub"], "gbs");
    staircase.n = static_cast<std::size_t>(number_at(device, "n"));
  }
  std::vector<int> labs;
  for (const auto& [lab, entry] : report["labs"].items()) labs.push_back(std::stoi(lab));
  std::sort(labs.begin(), labs.end());
  for (int lab : labs) {
    const nlohmann::json& entry = report["labs"][std::to_string(lab)];
    StaircaseStep step;
    step.lab = lab;
    step.name = entry.value("name", "");
    const nlohmann::json speed = entry["checks"].value("speedup", nlohmann::json::object());
    const nlohmann::json figures = speed.value("figures", nlohmann::json::object());
    step.summary = speed.value("summary", "");
    step.passed = speed.value("status", "") == "PASS";
    if (figures.contains("lab") && number_at(figures["lab"], "gbs") > 0) {
      step.timed = true;
      step.gbs = number_at(figures["lab"], "gbs");
      if (staircase.device.empty()) staircase.device = figures.value("device", "");
      if (staircase.n == 0) staircase.n = static_cast<std::size_t>(number_at(figures, "n"));
      // Lab 7 measures the copy bandwidth itself; the device test's is preferred when it ran.
      if (staircase.copy_gbs == 0) staircase.copy_gbs = number_at(figures, "copy_gbs");
    }
    staircase.steps.push_back(step);
  }
  if (!reference.is_null()) {
    const std::optional<SolutionSpeeds> known = reference_of(reference);
    if (!known) {
      if (note) *note = "the reference file holds no speed figures of the reference solutions";
    } else if (!known->device.empty() && !staircase.device.empty() && known->device != staircase.device) {
      if (note) *note = "the reference figures were measured on " + known->device + ", not on " + staircase.device;
    } else {
      staircase.reference_note = known->source;
      for (StaircaseStep& step : staircase.steps)
        if (const auto it = known->gbs.find(step.lab); it != known->gbs.end() && it->second > 0)
          step.reference_gbs = it->second;
    }
  }
  return staircase;
}

std::string staircase_terminal(const Staircase& staircase, bool colour) {
  constexpr int kWidth = 50;
  double top = std::max(staircase.copy_gbs, staircase.cub_gbs);
  for (const StaircaseStep& step : staircase.steps) {
    top = std::max(top, step.gbs);
    if (step.reference_gbs) top = std::max(top, *step.reference_gbs);
  }
  if (top <= 0) return "";
  auto columns = [&](double gbs) { return static_cast<int>(std::lround(kWidth * gbs / top)); };
  const char* reset = colour ? "\033[0m" : "";
  // A bar of kWidth + 1 cells: filled up to the value, '|' at the marker. In colour, each run of
  // cells gets one escape sequence, not one per cell.
  auto bar = [&](double gbs, const char* paint, char plain, std::optional<double> marker) {
    const int length = columns(gbs);
    const int mark = marker ? std::min(columns(*marker), kWidth) : -1;
    std::string text;
    for (int i = 0; i <= kWidth;) {
      if (i == mark) {
        text += colour ? std::string("\033[1m") + (i < length ? paint : "") + "|" + reset : "|";
        ++i;
        continue;
      }
      const bool filled = i < length;
      int end = i;
      while (end <= kWidth && end != mark && (end < length) == filled) ++end;
      const int run = end - i;
      if (filled)
        text += colour ? std::string(paint) + std::string(run, ' ') + reset : std::string(run, plain);
      else
        text += std::string(run, ' ');
      i = end;
    }
    return text;
  };
  const double copy = staircase.copy_gbs;
  auto share = [&](double gbs) { return copy > 0 ? format("%3.0f%% of copy", 100 * gbs / copy) : std::string(); };
  std::ostringstream out;
  out << "\nStaircase: GB/s of each lab (4 bytes x n / median time" << (staircase.n ? ", n = " + size_text(staircase.n) + " floats" : "")
      << (staircase.device.empty() ? "" : ", " + staircase.device) << ")\n";
  bool any_marker = false;
  for (const StaircaseStep& step : staircase.steps) {
    out << lab_row_title(std::to_string(step.lab) + " " + step.name);
    if (!step.timed) {
      out << "(not timed: " << step.summary << ")\n";
      continue;
    }
    any_marker = any_marker || step.reference_gbs.has_value();
    out << bar(step.gbs, step.passed ? "\033[42m" : "\033[41m", '#', step.reference_gbs) << format("%6.0f GB/s", step.gbs)
        << "  " << share(step.gbs) << "\n";
  }
  if (staircase.cub_gbs > 0)
    out << lab_row_title("  CUB") << bar(staircase.cub_gbs, "\033[44m", '=', std::nullopt)
        << format("%6.0f GB/s", staircase.cub_gbs) << "  " << share(staircase.cub_gbs) << "  cub::DeviceReduce::Sum\n";
  if (copy > 0)
    out << lab_row_title("  copy") << bar(copy, "\033[47m", '-', std::nullopt) << format("%6.0f GB/s", copy)
        << "  (bytes read + written by a device-to-device copy)\n";
  if (any_marker) out << "'|' marks the reference solution's GB/s on this GPU (" << staircase.reference_note << ").\n";
  return out.str();
}

std::string staircase_svg(const Staircase& staircase) {
  constexpr double kWidth = 900, kHeight = 470, kLeft = 80, kRight = 160, kTop = 70, kBottom = 90;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double base = kTop + plot_h;
  double top = std::max(staircase.copy_gbs, staircase.cub_gbs);
  for (const StaircaseStep& step : staircase.steps) {
    top = std::max(top, step.gbs);
    if (step.reference_gbs) top = std::max(top, *step.reference_gbs);
  }
  const double step_gbs = tick_step(top > 0 ? top * 1.05 : 1);
  const double axis_top = std::max(step_gbs, std::ceil(top * 1.05 / step_gbs) * step_gbs);
  auto y_of = [&](double gbs) { return base - plot_h * gbs / axis_top; };
  const std::size_t slots = std::max<std::size_t>(staircase.steps.size(), 1);
  const double slot = plot_w / static_cast<double>(slots);
  const double bar_w = std::min(56.0, slot * 0.5);

  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 "
      << kWidth << " " << kHeight << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<title>reduction-labs staircase</title>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"28\" font-size=\"17\" font-weight=\"bold\">GB/s per lab"
      << xml_escaped(staircase.device.empty() ? "" : " on " + staircase.device) << "</text>\n"
      << "<text x=\"" << kLeft << "\" y=\"48\" font-size=\"12\" fill=\"#444\">4 bytes x n / median time of the whole reduction"
      << (staircase.n ? ", n = " + size_text(staircase.n) + " floats" : "") << "</text>\n";
  // Axis and grid.
  for (double tick = 0; tick <= axis_top + 1e-9; tick += step_gbs) {
    const double y = y_of(tick);
    svg << "<line class=\"grid\" x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#e3e3e3\"/>\n"
        << "<text x=\"" << kLeft - 8 << "\" y=\"" << y + 4 << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#444\">"
        << format("%.0f", tick) << "</text>\n";
  }
  svg << "<text x=\"22\" y=\"" << kTop + plot_h / 2 << "\" font-size=\"12\" fill=\"#444\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 22 " << kTop + plot_h / 2 << ")\">GB/s</text>\n"
      << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << base << "\" y2=\"" << base
      << "\" stroke=\"#333\"/>\n";
  // Bars, reference outlines and labels.
  for (std::size_t i = 0; i < staircase.steps.size(); ++i) {
    const StaircaseStep& step = staircase.steps[i];
    const double centre = kLeft + slot * (static_cast<double>(i) + 0.5);
    if (step.reference_gbs) {
      const double y = y_of(*step.reference_gbs);
      svg << "<rect class=\"reference\" data-lab=\"" << step.lab << "\" x=\"" << centre - bar_w * 0.65 << "\" y=\"" << y
          << "\" width=\"" << bar_w * 1.3 << "\" height=\"" << base - y
          << "\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n";
    }
    if (step.timed) {
      const double y = y_of(step.gbs);
      svg << "<rect class=\"bar\" data-lab=\"" << step.lab << "\" x=\"" << centre - bar_w / 2 << "\" y=\"" << y
          << "\" width=\"" << bar_w << "\" height=\"" << std::max(base - y, 1.0) << "\" fill=\""
          << (step.passed ? "#2e7d32" : "#c62828") << "\"><title>" << xml_escaped(lab_title(step.lab)) << ": "
          << format("%.0f GB/s", step.gbs) << " (" << xml_escaped(step.summary) << ")</title></rect>\n"
          << "<text class=\"value\" data-lab=\"" << step.lab << "\" x=\"" << centre << "\" y=\"" << y - 6
          << "\" font-size=\"11\" text-anchor=\"middle\">" << format("%.0f", step.gbs) << "</text>\n";
    } else {
      svg << "<text class=\"untimed\" data-lab=\"" << step.lab << "\" x=\"" << centre << "\" y=\"" << base - 8
          << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#777\">not timed</text>\n";
    }
    svg << "<text class=\"label\" data-lab=\"" << step.lab << "\" x=\"" << centre << "\" y=\"" << base + 20
        << "\" font-size=\"13\" text-anchor=\"middle\">lab " << step.lab << "</text>\n"
        << "<text class=\"label-name\" data-lab=\"" << step.lab << "\" x=\"" << centre << "\" y=\"" << base + 37
        << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#444\">" << xml_escaped(step.name) << "</text>\n";
  }
  // Reference lines, with their labels in the right margin kept apart.
  struct Line {
    const char* cls;
    const char* colour;
    const char* dash;
    std::string label;
    double y;
  };
  std::vector<Line> lines;
  if (staircase.copy_gbs > 0)
    lines.push_back({"copy", "#111111", "", "copy " + format("%.0f GB/s", staircase.copy_gbs), y_of(staircase.copy_gbs)});
  if (staircase.cub_gbs > 0)
    lines.push_back({"cub", "#1565c0", "6 4", "CUB " + format("%.0f GB/s", staircase.cub_gbs), y_of(staircase.cub_gbs)});
  std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.y < b.y; });
  double last_label = -1e9;
  for (Line& line : lines) {
    svg << "<line class=\"" << line.cls << "\" x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << line.y
        << "\" y2=\"" << line.y << "\" stroke=\"" << line.colour << "\" stroke-width=\"2\""
        << (*line.dash ? std::string(" stroke-dasharray=\"") + line.dash + "\"" : std::string()) << "/>\n";
    const double label_y = std::max(line.y + 4, last_label + 15);
    last_label = label_y;
    svg << "<text class=\"" << line.cls << "-label\" x=\"" << kLeft + plot_w + 8 << "\" y=\"" << label_y
        << "\" font-size=\"12\" fill=\"" << line.colour << "\">" << xml_escaped(line.label) << "</text>\n";
  }
  // Key.
  const double key_y = kHeight - 22;
  svg << "<rect x=\"" << kLeft << "\" y=\"" << key_y - 10 << "\" width=\"12\" height=\"12\" fill=\"#2e7d32\"/>"
      << "<text x=\"" << kLeft + 18 << "\" y=\"" << key_y << "\" font-size=\"11\">speed test passed</text>\n"
      << "<rect x=\"" << kLeft + 140 << "\" y=\"" << key_y - 10 << "\" width=\"12\" height=\"12\" fill=\"#c62828\"/>"
      << "<text x=\"" << kLeft + 158 << "\" y=\"" << key_y << "\" font-size=\"11\">speed test failed</text>\n";
  if (!staircase.reference_note.empty())
    svg << "<rect x=\"" << kLeft + 280 << "\" y=\"" << key_y - 10
        << "\" width=\"12\" height=\"12\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"3 2\"/>"
        << "<text x=\"" << kLeft + 298 << "\" y=\"" << key_y << "\" font-size=\"11\">reference solution ("
        << xml_escaped(staircase.reference_note) << ")</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

namespace {

// A line chart of GB/s against a size on a log axis: ./lab bench's sweep and its rows table.
struct ChartSeries {
  std::string name;
  std::string colour;
  std::string dash;  // stroke-dasharray; empty: solid
  double width = 2;
  std::vector<std::pair<double, double>> points;  // size, GB/s
  // How each point is marked: "dot" on a line through them; "ring" (a hollow circle) or "tick"
  // (a short vertical bar) alone, marking chosen points on other series' lines.
  std::string marker = "dot";
};
// A figure that does not depend on the size (the rows table's copy bandwidth): a line across.
struct ChartLevel {
  std::string cls;  // the line's class, as the staircase's ("copy")
  std::string name;
  std::string colour;
  std::string dash;
  double gbs = 0;
};
struct LineChart {
  std::string document_title, title, subtitle, x_label, y_label = "GB/s";
  std::vector<std::pair<double, std::string>> x_ticks;  // size, its label; the axis spans them and every point
  std::vector<ChartSeries> series;
  std::vector<ChartLevel> levels;
};

std::string line_chart_svg(const LineChart& chart) {
  constexpr double kWidth = 960, kHeight = 520, kLeft = 80, kRight = 230, kTop = 70, kBottom = 60;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double base = kTop + plot_h;
  double low = HUGE_VAL, high = -HUGE_VAL, top = 0;
  auto span = [&](double x) {
    low = std::min(low, std::log2(x));
    high = std::max(high, std::log2(x));
  };
  for (const auto& tick : chart.x_ticks) span(tick.first);
  for (const ChartSeries& series : chart.series)
    for (const auto& [x, gbs] : series.points) {
      span(x);
      top = std::max(top, gbs);
    }
  for (const ChartLevel& level : chart.levels) top = std::max(top, level.gbs);
  if (high < low) low = high = 0;
  if (high == low) high = low + 1;
  const double step_gbs = tick_step(top > 0 ? top * 1.05 : 1);
  const double axis_top = std::max(step_gbs, std::ceil(top * 1.05 / step_gbs) * step_gbs);
  auto x_of = [&](double x) { return kLeft + plot_w * (std::log2(x) - low) / (high - low); };
  auto y_of = [&](double gbs) { return base - plot_h * gbs / axis_top; };
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 "
      << kWidth << " " << kHeight << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      << "<title>" << xml_escaped(chart.document_title) << "</title>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      << "<text x=\"" << kLeft << "\" y=\"28\" font-size=\"17\" font-weight=\"bold\">" << xml_escaped(chart.title)
      << "</text>\n"
      << "<text x=\"" << kLeft << "\" y=\"48\" font-size=\"12\" fill=\"#444\">" << xml_escaped(chart.subtitle)
      << "</text>\n";
  for (double tick = 0; tick <= axis_top + 1e-9; tick += step_gbs)
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << y_of(tick) << "\" y2=\"" << y_of(tick)
        << "\" stroke=\"#e3e3e3\"/><text x=\"" << kLeft - 8 << "\" y=\"" << y_of(tick) + 4
        << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#444\">" << format("%.0f", tick) << "</text>\n";
  for (const auto& [x, label] : chart.x_ticks)
    svg << "<text class=\"x-tick\" x=\"" << x_of(x) << "\" y=\"" << base + 18
        << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#444\">" << xml_escaped(label) << "</text>\n";
  svg << "<text x=\"" << kLeft + plot_w / 2 << "\" y=\"" << base + 40
      << "\" font-size=\"12\" text-anchor=\"middle\" fill=\"#444\">" << xml_escaped(chart.x_label) << "</text>\n"
      << "<text x=\"22\" y=\"" << kTop + plot_h / 2 << "\" font-size=\"12\" fill=\"#444\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 22 " << kTop + plot_h / 2 << ")\">" << xml_escaped(chart.y_label) << "</text>\n"
      << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\"" << base << "\" y2=\"" << base
      << "\" stroke=\"#333\"/>\n";
  int key = 0;
  auto key_entry = [&](const std::string& colour, const std::string& dash, const std::string& name,
                       const std::string& marker = "dot") {
    const double key_y = kTop + 16.0 * key++, middle = kLeft + plot_w + 25;
    if (marker == "ring")
      svg << "<circle cx=\"" << middle << "\" cy=\"" << key_y - 4 << "\" r=\"5\" fill=\"none\" stroke=\"" << colour
          << "\" stroke-width=\"2\"/>";
    else if (marker == "tick")
      svg << "<line x1=\"" << middle << "\" x2=\"" << middle << "\" y1=\"" << key_y - 11 << "\" y2=\"" << key_y + 3
          << "\" stroke=\"" << colour << "\" stroke-width=\"2.5\"/>";
    else
      svg << "<line x1=\"" << kLeft + plot_w + 14 << "\" x2=\"" << kLeft + plot_w + 36 << "\" y1=\"" << key_y - 4
          << "\" y2=\"" << key_y - 4 << "\" stroke=\"" << colour << "\" stroke-width=\"2.5\""
          << (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") << "/>";
    svg << "<text x=\"" << kLeft + plot_w + 42 << "\" y=\"" << key_y << "\" class=\"key\" font-size=\"11\">"
        << xml_escaped(name) << "</text>\n";
  };
  for (const ChartSeries& series : chart.series) {
    std::string points;
    for (const auto& [x, gbs] : series.points)
      points += format("%.1f", x_of(x)) + "," + format("%.1f", y_of(gbs)) + " ";
    if (series.marker == "dot")
      svg << "<polyline class=\"series\" data-series=\"" << xml_escaped(series.name) << "\" points=\"" << points
          << "\" fill=\"none\" stroke=\"" << series.colour << "\" stroke-width=\"" << series.width << "\""
          << (series.dash.empty() ? "" : " stroke-dasharray=\"" + series.dash + "\"") << "/>\n";
    for (const auto& [x, gbs] : series.points) {
      const std::string cx = format("%.1f", x_of(x)), cy = format("%.1f", y_of(gbs));
      if (series.marker == "ring")
        svg << "<circle class=\"marker\" data-series=\"" << xml_escaped(series.name) << "\" cx=\"" << cx << "\" cy=\""
            << cy << "\" r=\"7\" fill=\"none\" stroke=\"" << series.colour << "\" stroke-width=\"2\"/>\n";
      else if (series.marker == "tick")
        svg << "<line class=\"marker\" data-series=\"" << xml_escaped(series.name) << "\" x1=\"" << cx
            << "\" x2=\"" << cx
            << "\" y1=\"" << format("%.1f", y_of(gbs) - 10) << "\" y2=\"" << format("%.1f", y_of(gbs) + 10)
            << "\" stroke=\"" << series.colour << "\" stroke-width=\"2.5\"/>\n";
      else
        svg << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"2.5\" fill=\"" << series.colour << "\"/>\n";
    }
    key_entry(series.colour, series.dash, series.name, series.marker);
  }
  for (const ChartLevel& level : chart.levels) {
    svg << "<line class=\"" << level.cls << "\" x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\""
        << y_of(level.gbs) << "\" y2=\"" << y_of(level.gbs) << "\" stroke=\"" << level.colour << "\" stroke-width=\"2\""
        << (level.dash.empty() ? "" : " stroke-dasharray=\"" + level.dash + "\"") << "/>\n";
    key_entry(level.colour, level.dash, level.name);
  }
  svg << "</svg>\n";
  return svg.str();
}

// One colour per lab in every chart; CUB blue, the copy black and dashed, as in the staircase.
const char* lab_colour(int lab) {
  static const char* const kPalette[] = {"#8e24aa", "#d81b60", "#f4511e", "#f9a825", "#7cb342",
                                         "#00897b", "#2e7d32", "#6d4c41", "#546e7a"};
  return kPalette[static_cast<unsigned>(std::max(lab - 1, 0)) % 9];
}
constexpr const char* kCubColour = "#1565c0";
constexpr const char* kCopyColour = "#111111";
constexpr const char* kCopyDash = "6 4";
// A lab's variants (lab 9's K) are lines of its colour: the first solid, the others dashed ever finer.
constexpr const char* kVariantDashes[] = {"9 3", "4 3", "1.5 2.5"};

}  // namespace

std::string bench_svg(const nlohmann::json& bench) {
  LineChart chart;
  const std::string device = bench.value("device", "");
  chart.document_title = "reduction-labs bench";
  chart.title = "GB/s against n" + (device.empty() ? "" : " on " + device);
  chart.subtitle = bench.value("sources", "") + ": 4 bytes x n / median time of " +
                   std::to_string(bench.value("samples", 0)) + " samples";
  chart.x_label = "n (floats)";
  int low = 64, high = 0, unnumbered = 0;
  std::map<int, int> lines_of_lab;  // a lab's lines so far: its variants
  for (const nlohmann::json& series : bench["series"]) {
    const std::string kind = series.value("kind", "lab");
    ChartSeries line;
    line.name = series.value("name", "");
    if (kind == "copy")
      line.colour = kCopyColour;
    else if (kind == "cub")
      line.colour = kCubColour;
    else  // a series that names no lab (a hand-written bench.json) gets the next colour
      line.colour = lab_colour(series.contains("lab") ? series["lab"].get<int>() : ++unnumbered);
    line.dash = kind == "copy" ? kCopyDash : "";
    if (kind == "lab" && series.contains("variant"))
      if (const int earlier = lines_of_lab[series.value("lab", 0)]++; earlier > 0)
        line.dash = kVariantDashes[(earlier - 1) % 3];
    line.width = kind == "lab" ? 2 : 2.5;
    for (const nlohmann::json& point : series["points"]) {
      const double n = point["n"].get<double>();
      line.points.emplace_back(n, number_at(point, "gbs"));
      low = std::min(low, static_cast<int>(std::lround(std::log2(n))));
      high = std::max(high, static_cast<int>(std::lround(std::log2(n))));
    }
    chart.series.push_back(line);
  }
  for (int log = low; log <= high; ++log) chart.x_ticks.emplace_back(std::ldexp(1.0, log), "2^" + std::to_string(log));
  return line_chart_svg(chart);
}

// The lines of a chart whose series are not labs (a sweep's sizes, lab 9's K), in turn.
constexpr const char* kLineColours[] = {"#8e24aa", "#f4511e", "#00897b", "#1565c0", "#6d4c41", "#546e7a"};

std::string sweep_svg(const nlohmann::json& sweep) {
  LineChart chart;
  const std::string device = sweep.value("device", ""), name = sweep.value("name", "");
  chart.document_title = "reduction-labs sweep: " + name;
  chart.title = "Speed against " + name + (device.empty() ? "" : " on " + device);
  chart.subtitle = "each size's median time, as a share of its fastest " + name +
                   "'s speed; ring: your choice; bar: Brent's estimate (log2 n / 2)";
  chart.x_label = name + " (each thread adds 2 x " + name + " elements)";
  chart.y_label = "% of the fastest's speed";
  ChartSeries choices{"your choice", "#111111", "", 2, {}, "ring"};
  ChartSeries brent{"Brent's estimate", "#c62828", "", 2, {}, "tick"};
  double widest = 1;
  std::size_t index = 0;
  for (const nlohmann::json& size : sweep["sizes"]) {
    ChartSeries line;
    line.name = "n = " + size_text(static_cast<std::size_t>(number_at(size, "n")));
    line.colour = kLineColours[index++ % std::size(kLineColours)];
    double fastest = 0;
    for (const nlohmann::json& value : size["values"]) fastest = std::max(fastest, number_at(value, "gbs"));
    if (fastest <= 0) continue;
    for (const nlohmann::json& value : size["values"]) {
      line.points.emplace_back(number_at(value, "value"), 100 * number_at(value, "gbs") / fastest);
      widest = std::max(widest, number_at(value, "value"));
    }
    std::sort(line.points.begin(), line.points.end());
    choices.points.emplace_back(number_at(size, "chosen"), 100 * number_at(size["choice"], "gbs") / fastest);
    // Brent's factor on this size's line, read between the swept values either side of it.
    const double at = number_at(size, "brent");
    for (std::size_t k = 1; k < line.points.size(); ++k) {
      const auto& [x0, y0] = line.points[k - 1];
      const auto& [x1, y1] = line.points[k];
      if (x0 <= at && at <= x1) {
        brent.points.emplace_back(
            at, y0 + (y1 - y0) * (std::log2(at) - std::log2(x0)) / (std::log2(x1) - std::log2(x0)));
        break;
      }
    }
    chart.series.push_back(line);
  }
  chart.series.push_back(choices);
  chart.series.push_back(brent);
  if (sweep.contains("required"))
    chart.levels.push_back({"gate", "the gate: " + format("%.0f%%", 100 * number_at(sweep, "required")),
                            "#757575", "6 4", 100 * number_at(sweep, "required")});
  for (double tick = 1; tick <= widest * 1.0001; tick *= 2) chart.x_ticks.emplace_back(tick, format("%.0f", tick));
  return line_chart_svg(chart);
}

std::string block_sizes_svg(const nlohmann::json& table) {
  LineChart chart;
  const std::string device = table.value("device", ""), name = table.value("variant_name", "");
  chart.document_title = "reduction-labs bench: block sizes";
  chart.title = "GB/s against the block size" + (device.empty() ? "" : " on " + device);
  chart.subtitle = table.value("name", "") + ", n = " + size_text(static_cast<std::size_t>(number_at(table, "n"))) +
                   " floats: 4 n / median time of " + std::to_string(table.value("samples", 0)) +
                   " samples, a line per " + name;
  chart.x_label = "threads a block";
  std::size_t index = 0;
  double smallest = 1024, largest = 1;
  for (const nlohmann::json& series : table["series"]) {
    ChartSeries line;
    line.name = name + " = " + std::to_string(series.value("variant", 0u));
    line.colour = kLineColours[index++ % std::size(kLineColours)];
    for (const nlohmann::json& point : series["points"]) {
      const double size = number_at(point, "block_size");
      smallest = std::min(smallest, size);
      largest = std::max(largest, size);
      line.points.emplace_back(size, number_at(point, "gbs"));
    }
    chart.series.push_back(line);
  }
  for (double tick = smallest; tick <= largest * 1.0001; tick *= 2) chart.x_ticks.emplace_back(tick, format("%.0f", tick));
  return line_chart_svg(chart);
}

std::string bench_rows_svg(const nlohmann::json& rows) {
  LineChart chart;
  const std::string device = rows.value("device", "");
  const int lab = rows.value("lab", 0);
  const double copy = number_at(rows, "copy_gbs");
  chart.document_title = "reduction-labs bench: rows";
  chart.title = "GB/s against row length" + (device.empty() ? "" : " on " + device);
  chart.subtitle = "each row of an m x n matrix of " +
                   size_text(static_cast<std::size_t>(number_at(rows, "elements"))) +
                   " floats summed: 4 m n / median time of " + std::to_string(rows.value("samples", 0)) + " samples";
  chart.x_label = "n (floats per row; m = floats / n rows)";
  ChartSeries mine{rows.value("name", "lab " + std::to_string(lab)), lab_colour(lab), "", 2, {}};
  ChartSeries cub{"CUB DeviceSegmentedReduce", kCubColour, "", 2.5, {}};
  double longest = 1;
  for (const nlohmann::json& shape : rows["shapes"]) {
    const double n = number_at(shape, "columns");
    longest = std::max(longest, n);
    mine.points.emplace_back(n, number_at(shape["lab"], "gbs"));
    if (shape.contains("cub")) cub.points.emplace_back(n, number_at(shape["cub"], "gbs"));
  }
  chart.series.push_back(mine);
  if (!cub.points.empty()) chart.series.push_back(cub);
  if (copy > 0)
    chart.levels.push_back({"copy", "copy (read + write) " + format("%.0f GB/s", copy), kCopyColour, kCopyDash, copy});
  // Powers of ten from 1 to the first at or past the longest row.
  for (int power = 0;; ++power) {
    const double tick = std::pow(10.0, power);
    chart.x_ticks.emplace_back(tick, power == 0 ? "1" : power == 1 ? "10" : "10^" + std::to_string(power));
    if (tick >= longest) break;
  }
  return line_chart_svg(chart);
}

}  // namespace reduce_lab::grader
