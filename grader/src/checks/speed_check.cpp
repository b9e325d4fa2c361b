#include "checks/speed_check.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "measure/cpu_loop.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "base/inputs.hpp"
#include "measure/kernel_trace.hpp"
#include "run/lab_runner.hpp"
#include "run/records.hpp"
#include "base/reference.hpp"
#include "measure/run_once.hpp"
#include "base/settings.hpp"
#include "checks/speed_gate.hpp"
#include "checks/timed_lab.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

namespace {

// Floats held per element of the benchmark: the pristine copies, and each contender's input
// and pass outputs (at most half the input).
constexpr double kBenchmarkCopies = kTimedInputs + 2 * 1.5;

std::size_t benchmark_size(std::size_t bytes_per_element, double copies) {
  if (settings().bench_n > 0) return settings().bench_n;
  const DeviceFacts facts = device_facts();
  std::size_t n = std::size_t{1} << 26;
  // Leave room for the L2 flush buffer and a margin; halve until the working set fits.
  while (n > (1u << 20) && static_cast<double>(n * bytes_per_element) * copies > static_cast<double>(facts.free_bytes / 2))
    n /= 2;
  return n;
}

std::optional<double> minimum_bandwidth_fraction(int lab) {
  if (!lab_info(lab).min_bandwidth) return std::nullopt;
  return settings().min_bandwidth.value_or(*lab_info(lab).min_bandwidth);
}

// The duels before the last, when there were: a shared GPU is disturbed now and then, and a duel
// the lab loses is run again (duels_until, measure/timing.hpp).
std::string duels_text(const std::vector<Duel>& duels) {
  if (duels.size() < 2) return std::string();
  std::string ratios;
  for (std::size_t i = 0; i + 1 < duels.size(); ++i)
    ratios += (i ? ", " : "") + format("%.2fx", duels[i].ratio());
  return "  (the figures above are duel " + std::to_string(duels.size()) + " of " + std::to_string(kDuels) +
         "; the lab fell short in the duel" + (duels.size() > 2 ? "s" : "") + " before: " + ratios +
         ". A shared GPU is disturbed now and then, so a duel the lab loses is run again; a real shortfall "
         "repeats, a disturbance does not)\n";
}

}  // namespace

std::size_t benchmark_floats() { return benchmark_size(4, kBenchmarkCopies); }

double minimum_speedup(int lab) { return settings().min_speedup.value_or(lab_info(lab).min_speedup); }

Verdict not_correct_for_timing(int lab, const std::string& problem, const nlohmann::json& figures) {
  return fail("not correct yet",
              problem + "\nThe speed test waits until the lab is correct (labN.correctness).\n" + doc_line(lab),
              figures);
}

std::string gpu_alone_line(const std::string& gpu_alone) {
  if (gpu_alone.empty()) return std::string();
  return "GPU alone: " + gpu_alone + ". This figure rests on the GPU's own correctness verdicts, which a barrier in a "
         "divergent branch can pass (the emulator reports it as a deadlock).\n";
}

Verdict timing_fault(int lab, const std::string& error, const std::string& where, const nlohmann::json& figures) {
  const Fault fault = classify_fault(error);
  const std::string summary = fault.kind == FaultKind::failed ? "fault while timing" : fault_summary(fault, where);
  return fail(summary,
              lab_title(lab) + " failed while being timed: " + error + "\n" + doc_line(lab, fault_hint(fault.kind)),
              figures);
}

SpeedSetup prepare_speed_test(int lab, bool against_baseline) {
  SpeedSetup setup;
  const double required = minimum_speedup(lab);
  const std::optional<double> required_fraction = minimum_bandwidth_fraction(lab);
  const int base_lab = against_baseline ? lab_info(lab).baseline : 0;  // 0: the CPU loop, or none
  // The thresholds go with every verdict, timed or not, so report.json always says what was asked.
  setup.figures = {{"thresholds", {{"min_speedup", required}}}};
  if (required_fraction) setup.figures["thresholds"]["min_bandwidth_fraction"] = *required_fraction;
  auto refuse = [&setup](const std::string& summary, const std::string& message) {
    setup.refusal = fail(summary, message, setup.figures);
    return setup;
  };
  setup.lab = load_lab(lab, Flavor::plain);
  if (!setup.lab) return refuse(not_loadable(lab, setup.lab).summary, setup.lab.problem);
  // Timed only when every check found the lab correct, and only the code they saw (design §13).
  if (auto refusal = build_dependent_code(lab)) return refuse(refusal->summary, refusal->message);
  // Why the CPU emulator's verdict is missing, where it is not required: the figure then rests on the GPU alone.
  if (auto refusal = verdict_refusal(lab, built_backend(), &setup.gpu_alone))
    return refuse(refusal->summary, refusal->message);
  if (base_lab > 0) {
    setup.baseline = load_lab(base_lab, Flavor::plain);
    if (!setup.baseline)
      return refuse("baseline lab " + std::to_string(base_lab) + " missing",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) +
                        ", which cannot be run yet:\n" + setup.baseline.problem);
    std::string baseline_gpu_alone;
    if (auto refusal = verdict_refusal(base_lab, built_backend(), &baseline_gpu_alone))
      return refuse("baseline lab " + std::to_string(base_lab) +
                        (refusal->summary == "not correct yet" ? " not correct" : ": " + refusal->summary),
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) +
                        (refusal->summary == "not correct yet" ? ", which is not correct yet: " : ":\n") +
                        refusal->message);
    if (setup.gpu_alone.empty()) setup.gpu_alone = baseline_gpu_alone;
  }
  return setup;
}

Verdict check_speedup(int lab) {
  SpeedSetup setup = prepare_speed_test(lab);
  if (setup.refusal) return *setup.refusal;
  nlohmann::json& figures = setup.figures;
  const double required = minimum_speedup(lab);
  const std::optional<double> required_fraction = minimum_bandwidth_fraction(lab);
  const int base_lab = lab_info(lab).baseline;
  auto failed = [&figures](const std::string& summary, const std::string& message) {
    return fail(summary, message, figures);
  };
  const LoadedLab& loaded = setup.lab;
  const LoadedLab& baseline = setup.baseline;
  const std::string& gpu_alone = setup.gpu_alone;
  const bool emulator_judged = gpu_alone.empty();
  std::size_t n = 0;
  try {
    n = benchmark_size(4, kBenchmarkCopies);
    figures["n"] = n;
    TimedInputs inputs = draw_timed_inputs(n);

    // Both contenders must be right at this size before their speed means anything.
    // The lab's own run is the one whose kernels are compared with the counted build's: a
    // second untimed call would already meet host code that remembers the first.
    std::vector<KernelLaunch> timed_kernels;
    auto verify = [&](int which, const ModuleInfo* module) -> std::string {
      const RunOnce once =
          run_once(module, inputs.host.front(), inputs.references.front(), which == lab ? &timed_kernels : nullptr);
      return problem_text(once, lab_title(which), "n = " + size_text(n));
    };
    if (std::string problem = verify(lab, loaded.info); !problem.empty())
      return not_correct_for_timing(lab, problem, figures);
    std::string compared;  // what the builds' comparison found, for the message
    if (auto refusal = timed_code_differs(lab, timed_kernels, inputs.host.front(), &compared))
      return failed(refusal->summary, refusal->message);
    if (auto refusal = timed_traffic_refusal(lab, emulator_judged, &compared))
      return failed(refusal->summary, refusal->message);
    if (base_lab > 0)
      if (std::string problem = verify(base_lab, baseline.info); !problem.empty())
        return failed("baseline lab " + std::to_string(base_lab) + " not correct",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) + ", but " +
                        problem + ".\nFinish lab " + std::to_string(base_lab) + " first (" + lab_info(base_lab).doc + ").");

    std::vector<Duel> duels;
    std::string base_name;
    try {
      // Allocated once, outside every timed region; released before the copy bandwidth is measured.
      upload_timed_inputs(inputs);
      L2Flush flush;
      TimedLab contender(loaded.info, inputs, process_seed() ^ 0x5eed);
      std::unique_ptr<TimedLab> previous;
      Contender base;
      volatile float sink = 0;
      if (base_lab == 0) {
        const float* data = static_cast<const float*>(inputs.host.front().data());
        base = {"the sequential CPU loop (Fig. 10.1)", [] {},
                [data, n, &sink] {
                  const auto start = std::chrono::steady_clock::now();
                  sink = sequential_sum(data, n);
                  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                }};
      } else {
        previous = std::make_unique<TimedLab>(baseline.info, inputs, process_seed() ^ 0xba5e);
        base = previous->contender("your " + lab_title(base_lab), flush);
      }
      base_name = base.name;
      duels = duels_until(base, contender.contender(lab_title(lab), flush), required, sample_count());
    } catch (const TimedWrong& wrong) {
      const bool baseline_wrong = wrong.contender != lab_title(lab);
      const int culprit = baseline_wrong ? base_lab : lab;
      std::string message =
          wrong.contender + " is right when run alone, but timed sample " + std::to_string(wrong.sample + 1) +
          " returned a wrong result: " + wrong.text +
          (wrong.earlier_result ? " (the result of an earlier sample's input)" : "") + ".\n" +
          "Every sample gets one of " + std::to_string(kTimedInputs) +
          " inputs of different contents at the same address, with one element changed at a random place so that "
          "every sample's sum differs, and its output[0] is checked after the timed region. A wrong timed result comes from host code that reuses, "
          "caches or skips work between calls, or from a race: every call must do the whole reduction.\n" +
          doc_line(culprit, timed_hint());
      return failed(baseline_wrong ? "baseline lab " + std::to_string(base_lab) + " timed result wrong"
                                   : "timed result wrong",
                    message);
    }
    const Duel& duel = duels.back();  // the deciding one
    const double speedup = duel.ratio();
    const DeviceFacts facts = device_facts();
    // Effective bandwidth: the bytes of the input over the time of the whole reduction.
    const std::size_t bytes = 4 * n;
    figures["device"] = facts.name;
    figures["lab"] = sample_figures(duel.b_ms, bytes);
    figures["baseline"] = sample_figures(duel.a_ms, bytes);
    figures["baseline"]["name"] = base_name;
    figures["baseline"]["kind"] = base_lab == 0 ? "cpu" : "lab";
    if (base_lab > 0) figures["baseline"]["lab"] = base_lab;
    figures["ratio"] = speedup;
    figures["duels"] = nlohmann::json::array();
    for (const Duel& one : duels) figures["duels"].push_back(one.ratio());
    std::ostringstream message;
    message << lab_title(lab) << " on " << facts.name << ", n = " << size_text(n) << " floats, median of "
            << duel.b_ms.size() << " interleaved samples each (every timed result checked):\n"
            << "  " << lab_title(lab) << ": " << format("%.4f ms", duel.b_median) << "\n"
            << "  " << base_name << ": " << format("%.4f ms", duel.a_median) << "\n"
            << "  speedup " << format("%.2fx", speedup) << " (required at least " << format("%.2fx", required) << ")\n"
            << duels_text(duels) << compared << "\n";
    message << gpu_alone_line(gpu_alone);
    std::string summary = format("%.2fx", speedup) + " (min " + format("%.2fx", required) +
                          (gpu_alone.empty() ? ")" : "; GPU alone)");
    bool fast_enough = speedup >= required;
    if (required_fraction) {
      const double copy = copy_bandwidth(n * 4, sample_count());
      const double achieved = 4.0 * static_cast<double>(n) / (duel.b_median * 1e-3);
      const double fraction = achieved / copy;
      message << "  bandwidth " << format("%.0f GB/s", achieved / 1e9) << " = " << format("%.0f%%", 100 * fraction)
              << " of the device's copy bandwidth (" << format("%.0f GB/s", copy / 1e9)
              << ", bytes read + written by a device-to-device copy); required at least "
              << format("%.0f%%", 100 * *required_fraction) << "\n";
      summary += " " + format("%.0f%%", 100 * fraction) + " bw";
      fast_enough = fast_enough && fraction >= *required_fraction;
      figures["copy_gbs"] = copy / 1e9;
      figures["bandwidth_fraction"] = fraction;
    }
    if (fast_enough) return pass(summary, message.str(), figures);
    message << "Your kernel is correct but not yet faster by the factor this lab's idea should give.\n" << doc_line(lab);
    return failed(summary, message.str());
  } catch (const std::exception& e) {
    return timing_fault(lab, e.what(), "n = " + std::to_string(n), figures);
  }
}

}  // namespace reduce_lab::grader
