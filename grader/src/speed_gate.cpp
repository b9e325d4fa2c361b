#include "speed_gate.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "build_tells.hpp"
#include "catalog.hpp"
#include "files.hpp"
#include "hardware_counts.hpp"
#include "kernel_trace.hpp"
#include "lab_runner.hpp"
#include "records.hpp"
#include "settings.hpp"

namespace reduce_lab::grader {

const char* const kOneKernelDoc = "docs/grading.md (One kernel for every build)";

namespace {

// Modification time in nanoseconds, or -1 when the file does not exist.
long long modified(const std::string& path) {
  struct stat about {};
  if (path.empty() || stat(path.c_str(), &about) != 0) return -1;
  return static_cast<long long>(about.st_mtim.tv_sec) * 1000000000LL + about.st_mtim.tv_nsec;
}

}  // namespace

std::optional<Refusal> recorded_failure(int lab) {
  const std::string source = lab_source_file(lab);
  const long long source_time = modified(source);
  struct Place {
    std::string path;
    const char* what;
  };
  const std::string own = settings().results_dir, emu = settings().emu_results_dir;
  const std::string stem = "/lab" + std::to_string(lab) + ".";
  const bool on_emulator = std::string(built_backend()) == "emu";
  std::vector<Place> places;
  if (!own.empty()) {
    places.push_back({own + stem + "correctness", on_emulator ? "correctness test on the CPU emulator" : "correctness test on the GPU"});
    places.push_back({own + stem + "races", "races test (compute-sanitizer)"});
    places.push_back({own + stem + "correctness.emu", "correctness test on the CPU emulator"});
  }
  if (!emu.empty()) places.push_back({emu + stem + "correctness", "correctness test on the CPU emulator"});
  for (const Place& place : places) {
    const long long recorded = modified(place.path);
    if (recorded < 0 || (source_time >= 0 && recorded < source_time)) continue;  // none, or of an older file
    const auto result = read_result(place.path);
    if (!result || result->status != "FAIL") continue;
    return Refusal{"not correct yet",
                   lab_title(lab) + "'s " + place.what + " failed: " + result->summary +
                       "\nThe speed test times only a lab that every check finds correct, on the GPU and on the CPU "
                       "emulator alike: the emulator is stricter about barriers and warp synchronisation than the "
                       "hardware, which runs a barrier in a divergent branch \"fine\". Fix what that test says first "
                       "(lab" + std::to_string(lab) + ".correctness in the table).\nRead: " + lab_info(lab).doc};
  }
  return std::nullopt;
}

std::optional<Refusal> build_dependent_code(int lab) {
  const std::string source = lab_source_file(lab);
  if (source.empty() || modified(source) < 0) return std::nullopt;  // nothing to read: the trace still compares
  const std::vector<BuildTell> tells = find_build_tells(read_text(source));
  if (tells.empty()) return std::nullopt;
  // The file as the student names it (labs/06_warp_unrolled.cu), from the kit's root.
  std::string shown = source;
  const std::string root = settings().source_root;
  if (!root.empty() && shown.rfind(root + "/", 0) == 0) shown = shown.substr(root.size() + 1);
  std::ostringstream message;
  message << lab_title(lab) << " names what differs between the kit's builds, so it could run other code when "
          << "timed than when counted and checked:\n";
  std::size_t listed = 0;
  for (const BuildTell& tell : tells) {
    if (listed++ == 5) {
      message << "  ... and " << tells.size() - 5 << " more\n";
      break;
    }
    message << "  " << shown << ":" << tell.line << ": " << tell.name << "   (" << tell.text << ")\n";
  }
  message << "The same lab file is compiled three ways (timed on the GPU, counted on the GPU, run on the CPU "
             "emulator); a grade rests on the code every build runs, so the speed of a file that can tell them "
             "apart is not graded. Remove those uses: the kit's build macros and its reduce_lab::detail and "
             "reduce_emu internals are not for lab code.\nRead: "
          << kOneKernelDoc;
  return Refusal{"build-dependent code: " + tells.front().name, message.str()};
}

std::optional<Refusal> timed_code_differs(int lab, const std::vector<KernelLaunch>& timed, const HostArray& input,
                                          std::string* note) {
  std::string why;
  if (!kernel_trace_available(&why)) {
    *note = "The timed build was not compared with the counted build: " + why + ".";
    return std::nullopt;
  }
  const LoadedLab counted = load_lab(lab, Flavor::counted);
  if (!counted)
    return Refusal{"counted build missing",
                   lab_title(lab) + "'s timed build compiles but its counted build does not load, so the code that "
                                    "would be timed was never counted:\n" +
                       counted.problem + "\nRead: " + kOneKernelDoc};
  RunOutcome outcome;
  const std::vector<KernelLaunch> seen = trace_kernels([&] {
    LabRunner runner(counted.info, DType::f32, Op::sum);
    outcome = runner.reduce(input);
  });
  if (!outcome.ran)
    return Refusal{"not correct yet", lab_title(lab) + "'s counted build failed at n = " + size_text(input.n) +
                                          ", where its timed build ran: " + outcome.error + "\nRead: " + kOneKernelDoc};
  if (timed != seen) {
    std::ostringstream message;
    message << lab_title(lab) << " runs other kernels in the timed build than in the counted build, at n = "
            << size_text(input.n) << " (the GPU's own record of every kernel each build launched):\n";
    std::size_t first = 0;
    while (first < timed.size() && first < seen.size() && timed[first] == seen[first]) ++first;
    auto list = [&](const char* what, const std::vector<KernelLaunch>& launches) {
      message << "  " << what << ": " << launches.size() << " launch" << (launches.size() == 1 ? "" : "es") << "\n";
      for (std::size_t i = first; i < launches.size() && i < first + 4; ++i)
        message << "    #" << i + 1 << " " << launches[i].text() << "\n";
      if (launches.size() > first + 4) message << "    ...\n";
    };
    list("counted (what the counters and the checks saw)", seen);
    list("timed", timed);
    message << "A grade rests only on code the counters saw: the same host code must launch the same kernels, with "
               "the same grid, in every build (no library call, other kernel or skipped pass in one of them).\nRead: "
            << kOneKernelDoc;
    return Refusal{"timed code differs from counted", message.str()};
  }
  const HardwareCounts hardware = timed_build_counts(lab, input.n);
  if (!hardware.measured) {
    *note = "The timed build launched the counted build's kernels; its traffic was not compared with the GPU's "
            "counters: " + hardware.why_not + ".";
    return std::nullopt;
  }
  const auto difference = traffic_difference(hardware, outcome.counters);
  if (!difference) {
    *note = "The timed build launched the counted build's kernels, and its global-memory traffic (Nsight Compute) "
            "equals the counted build's: " + std::to_string(hardware.sectors[0]) + " load sectors, " +
            std::to_string(hardware.instructions[0]) + " load instructions.";
    return std::nullopt;
  }
  return Refusal{"timed code differs from counted",
                 lab_title(lab) + "'s timed build moves other global-memory traffic than its counted build at n = " +
                     size_text(input.n) + " (" + *difference +
                     "; timed: the GPU's own counters, read by Nsight Compute; counted: the kit's counters).\n"
                     "The same kernels ran, so their bodies must differ between the builds: a grade rests only on "
                     "code the counters saw.\nRead: " + kOneKernelDoc};
}

}  // namespace reduce_lab::grader
