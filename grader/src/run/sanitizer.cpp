#include "run/sanitizer.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/catalog.hpp"
#include "base/faults.hpp"
#include "base/files.hpp"
#include "base/inputs.hpp"
#include "base/process_status.hpp"
#include "base/settings.hpp"
#include "run/records.hpp"
#include "run/supervision.hpp"
#include "run/supervisor.hpp"

namespace reduce_lab::grader {

namespace {

// `root` and every process it started, however deep, stopped at once. The sanitizer stays in
// the test's process group, so that a Ctrl-C at ./lab grade still reaches its target; its
// descendants are found by their parents in /proc instead, read once.
void kill_tree(pid_t root) {
  std::multimap<long, pid_t> children;  // by parent
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (const std::optional<ProcessStatus> status = process_status(pid)) children.emplace(status->parent, pid);
  }
  std::vector<pid_t> tree{root};
  for (std::size_t at = 0; at < tree.size(); ++at) {
    const auto [first, last] = children.equal_range(tree[at]);
    for (auto it = first; it != last; ++it) tree.push_back(it->second);
  }
  for (pid_t pid : tree) kill(pid, SIGKILL);
}

// Waits for compute-sanitizer `child` (its target is a process it starts) and returns its
// status. When the watchdog in the target has stopped the lab (a kernel that never ended), the
// target has ended itself; a sanitizer still running `end_grace` seconds later is stopped with
// everything it started. Otherwise a test whose lab hangs may wait for CTest's limit, with the
// hung kernel's process perhaps still holding the GPU: once on an H200, a races test of a lab
// whose loop never ends ran on until its supervisor stopped it, 25 s in, past its 6-s limit.
int wait_for_sanitizer(pid_t child, double end_grace, bool* stopped_after_stop) {
  using Clock = std::chrono::steady_clock;
  bool stop_seen = false;
  Clock::time_point seen_at;
  int status = 0;
  for (;;) {
    if (waitpid(child, &status, WNOHANG) == child) return status;
    if (!stop_seen && supervision::read().stopped) {
      stop_seen = true;
      seen_at = Clock::now();
    }
    if (stop_seen && std::chrono::duration<double>(Clock::now() - seen_at).count() > end_grace) {
      kill_tree(child);
      waitpid(child, &status, 0);
      *stopped_after_stop = true;
      return status;
    }
    usleep(50000);
  }
}

}  // namespace

int run_under_sanitizer(int lab, const char* self, const std::vector<char*>& args, double end_grace) {
  const std::string sanitizer_path = settings().compute_sanitizer;
  const char* sanitizer = sanitizer_path.c_str();
  for (const char* tool : {"memcheck", "racecheck"}) {
    const std::string log = settings().temp_dir + "/reduce_lab_" + tool + "." +
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
    bool stopped_after_stop = false;
    const int status = wait_for_sanitizer(child, end_grace, &stopped_after_stop);
    const std::string report = read_text(log);
    unlink(log.c_str());
    std::fputs(report.c_str(), stdout);
    if (stopped_after_stop)
      std::printf("compute-sanitizer had not ended %.0f s after the time limit stopped the lab, so it was stopped too.\n",
                  end_grace);
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

}  // namespace reduce_lab::grader
