#include "show/svg.hpp"

#include <cstdio>
#include <sstream>
#include <vector>

#include "charts.hpp"

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

// One panel at x0: returns its width. `difference` marks the student's panel.
int panel(std::ostringstream& svg, const Picture& p, const std::string& label, const Difference* difference, int x0,
          int y0) {
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
    const int height = kHead - 24 + static_cast<int>(picture->steps.size()) * kRow + 12;
    width = std::max(width, x + drawn + kMargin);
    if (beside)
      x += drawn + 2 * kMargin;
    else
      y += height + 12;
  }
  if (beside) {
    std::size_t rows = 0;
    for (const auto& entry : pictures) rows = std::max(rows, entry.first->steps.size());
    y += kHead - 24 + static_cast<int>(rows) * kRow + 12;
  }
  y += 14;
  const std::size_t chars = static_cast<std::size_t>(width - 2 * kMargin) / 6;
  std::vector<std::pair<std::string, std::string>> notes;  // class, text
  if (d.reference && d.yours)
    notes.push_back({"difference", d.difference.found ? "First difference: " + d.difference.words
                                                      : "Your kernel's picture is the reference's, step for step."});
  for (const auto& [picture, label] : pictures)
    if (picture->stop.stopped)
      notes.push_back({"stop", "✖ " + stop_words(*picture, picture == d.yours ? "yours" : "the reference")});
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
      << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      << "<text class=\"title\" x=\"" << kMargin << "\" y=\"" << kMargin + 12
      << "\" font-size=\"15\" font-weight=\"bold\">" << xml_escaped(d.title) << "</text>\n"
      << body.str() << "</svg>\n";
  return svg.str();
}

}  // namespace reduce_lab::grader::show
