#include "checks/speed_gate.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/build_tells.hpp"
#include "base/catalog.hpp"
#include "base/files.hpp"
#include "measure/kernel_trace.hpp"
#include "measure/phase_times.hpp"
#include "run/lab_runner.hpp"
#include "run/records.hpp"
#include "base/settings.hpp"
#include "checks/timed_traffic.hpp"

namespace reduce_lab::grader {

const char* const kOneKernelDoc = "docs/grading.md (One kernel for every build)";

const char* const kVerdictsDoc = "docs/grading.md (Only a correct lab is timed)";

namespace {

// The lab file as the student names it (labs/06_warp_unrolled.cu), from the kit's root.
std::string shown_file(const std::string& source) {
  const std::string root = settings().source_root;
  if (!root.empty() && source.rfind(root + "/", 0) == 0) return source.substr(root.size() + 1);
  return source;
}

// One verdict the speed test rests on, and the places it may have been recorded.
struct Needed {
  std::string test;                // "lab3.correctness", as the table names it
  std::string what;                // "correctness test on the GPU"
  std::vector<std::string> paths;  // the first that holds a record is the verdict
  bool skip_is_enough = false;     // races: not run on this backend, or no compute-sanitizer
  bool emulator = false;           // the CPU emulator's, in a GPU grade
};

std::vector<Needed> needed_verdicts(int lab, const std::string& backend) {
  const std::string own = settings().results_dir + "/lab" + std::to_string(lab) + ".";
  const std::string test = "lab" + std::to_string(lab) + ".";
  const bool on_emulator = backend == "emu";
  // Both backends' correctness before races: a failure message names the likelier cause first.
  std::vector<Needed> needed = {
      {test + "correctness", on_emulator ? "correctness test on the CPU emulator" : "correctness test on the GPU",
       {own + "correctness"}, false, false}};
  if (!on_emulator) {
    Needed emulator{test + "correctness", "correctness test on the CPU emulator", {}, false, true};
    if (!settings().emu_results_dir.empty())
      emulator.paths.push_back(settings().emu_results_dir + "/lab" + std::to_string(lab) + ".correctness");
    emulator.paths.push_back(own + "correctness.emu");  // the emulator's verdict copied into a GPU grade
    needed.push_back(emulator);
  }
  needed.push_back({test + "races", "races test (compute-sanitizer)", {own + "races"}, true, false});
  return needed;
}

std::string places_text(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) text += (text.empty() ? "" : " or ") + path;
  return text;
}

}  // namespace

std::optional<Refusal> verdict_refusal(int lab, const std::string& backend, std::string* gpu_alone) {
  const std::string number = std::to_string(lab);
  const std::string grade_again = "./lab grade " + number;
  const std::string source = lab_source_file(lab);
  const std::string shown = source.empty() ? lab_title(lab) + "'s file" : shown_file(source);
  const std::optional<std::string> timed = compiled_from(lab, Flavor::plain);
  if (!timed)
    return Refusal{"no verdict yet",
                   lab_title(lab) + "'s timed build keeps no copy of the file it was compiled from (" +
                       settings().module_dir + "/" + module_file_stem(lab, Flavor::plain) +
                       ".source.cu), so no verdict can be tied to the code that would be timed. Build and grade it "
                       "again: " + grade_again + ".\nRead: " + kVerdictsDoc};
  bool file_found = false;
  const std::string now = source.empty() ? std::string() : read_text(source, &file_found);
  if (!file_found || now != *timed)
    return Refusal{"file changed since its build",
                   shown + (file_found ? " changed after" : " is gone since") +
                       " the build the speed test would time, so neither that build nor its verdicts are of the "
                       "file as it is now. Grade it again (" + grade_again +
                       "): the build and every check then see the same file.\nRead: " + kVerdictsDoc};

  const bool emulator_required = settings().emu_required;
  std::vector<std::string> missing, other_version, failed;
  std::string failed_tests;
  for (const Needed& needed : needed_verdicts(lab, backend)) {
    std::optional<RecordedResult> result;
    std::string path;
    for (const std::string& place : needed.paths)
      if ((result = read_result(place))) {
        path = place;
        break;
      }
    const std::string named = "  " + needed.test + " (" + needed.what + "): ";
    if (!result) {
      if (needed.emulator && !emulator_required) {
        if (gpu_alone)
          *gpu_alone = "the CPU emulator's correctness was not run" +
                       (settings().emu_not_run.empty() ? std::string() : ", " + settings().emu_not_run);
        continue;
      }
      missing.push_back(named + "not found in " + places_text(needed.paths));
      continue;
    }
    if (recorded_source(path) != timed) {
      other_version.push_back(named + path);
      continue;
    }
    if (result->status == "FAIL") {
      failed.push_back(lab_title(lab) + "'s " + needed.what + " failed: " + result->summary);
      failed_tests += (failed_tests.empty() ? "" : ", ") + needed.test;
    } else if (result->status != "PASS" && !(result->status == "SKIP" && needed.skip_is_enough)) {
      missing.push_back(named + "skipped (" + result->summary + "), so it judged nothing: " + path);
    }
  }
  if (!failed.empty()) {
    std::string list;
    for (const std::string& line : failed) list += line + "\n";
    return Refusal{"not correct yet",
                   list + "The speed test times only a lab that every check finds correct, on the GPU and on the CPU "
                          "emulator alike: the emulator is stricter about barriers and warp synchronisation than the "
                          "hardware, which runs a barrier in a divergent branch \"fine\". Fix what " +
                       (failed.size() == 1 ? "that test says" : "those tests say") + " first (" + failed_tests +
                       " in the table).\nRead: " + lab_info(lab).doc};
  }
  if (!missing.empty()) {
    std::string list;
    for (const std::string& line : missing) list += line + "\n";
    return Refusal{"no verdict yet",
                   lab_title(lab) + " is timed only once this grade's checks have found " + shown +
                       " correct, and these verdicts are missing:\n" + list +
                       "A grade runs them before the speed test" +
                       (emulator_required && backend != "emu"
                            ? std::string(" (on a GPU machine the CPU emulator's correctness first: the emulator can "
                                          "be built here, so its verdict is required)")
                            : std::string()) +
                       ". Grade the lab as a whole: " + grade_again + ".\nRead: " + kVerdictsDoc};
  }
  if (!other_version.empty()) {
    std::string list;
    for (const std::string& line : other_version) list += line + "\n";
    return Refusal{"verdict of another version",
                   lab_title(lab) + "'s verdicts below judged another version of " + shown +
                       " than the one its timed build was compiled from (each verdict keeps a copy of the file it "
                       "judged, compared byte for byte), so they say nothing of the code that would be timed:\n" +
                       list + "They are left from an earlier build or grade. Grade the lab again (" + grade_again +
                       "), which runs every check on the file as it is now.\nRead: " + kVerdictsDoc};
  }
  return std::nullopt;
}

std::optional<Refusal> build_dependent_code(int lab) {
  const std::string source = lab_source_file(lab);
  bool found = false;
  const std::string text = source.empty() ? std::string() : read_text(source, &found);
  if (!found) return std::nullopt;  // nothing to read: the trace still compares
  const std::vector<BuildTell> tells = find_build_tells(text);
  if (tells.empty()) return std::nullopt;
  const std::string shown = shown_file(source);
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
                                          std::string* note, unsigned variant) {
  // Where both builds ran: "n = 2^26", or a row lab's matrix, "9586980 x 7".
  const std::string where = timed_input_text({input.rows, input.n / input.rows});
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
  std::vector<KernelLaunch> seen;
  {
    const Phase phase("counted run");
    seen = trace_kernels([&] {
      LabRunner runner(counted.info, DType::f32, Op::sum, Flavor::counted, variant);
      outcome = runner.reduce(input);
    });
  }
  if (!outcome.ran)
    return Refusal{"not correct yet", lab_title(lab) + "'s counted build failed at " + where +
                                          ", where its timed build ran: " + outcome.error + "\nRead: " + kOneKernelDoc};
  if (timed != seen) {
    std::ostringstream message;
    message << lab_title(lab) << " runs other kernels in the timed build than in the counted build, at " << where
            << " (the GPU's own record of every kernel each build launched):\n";
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
  *note = "The timed build launched the counted build's kernels at " + where + ".";
  return std::nullopt;
}

std::optional<Refusal> timed_traffic_refusal(int lab, bool emulator_judged, std::string* note) {
  // Where no kernel could be traced (the emulator; no CUPTI) nothing was compared, which the
  // kernels' note already says.
  std::string why;
  if (!kernel_trace_available(&why)) return std::nullopt;
  return recorded_traffic_refusal(lab, emulator_judged, note);
}

std::optional<Refusal> recorded_traffic_refusal(int lab, bool emulator_judged, std::string* note) {
  const std::string number = std::to_string(lab);
  const std::string path = settings().results_dir + "/lab" + number + "." + kTimedTrafficRecord;
  const std::string measured_by = "lab" + number + ".traffic (Nsight Compute's comparison of the timed build's "
                                  "global-memory traffic with the counted build's)";
  const std::optional<RecordedResult> result = read_result(path);
  if (!result)
    return Refusal{"no verdict yet",
                   lab_title(lab) + " is timed only once its timed build's traffic has been compared with its counted "
                                    "build's, and that comparison is missing:\n  " + measured_by + ": not found in " +
                       path + "\nA grade runs it before the speed test. Grade the lab as a whole: ./lab grade " + number +
                       ".\nRead: " + kVerdictsDoc};
  if (recorded_source(path) != compiled_from(lab, Flavor::plain))
    return Refusal{"verdict of another version",
                   lab_title(lab) + "'s comparison of its timed build's traffic with its counted build's judged another "
                                    "version of the file than the one its timed build was compiled from:\n  " +
                       measured_by + ": " + path + "\nIt is left from an earlier build or grade. Grade the lab again "
                       "(./lab grade " + number + "), which runs every check on the file as it is now.\nRead: " +
                       kVerdictsDoc};
  const std::string outcome = result->detail.is_object() && result->detail.contains("figures")
                                  ? result->detail["figures"].value("outcome", "")
                                  : std::string();
  if (result->status != "FAIL") {
    *note += (note->empty() ? "" : " ") + result->message;
    return std::nullopt;
  }
  if (outcome == "counted_failed")
    return Refusal{"not correct yet", result->message + "\nRead: " + kOneKernelDoc};
  if (outcome != "differs")
    return Refusal{"timed traffic not measured", result->message + "\nRead: " + kOneKernelDoc};
  const std::string measured = result->message + "\n";
  const std::string source = lab_source_file(lab);
  bool found = false;
  const std::string text = source.empty() ? std::string() : read_text(source, &found);
  if ((found && !find_build_tells(text).empty()) || emulator_judged)
    return Refusal{"timed code differs from counted",
                   measured + "The same kernels ran, so their bodies differ between the builds (" +
                       (emulator_judged ? "the CPU emulator found the lab correct, so not by a barrier every thread "
                                          "does not reach; a helper chosen by the type of Global<T>, say"
                                        : "the file names what differs between them") +
                       "): a grade rests only on code the counters saw.\nRead: " + kOneKernelDoc};
  // Nothing tells the builds apart and the emulator has not judged the file: the likelier cause
  // is code whose behaviour is undefined, which two runs of the same binary need not agree on.
  return Refusal{"timed run differs from counted run",
                 measured + "The same kernels ran and " + (found ? shown_file(source) : lab_title(lab) + "'s file") +
                     " names nothing that tells the builds apart, so the likelier cause is undefined behaviour: a "
                     "__syncthreads() that not every thread of a block reaches (inside an if), or a race on shared "
                     "memory, lets two runs of the same code do different work. The CPU emulator, which reports such "
                     "a barrier as a deadlock, did not judge this file here: run its correctness test (./lab grade "
                     "--emu " + number + ") and watch the lab run step by step (./lab show " + number +
                     "). The speed is not graded until both builds do the same work.\nRead: " + lab_info(lab).doc +
                     " and " + kOneKernelDoc};
}

}  // namespace reduce_lab::grader
