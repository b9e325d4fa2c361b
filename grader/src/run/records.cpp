#include "run/records.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "base/files.hpp"
#include "base/inputs.hpp"
#include "run/modules.hpp"
#include "base/settings.hpp"
#include "run/supervision.hpp"
#include "base/thread_order.hpp"

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

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text;
}

// A record that cannot be written must not end the test that writes it: the supervisor and the
// table name a test without a record as such.
void write_file(const std::string& path, const std::string& text) {
  try {
    write_text(path, text);
  } catch (const std::exception&) {
  }
}

// "48 cases ok" -> "48 ok": both backends' counts must fit one cell.
std::string short_pass(const std::string& summary) {
  static const std::string tail = " cases ok";
  if (summary.size() <= tail.size() || summary.compare(summary.size() - tail.size(), tail.size(), tail) != 0)
    return summary;
  const std::string count = summary.substr(0, summary.size() - tail.size());
  const bool digits = count.find_first_not_of("0123456789") == std::string::npos;
  return digits ? count + " ok" : summary;
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

void record_beside(int lab, const std::string& test, const Verdict& verdict) {
  if (const std::string& dir = settings().results_dir; !dir.empty()) {
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    const std::string path = dir + "/lab" + std::to_string(lab) + "." + test;
    nlohmann::json figures = verdict.figures.is_object() ? verdict.figures : nlohmann::json::object();
    nlohmann::json thresholds = figures.contains("thresholds") ? figures["thresholds"] : nlohmann::json::object();
    figures.erase("thresholds");
    nlohmann::json detail = {{"lab", lab},
                             {"check", test},
                             {"backend", built_backend()},
                             {"sources", settings().source_folder},
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
    // The copy first: a verdict is never read beside the copy of an earlier one.
    if (const std::optional<std::string> judged = compiled_from(lab, Flavor::plain))
      write_file(path + ".source", *judged);
    else
      std::filesystem::remove(path + ".source", ignored);
    write_file(path + ".json", detail.dump(2) + "\n");
    write_file(path, std::string(status_word(verdict.status)) + "\n" + one_line(verdict.summary) + "\n" +
                         verdict.message + "\n");
  }
}

void record(int lab, const std::string& test, const Verdict& verdict) {
  record_beside(lab, test, verdict);
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

std::optional<std::string> recorded_source(const std::string& path) { return read_file(path + ".source"); }

void note_progress(const std::string& text) {
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  const CurrentTest& current = current_test();
  const std::string dir = settings().results_dir;
  if (current.lab == 0 || dir.empty()) return;
  std::error_code ignored;
  std::filesystem::create_directories(dir, ignored);
  write_file(dir + "/lab" + std::to_string(current.lab) + "." + current.test + ".note",
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
  return fail("stopped without a result", "the test process was stopped before it could report a result "
                                         "(CTest's time limit for the test, REDUCE_LAB_TEST_TIMEOUT?)");
}

}  // namespace reduce_lab::grader
