#include "checks/sweep_speed_check.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "base/catalog.hpp"
#include "measure/charts.hpp"
#include "checks/check_messages.hpp"
#include "run/device.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "measure/run_once.hpp"
#include "base/settings.hpp"
#include "checks/speed_check.hpp"
#include "checks/speed_gate.hpp"
#include "checks/timed_lab.hpp"
#include "measure/timing.hpp"

namespace reduce_lab::grader {

namespace {

// The factor that makes one wave of blocks of `threads` threads, each adding 2 x factor
// elements, cover n on this device: as many blocks as its multiprocessors hold at once.
unsigned device_filling(std::size_t n, unsigned threads, const DeviceFacts& facts) {
  const std::size_t resident = static_cast<std::size_t>(facts.multiprocessors) *
                               static_cast<std::size_t>(std::max(facts.threads_per_multiprocessor / int(threads), 1));
  const std::size_t per_block = 2 * static_cast<std::size_t>(threads) * resident;
  return static_cast<unsigned>(std::max<std::size_t>(1, (n + per_block - 1) / per_block));
}

}  // namespace

nlohmann::json time_sweep(int lab, const ModuleInfo* module, int samples, std::size_t largest) {
  const LabInfo::Sweep& sweep = lab_info(lab).sweep;
  const DeviceFacts facts = device_facts();
  nlohmann::json result = {{"device", facts.name},
                            {"name", sweep.name},
                            {"required", minimum_speedup(lab)},
                            {"sizes", nlohmann::json::array()}};
  for (const std::size_t n : sweep.sizes) {
    if (n > largest) continue;
    TimedInputs inputs = draw_timed_inputs(n);
    // The choice first: its factor, and its block size, from which the device-filling factor follows.
    const RunOnce chosen = run_once(module, inputs.host.front(), inputs.references.front());
    if (const std::string problem = problem_text(chosen, lab_title(lab) + " (its own choice)", "n = " + size_text(n));
        !problem.empty())
      throw std::runtime_error(problem);
    const LaunchStats& launches = chosen.outcome.launches;
    const unsigned threads = launches.blocks ? static_cast<unsigned>(launches.warps * 32 / launches.blocks) : 1;
    const unsigned filling = device_filling(n, threads, facts);
    std::set<unsigned> values(sweep.values.begin(), sweep.values.end());
    if (sweep.device_filling) values.insert(filling);
    for (const unsigned value : values) {
      const RunOnce once = run_once(module, inputs.host.front(), inputs.references.front(), nullptr, value);
      const std::string who = lab_title(lab) + " with " + sweep.name + " = " + std::to_string(value);
      if (const std::string problem = problem_text(once, who, "n = " + size_text(n)); !problem.empty())
        throw std::runtime_error(problem);
    }
    upload_timed_inputs(inputs);
    L2Flush flush;
    std::vector<std::unique_ptr<TimedLab>> timed;
    std::vector<Contender> contenders;
    timed.push_back(std::make_unique<TimedLab>(module, inputs, process_seed() ^ 0xc401ce, 0));
    contenders.push_back(timed.back()->contender(lab_title(lab) + " (its own choice)", flush));
    for (const unsigned value : values) {
      timed.push_back(std::make_unique<TimedLab>(module, inputs, process_seed() ^ (0x5eed + value), value));
      contenders.push_back(
          timed.back()->contender(lab_title(lab) + " with " + sweep.name + " = " + std::to_string(value), flush));
    }
    std::vector<const Contender*> order;
    for (const Contender& contender : contenders) order.push_back(&contender);
    const std::vector<std::vector<double>> ms = take_samples(order, samples);

    const double bytes = 4.0 * static_cast<double>(n);
    nlohmann::json size = {{"n", n},
                           {"chosen", chosen.outcome.variant_used},
                           {"device_filling", filling},
                           {"brent", std::max(1.0, std::log2(static_cast<double>(n)) / 2)},
                           {"choice", sample_figures(ms.front(), bytes)},
                           {"values", nlohmann::json::array()}};
    double best = HUGE_VAL;
    unsigned best_value = 0;
    std::size_t i = 1;
    for (const unsigned value : values) {
      nlohmann::json entry = sample_figures(ms[i], bytes);
      entry["value"] = value;
      size["values"].push_back(entry);
      if (const double value_ms = median(ms[i]); value_ms < best) {
        best = value_ms;
        best_value = value;
      }
      ++i;
    }
    const double choice = median(ms.front());
    size["best"] = best_value;
    size["ratio"] = std::min(best, choice) / choice;  // the choice's speed over the fastest's
    result["sizes"].push_back(size);
  }
  return result;
}

std::string sweep_table(const nlohmann::json& sweep) {
  std::ostringstream out;
  const std::string name = sweep.value("name", "");
  out << "GB/s against " << name << " on " << sweep.value("device", "") << " ('<' marks the fastest)\n";
  for (const nlohmann::json& size : sweep["sizes"]) {
    out << "  n = " << size_text(size["n"].get<std::size_t>()) << ":";
    for (const nlohmann::json& value : size["values"])
      out << " " << value["value"].get<unsigned>() << ":" << format("%.0f", value["gbs"].get<double>())
          << (value["value"] == size["best"] ? "<" : "");
    out << "; chose " << size["chosen"].get<unsigned>() << " at " << format("%.0f", size["choice"]["gbs"].get<double>())
        << " GB/s, " << format("%.0f%%", 100 * size["ratio"].get<double>()) << " of the fastest\n";
  }
  return out.str();
}

Verdict check_sweep_speedup(int lab) {
  SpeedSetup setup = prepare_speed_test(lab, false);
  if (setup.refusal) return *setup.refusal;
  nlohmann::json& figures = setup.figures;
  const LabInfo& info = lab_info(lab);
  const double required = minimum_speedup(lab);
  auto failed = [&figures](const std::string& summary, const std::string& message) {
    return fail(summary, message, figures);
  };
  try {
    // Only the code the counters saw is timed: the choice's kernels at the largest size, compared
    // with the counted build's (and its traffic with Nsight Compute's).
    const std::size_t largest = info.sweep.sizes.back();
    const TimedInputs check = draw_timed_inputs(largest);
    std::vector<KernelLaunch> kernels;
    const RunOnce once = run_once(setup.lab.info, check.host.front(), check.references.front(), &kernels);
    if (const std::string problem = problem_text(once, lab_title(lab), "n = " + size_text(largest)); !problem.empty())
      return not_correct_for_timing(lab, problem, figures);
    std::string compared;  // what the builds' comparison found, for the message
    if (auto refusal = timed_code_differs(lab, kernels, check.host.front(), &compared))
      return failed(refusal->summary, refusal->message);
    if (auto refusal = timed_traffic_refusal(lab, setup.gpu_alone.empty(), &compared))
      return failed(refusal->summary, refusal->message);

    nlohmann::json sweep;
    try {
      sweep = time_sweep(lab, setup.lab.info, sample_count());
    } catch (const TimedWrong& wrong) {
      return failed("timed result wrong",
                    wrong.contender + " is right when run alone, but timed sample " + std::to_string(wrong.sample + 1) +
                        " returned a wrong result: " + wrong.text +
                        ".\nEvery call must do the whole reduction, whatever the factor.\n" +
                        doc_line(lab, timed_hint()));
    }
    figures["sweep"] = sweep;
    std::ostringstream message, cells;
    message << lab_title(lab) << " on " << sweep["device"].get<std::string>() << ": your choice of " << info.sweep.name
            << " timed against " << info.sweep.name << " =";
    for (const unsigned value : info.sweep.values) message << " " << value;
    message << (info.sweep.device_filling ? " and the one that fills the device once" : "") << ", median of "
            << sample_count() << " interleaved samples each (every timed result checked):\n";
    double worst = HUGE_VAL;
    std::string worst_size;
    for (const nlohmann::json& size : sweep["sizes"]) {
      const std::size_t n = size["n"].get<std::size_t>();
      const double ratio = size["ratio"].get<double>();
      double best_ms = HUGE_VAL;
      for (const nlohmann::json& value : size["values"])
        if (value["value"] == size["best"]) best_ms = value["median_ms"].get<double>();
      message << "  n = " << size_text(n) << ": yours " << info.sweep.name << " = " << size["chosen"].get<unsigned>()
              << ", " << format("%.4f ms", size["choice"]["median_ms"].get<double>()) << "; the fastest "
              << size["best"].get<unsigned>() << ", " << format("%.4f ms", best_ms) << " (one wave: "
              << size["device_filling"].get<unsigned>() << ", Brent: about "
              << format("%.0f", size["brent"].get<double>())
              << "); yours at " << format("%.0f%%", 100 * ratio) << " of its speed\n";
      cells << (cells.tellp() > 0 ? " " : "") << size["chosen"].get<unsigned>();
      if (ratio < worst) {
        worst = ratio;
        worst_size = size_text(n);
      }
    }
    figures["ratio"] = worst;
    message << compared << "\n";
    message << gpu_alone_line(setup.gpu_alone);
    if (!settings().results_dir.empty()) {
      const std::string path = settings().results_dir + "/lab" + std::to_string(lab) + "-sweep.svg";
      if (std::ofstream(path) << sweep_svg(sweep)) message << "The sweep as a chart: " << path << "\n";
    }
    const std::string cell = "chose " + cells.str() + ", worst " + format("%.0f%%", 100 * worst) + " @" + worst_size +
                             " (min " + format("%.0f%%", 100 * required) +
                             (setup.gpu_alone.empty() ? ")" : "; GPU alone)");
    if (worst >= required) return pass(cell, message.str(), figures);
    message << "At n = " << worst_size << " your choice is slower than the sweep's fastest by more than "
            << format("%.0f%%", 100 * (1 - required)) << ". Revisit how the factor follows from n and the number of "
            << "blocks the device holds at once.\n" << doc_line(lab);
    return failed(cell, message.str());
  } catch (const std::exception& e) {
    const Fault fault = classify_fault(e.what());
    return failed(fault.kind == FaultKind::failed ? "not correct yet" : fault_summary(fault, "the sweep"),
                  lab_title(lab) + " failed in the speed test's sweep: " + e.what() + "\n" +
                      doc_line(lab, fault_hint(fault.kind)));
  }
}

}  // namespace reduce_lab::grader
