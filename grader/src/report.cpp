#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "catalog.hpp"
#include "supervision.hpp"

namespace reduce_lab::grader {

namespace {
const char* const kTests[] = {"correctness", "requests", "speedup", "races"};
// Widest a cell may grow before it is cut with "~".
const std::size_t kMaxColumns[] = {56, 40, 30, 26};

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text;
}

const char* status_word(Status status) {
  return status == Status::pass ? "PASS" : status == Status::skip ? "SKIP" : "FAIL";
}

std::optional<RecordedResult> read_result(const std::string& path) {
  std::ifstream in(path);
  RecordedResult result;
  if (!in || !std::getline(in, result.status)) return std::nullopt;
  std::getline(in, result.summary);
  return result;
}

// "48 cases ok" -> "48 ok": both backends' counts must fit one cell.
std::string short_pass(const std::string& summary) {
  static const std::regex cases("^([0-9]+) cases ok$");
  std::smatch match;
  return std::regex_match(summary, match, cases) ? match[1].str() + " ok" : summary;
}

struct CurrentTest {
  int lab = 0;
  std::string test;
};
CurrentTest& current_test() {
  static CurrentTest current;
  return current;
}

}  // namespace

void record(int lab, const std::string& test, const Verdict& verdict) {
  const char* dir = std::getenv("REDUCE_LAB_RESULTS_DIR");
  supervision::note_verdict();
  if (!dir || !*dir) return;
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  std::ofstream out(std::string(dir) + "/lab" + std::to_string(lab) + "." + test);
  out << status_word(verdict.status) << "\n" << one_line(verdict.summary) << "\n" << verdict.message << "\n";
}

void set_current_test(int lab, const std::string& test) { current_test() = {lab, test}; }

bool record_current(const Verdict& verdict) {
  const CurrentTest& current = current_test();
  if (current.lab == 0) return false;
  record(current.lab, current.test, verdict);
  return true;
}

RecordedResult table_cell(const RecordedResult* own, const RecordedResult* emu) {
  if (own == nullptr && emu == nullptr) return {"", "-"};
  if (emu == nullptr) return *own;
  if (own == nullptr) return {emu->status, "emu " + emu->summary};
  auto failed = [](const RecordedResult& r) { return r.status == "FAIL"; };
  auto passed = [](const RecordedResult& r) { return r.status == "PASS"; };
  RecordedResult cell;
  if (failed(*own) || failed(*emu))
    cell.status = "FAIL";
  else if (passed(*own) || passed(*emu))
    cell.status = "PASS";
  else
    cell.status = "SKIP";
  if (cell.status != "PASS" && own->status == emu->status && own->summary == emu->summary)
    return {cell.status, own->summary + " (gpu and emu)"};
  // A passing side of a failed cell says only "ok": the cell's room is for what failed.
  auto side = [&](const RecordedResult& r) {
    if (r.status == "SKIP") return std::string("skipped");
    if (passed(r)) return cell.status == "FAIL" ? std::string("ok") : short_pass(r.summary);
    return r.summary;
  };
  cell.summary = "gpu " + side(*own) + ", emu " + side(*emu);
  return cell;
}

Verdict unfinished_verdict() {
  return fail("crashed or stopped", "the test process ended before it reported a result");
}

bool print_table(const std::string& dir, const std::string& backend) {
  bool all_passed = true;
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  std::size_t widths[4];
  for (int t = 0; t < 4; ++t) widths[t] = std::string(kTests[t]).size();
  for (int lab = 1; lab <= kLabs; ++lab) {
    std::vector<std::string> cells(4);
    bool lab_seen = false;
    for (int t = 0; t < 4; ++t) {
      const std::string path = dir + "/lab" + std::to_string(lab) + "." + kTests[t];
      const auto own = read_result(path);
      const auto emu = read_result(path + ".emu");
      if (!own && !emu) {
        cells[t] = "-";
        continue;
      }
      lab_seen = true;
      const RecordedResult cell = table_cell(own ? &*own : nullptr, emu ? &*emu : nullptr);
      if (cell.status == "FAIL") all_passed = false;
      cells[t] = cell.status + " " + cell.summary;
      if (cells[t].size() > kMaxColumns[t]) cells[t] = cells[t].substr(0, kMaxColumns[t] - 1) + "~";
      widths[t] = std::max(widths[t], cells[t].size());
    }
    if (lab_seen) rows.emplace_back(lab, std::move(cells));
  }
  std::printf("\nreduction-labs grade (%s)\n", backend.c_str());
  auto print_row = [&](const std::string& title, const std::vector<std::string>& cells) {
    std::printf("%-17s", title.c_str());
    for (int t = 0; t < 3; ++t) std::printf(" %-*s", static_cast<int>(widths[t]), cells[t].c_str());
    std::printf(" %s\n", cells[3].c_str());
  };
  print_row("lab", {kTests[0], kTests[1], kTests[2], kTests[3]});
  for (const auto& [lab, cells] : rows) print_row(std::to_string(lab) + " " + lab_info(lab).name, cells);
  if (rows.empty()) {
    std::printf("(no results: no test ran)\n");
    return false;
  }
  std::printf("\nPASS: done. FAIL: the test's output (above, or ctest --output-on-failure) says what was measured,\n"
              "what was expected and which docs page to read. SKIP: cannot be graded on this machine.\n");
  return all_passed;
}

}  // namespace reduce_lab::grader
