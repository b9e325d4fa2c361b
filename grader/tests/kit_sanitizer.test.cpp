// A races test's compute-sanitizer run ends when its target was stopped (run/sanitizer.hpp). No
// device: a stand-in sanitizer, and the watchdog's stop noted on the supervision page by hand.
// Each case runs in a child process of its own, which owns that page.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "catch_compat.hpp"
#include "base/files.hpp"
#include "base/process_status.hpp"
#include "base/settings.hpp"
#include "run/sanitizer.hpp"
#include "run/supervision.hpp"

using namespace reduce_lab::grader;

namespace {

struct Outcome {
  int returned = -1;  // run_under_sanitizer's result; -1: the child did not end in time
  double seconds = 0;
};

// run_under_sanitizer() with `script` as compute-sanitizer, in a child process with its own
// supervision page; the target's stop is noted `stop_after` seconds in (never when negative).
Outcome run_with(const std::string& script, double stop_after, double grace) {
  set_environment("REDUCE_LAB_COMPUTE_SANITIZER", script);
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    if (!supervision::create()) _exit(101);
    if (stop_after >= 0)
      std::thread([stop_after] {
        std::this_thread::sleep_for(std::chrono::duration<double>(stop_after));
        supervision::note_stop("time limit: n = 5", "stopped by the watchdog");
      }).detach();
    std::vector<char*> args = {const_cast<char*>("labgrader"), const_cast<char*>("lab3 races")};
    _exit(run_under_sanitizer(3, "/bin/true", args, grace));
  }
  set_environment("REDUCE_LAB_COMPUTE_SANITIZER", std::nullopt);
  Outcome outcome;
  int status = 0;
  for (int waited = 0; waited < 300; ++waited) {  // 30 s at most
    if (waitpid(child, &status, WNOHANG) == child) {
      outcome.returned = WIFEXITED(status) ? WEXITSTATUS(status) : -2;
      break;
    }
    usleep(100000);
  }
  if (outcome.returned == -1) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

// Whether the process whose number `pid_file` holds still runs (a zombie, stopped and not yet
// reaped by whoever inherited it, does not).
bool alive(const std::string& pid_file) {
  const std::string pid = read_text(pid_file);
  if (pid.empty()) return false;
  const std::optional<ProcessStatus> status = process_status(std::stoi(pid));
  return status && status->state != 'Z';
}

}  // namespace

TEST_CASE("kit harness a sanitizer run ends when its lab was stopped") {
  std::string pattern = settings().temp_dir + "/reduce_lab_sanitizer.XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  const std::string dir = pattern;
  auto script = [&](const std::string& name, const std::string& body) {
    const std::string path = dir + "/" + name;
    write_text(path, "#!/bin/bash\necho $$ > '" + dir + "/" + name + ".pid'\n" + body + "\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  };
  SECTION("a process's status is read: this one's runs, and its parent is its parent") {
    const std::optional<ProcessStatus> self = process_status(getpid());
    REQUIRE(self.has_value());
    CHECK(self->state == 'R');
    CHECK(self->parent == static_cast<long>(getppid()));
    CHECK(self->start_ticks > 0);
    const std::optional<double> age = process_age(getpid());
    REQUIRE(age.has_value());
    CHECK(*age >= 0);
    CHECK(*age < 24 * 3600);  // this test's own process, not the machine's boot
    CHECK_FALSE(process_status(-1).has_value());
    CHECK_FALSE(process_age(-1).has_value());
  }
  SECTION("a sanitizer that does not end after its target's stop is stopped, and its target with it") {
    // The target, the sanitizer's child, outlives it unless it is stopped too.
    const std::string hanging = script("hanging", "sleep 300 & echo $! > '" + dir + "/target.pid'\nwait");
    const Outcome outcome = run_with(hanging, 0.2, 1.0);
    CHECK(outcome.returned == 1);
    CHECK(outcome.seconds < 8);
    CHECK_FALSE(alive(dir + "/hanging.pid"));
    CHECK_FALSE(alive(dir + "/target.pid"));
  }
  SECTION("a sanitizer that ends after its target's stop is waited for") {
    const std::string ending = script("ending", "sleep 0.5\nexit 5");
    const Outcome outcome = run_with(ending, 0.1, 20.0);
    CHECK(outcome.returned == 1);
    CHECK(outcome.seconds < 10);
  }
  SECTION("without a stop, a sanitizer that runs long is not stopped") {
    const std::string slow = script("slow", "sleep 2\nexit 0");
    const Outcome outcome = run_with(slow, -1, 0.5);
    CHECK(outcome.returned == 0);  // both tools ran to their end
    CHECK(outcome.seconds > 3.5);
  }
  std::filesystem::remove_all(dir);
}
