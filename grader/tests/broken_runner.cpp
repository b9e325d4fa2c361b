// labgrader --broken: one broken-lab case against its expectations. Every check runs in a
// child process that is the lab's own CTest test (the same arguments, so the same Catch2
// test case, plan and check), pointed at the case's module folder. The child records its
// verdict as every graded test does (records.hpp); a child that crashes, hangs or is killed
// still leaves a verdict behind, so one broken lab never takes the runner down with it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include "broken_suite.hpp"
#include "checks/speed_gate.hpp"
#include "checks/timed_traffic.hpp"
#include "base/files.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"

namespace reduce_lab::grader::broken {

namespace {

std::string in_quotes(const std::string& text) { return "\"" + text + "\""; }

std::string describe(const Expectation& e) {
  std::string text = status_word(e.status);
  if (!e.summary.empty()) text += " " + in_quotes(e.summary);
  if (!e.message.empty()) text += " (message: " + in_quotes(e.message) + ")";
  return text;
}

std::string last_lines(const std::string& text, std::size_t count) {
  std::deque<std::string> kept;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    kept.push_back(line);
    if (kept.size() > count) kept.pop_front();
  }
  std::string tail;
  for (const std::string& l : kept) tail += "    " + l + "\n";
  return tail;
}

std::string indented(const std::string& text, std::size_t max_lines) {
  std::istringstream lines(text);
  std::string line, out;
  std::size_t shown = 0;
  while (std::getline(lines, line)) {
    if (shown++ == max_lines) {
      out += "    ...\n";
      break;
    }
    out += "    " + line + "\n";
  }
  return out;
}

// Seconds one check may take before the runner stops it: a backstop behind the grader's
// own watchdog, which stops a single call into a lab much sooner.
double check_limit_seconds() {
  const char* text = std::getenv("REDUCE_LAB_BROKEN_CHECK_TIMEOUT");
  return text && *text ? std::atof(text) : 540.0;
}

struct Ending {
  bool started = false;
  int status = 0;
  bool stopped_by_runner = false;
};

// Runs `arguments` as this executable in a child process, its output in `log_path`.
Ending run_child(const std::string& self, const std::vector<std::string>& arguments, const std::string& log_path) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(self.c_str()));
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  Ending ending;
  const pid_t child = fork();
  if (child < 0) return ending;
  if (child == 0) {
    setpgid(0, 0);  // its own group, so that stopping it also stops compute-sanitizer under it
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
      close(log);
    }
    execv(self.c_str(), argv.data());
    std::perror("could not start the grader");
    std::_Exit(127);
  }
  ending.started = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(check_limit_seconds());
  for (;;) {
    const pid_t done = waitpid(child, &ending.status, WNOHANG);
    if (done == child) break;
    if (done < 0) return ending;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-child, SIGKILL);
      kill(child, SIGKILL);
      waitpid(child, &ending.status, 0);
      ending.stopped_by_runner = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ending;
}

std::string how_it_ended(const Ending& ending) {
  if (!ending.started) return "the check's process could not be started";
  if (ending.stopped_by_runner)
    return "the check's process was stopped by the broken-lab runner after " +
           std::to_string(static_cast<int>(check_limit_seconds())) + " s";
  if (WIFSIGNALED(ending.status))
    return std::string("the check's process was killed by signal ") + std::to_string(WTERMSIG(ending.status)) + " (" +
           strsignal(WTERMSIG(ending.status)) + ")";
  return "the check's process exited with status " + std::to_string(WEXITSTATUS(ending.status));
}

// One check of lab `lab`, as the lab's own test runs it; the verdict it recorded, or (when
// it ended before recording one) that unfinished verdict with how it ended and its output.
Verdict run_check(const std::string& self, int lab, const std::string& check, const std::vector<std::string>& arguments,
                  const std::string& results_dir) {
  const std::string record_path = results_dir + "/lab" + std::to_string(lab) + "." + check;
  const std::string log_path = results_dir + "/" + check + ".log";
  std::remove(record_path.c_str());
  std::remove((record_path + ".json").c_str());  // read_result() reads this one first
  std::remove((record_path + ".source").c_str());
  const Ending ending = run_child(self, arguments, log_path);

  const std::optional<RecordedResult> recorded = read_result(record_path);
  const bool found = recorded.has_value();
  Verdict verdict = unfinished_verdict();
  if (found) {
    verdict.status = recorded->status == "PASS" ? Status::pass : recorded->status == "SKIP" ? Status::skip : Status::fail;
    verdict.summary = recorded->summary;
    verdict.message = recorded->message;
  }
  const bool unfinished = !found || verdict.summary == unfinished_verdict().summary || !ending.started ||
                          ending.stopped_by_runner || WIFSIGNALED(ending.status);
  if (unfinished) {
    bool have_log = false;
    const std::string log = read_text(log_path, &have_log);
    verdict.message += "\n" + how_it_ended(ending) + ". The last lines of its output:\n" + last_lines(log, 25);
  }
  return verdict;
}

// A check of lab `lab` run with the arguments of the case lab's check: the same flags, for another lab.
std::vector<std::string> arguments_for(std::vector<std::string> arguments, int case_lab, int lab,
                                       const std::string& check) {
  for (std::string& argument : arguments)
    if (argument == "lab" + std::to_string(case_lab) + " " + check)
      argument = "lab" + std::to_string(lab) + " " + check;
  return arguments;
}

// The reference solution's verdict of `check` of lab `lab`, as its own test recorded it in `from`,
// copied into `results` with the copy of the file it judged; false when it has none.
bool take_reference_verdict(const std::string& from, const std::string& results, int lab, const std::string& check) {
  const std::string name = "/lab" + std::to_string(lab) + "." + check;
  if (from.empty() || !read_result(from + name)) return false;
  std::error_code failed;
  for (const char* part : {"", ".json", ".source"})
    if (std::filesystem::exists(from + name + part))
      std::filesystem::copy_file(from + name + part, results + name + part,
                                 std::filesystem::copy_options::overwrite_existing, failed);
  return !failed;
}

}  // namespace

int run_case(const std::vector<std::string>& arguments) {
  const char* usage =
      "usage: labgrader --broken FILE gpu|emu [--part all|verdicts|traffic|speed] [--check NAME COUNT ARG...]...";
  if (arguments.size() < 2 || (arguments[1] != "gpu" && arguments[1] != "emu")) {
    std::printf("%s\n", usage);
    return 2;
  }
  const std::string& path = arguments[0];
  const std::string& backend = arguments[1];
  // A case the GPU times is three CTest tests: its verdicts (every check but the speed test, and
  // the verdicts the speed test reads), which run beside other tests; the comparison of its timed
  // build's traffic with its counted build's, which waits only for other Nsight Compute runs; and
  // then the speed test alone, which must have the GPU to itself and reads what both recorded.
  std::string part = "all";
  std::size_t first_check = 2;
  if (arguments.size() >= 4 && arguments[2] == "--part") {
    part = arguments[3];
    first_check = 4;
    if (part != "all" && part != "verdicts" && part != "traffic" && part != "speed") {
      std::printf("%s\n", usage);
      return 2;
    }
  }
  std::map<std::string, std::vector<std::string>> how_to_run;
  for (std::size_t i = first_check; i < arguments.size();) {
    if (arguments[i] != "--check" || i + 2 >= arguments.size()) {
      std::printf("%s\n", usage);
      return 2;
    }
    const std::size_t count = std::strtoul(arguments[i + 2].c_str(), nullptr, 10);
    if (i + 3 + count > arguments.size()) {
      std::printf("%s\n", usage);
      return 2;
    }
    how_to_run[arguments[i + 1]].assign(arguments.begin() + i + 3, arguments.begin() + i + 3 + count);
    i += 3 + count;
  }

  const std::string file = path.substr(path.find_last_of('/') + 1);
  const std::string stem = file.substr(0, file.rfind(".cu"));
  bool found = false;
  const std::string text = read_text(path, &found);
  if (!found) {
    std::printf("broken.%s %s: cannot read %s\n", stem.c_str(), backend.c_str(), path.c_str());
    return 1;
  }
  Case c;
  try {
    c = parse_case(path, text);
  } catch (const SpecError& e) {
    std::printf("broken.%s %s: the expectations do not parse:\n  %s\n", stem.c_str(), backend.c_str(), e.what());
    return 1;
  }
  const std::string title =
      "broken." + c.name + (part == "speed" ? ".speedup " : part == "traffic" ? ".traffic " : " ") + backend;
  std::vector<Expectation> expected = expectations_for(c, backend);
  std::vector<std::pair<int, std::string>> prerequisites = speed_prerequisites(c, backend);
  if (part != "all") {
    const bool speed = part == "speed";
    expected.erase(std::remove_if(expected.begin(), expected.end(),
                                  [&](const Expectation& e) { return (e.check == "speedup") != speed; }),
                   expected.end());
    if (part == "traffic") expected.clear();
    // The later parts read the verdicts the first part recorded in the same folder.
    if (part != "verdicts") prerequisites.clear();
  }
  // The comparison of the timed build's traffic with the counted build's (timed_traffic.hpp), as
  // a lab's own traffic test makes it, for a GPU case's speed test: in its own part, which CTest
  // runs one Nsight Compute at a time, or in a whole run.
  const std::vector<Expectation> here = expectations_for(c, backend);
  const bool measure_traffic = backend == "gpu" && (part == "traffic" || part == "all") &&
                               std::any_of(here.begin(), here.end(), [](const Expectation& e) { return e.check == "speedup"; });
  if (expected.empty() && prerequisites.empty() && !measure_traffic) {
    std::printf("SKIPPED: %s expects nothing of the %s backend%s\n", c.name.c_str(), backend.c_str(),
                part == "all" ? "" : (" in its " + part + " part").c_str());
    return 77;
  }
  for (const auto& [name, value] : c.environment) set_environment(name.c_str(), value);

  const std::string results = settings().results_dir;
  if (results.empty()) {
    std::printf("%s: REDUCE_LAB_RESULTS_DIR is not set (CTest sets it; see grader/tests/broken/CMakeLists.txt)\n",
                title.c_str());
    return 2;
  }
  // Every verdict in the folder is this run's: a speed test must never read one left by an
  // earlier run (of another version of the case, or of another kit). The later parts are the
  // exception: they run after the verdicts part (CTest's DEPENDS), and read its verdicts, which
  // the speed gate still ties to the case's file as it is now.
  std::error_code ignored;
  if (part == "verdicts" || part == "all") std::filesystem::remove_all(results, ignored);
  std::filesystem::create_directories(results, ignored);
  const std::string self = own_executable();
  if (self.empty()) {
    std::printf("%s: cannot find the grader's own executable\n", title.c_str());
    return 2;
  }

  // Each check of a lab runs once: first those the speed test reads, then the expected ones.
  // How long each check's process took is printed with its verdict: where a round's time goes.
  struct Ran {
    Verdict verdict;
    double seconds;
  };
  std::map<std::pair<int, std::string>, Ran> ran;
  auto verdict_of = [&](int lab, const std::string& check) {
    const auto key = std::make_pair(lab, check);
    if (auto done = ran.find(key); done != ran.end()) return done->second.verdict;
    Verdict got;
    const auto how = how_to_run.find(check);
    const auto start = std::chrono::steady_clock::now();
    if (how == how_to_run.end())
      got = fail("runner error", "the runner was not told how the lab's own " + check + " test runs (no --check " +
                                     check + " group)");
    else
      got = run_check(self, lab, check, arguments_for(how->second, c.lab, lab, check), results);
    ran[key] = {got, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
    return got;
  };
  auto seconds = [&](int lab, const std::string& check) {
    const auto found = ran.find(std::make_pair(lab, check));
    if (found == ran.end()) return std::string();
    char text[32];
    std::snprintf(text, sizeof text, " (%.1f s)", found->second.seconds);
    return std::string(text);
  };
  for (const auto& [lab, check] : prerequisites) {
    const bool reference = lab != c.lab;
    if (reference && take_reference_verdict(settings().baseline_results_dir, results, lab, check)) continue;
    const Verdict got = verdict_of(lab, check);
    std::printf("%s: lab%d.%s, which the GPU's speed test reads: %s %s%s\n", title.c_str(), lab, check.c_str(),
                status_word(got.status), in_quotes(got.summary).c_str(), seconds(lab, check).c_str());
  }
  // Measured only where the speed test will get as far as reading it: a case its verdicts or
  // its file already keep from being timed would spend ncu's seconds for nothing.
  std::string ignored_alone;
  if (measure_traffic && !build_dependent_code(c.lab) && !verdict_refusal(c.lab, backend, &ignored_alone)) {
    const std::string record = results + "/lab" + std::to_string(c.lab) + "." + kTimedTrafficRecord;
    run_child(self, {"--needs-gpu", "--timed-traffic", std::to_string(c.lab)}, results + "/timed_traffic.log");
    const std::optional<RecordedResult> traffic = read_result(record);
    std::printf("%s: lab%d's timed build against its counted build, which its speed test reads: %s %s\n",
                title.c_str(), c.lab, traffic ? traffic->status.c_str() : "MISSING",
                traffic ? in_quotes(traffic->summary).c_str() : "");
  } else if (part == "traffic") {
    std::printf("%s: not measured: the speed test refuses lab%d before it reads the comparison\n", title.c_str(),
                c.lab);
    // Counts profiled ahead for it (tests/traffic_batch.cpp) are not left for a later run.
    if (!settings().profiled_counts.empty()) std::filesystem::remove(settings().profiled_counts, ignored);
  }
  int differing = 0;
  for (const Expectation& e : expected) {
    const Verdict got = verdict_of(c.lab, e.check);
    std::string why;
    const bool as_expected = meets(e, got, &why);
    std::printf("%s %s: expected %s, got %s %s%s\n", title.c_str(), e.check.c_str(), describe(e).c_str(),
                status_word(got.status), in_quotes(got.summary).c_str(), seconds(c.lab, e.check).c_str());
    if (!as_expected) {
      ++differing;
      std::printf("  DIFFERS (%s:%d): %s. The full message:\n%s", file.c_str(), e.line, why.c_str(),
                  indented(got.message, 40).c_str());
    }
    std::fflush(stdout);
  }
  if (part == "traffic") return 0;  // what it measured is judged by the speed part's expectation
  if (expected.empty()) {
    std::printf("%s: expects nothing of this backend; ran only the verdicts the GPU's speed test reads\n",
                title.c_str());
    return 0;
  }
  if (differing) {
    std::printf("%s: %d of %zu checks differ from the expectations in %s\n", title.c_str(), differing, expected.size(),
                file.c_str());
    return 1;
  }
  std::printf("%s: all %zu checks as expected\n", title.c_str(), expected.size());
  return 0;
}

}  // namespace reduce_lab::grader::broken
