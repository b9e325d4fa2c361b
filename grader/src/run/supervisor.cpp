#include "run/supervisor.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <sstream>

#include "base/catalog.hpp"
#include "base/faults.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "run/limits.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"
#include "run/supervision.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader {

namespace {

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
    // A graded test's own limit sits inside CTest's; a picture's is the command's whole limit.
    const Limits bounds = limits();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f s", bounds.supervisor);
    how = bounds.test > bounds.supervisor
              ? std::string("it was still running as CTest's time limit for the test (REDUCE_LAB_TEST_TIMEOUT) ") +
                    "came near, so it was stopped"
              : std::string("it was still running at the command's time limit of ") + seconds +
                    " (REDUCE_LAB_TEST_TIMEOUT), so it was stopped";
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

}  // namespace

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

int supervise(int lab, const std::function<int()>& test) {
  // What the table shows if this process itself is killed (CTest's timeout) before either
  // process records anything better.
  record_current(unfinished_verdict());
  // Without the shared page the parent could not tell a recorded verdict from none.
  if (!supervision::create()) return test();
  // Drawn here, so that the child inherits them and this process can print the replay command;
  // exported, so that a test compute-sanitizer starts anew draws the same ones.
  set_environment("REDUCE_LAB_SEED", std::to_string(process_seed()));
  if (thread_order::available())
    set_environment("REDUCE_LAB_EMU_SEED", thread_order::hex(thread_order::process_seed()));
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
    set_environment("REDUCE_LAB_SUPERVISED", "1");  // a test started by compute-sanitizer runs directly
    const int code = test();
    std::fflush(stdout);
    std::exit(code);
  }
  close(pipe_fds[1]);

  // CTest kills the whole test at its budget; the child is stopped a little before, so the
  // verdict can still be recorded.
  using Clock = std::chrono::steady_clock;
  const double limit = limits().supervisor;
  const bool has_deadline = limit > 0;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(static_cast<long long>(limit * 1000));

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
  if (lab == 0 && clean && code != kTimeLimitExit && !last.stopped) return code;
  // The watchdog said why it stopped the lab: that is the verdict, unless the child was still
  // running at the deadline after all.
  const Verdict verdict = last.stopped && !past_deadline ? fail(last.stop_summary, last.stop_message)
                                                         : verdict_from_ending(lab, status, past_deadline, last, tail.text());
  record_current(verdict);
  std::printf("\nFAILED: %s\n%s\n", verdict.summary.c_str(), verdict.message.c_str());
  std::fflush(stdout);
  return code == 0 ? 1 : code;
}

}  // namespace reduce_lab::grader
