#include "report/table.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/catalog.hpp"
#include "run/records.hpp"

namespace reduce_lab::grader {

namespace {
// Widest a cell may grow before it is cut with "~", per column in the manifest's order of checks.
const std::size_t kMaxColumns[] = {56, 40, 30, 26};
std::size_t max_column(std::size_t column) { return column < 4 ? kMaxColumns[column] : 26; }

// A cell cut to `width` columns, ending in " ~": after the last whole item of a list ("a, b,
// c") where there is one, else after the last whole word, so a figure is shown whole or not at
// all ("1151 = 1151 @2048 ~", never "1151 = 11~").
std::string fit_cell(const std::string& cell, std::size_t width) {
  if (cell.size() <= width) return cell;
  std::size_t cut = cell.rfind(", ", width - 2);
  if (cut == std::string::npos || cut < 5) cut = cell.rfind(' ', width - 2);
  if (cut == std::string::npos || cut < 5) cut = width - 2;
  std::string kept = cell.substr(0, cut);
  while (!kept.empty() && (kept.back() == ',' || kept.back() == ' ' || kept.back() == ':')) kept.pop_back();
  return kept + " ~";
}

}  // namespace

std::string table_text(const std::string& dir, const std::string& backend, bool* all_passed) {
  bool passed = true, graded = false;
  const std::vector<std::string>& checks = check_names();
  const std::size_t columns = checks.size();
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  std::vector<std::size_t> widths(columns);
  for (std::size_t t = 0; t < columns; ++t) widths[t] = checks[t].size();
  for (int lab = 1; lab <= lab_count(); ++lab) {
    std::vector<std::string> cells(columns);
    bool lab_seen = false;
    for (std::size_t t = 0; t < columns; ++t) {
      const std::string path = dir + "/lab" + std::to_string(lab) + "." + checks[t];
      const auto own = read_result(path);
      const auto emu = read_result(path + ".emu");
      if (!own && !emu) {
        cells[t] = "-";
        continue;
      }
      lab_seen = true;
      const RecordedResult cell = table_cell(own ? &*own : nullptr, emu ? &*emu : nullptr);
      if (cell.status == "FAIL") passed = false;
      if (cell.status == "PASS" || cell.status == "FAIL") graded = true;
      cells[t] = fit_cell(cell.status + " " + cell.summary, max_column(t));
      widths[t] = std::max(widths[t], cells[t].size());
    }
    if (lab_seen) rows.emplace_back(lab, std::move(cells));
  }
  std::string text = "reduction-labs grade (" + backend + ")\n";
  auto add_row = [&](const std::string& title, const std::vector<std::string>& cells) {
    std::string line = title;
    // Every column padded to its width but the last, so no line ends in blanks.
    for (std::size_t t = 0; t + 1 < columns; ++t)
      line += " " + cells[t] + std::string(widths[t] - std::min(widths[t], cells[t].size()), ' ');
    text += line + " " + cells[columns - 1] + "\n";
  };
  add_row(lab_row_title("lab"), checks);
  for (const auto& [lab, cells] : rows) add_row(lab_row_title(lab), cells);
  if (rows.empty()) {
    text += "(no results: no test ran)\n";
    passed = false;
  } else if (!graded) {
    // Every test skipped (GPU tests without a usable GPU): nothing was graded, which must never
    // read as a pass, nor as a grade of 0.
    text += "(nothing was graded: every test was skipped here; each one's message says why)\n";
    passed = false;
  }
  if (all_passed) *all_passed = passed;
  return text;
}

namespace {

// A lab's failed checks, those with the same message together ("correctness, requests").
struct FailedChecks {
  std::string checks, summary, message;
};

std::vector<FailedChecks> failures_of(const std::string& dir, int lab) {
  std::vector<FailedChecks> failed;
  for (const std::string& test : check_names()) {
    const std::string path = dir + "/lab" + std::to_string(lab) + "." + test;
    const auto own = read_result(path);
    const auto emu = read_result(path + ".emu");
    if (!own && !emu) continue;
    const RecordedResult cell = table_cell(own ? &*own : nullptr, emu ? &*emu : nullptr);
    if (cell.status != "FAIL") continue;
    std::string message;
    if (own && own->status == "FAIL") message = own->message;
    if (emu && emu->status == "FAIL" && (!own || emu->message != own->message))
      message += (message.empty() ? "" : "\n") + std::string(own ? "On the CPU emulator: " : "") + emu->message;
    auto same = std::find_if(failed.begin(), failed.end(), [&](const FailedChecks& f) { return f.message == message; });
    if (same != failed.end())
      same->checks += std::string(", ") + test;
    else
      failed.push_back({test, cell.summary, message});
  }
  return failed;
}

std::string indent(const std::string& text) {
  std::string out = "  ";
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size()) out += "  ";
  }
  return out;
}

}  // namespace

std::string failures_text(const std::string& dir) {
  std::string text;
  std::vector<int> not_written;
  for (int lab = 1; lab <= lab_count(); ++lab) {
    const std::vector<FailedChecks> failed = failures_of(dir, lab);
    if (failed.empty()) continue;
    // An unwritten stub says the same in every check; labs not started yet are listed once.
    const bool unwritten = std::all_of(failed.begin(), failed.end(),
                                       [](const FailedChecks& f) { return f.summary == "not implemented yet"; });
    if (unwritten) {
      not_written.push_back(lab);
      continue;
    }
    for (const FailedChecks& f : failed)
      text += "\nlab" + std::to_string(lab) + " " + f.checks + ": FAIL " + f.summary + "\n" + indent(f.message) + "\n";
  }
  if (!not_written.empty()) {
    std::string labs;
    for (int lab : not_written) labs += (labs.empty() ? "" : ", ") + std::to_string(lab);
    const LabInfo& first = lab_info(not_written.front());
    text += std::string("\nNot implemented yet: lab") + (not_written.size() > 1 ? "s " : " ") + labs +
            " (the kernel still runs REDUCE_LAB_TODO()). Write a lab's exercise region, between // BEGIN "
            "EXERCISE and // END EXERCISE in labs/NN_name.cu, and delete its REDUCE_LAB_TODO() line.\nNext: labs/" +
            first.stem + ".cu, with " + first.doc + ".\n";
  }
  return text;
}

bool print_table(const std::string& dir, const std::string& backend) {
  bool all_passed = false;
  std::printf("%s", failures_text(dir).c_str());
  const std::string text = table_text(dir, backend, &all_passed);
  std::printf("\n%s", text.c_str());
  if (text.find("(no results") == std::string::npos)
    std::printf("\nPASS: done. FAIL: its message above says what was measured, what was expected and which page to\n"
                "read. SKIP: cannot be graded on this machine (\"not graded\": the lab has no such check). Every\n"
                "test's whole output: ctest.log, beside report.json.\n");
  std::fflush(stdout);
  return all_passed;
}

}  // namespace reduce_lab::grader
