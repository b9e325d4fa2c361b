#include "show/svg.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <vector>

#include "measure/charts.hpp"

namespace reduce_lab::grader::show {

namespace {

constexpr int kCell = 12;     // a cell's square, in pixels
constexpr int kRow = 16;      // a step's row
constexpr int kLabel = 66;    // the step labels' column
constexpr int kGap = 14;      // between areas
constexpr int kCounts = 250;  // the counts' column
constexpr int kHead = 58;     // a panel's title and area headings
constexpr int kMargin = 16;
constexpr int kBesideWidth = 1200;  // wider than this, the two pictures are stacked

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

const char* fill_of(unsigned char use, bool shared) {
  if (use & kAtomic) return "#c62828";
  if ((use & kRead) && (use & kWritten)) return shared ? "#8e24aa" : "#1565c0";
  if (use & kWritten) return shared ? "#ba68c8" : "#42a5f5";
  if (use & kRead) return shared ? "#e1bee7" : "#bbdefb";
  return "#f4f4f4";
}

std::string use_words(unsigned char use) {
  std::string words;
  if (use & kRead) words += "read";
  if (use & kWritten) words += std::string(words.empty() ? "" : ", ") + "written";
  if (use & kAtomic) words += std::string(words.empty() ? "" : ", ") + "atomic";
  return words.empty() ? "untouched" : words;
}

std::string counts_words(const Step& step) {
  const StepCounts c = counts_of(step);
  std::string text = "req " + c.requests + "  sect " + std::to_string(c.sectors);
  if (c.wavefronts) text += "  wf " + std::to_string(c.wavefronts) + " (" + std::to_string(c.conflicts) + " confl)";
  if (c.simd != "-") text += "  SIMD " + c.simd;
  return text;
}

// A row lab's panel (Picture::matrix): the input's rows of cells, each in the colour and letter
// of the warp that read it, the results beside them, and the warps named under them.
constexpr int kMatrixCell = 14;
constexpr int kLegendLine = 15;
constexpr int kLegendEntry = 150;  // "Z launch 2 block 12 warp 7"
constexpr unsigned kLegendWarps = 32;
const char* const kWarpFills[] = {"#90caf9", "#a5d6a7", "#ffcc80", "#ce93d8", "#80deea", "#bcaaa4",
                                  "#f48fb1", "#e6ee9c", "#b0bec5", "#9fa8da", "#80cbc4", "#fff59d"};

// "input, 4 x 300 (8 a column)": the heading over the matrix's cells.
std::string matrix_heading(const Matrix& m) {
  const MatrixColumns cols = matrix_columns(m);
  return "input, " + std::to_string(m.rows) + " x " + std::to_string(m.columns) +
         (cols.per > 1 ? " (" + std::to_string(cols.per) + " a column)" : "");
}

// Where the results' column starts, from the panel's left: past the cells and their heading.
int matrix_results_x(const Matrix& m) {
  const int cells = static_cast<int>(matrix_columns(m).count) * kMatrixCell;
  return kLabel + std::max(cells, static_cast<int>(matrix_heading(m).size()) * 6) + kGap;
}

// Wide enough for the panel's title (13-pixel bold), the results and three legend entries.
int matrix_panel_width(const Matrix& m, const std::string& label) {
  return std::max({matrix_results_x(m) + 3 * kMatrixCell, 3 * kLegendEntry, static_cast<int>(label.size()) * 8});
}

// The legend's warps, and one entry "and K more warps" past kLegendWarps of them.
unsigned legend_entries(const Matrix& m) {
  return static_cast<unsigned>(std::min<std::size_t>(m.warps.size(), kLegendWarps + 1));
}

int matrix_legend_lines(const Matrix& m, const std::string& label) {
  const unsigned per_line = static_cast<unsigned>(std::max(1, matrix_panel_width(m, label) / kLegendEntry));
  return static_cast<int>((legend_entries(m) + per_line - 1) / per_line) + 1;  // the warps, then the marks
}

int matrix_panel_height(const Matrix& m, const std::string& label) {
  return kHead - 24 + static_cast<int>(m.rows) * kRow + 6 + matrix_legend_lines(m, label) * kLegendLine;
}

// One cell of the matrix or of the results: a warp's colour and letter; a red hatch over it when
// read (or stored) more than once, a dashed red border and no fill when never.
void matrix_cell_svg(std::ostringstream& svg, int x, int y, int warp, bool again, bool never, const std::string& cls,
                     const std::string& tip) {
  const std::string fill = warp < 0 ? "#fff" : kWarpFills[static_cast<unsigned>(warp) % std::size(kWarpFills)];
  svg << "<rect class=\"" << cls << (again ? " again" : "") << (never ? " never" : "") << "\" x=\"" << x
      << "\" y=\"" << y << "\" width=\"" << kMatrixCell - 1 << "\" height=\"" << kMatrixCell - 1 << "\" fill=\""
      << fill << "\"";
  if (never) svg << " stroke=\"#c62828\" stroke-dasharray=\"2 2\"";
  svg << "><title>" << xml_escaped(tip) << "</title></rect>\n";
  if (warp >= 0)
    svg << "<text class=\"warp-letter\" x=\"" << x + (kMatrixCell - 1) / 2 << "\" y=\"" << y + kMatrixCell - 4
        << "\" font-size=\"9\" text-anchor=\"middle\" fill=\"#222\" pointer-events=\"none\">"
        << warp_letter(static_cast<unsigned>(warp)) << "</text>\n";
  if (again)
    svg << "<rect class=\"again-hatch\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << kMatrixCell - 1
        << "\" height=\"" << kMatrixCell - 1
        << "\" fill=\"url(#again)\" stroke=\"#c62828\" stroke-width=\"1.5\"><title>" << xml_escaped(tip)
        << "</title></rect>\n";
}

std::string touches_words(const Matrix& m, const Touches& t, const char* verb) {
  if (t.count == 0) return std::string("never ") + verb;
  std::string words = std::string(verb) + " " + (t.count == 1 ? "once" : std::to_string(t.count) + " times") + " by ";
  for (std::size_t i = 0; i < t.warps.size(); ++i) words += (i ? ", " : "") + m.warp_name(t.warps[i]);
  if (t.warps.size() == 1) words += " lane " + std::to_string(t.lane);
  return words;
}

int matrix_panel(std::ostringstream& svg, const Picture& p, const std::string& label, int x0, int y0) {
  const Matrix& m = p.matrix;
  const MatrixColumns cols = matrix_columns(m);
  const int cells_x = x0 + kLabel;
  const int out_x = x0 + matrix_results_x(m);
  const int width = matrix_panel_width(m, label);
  svg << "<text class=\"panel-title\" x=\"" << x0 << "\" y=\"" << y0 + 12 << "\" font-size=\"13\" font-weight=\"bold\">"
      << xml_escaped(label) << "</text>\n";
  svg << "<text class=\"area\" x=\"" << cells_x << "\" y=\"" << y0 + kHead - 30 << "\" font-size=\"10\" fill=\"#444\">"
      << xml_escaped(matrix_heading(m)) << "</text>\n";
  svg << "<text class=\"area\" x=\"" << out_x << "\" y=\"" << y0 + kHead - 30
      << "\" font-size=\"10\" fill=\"#444\">out</text>\n";
  for (std::size_t r = 0; r < m.rows; ++r) {
    const int y = y0 + kHead - 24 + static_cast<int>(r) * kRow;
    svg << "<text class=\"row-label\" x=\"" << x0 << "\" y=\"" << y + kMatrixCell - 3 << "\" font-size=\"11\">row " << r
        << "</text>\n";
    for (std::size_t c = 0; c < cols.count; ++c) {
      const MatrixCell cell = matrix_cell(m, cols, r, c);
      std::string tip = "row " + std::to_string(r) + ", column " + std::to_string(cell.first);
      if (cell.last > cell.first) tip = "row " + std::to_string(r) + ", columns " + std::to_string(cell.first) + ".." +
                                        std::to_string(cell.last);
      tip += " (input[" + std::to_string(r * m.columns + cell.first) + "]): ";
      if (cols.per == 1)
        tip += touches_words(m, m.element(r, cell.first), "read");
      else
        tip += cell.warp < 0 ? "never read" : "first read by " + m.warp_name(static_cast<unsigned>(cell.warp));
      if (cols.per > 1 && cell.reads > 1) tip += "; some read " + std::to_string(cell.reads) + " times";
      if (cols.per > 1 && cell.unread && cell.warp >= 0) tip += "; some never read";
      matrix_cell_svg(svg, cells_x + static_cast<int>(c) * kMatrixCell, y, cell.warp, cell.reads > 1, cell.unread,
                      "matrix-cell", tip);
    }
    const Touches& result = m.results[r];
    const int writer = result.warps.empty() ? -1 : static_cast<int>(result.warps.front());
    const std::string tip =
        "output[" + std::to_string(r) + "]: " + touches_words(m, result, result.atomic ? "updated" : "stored");
    matrix_cell_svg(svg, out_x, y, writer, result.count > 0 && !result_once(result), result.count == 0, "result-cell",
                    tip);
  }
  // The legend: each warp's letter and colour (and how many more), then the marks.
  const int top = y0 + kHead - 24 + static_cast<int>(m.rows) * kRow + 6 + kLegendLine - 4;
  const unsigned per_line = static_cast<unsigned>(std::max(1, width / kLegendEntry));
  const unsigned entries = legend_entries(m);
  for (unsigned w = 0; w < entries; ++w) {
    const int x = x0 + static_cast<int>(w % per_line) * kLegendEntry;
    const int y = top + static_cast<int>(w / per_line) * kLegendLine;
    if (w < kLegendWarps)
      svg << "<rect class=\"legend-swatch\" x=\"" << x << "\" y=\"" << y - 9 << "\" width=\"10\" height=\"10\" fill=\""
          << kWarpFills[w % std::size(kWarpFills)] << "\"/>\n"
          << "<text class=\"legend-warp\" x=\"" << x + 14 << "\" y=\"" << y << "\" font-size=\"10\" fill=\"#444\">"
          << warp_letter(w) << " " << m.warp_name(w) << "</text>\n";
    else
      svg << "<text class=\"legend-warp\" x=\"" << x << "\" y=\"" << y << "\" font-size=\"10\" fill=\"#444\">and "
          << m.warps.size() - kLegendWarps << " more warps</text>\n";
  }
  const int y = top + static_cast<int>((entries + per_line - 1) / per_line) * kLegendLine;
  svg << "<rect class=\"legend-swatch\" x=\"" << x0 << "\" y=\"" << y - 9
      << "\" width=\"10\" height=\"10\" fill=\"url(#again)\" stroke=\"#c62828\"/>\n"
      << "<text class=\"legend-mark\" x=\"" << x0 + 14 << "\" y=\"" << y
      << "\" font-size=\"10\" fill=\"#444\">read (or stored) more than once</text>\n"
      << "<rect class=\"legend-swatch\" x=\"" << x0 + 220 << "\" y=\"" << y - 9
      << "\" width=\"10\" height=\"10\" fill=\"#fff\" stroke=\"#c62828\" stroke-dasharray=\"2 2\"/>\n"
      << "<text class=\"legend-mark\" x=\"" << x0 + 234 << "\" y=\"" << y
      << "\" font-size=\"10\" fill=\"#444\">never read (or stored)</text>\n";
  return width;
}

int panel_height(const Picture& p, const std::string& label) {
  if (p.matrix.drawn) return matrix_panel_height(p.matrix, label) + 12;
  return kHead - 24 + static_cast<int>(p.steps.size()) * kRow + 12;
}

// One panel at x0: returns its width. `difference` marks the student's panel.
int panel(std::ostringstream& svg, const Picture& p, const std::string& label, const Difference* difference, int x0,
          int y0) {
  if (p.matrix.drawn) return matrix_panel(svg, p, label, x0, y0);
  // Areas: the threads (or warps), then each memory.
  struct Area {
    std::string heading;
    long long columns;
    int x;
  };
  std::vector<Area> areas;
  int x = x0 + kLabel;
  auto add = [&](const std::string& heading, long long columns) {
    const int width =
        static_cast<int>(std::max<long long>(columns * kCell, static_cast<long long>(heading.size()) * 6));
    areas.push_back({heading, columns, x});
    x += width + kGap;
  };
  add(threads_by_warp(p) ? "warps (lanes at work)" : "threads", thread_columns(p));
  for (const Memory& m : p.memories)
    add(area_heading(m.name, columns_of(p, m.cells)) + (m.shared ? " · shared" : " · global"),
        columns_of(p, m.cells).count());
  const int counts_x = x;
  const int width = counts_x + kCounts - x0;

  svg << "<text class=\"panel-title\" x=\"" << x0 << "\" y=\"" << y0 + 12 << "\" font-size=\"13\" font-weight=\"bold\">"
      << xml_escaped(label) << "</text>\n";
  for (const Area& a : areas)
    svg << "<text class=\"area\" x=\"" << a.x << "\" y=\"" << y0 + kHead - 30 << "\" font-size=\"10\" fill=\"#444\">"
        << xml_escaped(a.heading) << "</text>\n";
  svg << "<text x=\"" << counts_x << "\" y=\"" << y0 + kHead - 30
      << "\" font-size=\"10\" fill=\"#444\">counts</text>\n";

  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    const Step& step = p.steps[s];
    const int y = y0 + kHead - 24 + static_cast<int>(s) * kRow;
    if (difference && difference->found && difference->step == s)
      svg << "<rect class=\"difference\" x=\"" << x0 - 4 << "\" y=\"" << y - 2 << "\" width=\"" << width
          << "\" height=\"" << kRow << "\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"2\"/>\n";
    svg << "<text class=\"step-label\" x=\"" << x0 << "\" y=\"" << y + kCell - 2 << "\" font-size=\"11\">step "
        << step.number << "</text>\n";
    if (const std::string gap = gap_words(p, s); !gap.empty())
      svg << "<text class=\"gap\" x=\"" << x0 << "\" y=\"" << y - 3 << "\" font-size=\"9\" fill=\"#777\">⋮ "
          << xml_escaped(gap) << "</text>\n";
    // Threads, or warps shaded by their active lanes.
    const Area& t = areas[0];
    for (long long c = 0; c < t.columns; ++c) {
      double share;
      std::string tip;
      if (threads_by_warp(p)) {
        const unsigned lanes = step.lanes_per_warp[static_cast<std::size_t>(c)];
        share = lanes / 32.0;
        tip = "warp " + std::to_string(c) + ": " + std::to_string(lanes) + " of 32 lanes at work";
      } else {
        share = step.thread_active[static_cast<std::size_t>(c)] ? 1 : 0;
        tip = "thread " + std::to_string(c) + (share > 0 ? ": active" : ": idle");
      }
      svg << "<rect class=\"thread\" x=\"" << t.x + c * kCell << "\" y=\"" << y << "\" width=\"" << kCell - 1
          << "\" height=\"" << kCell - 1 << "\" fill=\"" << (share > 0 ? "#2e7d32" : "#f4f4f4") << "\" fill-opacity=\""
          << (share > 0 ? 0.25 + 0.75 * share : 1.0) << "\"><title>" << tip << "</title></rect>\n";
    }
    for (std::size_t m = 0; m < p.memories.size(); ++m) {
      const Memory& memory = p.memories[m];
      const Columns cols = columns_of(p, memory.cells);
      const Area& a = areas[m + 1];
      for (long long c = 0; c < cols.count(); ++c) {
        const unsigned char use = column_use(step.cells[m], cols, c);
        std::string tip = memory.name + "[" + std::to_string(c * cols.per) +
                          (cols.per > 1 ? ".." + std::to_string(std::min(cols.items, (c + 1) * cols.per) - 1) : "") +
                          "]: " + use_words(use);
        if (cols.per == 1 && step.cells[m][static_cast<std::size_t>(c)].has_value)
          tip += " = " + number(step.cells[m][static_cast<std::size_t>(c)].value);
        svg << "<rect class=\"cell\" x=\"" << a.x + c * kCell << "\" y=\"" << y << "\" width=\"" << kCell - 1
            << "\" height=\"" << kCell - 1 << "\" fill=\"" << fill_of(use, memory.shared) << "\"><title>"
            << xml_escaped(tip) << "</title></rect>\n";
      }
    }
    svg << "<text class=\"counts\" x=\"" << counts_x << "\" y=\"" << y + kCell - 2
        << "\" font-size=\"10\" fill=\"#333\">" << counts_words(step) << "</text>\n";
    if (p.stop.stopped && p.stop.step == s)
      svg << "<text class=\"stop\" x=\"" << x0 + 46 << "\" y=\"" << y + kCell - 2
          << "\" font-size=\"11\" font-weight=\"bold\" fill=\"#c62828\">✖<title>" << p.stop.kind << "</title></text>\n";
  }
  return width;
}

// Words wrapped into lines of about `chars` characters.
std::vector<std::string> lines_of(const std::string& text, std::size_t chars) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > chars) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::string svg(const Drawing& d) {
  std::vector<std::pair<const Picture*, std::string>> pictures;
  if (d.reference) pictures.push_back({d.reference, d.reference_label});
  if (d.yours) pictures.push_back({d.yours, d.yours_label});
  // Side by side where the two fit a page's width, one above the other where not.
  std::ostringstream probe;
  int total = kMargin;
  for (const auto& [picture, label] : pictures) total += panel(probe, *picture, label, nullptr, 0, 0) + 2 * kMargin;
  const bool beside = total <= kBesideWidth;
  std::ostringstream body;
  int x = kMargin, y = kMargin + 28, width = 640;
  for (const auto& [picture, label] : pictures) {
    const int drawn = panel(body, *picture, label, picture == d.yours ? &d.difference : nullptr, x, y);
    const int height = panel_height(*picture, label);
    width = std::max(width, x + drawn + kMargin);
    if (beside)
      x += drawn + 2 * kMargin;
    else
      y += height + 12;
  }
  if (beside) {
    int tallest = 0;
    for (const auto& [picture, label] : pictures) tallest = std::max(tallest, panel_height(*picture, label));
    y += tallest;
  }
  y += 14;
  bool matrices = false;
  for (const auto& entry : pictures) matrices = matrices || entry.first->matrix.drawn;
  if (matrices)  // a matrix's panel may be narrower than the title (15-pixel bold)
    width = std::max(width, 2 * kMargin + static_cast<int>(d.title.size()) * 9);
  const std::size_t chars = static_cast<std::size_t>(width - 2 * kMargin) / 6;
  std::vector<std::pair<std::string, std::string>> notes;  // class, text
  if (d.reference && d.yours)
    notes.push_back({"difference", d.difference.found ? "First difference: " + d.difference.words
                                      : d.yours->matrix.drawn
                                          ? "Your kernel reads each element and writes each result as often as the "
                                            "reference's."
                                          : "Your kernel's picture is the reference's, step for step."});
  for (const auto& [picture, label] : pictures)
    if (picture->stop.stopped)
      notes.push_back({"stop", "✖ " + stop_words(*picture, picture == d.yours ? "yours" : "the reference")});
  for (const auto& [picture, label] : pictures)
    if (picture->matrix.drawn)
      if (const std::string problems = matrix_problems(picture->matrix, picture == d.yours ? "Yours" : "The reference");
          !problems.empty())
        notes.push_back({"stop", problems});
  if (matrices)
    notes.push_back({"legend",
                     "Every block of the launch is drawn: each element of the matrix in the colour and letter of the "
                     "warp that loaded it, each result in those of the warp that stored it. Hover a cell for its "
                     "warp and lane."});
  else
    notes.push_back({"legend",
                     "Cells: pale read, mid written, dark read and written (blue global, purple shared), red "
                     "atomic, grey untouched; green threads at work. Hover a cell for its index and value."});
  if (!d.note.empty()) notes.push_back({"note", d.note});
  for (const auto& [cls, text] : notes)
    for (const std::string& line : lines_of(text, chars)) {
      body << "<text class=\"" << cls << "\" x=\"" << kMargin << "\" y=\"" << y << "\" font-size=\"11\" fill=\""
           << (cls == "difference" && d.difference.found ? "#c62828"
               : cls == "stop"                           ? "#c62828"
                                                         : "#333")
           << "\">" << xml_escaped(line) << "</text>\n";
      y += 15;
    }
  const int height = y + kMargin;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  if (matrices)  // the hatch over an element read more than once
    svg << "<defs><pattern id=\"again\" patternUnits=\"userSpaceOnUse\" width=\"4\" height=\"4\" "
           "patternTransform=\"rotate(45)\"><rect width=\"1.5\" height=\"4\" fill=\"#c62828\"/></pattern></defs>\n";
  svg
      << "<text class=\"title\" x=\"" << kMargin << "\" y=\"" << kMargin + 12
      << "\" font-size=\"15\" font-weight=\"bold\">" << xml_escaped(d.title) << "</text>\n"
      << body.str() << "</svg>\n";
  return svg.str();
}

}  // namespace reduce_lab::grader::show
