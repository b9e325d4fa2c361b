// The grader's entry point. CTest runs it once per test ("lab3 requests"), so a lab that
// crashes or hangs fails only its own test. Before Catch2 sees the arguments:
//   --needs-gpu        exit 77 (CTest: skipped) when no CUDA GPU can be used
//   --skip "reason"    exit 77 with the reason (speed on the emulator, say)
//   --needs-chromium   exit 77 when no headless Chromium can render the staircase's SVG
//                      (self-test builds only)
//   --sanitize         rerun this test under compute-sanitizer (memcheck, then racecheck)
//   --table DIR NAME   print the grade table of the results in DIR, write report.json (and the
//                      staircase, Gradescope's results.json) and exit (--labs, --handed-in,
//                      --quiet and the rest: commands.hpp); --check-points [FILE] (a points
//                      file's totals), --kit-version and --probe-gpu (can the CUDA runtime use a
//                      GPU here?) too are commands (commands.hpp), not tests; --show, --bench and
//                      --calibrate are labtools' (tool_commands.hpp; in self-test builds, here too)
//   --device-figures   measure the copy bandwidth and CUB for the staircase (results/device.json)
//   --dump-counts FILE every counter of every lab at its graded sizes, for the next option
//                      (self-test builds only, as --compare-counts and --broken)
//   --compare-counts GPU OWN   this backend's counts, dumped with the GPU's device shape,
//                      against the GPU's dump, line by line
//   --profile LAB N    run one pass (or the one launch) of LAB on N random floats, for a
//                      profiler such as Nsight Compute to measure, then the same pass counted
//                      (a "kit:" line: global sectors, shared wavefronts and conflicts);
//                      tools/ncu-shared-compare sets the two side by side
//   --profile-all LAB N   every pass of the timed build and nothing else: what Nsight Compute
//                      measures for the speed test (timed_traffic.hpp); a row lab's N may be a
//                      matrix, ROWSxCOLUMNS
//   --timed-traffic LAB   that measurement, recorded for the speed test to read: the GPU
//                      tree's labN.traffic test, and the broken-lab runner's traffic part
//                      (timed_traffic.hpp)
//   --traffic-batch MANIFEST   the timed builds of the manifest's labs and broken-lab cases, all
//                      profiled in one ncu run ahead of their traffic tests (self-test builds
//                      only; tests/traffic_batch.cpp); --profile-batch LIST is that run's
//                      profiled process
//   --broken FILE BACKEND [--part all|verdicts|traffic|speed] [--check NAME COUNT ARG...]...
//                      one case of the broken-lab suite against the expectations in its
//                      header, each check run as the lab's own test runs it (broken_suite.hpp);
//                      --part: all but the speed test, the timed build's traffic against the
//                      counted build's, or the speed test alone on what the first two recorded
//                      (a case the GPU times is three CTest tests)
//
// Everything but --skip, --broken and the commands runs in a child process that this one
// supervises (supervisor.hpp): a test that ends without a verdict still gets one that names how
// it ended. The parent never initialises CUDA: the GPU check happens in the child.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "base/catalog.hpp"
#include "catch_runner.hpp"
#include "commands.hpp"
#include "checks/counter_fields.hpp"
#include "run/device.hpp"
#include "base/faults.hpp"
#include "base/files.hpp"
#include "grade.hpp"
#include "base/inputs.hpp"
#include "run/lab_runner.hpp"
#include "run/limits.hpp"
#include "checks/profiler_names.hpp"
#include "measure/profile_part.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"
#if REDUCE_LAB_SELFTEST
#include "selftest.hpp"
#endif
#include "run/sanitizer.hpp"
#include "run/supervision.hpp"
#include "run/supervisor.hpp"
#include "checks/timed_traffic.hpp"

namespace {

using namespace reduce_lab::grader;

// The graded test named in the arguments ("lab3 speedup"), if any, becomes the current test.
struct CurrentTest {
  int lab = 0;        // 0: none
  std::string check;  // "speedup", ...
};

CurrentTest find_current_test(const std::vector<char*>& args) {
  CurrentTest current;
  for (char* arg : args) {
    // Any lab of grader/labs.json: a lab the test's name missed would crash without a verdict.
    const std::string_view name(arg);
    const auto space = name.find(' ');
    if (space == std::string_view::npos) continue;
    const int number = lab_key_number(name.substr(0, space));
    const std::string_view test = name.substr(space + 1);
    const bool word = !test.empty() && std::all_of(test.begin(), test.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (number && word) {
      current = {number, std::string(test)};
      set_current_test(current.lab, current.check);
    }
  }
  return current;
}

// The kit's own suite's modes (the broken-lab runner, the count dump, the Chromium check) are
// compiled only into a self-test build: a student's grader carries no test machinery it never runs.
[[maybe_unused]] int not_in_this_build(const std::string& option) {
  std::printf("%s is part of the kit's own suite: configure with -DREDUCE_LAB_SELFTEST=ON (./lab test)\n",
              option.c_str());
  return 2;
}

// labN.traffic: the comparison recorded, and printed as a test prints its verdict. A failed
// comparison fails the test too; the lab's speed test names it when it refuses to time the lab.
int report_timed_traffic(int lab) {
  const std::optional<Verdict> verdict = record_timed_traffic(lab);
  if (!verdict) {
    std::printf("SKIPPED: this build does not time lab %d, so nothing reads the comparison\n", lab);
    return kSkipped;
  }
  print_verdict(lab, kTimedTrafficRecord, *verdict);
  return verdict->status == Status::fail ? 1 : 0;
}

int profile(int lab, Shape shape, bool first_pass_only) {
  const LoadedLab loaded = load_lab(lab, Flavor::plain);
  if (!loaded) {
    std::printf("%s\n", loaded.problem.c_str());
    return 1;
  }
  // REDUCE_LAB_PROFILE_DTYPE=double (or int) profiles lab 7's instantiation for that type.
  reduce_lab::DType dtype = reduce_lab::DType::f32;
  for (reduce_lab::DType d : {reduce_lab::DType::f32, reduce_lab::DType::f64, reduce_lab::DType::i32})
    if (settings().profile_dtype == dtype_name(d)) dtype = d;
  const auto input = make_matrix(Pattern::uniform, dtype, shape);
  LabRunner runner(loaded.info, dtype, reduce_lab::Op::sum);
  RunOutcome outcome;
  {
    const ProfilePart part(0);  // what ncu profiles of this run (measure/profile_part.hpp)
    outcome = runner.reduce(input, first_pass_only);
  }
  const std::string size = shape.rows > 1 ? shape_text(shape) : "n = " + std::to_string(shape.columns);
  std::printf("lab %d, %s: %s\n", lab, size.c_str(), outcome.ran ? "ran" : outcome.error.c_str());
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
  std::fputs(profiler_names_text(kit.counters, kit.launches.warps).c_str(), stdout);
  return 0;
}

// Whether the test or mode times nothing on the GPU: a graded check other than the speed test, or
// one of Nsight Compute's runs (which count, and take no time).
bool untimed(const std::vector<std::string>& mode, const CurrentTest& current) {
  if (!mode.empty())
    return mode[0] == "--timed-traffic" || mode[0] == "--traffic-batch" || mode[0] == "--profile-batch" ||
           mode[0] == "--profile" || mode[0] == "--profile-all" || mode[0] == "--compare-counts" ||
           mode[0] == "--dump-counts";
  return current.lab != 0 && untimed_check(current.check);
}

// What the child does: the test itself.
int run_test(const CurrentTest& current, bool needs_gpu, bool sanitize, const std::vector<std::string>& mode,
             std::vector<char*>& rest) {
  const int lab = current.lab;
  // Every emulated launch of the test stops at the limit derived from its budget. Here, in the
  // child: the emulator reads its seed when first used, which must be after the parent exported it.
  apply_emulator_limit();
  if (needs_gpu && untimed(mode, current)) untimed_contexts();  // before any CUDA call (compute-sanitizer's child inherits it)
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
    if (mode[0] == "--traffic-batch") return traffic_batch::run(mode[1]);
    if (mode[0] == "--profile-batch") return traffic_batch::profile(mode[1]);
#else
    if (mode[0] == "--compare-counts" || mode[0] == "--dump-counts" || mode[0] == "--traffic-batch" ||
        mode[0] == "--profile-batch")
      return not_in_this_build(mode[0]);
#endif
    if (mode[0] == "--device-figures") return record_device_figures();
    if (mode[0] == "--timed-traffic") return report_timed_traffic(std::atoi(mode[1].c_str()));
    return profile(std::atoi(mode[1].c_str()), parse_profile_size(mode[2]), mode[0] == "--profile");
  }
  if (sanitize) return run_under_sanitizer(lab, rest[0], rest);
  if (lab == 0) return run_catch_session(static_cast<int>(rest.size()), rest.data());
  // A lab test prints its verdict itself, once (grade()). Catch2's report of it (its banner,
  // and the message again, wrapped at 80 columns) goes to a file that is shown only when
  // Catch2 saw something else go wrong, such as an exception out of the test case.
  // The file is unlinked at once and reached through its descriptor, so a test that is killed
  // (CTest's time limit, a cancelled Slurm task) leaves nothing behind in TMPDIR.
  std::string report = settings().temp_dir + "/reduce_lab_catch.XXXXXX";
  const int report_fd = mkstemp(report.data());
  if (report_fd < 0) return run_catch_session(static_cast<int>(rest.size()), rest.data());
  unlink(report.c_str());
  std::vector<char*> args = rest;
  std::string out_option = "--out", out_file = "/dev/fd/" + std::to_string(report_fd);
  args.insert(args.begin() + 1, {out_option.data(), out_file.data()});
  const int code = run_catch_session(static_cast<int>(args.size()), args.data());
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
    } else if ((arg == "--dump-counts" || arg == "--timed-traffic" || arg == "--traffic-batch" ||
                arg == "--profile-batch") && i + 1 < argc) {
      take(i, 1);
    } else if (arg == "--broken") {
      take(i, argc - 1 - i);  // everything after it is the case's
    } else if (arg == "--device-figures") {
      take(i, 0);
    } else {
      rest.push_back(argv[i]);
    }
  }
  const CurrentTest current = find_current_test(rest);
  const int current_lab = current.lab;
#if REDUCE_LAB_SELFTEST
  if (needs_chromium && find_chromium().empty())
    skip_reason = "headless Chromium was not found (Debian and Ubuntu: apt-get install chromium; or set "
                  "REDUCE_LAB_CHROMIUM to a Chrome or Chromium binary), so the SVG pictures (staircase, ./lab show) were not rendered";
#else
  if (needs_chromium) return not_in_this_build("--needs-chromium");
#endif
  if (!skip_reason.empty()) {
    std::printf("SKIPPED: %s\n", skip_reason.c_str());
    // A check the lab does not have (lab 12's requests) reads so in the table, not as a skip of this machine's.
    bool not_graded = false;
    if (current_lab != 0)
      for (const auto& [check, reason] : lab_info(current_lab).not_graded) not_graded = not_graded || reason == skip_reason;
    record_current(skip(not_graded ? "not graded" : "skipped", skip_reason));
    return kSkipped;
  }
  // The suite's runner starts each check as its own supervised test process.
  if (!mode.empty() && mode[0] == "--broken")
#if REDUCE_LAB_SELFTEST
    return broken::run_case(std::vector<std::string>(mode.begin() + 1, mode.end()));
#else
    return not_in_this_build(mode[0]);
#endif
  auto test = [&] { return run_test(current, needs_gpu, sanitize, mode, rest); };
  if (settings().supervised) return test();
  return supervise(current_lab, test);
}
