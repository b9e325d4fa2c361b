#include "checks.hpp"

#include <chrono>
#include <cmath>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "book_models.hpp"
#include "catalog.hpp"
#include "cpu_loop.hpp"
#include "lab_runner.hpp"
#include "reference.hpp"
#include "timing.hpp"

namespace reduce_lab::grader {

namespace {

std::string size_text(std::size_t n) {
  if (n >= 2 && (n & (n - 1)) == 0) {
    int log = 0;
    while ((std::size_t{1} << log) < n) ++log;
    return "2^" + std::to_string(log);
  }
  return std::to_string(n);
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string doc_line(int lab) {
  return std::string("Revisit: ") + idea_to_revisit(lab) + "\nRead: " + lab_info(lab).doc;
}

}  // namespace

const char* idea_to_revisit(int lab) {
  switch (lab) {
    case 1: return "which threads own a partial sum at each stride, and the barrier after every step.";
    case 2: return "the stride starts at blockDim.x and halves; only threads below it add, and every step ends at a barrier.";
    case 3: return "the first add happens while loading into input_s; every later step reads input_s only after a barrier.";
    case 4: return "bounds checks that use the identity for missing elements, and one atomicAdd per block.";
    case 5: return "each thread adds COARSE_FACTOR*2 elements before the tree; the grid size follows from it.";
    case 6: return "the last warp's steps without __syncthreads: __shfl_down_sync, or __syncwarp between steps.";
    case 7: return "the identity of each op, and the type of every accumulator.";
  }
  return "";
}

std::vector<std::size_t> powers_of_two(std::size_t low, std::size_t high) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = low; n <= high; n *= 2) sizes.push_back(n);
  return sizes;
}

Verdict not_loadable(int lab, const LoadedLab& loaded) {
  const bool compile = loaded.problem.find("does not compile") != std::string::npos;
  return fail(compile ? "does not compile" : "not built", loaded.problem);
}

Verdict not_implemented(int lab, Origin origin) {
  const std::string file = origin == Origin::stub ? "labs/" + std::string(lab_info(lab).stem) + ".cu" : lab_source(lab);
  return fail("not implemented yet",
              lab_title(lab) + " is not implemented yet: its kernel still runs REDUCE_LAB_TODO().\n"
              "Write the exercise region (between // BEGIN EXERCISE and // END EXERCISE) in " + file +
              " and delete the REDUCE_LAB_TODO() line.\nRead: " + lab_info(lab).doc);
}

Verdict check_correctness(int lab, const CorrectnessPlan& plan) {
  const LoadedLab loaded = load_lab(lab, Flavor::plain, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);
  const ModuleInfo* module = loaded.info;

  std::size_t largest = 1;
  for (std::size_t n : plan.sizes) largest = std::max(largest, n);
  for (std::size_t n : plan.special_sizes) largest = std::max(largest, n);

  int cases = 0;
  std::vector<std::string> wrong;
  try {
    for (DType dtype : plan.dtypes) {
      for (Op op : plan.ops) {
        if (!module->supports(dtype, op)) {
          wrong.push_back(std::string(dtype_name(dtype)) + " " + op_name(op) + ": not supported by the module");
          continue;
        }
        LabRunner runner(module, dtype, op, largest);
        auto run_case = [&](std::size_t n, Pattern pattern) {
          const HostArray input = make_input(pattern, dtype, n);
          const RunOutcome outcome = runner.reduce(input);
          ++cases;
          const std::string where = std::string(dtype_name(dtype)) + " " + op_name(op) + ", n = " +
                                    std::to_string(n) + ", " + pattern_name(pattern);
          if (outcome.todo) throw outcome;
          if (!outcome.ran) {
            wrong.push_back(where + ": the lab failed: " + outcome.error);
            throw outcome;  // a kernel fault leaves the device unusable; stop here
          }
          const Comparison cmp = compare(outcome.value, reference(input, op), dtype, n);
          if (!cmp.ok) wrong.push_back(where + ": " + cmp.text);
          return cmp.ok;
        };
        for (std::size_t n : plan.sizes)
          if (!run_case(n, Pattern::uniform) && wrong.size() >= 6) break;
        for (std::size_t n : plan.special_sizes)
          for (Pattern pattern : plan.special_patterns) run_case(n, pattern);
      }
    }
  } catch (const RunOutcome& stopped) {
    if (stopped.todo) return not_implemented(lab, plan.origin);
  } catch (const std::exception& e) {
    wrong.push_back(std::string("the grader could not run the lab: ") + e.what());
  }

  if (wrong.empty())
    return pass(std::to_string(cases) + " cases ok", lab_title(lab) + ": all " + std::to_string(cases) +
                                                         " inputs reduced correctly (" + seed_note() + ").");
  std::ostringstream message;
  message << lab_title(lab) << " computed a wrong result in " << wrong.size() << " of " << cases << " cases:\n";
  for (std::size_t i = 0; i < wrong.size() && i < 8; ++i) message << "  " << wrong[i] << "\n";
  message << "Inputs: " << seed_note() << ".\n" << doc_line(lab);
  const std::string first_size = wrong.front().substr(0, wrong.front().find(':'));
  return fail("wrong: " + first_size.substr(first_size.find("n = ")), message.str());
}

namespace {

struct CountLine {
  const char* what;
  unsigned long long Counters::*scalar = nullptr;
  unsigned long long (Counters::*array)[kAccessKinds] = nullptr;
  int kind = 0;
  unsigned long long get(const Counters& c) const { return scalar ? c.*scalar : (c.*array)[kind]; }
};

const CountLine kGradedCounts[] = {
    {"load requests", nullptr, &Counters::requests, 0},
    {"store requests", nullptr, &Counters::requests, 1},
    {"atomic requests", nullptr, &Counters::requests, 2},
    {"load sectors", nullptr, &Counters::sectors, 0},
    {"store sectors", nullptr, &Counters::sectors, 1},
    {"load instructions (warp-level)", nullptr, &Counters::instructions, 0},
    {"store instructions (warp-level)", nullptr, &Counters::instructions, 1},
    {"active lanes in loads", nullptr, &Counters::active_lanes, 0},
    {"active lanes in stores", nullptr, &Counters::active_lanes, 1},
};

std::string describe_requests(const Counters& c) {
  return std::to_string(c.requests[0]) + " ld + " + std::to_string(c.requests[1]) + " st = " +
         std::to_string(total_requests(c));
}

}  // namespace

Verdict check_book_requests(int lab, const std::vector<std::size_t>& sizes, Origin origin) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, origin);
  if (!loaded) return not_loadable(lab, loaded);
  std::size_t largest = 1;
  for (std::size_t n : sizes) largest = std::max(largest, n);

  std::ostringstream figures, problems;
  std::string summary;
  try {
    LabRunner runner(loaded.info, DType::f32, Op::sum, largest);
    for (std::size_t n : sizes) {
      const RunOutcome outcome = runner.reduce(make_input(Pattern::uniform, DType::f32, n), true);
      if (outcome.todo) return not_implemented(lab, origin);
      if (!outcome.ran) return fail("fault at n = " + size_text(n), lab_title(lab) + " failed while counting at n = " +
                                                                       std::to_string(n) + ": " + outcome.error);
      const Counters expected = book_model_pass(lab, static_cast<unsigned>(n));
      const Counters& got = outcome.counters;
      std::string mismatch;
      for (const CountLine& line : kGradedCounts)
        if (line.get(got) != line.get(expected))
          mismatch += "    " + std::string(line.what) + ": " + std::to_string(line.get(got)) + ", the book's kernel " +
                      std::to_string(line.get(expected)) + "\n";
      if (n == 256 || n == 2048) {
        figures << "  n = " << n << ": " << describe_requests(got) << " requests (the book's kernel: "
                << describe_requests(expected) << "), SIMD efficiency " << format("%.1f%%", 100 * simd_efficiency(got))
                << ", load sectors " << got.sectors[0] << ", store sectors " << got.sectors[1] << "\n";
        summary += (summary.empty() ? "" : " ") + std::to_string(total_requests(got)) + "/" +
                   std::to_string(total_requests(expected)) + " @" + std::to_string(n);
      }
      if (!mismatch.empty() && problems.tellp() < 1500) {
        problems << "  n = " << n << " (" << outcome.launches.blocks << " block(s) of "
                 << std::min<std::size_t>(n / 2, 1024) << " threads), one pass:\n" << mismatch;
      }
    }
  } catch (const std::exception& e) {
    return fail("grader error", std::string("the grader could not count the lab: ") + e.what());
  }
  const std::string p = problems.str();
  if (p.empty())
    return pass(summary, lab_title(lab) + " issues exactly the global-memory requests of " + lab_info(lab).figure +
                             " at every size:\n" + figures.str());
  return fail(summary.empty() ? "counts differ" : summary + " (differs)",
              lab_title(lab) + " does not access global memory the way " + lab_info(lab).figure +
                  " does. Counted per warp instruction (a request is one 128-byte segment):\n" + p +
                  "A correct result with other counts means a different algorithm than the lesson's.\n" + doc_line(lab));
}

Verdict check_traffic(int lab, const TrafficPlan& plan) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);
  std::size_t largest = 1;
  for (std::size_t n : plan.sizes) largest = std::max(largest, n);

  std::ostringstream problems, figures;
  std::string summary;
  int cases = 0;
  try {
    for (DType dtype : plan.dtypes) {
      for (Op op : plan.ops) {
        LabRunner runner(loaded.info, dtype, op, largest);
        for (std::size_t n : plan.sizes) {
          const RunOutcome outcome = runner.reduce(make_input(Pattern::uniform, dtype, n));
          if (outcome.todo) return not_implemented(lab, plan.origin);
          if (!outcome.ran)
            return fail("fault at n = " + size_text(n),
                        lab_title(lab) + " failed while counting at n = " + std::to_string(n) + ": " + outcome.error);
          ++cases;
          const Counters& c = outcome.counters;
          const std::size_t bytes = n * dtype_bytes(dtype);
          const unsigned long long sectors = (bytes + 31) / 32;
          const unsigned long long atomics =
              plan.elements_per_block ? (n + plan.elements_per_block - 1) / plan.elements_per_block : outcome.launches.blocks;
          const double barriers = outcome.launches.warps ? static_cast<double>(c.barrier_warps) / outcome.launches.warps : 0;
          std::string wrong;
          if (c.sectors[0] != sectors)
            wrong += "    load sectors " + std::to_string(c.sectors[0]) + ", expected " + std::to_string(sectors) +
                     " (ceil(" + std::to_string(bytes) + " bytes / 32): every input byte loaded exactly once)\n";
          if (c.bytes[0] != bytes)
            wrong += "    bytes loaded " + std::to_string(c.bytes[0]) + ", expected " + std::to_string(bytes) + "\n";
          if (c.requests[1] != 0)
            wrong += "    store requests " + std::to_string(c.requests[1]) +
                     ", expected 0 (partial sums belong in registers and shared memory)\n";
          if (c.requests[2] != atomics)
            wrong += "    atomic requests " + std::to_string(c.requests[2]) + ", expected " + std::to_string(atomics) +
                     " (one per block" +
                     (plan.elements_per_block ? ", " + std::to_string(plan.elements_per_block) + " elements a block" : "") +
                     ")\n";
          if (plan.max_barriers_per_block && barriers > plan.max_barriers_per_block)
            wrong += "    __syncthreads per block " + format("%.2f", barriers) + ", expected at most " +
                     std::to_string(plan.max_barriers_per_block) + "\n";
          if (!wrong.empty() && problems.tellp() < 2000)
            problems << "  " << dtype_name(dtype) << " " << op_name(op) << ", n = " << n << ":\n" << wrong;
          if (dtype == plan.dtypes.front() && op == plan.ops.front() && n == plan.sizes.back()) {
            summary = std::to_string(c.requests[2]) + " atomics, " + format("%.0f", barriers) + " barriers @" + size_text(n);
            figures << "  n = " << n << ": load requests " << c.requests[0] << ", load sectors " << c.sectors[0]
                    << ", stores " << c.requests[1] << ", atomics " << c.requests[2] << ", __syncthreads per block "
                    << format("%.2f", barriers) << ", SIMD efficiency " << format("%.1f%%", 100 * simd_efficiency(c)) << "\n";
          }
        }
      }
    }
  } catch (const std::exception& e) {
    return fail("grader error", std::string("the grader could not count the lab: ") + e.what());
  }
  if (problems.tellp() == 0)
    return pass(summary, lab_title(lab) + ": global-memory traffic as the lesson promises in all " +
                             std::to_string(cases) + " cases:\n" + figures.str());
  return fail("traffic differs", lab_title(lab) + " does not use global memory as this lab asks:\n" + problems.str() +
                                     doc_line(lab));
}

namespace {

std::size_t benchmark_size(std::size_t bytes_per_element, int copies) {
  if (const char* text = std::getenv("REDUCE_LAB_BENCH_N"); text && *text) return std::strtoull(text, nullptr, 10);
  const DeviceFacts facts = device_facts();
  std::size_t n = std::size_t{1} << 26;
  // Leave room for the L2 flush buffer and a margin; halve until the working set fits.
  while (n > (1u << 20) && n * bytes_per_element * copies > facts.free_bytes / 2) n /= 2;
  return n;
}

double minimum_speedup() {
  const char* text = std::getenv("REDUCE_LAB_MIN_SPEEDUP");
  return text && *text ? std::atof(text) : 1.0;
}

// A lab that times: its runner with the input staged, plus the untimed restore.
struct TimedLab {
  LabRunner runner;
  TimedLab(const ModuleInfo* module, const HostArray& input) : runner(module, DType::f32, Op::sum, input.n) {
    runner.stage(input);
  }
  Contender contender(const std::string& name, L2Flush& flush) {
    return {name,
            [this, &flush] {
              runner.restore();
              flush();
            },
            [this] {
              double ms = time_device_ms([this] { runner.enqueue(); });
              const RunOutcome outcome = runner.finish();
              if (!outcome.ran) throw std::runtime_error(outcome.error);
              return ms;
            }};
  }
};

}  // namespace

Verdict check_speedup(int lab) {
  const double required = minimum_speedup();
  const LoadedLab loaded = load_lab(lab, Flavor::plain);
  if (!loaded) return not_loadable(lab, loaded);
  LoadedLab baseline;
  if (lab > 1) {
    baseline = load_lab(lab - 1, Flavor::plain);
    if (!baseline)
      return fail("baseline lab " + std::to_string(lab - 1) + " missing",
                  "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(lab - 1) +
                      ", which cannot be run yet:\n" + baseline.problem);
  }
  try {
    const std::size_t n = benchmark_size(4, 4);
    const HostArray input = make_input(Pattern::uniform, DType::f32, n);
    const Reference ref = reference(input, Op::sum);

    // Both contenders must be right at this size before their speed means anything.
    auto verify = [&](int which, const ModuleInfo* module) -> std::string {
      LabRunner runner(module, DType::f32, Op::sum, n);
      const RunOutcome outcome = runner.reduce(input);
      if (outcome.todo) return lab_title(which) + " is not implemented yet";
      if (!outcome.ran) return lab_title(which) + " failed: " + outcome.error;
      const Comparison cmp = compare(outcome.value, ref, DType::f32, n);
      return cmp.ok ? std::string() : lab_title(which) + " is not correct yet at n = " + size_text(n) + ": " + cmp.text;
    };
    if (std::string problem = verify(lab, loaded.info); !problem.empty())
      return fail("not correct yet", problem + "\nThe speed test waits until the lab is correct (labN.correctness).\n" +
                                         doc_line(lab));
    if (lab > 1)
      if (std::string problem = verify(lab - 1, baseline.info); !problem.empty())
        return fail("baseline lab " + std::to_string(lab - 1) + " not correct",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(lab - 1) + ", but " +
                        problem + ".\nFinish lab " + std::to_string(lab - 1) + " first (" + lab_info(lab - 1).doc + ").");

    L2Flush flush;
    TimedLab contender(loaded.info, input);
    std::unique_ptr<TimedLab> previous;
    Contender base;
    volatile float sink = 0;
    if (lab == 1) {
      const float* data = static_cast<const float*>(input.data());
      base = {"the sequential CPU loop (Fig. 10.1)", [] {},
              [data, n, &sink] {
                const auto start = std::chrono::steady_clock::now();
                sink = sequential_sum(data, n);
                return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
              }};
    } else {
      previous = std::make_unique<TimedLab>(baseline.info, input);
      base = previous->contender("your " + lab_title(lab - 1), flush);
    }
    const Duel duel = interleave(base, contender.contender(lab_title(lab), flush), sample_count());
    const double speedup = duel.a_median / duel.b_median;
    const DeviceFacts facts = device_facts();
    std::ostringstream message;
    message << lab_title(lab) << " on " << facts.name << ", n = " << size_text(n) << " floats, median of "
            << duel.b_ms.size() << " interleaved samples each:\n"
            << "  " << lab_title(lab) << ": " << format("%.4f ms", duel.b_median) << "\n"
            << "  " << base.name << ": " << format("%.4f ms", duel.a_median) << "\n"
            << "  speedup " << format("%.2fx", speedup) << " (required at least " << format("%.2fx", required) << ")\n";
    std::string summary = format("%.2fx", speedup) + " (min " + format("%.2fx", required) + ")";
    bool fast_enough = speedup >= required;
    if (lab == 7) {
      const char* text = std::getenv("REDUCE_LAB_MIN_BANDWIDTH");
      const double required_fraction = text && *text ? std::atof(text) : 0.75;
      const double copy = copy_bandwidth(n * 4, sample_count());
      const double achieved = 4.0 * static_cast<double>(n) / (duel.b_median * 1e-3);
      const double fraction = achieved / copy;
      message << "  bandwidth " << format("%.0f GB/s", achieved / 1e9) << " = " << format("%.0f%%", 100 * fraction)
              << " of the device's copy bandwidth (" << format("%.0f GB/s", copy / 1e9)
              << ", bytes read + written by a device-to-device copy); required at least "
              << format("%.0f%%", 100 * required_fraction) << "\n";
      summary += " " + format("%.0f%%", 100 * fraction) + " bw";
      fast_enough = fast_enough && fraction >= required_fraction;
    }
    if (fast_enough) return pass(summary, message.str());
    message << "Your kernel is correct but not yet faster by the factor this lab's idea should give.\n" << doc_line(lab);
    return fail(summary, message.str());
  } catch (const std::exception& e) {
    return fail("fault while timing", lab_title(lab) + " failed while being timed: " + e.what());
  }
}

}  // namespace reduce_lab::grader
