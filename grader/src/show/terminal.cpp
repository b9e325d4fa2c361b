#include "show/terminal.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace reduce_lab::grader::show {

namespace {

// A line of the picture and how many columns it takes (its bytes include UTF-8 and colour).
struct Line {
  std::string text;
  unsigned width = 0;
  void add(const std::string& plain) {
    text += plain;
    width += static_cast<unsigned>(plain.size());
  }
  void glyph(const char* utf8, const char* colour_code, bool colour) {  // one column
    if (colour && colour_code)
      text += std::string("\033[") + colour_code + "m" + utf8 + "\033[0m";
    else
      text += utf8;
    width += 1;
  }
  void pad(unsigned to) {
    while (width < to) add(" ");
  }
};

struct Painter {
  bool colour;
  const char* code(const char* c) const { return colour ? c : nullptr; }
};

const char* const kShades[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

// A cell's glyph: untouched, read, written, read and written (the tree's in-place add), atomic.
void use_glyph(Line& line, unsigned char use, bool shared, bool colour) {
  const char* colour_code = shared ? "35" : "34";  // shared magenta, global blue
  if (use & kAtomic)
    line.glyph("⊕", "1;31", colour);
  else if ((use & kRead) && (use & kWritten))
    line.glyph("◉", colour_code, colour);
  else if (use & kWritten)
    line.glyph("●", colour_code, colour);
  else if (use & kRead)
    line.glyph("○", colour_code, colour);
  else
    line.glyph("·", "2", colour);
}

std::string short_name(const std::string& name) {
  if (name == "threads") return "thr";
  if (name == "input") return "in";
  if (name == "output") return "out";
  if (name == "shared") return "sh";
  return name.substr(0, 3);
}

// Each area's width in columns: its cells, or its heading where that is wider (a short
// heading for a narrow area).
std::vector<unsigned> area_widths(const Picture& p, std::vector<std::string>* headings) {
  std::vector<unsigned> widths;
  auto add = [&](const std::string& name, const Columns& c, long long columns) {
    // The longest heading that fits the area's columns: "input (64 a column)", "input/64",
    // "in/64", "in" (the legend says what the short names are).
    const std::string per = c.per == 1 ? "" : "/" + std::to_string(c.per);
    std::string heading = area_heading(name, c);
    for (const std::string& shorter : {name + per, short_name(name) + per, short_name(name)})
      if (heading.size() > static_cast<std::size_t>(columns)) heading = shorter;
    widths.push_back(static_cast<unsigned>(std::max<long long>(columns, static_cast<long long>(heading.size()))));
    headings->push_back(heading);
  };
  Columns threads;
  threads.items = p.threads;
  threads.per = threads_by_warp(p) ? 32 : 1;
  add(threads_by_warp(p) ? "warps" : "threads", threads_by_warp(p) ? Columns{p.warps(), 1} : threads,
      thread_columns(p));
  for (const Memory& m : p.memories) {
    const Columns c = columns_of(p, m.cells);
    add(m.name, c, c.count());
  }
  return widths;
}

// A row lab's panel (Picture::matrix): a letter per element, the warp that read it (in that
// warp's colour), the results beside the rows, and the warps named under them. An element read
// more than once shows how often (2-9, + past 9), one never read ○, both in red.
const char* const kWarpColours[] = {"34", "32", "33", "35", "36", "94", "92", "93", "95", "96"};

void touches_glyph(Line& line, int warp, unsigned count, bool again, bool never, bool colour) {
  if (never) {
    line.glyph("○", "1;31", colour);
  } else if (again) {
    const std::string digit(1, count > 9 ? '+' : static_cast<char>('0' + count));
    line.glyph(digit.c_str(), "1;41", colour);
  } else {
    const std::string letter(1, warp_letter(static_cast<unsigned>(warp)));
    line.glyph(letter.c_str(), kWarpColours[static_cast<unsigned>(warp) % std::size(kWarpColours)], colour);
  }
}

std::vector<Line> matrix_panel(const Picture& p, const std::string& label, bool colour) {
  const Matrix& m = p.matrix;
  const MatrixColumns cols = matrix_columns(m);
  std::vector<Line> lines;
  Line title;
  title.add(label.size() > 96 ? label.substr(0, 93) + "..." : label);
  lines.push_back(title);
  const std::string label_width = "row " + std::to_string(m.rows - 1) + " ";
  Line head;
  head.pad(static_cast<unsigned>(label_width.size()));
  std::string heading = "input " + std::to_string(m.rows) + " x " + std::to_string(m.columns);
  if (cols.per > 1) heading += ", /" + std::to_string(cols.per);
  head.add(heading);
  head.pad(std::max(head.width + 1, static_cast<unsigned>(label_width.size() + cols.count + 1)));
  head.add("out");
  lines.push_back(head);
  for (std::size_t r = 0; r < m.rows; ++r) {
    Line row;
    row.add("row " + std::to_string(r));
    row.pad(static_cast<unsigned>(label_width.size()));
    for (std::size_t c = 0; c < cols.count; ++c) {
      const MatrixCell cell = matrix_cell(m, cols, r, c);
      touches_glyph(row, cell.warp, cell.reads, cell.reads > 1, cell.unread, colour);
    }
    row.pad(std::max(row.width + 1, head.width - 3));
    const Touches& result = m.results[r];
    touches_glyph(row, result.warps.empty() ? -1 : static_cast<int>(result.warps.front()), result.count,
                  result.count > 0 && !result_once(result), result.count == 0, colour);
    lines.push_back(row);
  }
  // The warps, as many to a line as fit 80 columns.
  Line legend;
  for (unsigned w = 0; w < m.warps.size(); ++w) {
    const std::string name = m.warp_name(w);
    if (legend.width > 0 && legend.width + 3 + name.size() > 80) {
      lines.push_back(legend);
      legend = Line();
    }
    if (w == 32) {
      legend.add("and " + std::to_string(m.warps.size() - w) + " more warps");
      break;
    }
    touches_glyph(legend, static_cast<int>(w), 1, false, false, colour);
    legend.add(" " + name + "  ");
  }
  if (legend.width > 0) lines.push_back(legend);
  return lines;
}

std::vector<Line> panel(const Picture& p, const std::string& label, const Difference* difference, bool colour) {
  if (p.matrix.drawn) return matrix_panel(p, label, colour);
  std::vector<Line> lines;
  std::vector<std::string> headings;
  const std::vector<unsigned> widths = area_widths(p, &headings);
  Line title;
  title.add(label.size() > 96 ? label.substr(0, 93) + "..." : label);
  lines.push_back(title);
  Line head;
  // Step numbers take 3 columns, more after a loop that ran far past the rows drawn.
  const int digits = std::max(3, static_cast<int>(std::to_string(p.steps.empty() ? 0 : p.steps.back().number).size()));
  head.add("step ");
  head.pad(static_cast<unsigned>(digits) + 2);
  for (std::size_t a = 0; a < widths.size(); ++a) {
    head.add(headings[a]);
    head.pad(head.width + widths[a] - static_cast<unsigned>(headings[a].size()) + 1);
  }
  lines.push_back(head);
  for (std::size_t s = 0; s < p.steps.size(); ++s) {
    const Step& step = p.steps[s];
    if (const std::string gap = gap_words(p, s); !gap.empty()) {
      Line skipped;
      skipped.add("  ");
      skipped.glyph("⋮", "2", colour);
      skipped.add("  " + gap);
      lines.push_back(skipped);
    }
    Line row;
    const bool differs = difference && difference->found && difference->step == s;
    if (differs)
      row.glyph("▶", "1;31", colour);
    else
      row.add(" ");
    char number[32];
    std::snprintf(number, sizeof number, "%*zu ", digits, step.number);
    row.add(number);
    unsigned at = row.width;
    if (threads_by_warp(p)) {
      for (unsigned w = 0; w < p.warps(); ++w) {
        const unsigned lanes = step.lanes_per_warp[w];
        if (lanes == 0)
          row.glyph("·", "2", colour);
        else
          row.glyph(kShades[(lanes * 8 + 31) / 32 - 1], lanes == 32 ? "32" : "33", colour);
      }
    } else {
      for (unsigned t = 0; t < p.threads; ++t)
        if (step.thread_active[t])
          row.glyph("█", "32", colour);
        else
          row.glyph("·", "2", colour);
    }
    at += widths[0] + 1;
    row.pad(at);
    for (std::size_t m = 0; m < p.memories.size(); ++m) {
      const Columns c = columns_of(p, p.memories[m].cells);
      for (long long col = 0; col < c.count(); ++col)
        use_glyph(row, column_use(step.cells[m], c, col), p.memories[m].shared, colour);
      at += widths[m + 1] + 1;
      row.pad(at);
    }
    if (p.stop.stopped && p.stop.step == s) row.glyph("✖", "1;31", colour), row.add(" " + p.stop.kind);
    lines.push_back(row);
  }
  return lines;
}

std::string counts_text(const Step& step) {
  const StepCounts c = counts_of(step);
  char text[96];
  std::snprintf(text, sizeof text, "%-9s %7llu %6llu %5llu %5s", c.requests.c_str(), c.sectors, c.wavefronts,
                c.conflicts, c.simd.c_str());
  return text;
}

void wrapped(std::ostringstream& out, const std::string& text, unsigned width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out << line << "\n";
      line = indent;
    }
    line += (line.empty() || line == indent ? "" : " ") + word;
  }
  if (!line.empty()) out << line << "\n";
}

using Pictures = std::vector<std::pair<const Picture*, std::string>>;

// Under a picture of steps: the legend, and the grader's counts for each step side by side.
void steps_notes(std::ostringstream& out, const Pictures& pictures, bool colour, const char* bold, const char* reset) {
  out << "legend: █ active thread  ▁..█ lanes of a warp at work  · idle or untouched\n"
      << "        ○ read  ● written  ◉ read and written  ⊕ atomic; "
      << (colour ? "\033[34mglobal\033[0m, \033[35mshared\033[0m memory" : "in, out: global, sh: shared memory")
      << "\n";
  bool summarised = false;
  for (const auto& entry : pictures)
    for (const Memory& m : entry.first->memories) summarised = summarised || columns_of(*entry.first, m.cells).per > 1;
  if (summarised) out << "        input/64: a column stands for 64 elements, the uses of any of them shown\n";

  // The grader's counts for each step, side by side.
  out << "\n"
      << bold << "counts per step" << reset << ": requests ld+st(+atomic), sectors, shared wavefronts,\n"
      << "bank conflicts, SIMD efficiency (active lanes / 32 per warp instruction)\n";
  char head[160];
  std::snprintf(head, sizeof head, "%-9s %7s %6s %5s %5s", "requests", "sectors", "wavefr", "confl", "SIMD");
  if (pictures.size() == 2) {
    std::string first = "reference";
    first.resize(std::string(head).size(), ' ');
    out << "      " << first << "  │ yours\n";
  }
  out << "step  ";
  for (std::size_t k = 0; k < pictures.size(); ++k) out << (k ? "  │ " : "") << head;
  out << "\n";
  std::size_t rows = 0;
  for (const auto& entry : pictures) rows = std::max(rows, entry.first->steps.size());
  for (std::size_t s = 0; s < rows; ++s) {
    if (!gap_words(*pictures.front().first, s).empty()) out << "   ⋮\n";
    char number[24];
    const Picture& first = *pictures.front().first;
    std::snprintf(number, sizeof number, "%4zu  ", s < first.steps.size() ? first.steps[s].number : s);
    out << number;
    for (std::size_t k = 0; k < pictures.size(); ++k) {
      const Picture& p = *pictures[k].first;
      std::string cell = s < p.steps.size() ? counts_text(p.steps[s]) : "";
      cell.resize(std::string(head).size(), ' ');
      out << (k ? "  │ " : "") << cell;
    }
    out << "\n";
  }
}

// Under a matrix: the marks, and what each run got wrong.
void matrix_notes(std::ostringstream& out, const Pictures& pictures, const Drawing& d, bool colour, unsigned width) {
  out << "legend: each element's letter names the warp that read it (every block is drawn), each result's\n"
      << "        the warp that stored it; 2-9 (+ past 9): read or stored that many times; ○ never\n";
  for (const auto& [picture, label] : pictures)
    if (const std::string problems = matrix_problems(picture->matrix, picture == d.yours ? "Yours" : "The reference");
        !problems.empty()) {
      std::ostringstream words;
      wrapped(words, problems, width, "  ");
      out << (colour ? "\033[1;31m" : "") << words.str() << (colour ? "\033[0m" : "");
    }
}

}  // namespace

std::string terminal(const Drawing& d, bool colour, unsigned width) {
  std::ostringstream out;
  const char* bold = colour ? "\033[1m" : "";
  const char* reset = colour ? "\033[0m" : "";
  std::ostringstream title;
  wrapped(title, d.title, width, "  ");
  out << bold << title.str() << reset;
  std::vector<std::pair<const Picture*, std::string>> pictures;
  if (d.reference) pictures.push_back({d.reference, d.reference_label});
  if (d.yours) pictures.push_back({d.yours, d.yours_label});
  std::vector<std::vector<Line>> panels;
  for (const auto& [picture, label] : pictures)
    panels.push_back(panel(*picture, label, picture == d.yours ? &d.difference : nullptr, colour));

  unsigned widest[2] = {0, 0};
  for (std::size_t k = 0; k < panels.size(); ++k)
    for (const Line& line : panels[k]) widest[k] = std::max(widest[k], line.width);
  if (panels.size() == 2 && widest[0] + 3 + widest[1] <= width) {
    const std::size_t rows = std::max(panels[0].size(), panels[1].size());
    for (std::size_t r = 0; r < rows; ++r) {
      Line left = r < panels[0].size() ? panels[0][r] : Line();
      left.pad(widest[0]);
      out << left.text << (r == 0 ? "   " : " │ ") << (r < panels[1].size() ? panels[1][r].text : "") << "\n";
    }
  } else {
    for (std::size_t k = 0; k < panels.size(); ++k) {
      if (k) out << "\n";
      for (const Line& line : panels[k]) out << line.text << "\n";
    }
  }
  if (pictures.front().first->matrix.drawn)
    matrix_notes(out, pictures, d, colour, width);
  else
    steps_notes(out, pictures, colour, bold, reset);
  out << "\n";
  if (d.reference && d.yours) {
    if (d.difference.found) {
      std::ostringstream words;
      wrapped(words, "▶ first difference, " + d.difference.words, width, "  ");
      out << (colour ? "\033[1;31m" : "") << words.str().substr(0, 3) << reset << words.str().substr(3);
    } else {
      out << (d.yours->matrix.drawn ? "Your kernel reads each element and writes each result as often as the "
                                      "reference's.\n"
                                    : "Your kernel's picture is the reference's, step for step.\n");
    }
  }
  for (const auto& [picture, label] : pictures)
    if (picture->stop.stopped) {
      wrapped(out, "✖ " + stop_words(*picture, picture == d.yours ? "yours" : "the reference"), width, "  ");
    }
  for (const auto& [picture, label] : pictures)
    // After a stop past the rows drawn, the record's cap left out only rows that are not drawn.
    if (picture->truncated && !(picture->stop.stopped && picture->steps_left_out > 0))
      out << "(" << label << ": the record reached its cap; later steps are missing)\n";
  if (!d.note.empty()) wrapped(out, d.note, width, "");
  return out.str();
}

}  // namespace reduce_lab::grader::show
