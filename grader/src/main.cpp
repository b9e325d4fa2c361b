// The grader's entry point. CTest runs it once per test ("lab3 requests"), so a lab that
// crashes or hangs fails only its own test. Before Catch2 sees the arguments:
//   --needs-gpu        exit 77 (CTest: skipped) when no CUDA GPU can be used
//   --skip "reason"    exit 77 with the reason (speed on the emulator, say)
//   --sanitize         rerun this test under compute-sanitizer (memcheck, then racecheck)
//   --table DIR NAME   print the grade table of the results in DIR and exit
//   --dump-counts FILE every counter of every lab at its graded sizes, for the next option
//   --compare-counts GPU OWN   this backend's counts, dumped with the GPU's device shape,
//                      against the GPU's dump, line by line
//   --profile LAB N    run one pass (or the one launch) of LAB on N random floats, for a
//                      profiler such as Nsight Compute to measure beside the kit's counters
//   --broken FILE BACKEND [--check NAME COUNT ARG...]...
//                      one case of the broken-lab suite against the expectations in its
//                      header, each check run as the lab's own test runs it (broken_suite.hpp)
#if REDUCE_LAB_CATCH2_MAJOR < 3
#define CATCH_CONFIG_RUNNER
#endif
#include "../tests/catch.hpp"

#include <unistd.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "../tests/broken_suite.hpp"
#include "../tests/count_dump.hpp"
#include "device.hpp"
#include "lab_runner.hpp"
#include "report.hpp"

namespace {

constexpr int kSkipped = 77;

using namespace reduce_lab::grader;

// Records `verdict` for the graded test named in the arguments ("lab3 speedup"), if any.
void record_for_test(const std::vector<char*>& args, const Verdict& verdict) {
  static const std::regex test_name("lab([1-7]) (\\w+)");
  for (char* arg : args) {
    std::cmatch match;
    if (std::regex_match(arg, match, test_name)) record(std::stoi(match[1]), match[2], verdict);
  }
}

int profile(int lab, std::size_t n) {
  const LoadedLab loaded = load_lab(lab, Flavor::plain);
  if (!loaded) {
    std::printf("%s\n", loaded.problem.c_str());
    return 1;
  }
  LabRunner runner(loaded.info, reduce_lab::DType::f32, reduce_lab::Op::sum, n);
  const RunOutcome outcome = runner.reduce(make_input(Pattern::uniform, reduce_lab::DType::f32, n), true);
  std::printf("lab %d, n = %zu: %s\n", lab, n, outcome.ran ? "ran" : outcome.error.c_str());
  return outcome.ran ? 0 : 1;
}

int run_under_sanitizer(const char* self, const std::vector<char*>& args) {
  const char* sanitizer = std::getenv("REDUCE_LAB_COMPUTE_SANITIZER");
  for (const char* tool : {"memcheck", "racecheck"}) {
    std::vector<const char*> argv = {sanitizer, "--tool", tool, "--error-exitcode", "3", self};
    for (std::size_t i = 1; i < args.size(); ++i) argv.push_back(args[i]);
    argv.push_back(nullptr);
    std::printf("compute-sanitizer --tool %s ...\n", tool);
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      execv(sanitizer, const_cast<char* const*>(argv.data()));
      std::perror("could not start compute-sanitizer");
      std::_Exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
      const std::string what = std::string("compute-sanitizer ") + tool + " found " +
                               (std::string(tool) == "racecheck"
                                    ? "a race: two threads used the same shared-memory word with no barrier between them"
                                    : "an access outside an allocation, or another memory error") +
                               " (its report is above, with the lab's line).";
      std::printf("\n%s\n", what.c_str());
      record_for_test(args, fail(std::string(tool) + " error", what));
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;  // the lab's own failure, reported above
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = {argv[0]};
  bool needs_gpu = false, sanitize = false;
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
    } else if (arg == "--sanitize") {
      sanitize = true;
    } else if (arg == "--skip" && i + 1 < argc) {
      skip_reason = argv[++i];
    } else if ((arg == "--compare-counts" || arg == "--profile" || arg == "--table") && i + 2 < argc) {
      take(i, 2);
    } else if (arg == "--dump-counts" && i + 1 < argc) {
      take(i, 1);
    } else if (arg == "--broken") {
      take(i, argc - 1 - i);  // everything after it is the case's
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!skip_reason.empty()) {
    std::printf("SKIPPED: %s\n", skip_reason.c_str());
    record_for_test(rest, skip("skipped", skip_reason));
    return kSkipped;
  }
  std::string why;
  if (needs_gpu && !gpu_present(&why)) {
    const std::string reason = "no usable NVIDIA GPU here (" + why + "); GPU tests run where there is one";
    std::printf("SKIPPED: %s\n", reason.c_str());
    record_for_test(rest, skip("skipped", reason));
    return kSkipped;
  }
  if (!mode.empty()) {
    if (mode[0] == "--compare-counts") return compare_counts(mode[1], mode[2]);
    if (mode[0] == "--dump-counts") return dump_counts(mode[1]) ? 0 : 1;
    if (mode[0] == "--broken") return broken::run_case(std::vector<std::string>(mode.begin() + 1, mode.end()));
    if (mode[0] == "--profile") return profile(std::atoi(mode[1].c_str()), std::strtoull(mode[2].c_str(), nullptr, 10));
    return print_table(mode[1], mode[2]) ? 0 : 1;
  }
  // Until the test reports, it counts as failed: a crash or a timeout must not read as "-".
  record_for_test(rest, unfinished_verdict());
  if (sanitize) return run_under_sanitizer(argv[0], rest);

  Catch::Session session;
  return session.run(static_cast<int>(rest.size()), rest.data());
}
