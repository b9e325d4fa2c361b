// The grader's entry point. CTest runs it once per test ("lab3 requests"), so a lab that
// crashes or hangs fails only its own test. Before Catch2 sees the arguments:
//   --needs-gpu        exit 77 (CTest: skipped) when no CUDA GPU can be used
//   --skip "reason"    exit 77 with the reason (speed on the emulator, say)
//   --needs-chromium   exit 77 when no headless Chromium can render the staircase's SVG
//                      (self-test builds only)
//   --sanitize         rerun this test under compute-sanitizer (memcheck, then racecheck)
//   --table DIR NAME   print the grade table of the results in DIR, write report.json (and the
//                      staircase, Gradescope's results.json) and exit; --calibrate, --bench and
//                      --probe-gpu (can the CUDA runtime use a GPU here?) too are commands
//                      (commands.hpp), not tests
//   --device-figures   measure the copy bandwidth and CUB for the staircase (results/device.json)
//   --dump-counts FILE every counter of every lab at its graded sizes, for the next option
//                      (self-test builds only, as --compare-counts and --broken)
//   --compare-counts GPU OWN   this backend's counts, dumped with the GPU's device shape,
//                      against the GPU's dump, line by line
//   --profile LAB N    run one pass (or the one launch) of LAB on N random floats, for a
//                      profiler such as Nsight Compute to measure, then the same pass counted
//                      (a "kit:" line: global sectors, shared wavefronts and conflicts);
//                      tools/ncu-shared-compare sets the two side by side
//   --profile-all LAB N   every pass of the timed build and nothing else: what the speed test
//                      has Nsight Compute measure (speed_gate.hpp)
//   --broken FILE BACKEND [--check NAME COUNT ARG...]...
//                      one case of the broken-lab suite against the expectations in its
//                      header, each check run as the lab's own test runs it (broken_suite.hpp)
//
// Everything but --skip, --broken and the commands runs in a child process that this one supervises: when
// the child ends without recording a verdict (a signal, the watchdog's or the emulator's
// exit, CTest's time limit coming near), the parent records one from how it ended, so the
// table says "crash: n = 2049" or "time limit: n = 5" rather than nothing. The parent never
// initialises CUDA: the GPU check happens in the child.
#if REDUCE_LAB_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "catch_compat.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "commands.hpp"
#include "counter_fields.hpp"
#include "device.hpp"
#include "faults.hpp"
#include "grade.hpp"
#include "inputs.hpp"
#include "lab_runner.hpp"
#include "report.hpp"
#if REDUCE_LAB_SELFTEST
#include "selftest.hpp"
#endif
#include "supervision.hpp"
#include "thread_order.hpp"

namespace {

constexpr int kSkipped = 77;

using namespace reduce_lab::grader;

// The graded test named in the arguments ("lab3 speedup"), if any, becomes the current test.
int find_current_test(const std::vector<char*>& args) {
  static const std::regex test_name("lab([1-9][0-9]*) (\\w+)");
  int lab = 0;
  for (char* arg : args) {
    std::cmatch match;
    // Any lab of grader/labs.json: a lab the pattern missed would crash without a verdict.
    if (std::regex_match(arg, match, test_name) && is_lab(std::stoi(match[1]))) {
      lab = std::stoi(match[1]);
      set_current_test(lab, match[2]);
    }
  }
  return lab;
}

// The kit's own suite's modes (the broken-lab runner, the count dump, the Chromium check) are
// compiled only into a self-test build: a student's grader carries no test machinery it never runs.
[[maybe_unused]] int not_in_this_build(const std::string& option) {
  std::printf("%s is part of the kit's own suite: configure with -DREDUCE_LAB_SELFTEST=ON (./lab test)\n",
              option.c_str());
  return 2;
}

int profile(int lab, std::size_t n, bool first_pass_only) {
  const LoadedLab loaded = load_lab(lab, Flavor::plain);
  if (!loaded) {
    std::printf("%s\n", loaded.problem.c_str());
    return 1;
  }
  // REDUCE_LAB_PROFILE_DTYPE=double (or int) profiles lab 7's instantiation for that type.
  reduce_lab::DType dtype = reduce_lab::DType::f32;
  if (const char* name = std::getenv("REDUCE_LAB_PROFILE_DTYPE"))
    for (reduce_lab::DType d : {reduce_lab::DType::f32, reduce_lab::DType::f64, reduce_lab::DType::i32})
      if (std::string(name) == dtype_name(d)) dtype = d;
  const auto input = make_input(Pattern::uniform, dtype, n);
  LabRunner runner(loaded.info, dtype, reduce_lab::Op::sum);
  const RunOutcome outcome = runner.reduce(input, first_pass_only);
  std::printf("lab %d, n = %zu: %s\n", lab, n, outcome.ran ? "ran" : outcome.error.c_str());
  if (!outcome.ran) return 1;
  if (!first_pass_only) return 0;  // the profiler measures the timed build alone
  // The kit's own figures for the same pass, from the counted build, after the profiled
  // launch (a profiler told to take the first launch of the kernel measures the plain one).
  const LoadedLab counted = load_lab(lab, Flavor::counted);
  if (!counted) return 0;
  LabRunner counting(counted.info, dtype, reduce_lab::Op::sum);
  const RunOutcome kit = counting.reduce(input, true);
  if (!kit.ran) return 0;
  std::printf("kit:%s\n", counts_profile_text(kit.counters).c_str());
  return 0;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of compute-sanitizer's report that say what and where, without its banner.
std::string report_excerpt(const std::string& report) {
  std::istringstream lines(report);
  std::string line, excerpt;
  int kept = 0;
  while (std::getline(lines, line) && kept < 12) {
    if (line.find("COMPUTE-SANITIZER") != std::string::npos || line.find("ERROR SUMMARY") != std::string::npos)
      continue;
    if (line.find_first_not_of("= ") == std::string::npos) continue;
    excerpt += "  " + line + "\n";
    ++kept;
  }
  return excerpt;
}

int run_under_sanitizer(int lab, const char* self, const std::vector<char*>& args) {
  const char* sanitizer = std::getenv("REDUCE_LAB_COMPUTE_SANITIZER");
  for (const char* tool : {"memcheck", "racecheck"}) {
    const char* folder = std::getenv("TMPDIR");
    const std::string log = std::string(folder && *folder ? folder : "/tmp") + "/reduce_lab_" + tool + "." +
                            std::to_string(getpid()) + ".log";
    // API errors are left to the test itself, which checks every CUDA call and names the
    // grader's own failures (the device out of memory, say) as such: memcheck would report
    // them too, and its report would read as the lab's out-of-bounds access.
    std::vector<const char*> argv = {sanitizer, "--tool", tool, "--report-api-errors", "no", "--error-exitcode", "3",
                                     "--log-file", log.c_str(), self};
    for (std::size_t i = 1; i < args.size(); ++i) argv.push_back(args[i]);
    argv.push_back(nullptr);
    std::printf("compute-sanitizer --tool %s ...\n", tool);
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test
      execv(sanitizer, const_cast<char* const*>(argv.data()));
      std::perror("could not start compute-sanitizer");
      std::_Exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    const std::string report = read_text(log);
    unlink(log.c_str());
    std::fputs(report.c_str(), stdout);
    std::fflush(stdout);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
      const bool race = std::string(tool) == "racecheck";
      const supervision::Snapshot last = supervision::read();
      Fault fault = classify_fault(report);
      if (race || fault.kind == FaultKind::failed) fault.kind = race ? FaultKind::none : FaultKind::out_of_bounds;
      // memcheck stops the lab at the faulting case, so the last case noted is that one;
      // racecheck lets every case run, so it cannot say which one raced.
      const std::string summary = race ? "race (racecheck)"
                                       : fault_summary(fault, last.has_case ? last.label : "memcheck");
      const std::string what =
          std::string("compute-sanitizer ") + tool + " found " +
          (race ? "a race: two threads used the same shared-memory word with no barrier between them"
                : std::string(fault_name(fault.kind)) + (last.has_case ? " at " + last.label : "")) +
          ". Its report:\n" + report_excerpt(report) + (lab ? "Replay: " + replay_command(lab) + "\n" : "") +
          "Revisit: " +
          (race ? "a __syncthreads() between writing shared memory and reading it, or __syncwarp() between the "
                  "steps of a warp-synchronous tail."
                : fault_hint(fault.kind)) +
          (lab ? std::string("\nRead: ") + lab_info(lab).doc : "");
      std::printf("\n%s\n", what.c_str());
      record_current(fail(summary, what));
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;  // the lab's own failure, reported above
  }
  return 0;
}

// What the child does: the test itself.
int run_test(int lab, bool needs_gpu, bool sanitize, const std::vector<std::string>& mode, std::vector<char*>& rest) {
  std::string why;
  if (needs_gpu && !gpu_present(&why)) {
    const std::string reason = "no usable NVIDIA GPU here (" + why + "); GPU tests run where there is one";
    std::printf("SKIPPED: %s\n", reason.c_str());
    record_current(skip("skipped", reason));
    return kSkipped;
  }
  if (!mode.empty()) {
#if REDUCE_LAB_SELFTEST
    if (mode[0] == "--compare-counts") return compare_counts(mode[1], mode[2]);
    if (mode[0] == "--dump-counts") return dump_counts(mode[1]) ? 0 : 1;
#else
    if (mode[0] == "--compare-counts" || mode[0] == "--dump-counts") return not_in_this_build(mode[0]);
#endif
    if (mode[0] == "--device-figures") return record_device_figures();
    return profile(std::atoi(mode[1].c_str()), std::strtoull(mode[2].c_str(), nullptr, 10), mode[0] == "--profile");
  }
  if (sanitize) return run_under_sanitizer(lab, rest[0], rest);
  Catch::Session session;
  if (lab == 0) return session.run(static_cast<int>(rest.size()), rest.data());
  // A lab test prints its verdict itself, once (grade()). Catch2's report of it (its banner,
  // and the message again, wrapped at 80 columns) goes to a file that is shown only when
  // Catch2 saw something else go wrong, such as an exception out of the test case.
  // The file is unlinked at once and reached through its descriptor, so a test that is killed
  // (CTest's time limit, a cancelled Slurm task) leaves nothing behind in TMPDIR.
  const char* folder = std::getenv("TMPDIR");
  std::string report = std::string(folder && *folder ? folder : "/tmp") + "/reduce_lab_catch.XXXXXX";
  const int report_fd = mkstemp(report.data());
  if (report_fd < 0) return session.run(static_cast<int>(rest.size()), rest.data());
  unlink(report.c_str());
  std::vector<char*> args = rest;
  std::string out_option = "--out", out_file = "/dev/fd/" + std::to_string(report_fd);
  args.insert(args.begin() + 1, {out_option.data(), out_file.data()});
  const int code = session.run(static_cast<int>(args.size()), args.data());
  if (code != 0 && !graded_failure()) {
    std::string text;
    char buffer[4096];
    ssize_t got;
    lseek(report_fd, 0, SEEK_SET);
    while ((got = read(report_fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(got));
    std::fputs(text.c_str(), stdout);
  }
  close(report_fd);
  return code;
}

// Keeps the last lines a child wrote to its stderr, passing everything on as it comes.
class Tail {
 public:
  void add(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] == '\n') {
        lines_.push_back(current_);
        current_.clear();
        if (lines_.size() > 20) lines_.pop_front();
      } else if (current_.size() < 400) {
        current_ += data[i];
      }
    }
  }
  std::string text() const {
    std::string all;
    for (const std::string& line : lines_) all += line + "\n";
    return all + current_;
  }

 private:
  std::deque<std::string> lines_;
  std::string current_;
};

// The verdict for a child that ended without one.
Verdict verdict_from_ending(int lab, int status, bool past_deadline, const supervision::Snapshot& last,
                            const std::string& tail) {
  const std::string where = last.has_case ? last.label : "before the first case";
  Fault fault = classify_fault(tail);
  std::string how;
  if (past_deadline) {
    fault.kind = FaultKind::time_limit;
    how = "it was still running as CTest's time limit for the test (REDUCE_LAB_TEST_TIMEOUT) came near, so it was stopped";
  } else if (WIFSIGNALED(status)) {
    if (fault.kind == FaultKind::none || fault.kind == FaultKind::failed || fault.kind == FaultKind::time_limit)
      fault.kind = FaultKind::crash;
    how = "it was killed by " + signal_text(WTERMSIG(status));
  } else if (WEXITSTATUS(status) == kTimeLimitExit) {
    fault.kind = FaultKind::time_limit;
    how = "it was stopped for running past a time limit (exit status 124)";
  } else {
    how = "it exited with status " + std::to_string(WEXITSTATUS(status)) + " before reporting a result";
  }
  std::string message = "The test process ended without a result: " + how + (last.has_case ? ", at " + where : "") + ".\n";
  if (!tail.empty()) message += "Its last output:\n" + report_excerpt(tail);
  if (lab != 0) message += "Replay: " + replay_command(lab) + "\n";
  if (const char* hint = fault_hint(fault.kind); *hint) message += std::string("Revisit: ") + hint + "\n";
  if (lab != 0) message += std::string("Read: ") + lab_info(lab).doc;
  if (fault.kind == FaultKind::none || fault.kind == FaultKind::failed)
    return fail("ended without a result", message);
  return fail(fault_summary(fault, where), message);
}

// Runs `test` in a child and waits for it; see the top of this file.
int supervise(int lab, const std::function<int()>& test) {
  // What the table shows if this process itself is killed (CTest's timeout) before either
  // process records anything better.
  record_current(fail("stopped without a result", "the test process was stopped before it could report a result "
                                                  "(CTest's time limit for the test, REDUCE_LAB_TEST_TIMEOUT?)"));
  // Without the shared page the parent could not tell a recorded verdict from none.
  if (!supervision::create()) return test();
  // Drawn here, so that the child inherits them and this process can print the replay command;
  // exported, so that a test compute-sanitizer starts anew draws the same ones.
  setenv("REDUCE_LAB_SEED", std::to_string(process_seed()).c_str(), 0);
  if (thread_order::available())
    setenv("REDUCE_LAB_EMU_SEED", thread_order::hex(thread_order::process_seed()).c_str(), 0);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return test();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) return test();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // CTest stopping the parent stops the test too
    close(pipe_fds[0]);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[1]);
    setenv("REDUCE_LAB_SUPERVISED", "1", 1);  // a test started by compute-sanitizer runs directly
    const int code = test();
    std::fflush(stdout);
    std::exit(code);
  }
  close(pipe_fds[1]);

  // CTest kills the whole test at its timeout; stop the child a little before, so the
  // verdict can still be recorded.
  using Clock = std::chrono::steady_clock;
  const char* limit_text = std::getenv("REDUCE_LAB_TEST_TIMEOUT");
  const double limit = limit_text ? std::atof(limit_text) : 0;
  const bool has_deadline = limit > 30;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>((limit - 15) * 1000));

  Tail tail;
  bool past_deadline = false, open = true;
  int status = 0;
  auto pass_on = [&](int fd) {
    char buffer[4096];
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got <= 0) return false;
    ssize_t ignored = write(STDERR_FILENO, buffer, static_cast<std::size_t>(got));
    (void)ignored;
    tail.add(buffer, static_cast<std::size_t>(got));
    return true;
  };
  for (;;) {
    if (open) {
      pollfd fd{pipe_fds[0], POLLIN, 0};
      // End of file: the child and everything it started have closed stderr.
      if (poll(&fd, 1, 200) > 0 && !pass_on(pipe_fds[0])) open = false;
    } else {
      usleep(100000);
    }
    const pid_t ended = waitpid(child, &status, WNOHANG);
    if (ended == child) break;
    if (has_deadline && !past_deadline && Clock::now() > deadline) {
      past_deadline = true;
      kill(child, SIGKILL);
    }
  }
  // What the child's own children still had to say.
  for (pollfd fd{pipe_fds[0], POLLIN, 0}; open && poll(&fd, 1, 100) > 0 && pass_on(pipe_fds[0]);) {
  }
  close(pipe_fds[0]);

  const supervision::Snapshot last = supervision::read();
  const bool clean = !past_deadline && WIFEXITED(status);
  const int code = clean ? WEXITSTATUS(status) : 1;
  if (last.verdict || (clean && (code == 0 || code == kSkipped))) return code;
  // A kit test (no graded lab) that exits on its own has said what failed: Catch2 reports it.
  if (lab == 0 && clean && code != kTimeLimitExit) return code;
  const Verdict verdict = verdict_from_ending(lab, status, past_deadline, last, tail.text());
  record_current(verdict);
  std::printf("\nFAILED: %s\n%s\n", verdict.summary.c_str(), verdict.message.c_str());
  std::fflush(stdout);
  return code == 0 ? 1 : code;
}

}  // namespace

int main(int argc, char** argv) {
  if (const int code = run_command(argc, argv); code >= 0) return code;
  std::vector<char*> rest = {argv[0]};
  bool needs_gpu = false, sanitize = false, needs_chromium = false;
  std::string skip_reason;
  std::vector<std::string> mode;  // a non-test mode and its arguments
  auto take = [&](int& i, int count) {
    for (int k = 0; k <= count; ++k) mode.push_back(argv[i + k]);
    i += count;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--needs-gpu") {
      needs_gpu = true;
    } else if (arg == "--needs-chromium") {
      needs_chromium = true;
    } else if (arg == "--sanitize") {
      sanitize = true;
    } else if (arg == "--skip" && i + 1 < argc) {
      skip_reason = argv[++i];
    } else if ((arg == "--compare-counts" || arg == "--profile" || arg == "--profile-all") && i + 2 < argc) {
      take(i, 2);
    } else if (arg == "--dump-counts" && i + 1 < argc) {
      take(i, 1);
    } else if (arg == "--broken") {
      take(i, argc - 1 - i);  // everything after it is the case's
    } else if (arg == "--device-figures") {
      take(i, 0);
    } else {
      rest.push_back(argv[i]);
    }
  }
  const int current_lab = find_current_test(rest);
#if REDUCE_LAB_SELFTEST
  if (needs_chromium && find_chromium().empty())
    skip_reason = "headless Chromium was not found (Debian and Ubuntu: apt-get install chromium; or set "
                  "REDUCE_LAB_CHROMIUM to a Chrome or Chromium binary), so the SVG pictures (staircase, ./lab show) were not rendered";
#else
  if (needs_chromium) return not_in_this_build("--needs-chromium");
#endif
  if (!skip_reason.empty()) {
    std::printf("SKIPPED: %s\n", skip_reason.c_str());
    record_current(skip("skipped", skip_reason));
    return kSkipped;
  }
  // The suite's runner starts each check as its own supervised test process.
  if (!mode.empty() && mode[0] == "--broken")
#if REDUCE_LAB_SELFTEST
    return broken::run_case(std::vector<std::string>(mode.begin() + 1, mode.end()));
#else
    return not_in_this_build(mode[0]);
#endif
  auto test = [&] { return run_test(current_lab, needs_gpu, sanitize, mode, rest); };
  if (const char* supervised = std::getenv("REDUCE_LAB_SUPERVISED"); supervised && *supervised) return test();
  return supervise(current_lab, test);
}
