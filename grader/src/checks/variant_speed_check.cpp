#include "checks/variant_speed_check.hpp"

#include <memory>
#include <sstream>

#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "measure/kernel_trace.hpp"
#include "run/records.hpp"
#include "measure/run_once.hpp"
#include "checks/speed_check.hpp"
#include "checks/speed_gate.hpp"
#include "checks/timed_lab.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

Verdict check_variant_speedup(int lab) {
  const LabInfo& info = lab_info(lab);
  SpeedSetup setup = prepare_speed_test(lab, false);
  if (setup.refusal) return *setup.refusal;
  nlohmann::json& figures = setup.figures;
  auto failed = [&figures](const std::string& summary, const std::string& message) {
    return fail(summary, message, figures);
  };
  const double required = minimum_speedup(lab);
  const unsigned first = info.variants.front();
  const std::string first_name = variant_text(lab, first);
  const bool emulator_judged = setup.gpu_alone.empty();
  std::size_t n = 0;
  try {
    n = benchmark_floats();
    figures["n"] = n;
    TimedInputs inputs = draw_timed_inputs(n);

    // Every variant right at this size, and running the counted build's kernels, before any is
    // timed. The kernels of every variant are compared; Nsight Compute's traffic of the first
    // variant only (a profiled run each would take seconds apiece), in the traffic test
    // (timed_traffic.hpp).
    std::string compared;  // what the builds' comparison found (the first variant's kernels), for the message
    for (unsigned variant : info.variants) {
      const std::string name = lab_title(lab) + " at " + variant_text(lab, variant);
      std::vector<KernelLaunch> kernels;
      const RunOnce once =
          run_once(setup.lab.info, inputs.host.front(), inputs.references.front(), &kernels, variant);
      if (const std::string problem = problem_text(once, name, "n = " + size_text(n)); !problem.empty())
        return not_correct_for_timing(lab, problem, figures);
      std::string note;
      if (auto refusal = timed_code_differs(lab, kernels, inputs.host.front(), &note, variant))
        return failed(refusal->summary + " (" + variant_text(lab, variant) + ")", refusal->message);
      if (variant == first) compared = note;
    }
    if (auto refusal = timed_traffic_refusal(lab, emulator_judged, &compared))
      return failed(refusal->summary + " (" + first_name + ")", refusal->message);

    std::vector<std::vector<double>> samples;
    try {
      upload_timed_inputs(inputs);
      L2Flush flush;
      std::vector<std::unique_ptr<TimedLab>> timed;
      std::vector<Contender> contenders;
      for (unsigned variant : info.variants) {
        timed.push_back(
            std::make_unique<TimedLab>(setup.lab.info, inputs, process_seed() ^ (0x5eed + variant), variant));
        contenders.push_back(timed.back()->contender(lab_title(lab) + " at " + variant_text(lab, variant), flush));
      }
      std::vector<const Contender*> order;
      for (const Contender& contender : contenders) order.push_back(&contender);
      samples = take_samples(order, sample_count());
    } catch (const TimedWrong& wrong) {
      return failed("timed result wrong",
                    wrong.contender + " is right when run alone, but timed sample " + std::to_string(wrong.sample + 1) +
                        " returned a wrong result: " + wrong.text +
                        (wrong.earlier_result ? " (the result of an earlier sample's input)" : "") +
                        ".\nEvery call must do the whole reduction: host code that reuses, caches or skips work "
                        "between calls, or a race, gives a wrong timed result.\n" +
                        doc_line(lab, timed_hint()));
    }

    const DeviceFacts facts = device_facts();
    const double bytes = 4.0 * static_cast<double>(n);
    const double first_ms = median(samples.front());
    figures["device"] = facts.name;
    figures["variant_name"] = info.variant_name;
    figures["variants"] = nlohmann::json::array();
    std::ostringstream table;
    double best = 0;
    unsigned best_variant = first;
    for (std::size_t i = 0; i < info.variants.size(); ++i) {
      const unsigned variant = info.variants[i];
      const double ms = median(samples[i]);
      const double ratio = first_ms / ms;
      nlohmann::json entry = sample_figures(samples[i], bytes);
      entry["variant"] = variant;
      entry["ratio"] = ratio;
      figures["variants"].push_back(entry);
      table << "  " << variant_text(lab, variant) << ": " << format("%.4f ms", ms) << ", "
            << format("%.0f GB/s", bytes / (ms * 1e-3) / 1e9) << ", "
            << format("%.2fx", ratio) << " of " << first_name << "'s speed\n";
      if (i > 0 && ratio > best) {
        best = ratio;
        best_variant = variant;
      }
    }
    if (info.variants.size() == 1) best = 1;
    figures["ratio"] = best;
    figures["best_variant"] = best_variant;
    std::ostringstream message;
    message << lab_title(lab) << " on " << facts.name << ", n = " << size_text(n) << " floats, median of "
            << samples.front().size() << " interleaved samples of each " << info.variant_name
            << " (every timed result checked):\n"
            << table.str() << "The fastest other than " << first_name << " is " << variant_text(lab, best_variant)
            << " at " << format("%.2fx", best) << " (required at least " << format("%.2fx", required)
            << ": no slower than " << first_name << " by more than the noise).\n"
            << compared << "\n";
    message << gpu_alone_line(setup.gpu_alone);
    const std::string summary = "best " + variant_text(lab, best_variant) + " " + format("%.2fx", best) + " (min " +
                                format("%.2fx", required) + (setup.gpu_alone.empty() ? ")" : "; GPU alone)");
    if (best >= required) return pass(summary, message.str(), figures);
    message << "Every wider step is slower than " << first_name
            << " here: a step that adds K values should cost no more than K - 1 pairs' steps.\n"
            << doc_line(lab);
    return failed(summary, message.str());
  } catch (const std::exception& e) {
    return timing_fault(lab, e.what(), "n = " + std::to_string(n), figures);
  }
}

}  // namespace reduce_lab::grader
