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

#include <unistd.h>

#include "catalog.hpp"
#include "inputs.hpp"
#include "supervision.hpp"
#include "thread_order.hpp"

namespace reduce_lab::grader {

const char* status_word(Status status) {
  return status == Status::pass ? "PASS" : status == Status::skip ? "SKIP" : "FAIL";
}

const char* built_backend() {
#if defined(REDUCE_LAB_EMU)
  return "emu";
#else
  return "gpu";
#endif
}

namespace {
// Widest a cell may grow before it is cut with "~", per column in the manifest's order of checks.
const std::size_t kMaxColumns[] = {56, 40, 30, 26};
std::size_t max_column(std::size_t column) { return column < 4 ? kMaxColumns[column] : 26; }

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text;
}

std::string env_text(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// Replaces `path` in one step, so a reader (or a test killed half-way) never leaves half a file.
void write_file(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    out << text;
  }
  std::error_code ignored;
  std::filesystem::rename(temporary, path, ignored);
}

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
  if (const char* dir = std::getenv("REDUCE_LAB_RESULTS_DIR"); dir && *dir) {
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    const std::string path = std::string(dir) + "/lab" + std::to_string(lab) + "." + test;
    nlohmann::json figures = verdict.figures.is_object() ? verdict.figures : nlohmann::json::object();
    nlohmann::json thresholds = figures.contains("thresholds") ? figures["thresholds"] : nlohmann::json::object();
    figures.erase("thresholds");
    nlohmann::json detail = {{"lab", lab},
                             {"check", test},
                             {"backend", built_backend()},
                             {"sources", env_text("REDUCE_LAB_SOURCE_FOLDER", "labs")},
                             {"status", status_word(verdict.status)},
                             {"summary", one_line(verdict.summary)},
                             {"message", verdict.message},
                             {"figures", figures},
                             {"thresholds", thresholds}};
    // A skipped test drew no inputs: its seeds would replay nothing.
    if (verdict.status != Status::skip) {
      detail["seeds"] = {{"inputs", std::to_string(process_seed())}};
      if (thread_order::available()) detail["seeds"]["thread_order"] = thread_order::hex(thread_order::process_seed());
    }
    write_file(path + ".json", detail.dump(2) + "\n");
    write_file(path, std::string(status_word(verdict.status)) + "\n" + one_line(verdict.summary) + "\n" +
                         verdict.message + "\n");
  }
  supervision::note_verdict();
}

std::optional<RecordedResult> read_result(const std::string& path) {
  RecordedResult result;
  std::ifstream json_in(path + ".json");
  if (json_in) {
    nlohmann::json detail = nlohmann::json::parse(json_in, nullptr, false);
    if (detail.is_object() && detail.value("status", "") != "") {
      result.status = detail.value("status", "");
      result.summary = detail.value("summary", "");
      result.message = detail.value("message", "");
      result.detail = std::move(detail);
      return result;
    }
  }
  std::ifstream in(path);
  if (!in || !std::getline(in, result.status)) return std::nullopt;
  std::getline(in, result.summary);
  std::stringstream rest;
  rest << in.rdbuf();
  result.message = rest.str();
  while (!result.message.empty() && result.message.back() == '\n') result.message.pop_back();
  return result;
}

void note_progress(const std::string& text) {
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  const CurrentTest& current = current_test();
  const char* dir = std::getenv("REDUCE_LAB_RESULTS_DIR");
  if (current.lab == 0 || dir == nullptr || *dir == '\0') return;
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  write_file(std::string(dir) + "/lab" + std::to_string(current.lab) + "." + current.test + ".note",
             "lab" + std::to_string(current.lab) + "." + current.test + ": " + text + "\n");
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
    char first[64];
    std::snprintf(first, sizeof first, "%-17s", title.c_str());
    std::string line = first;
    // Every column padded to its width but the last, so no line ends in blanks.
    for (std::size_t t = 0; t + 1 < columns; ++t)
      line += " " + cells[t] + std::string(widths[t] - std::min(widths[t], cells[t].size()), ' ');
    text += line + " " + cells[columns - 1] + "\n";
  };
  add_row("lab", checks);
  for (const auto& [lab, cells] : rows) add_row(std::to_string(lab) + " " + lab_info(lab).name, cells);
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
                "read. SKIP: cannot be graded on this machine. Every test's whole output: ctest.log, beside report.json.\n");
  std::fflush(stdout);
  return all_passed;
}

}  // namespace reduce_lab::grader
