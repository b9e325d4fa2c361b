#include "checks.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include "book_models.hpp"
#include "catalog.hpp"
#include "cpu_loop.hpp"
#include "inputs.hpp"
#include "kernel_trace.hpp"
#include "faults.hpp"
#include "hints.hpp"
#include "lab_runner.hpp"
#include "reference.hpp"
#include "shared_checks.hpp"
#include "speed_gate.hpp"
#include "thread_order.hpp"
#include "timing.hpp"

namespace reduce_lab::grader {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string value_text(double value) { return format("%.9g", value); }

// The counters of one run, by kind, as report.json lists them.
nlohmann::json counts_json(const Counters& c) {
  auto kinds = [](const unsigned long long (&values)[kAccessKinds]) {
    return nlohmann::json{{"load", values[0]}, {"store", values[1]}, {"atomic", values[2]}};
  };
  return {{"requests", kinds(c.requests)},         {"sectors", kinds(c.sectors)},
          {"instructions", kinds(c.instructions)}, {"active_lanes", kinds(c.active_lanes)},
          {"bytes", kinds(c.bytes)},               {"seam_sectors", kinds(c.seam_sectors)},
          {"barrier_warps", c.barrier_warps},      {"simd_efficiency", simd_efficiency(c)},
          {"shared", shared_counts_json(c)}};
}

// The closing lines of every failure: the idea the failure points to, and the page.
std::string doc_line(int lab, const std::string& hint) {
  return "Revisit: " + (hint.empty() ? std::string(idea_to_revisit(lab)) : hint) + "\nRead: " + lab_info(lab).doc;
}
std::string doc_line(int lab) { return doc_line(lab, ""); }

// A wrong or miscounted lab also points at its picture: what the kernel did, step by step,
// beside the reference's (./lab show, drawn from the emulator's record of a small run).
std::string picture_line(int lab) {
  char svg[32];
  std::snprintf(svg, sizeof svg, "lab%02d.svg", lab);  // as ./lab show names it, after the lab's modules
  return "\nSee it: ./lab show " + std::to_string(lab) +
         " draws what your kernel did, step by step, beside the reference's\n"
         "(and writes build/grade-emu/show/" + svg + ").";
}

std::string indented(const std::string& text) {
  std::string out = "  ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

}  // namespace

std::vector<std::size_t> powers_of_two(std::size_t low, std::size_t high) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = low; n <= high; n *= 2) sizes.push_back(n);
  return sizes;
}

std::size_t case_count(const CorrectnessPlan& plan) {
  return (plan.sizes.size() + plan.special_sizes.size() * plan.special_patterns.size()) * plan.dtypes.size() *
         plan.ops.size();
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

// ---------------------------------------------------------------------------------------
// Correctness

namespace {

struct Case {
  DType dtype;
  Op op;
  std::size_t n;
  Pattern pattern;
  std::string label;  // "n = 31", "float max n = 31"
  std::string where() const {
    return std::string(dtype_name(dtype)) + " " + op_name(op) + ", n = " + std::to_string(n) + ", " +
           pattern_name(pattern, dtype, op);
  }
};

struct WrongCase {
  Case what;
  std::string text;  // "got 1, expected 2"
  double got = 0;
  bool checked_order = false;  // run again under other thread orders (emulator)
  std::string race;            // what those runs gave, when the result depended on the order
  unsigned long long blocks = 0;  // blocks the case launched (the first pass's, for labs 1-3)
};

struct FaultCase {
  Case what;
  Fault fault;
  std::string error;
};

struct Stop {};  // a fault or an unwritten stub ends the cases

constexpr int kOtherThreadOrders = 8;
constexpr int kWrongCasesRunAgain = 3;  // enough to tell a race; each costs kOtherThreadOrders runs

// Runs a wrong case again under other thread orders. A race gives another result under some
// order (or the right one); a plain mistake gives the same wrong result under all of them.
// Float results that differ only within the tolerance count as the same: blocks' atomics
// add in whatever order the worker threads finish, whatever the seed.
void run_under_other_orders(LabRunner& runner, const HostArray& input, const Reference& ref, WrongCase& wrong) {
  const double allowed = tolerance(ref, input.dtype, input.n);
  std::vector<std::string> results{"seed " + thread_order::hex(thread_order::process_seed()) + " gave " +
                                   value_text(wrong.got)};
  bool differs = false, right_somewhere = false;
  for (std::uint64_t seed : thread_order::other_seeds(kOtherThreadOrders)) {
    thread_order::use(seed);
    const RunOutcome outcome = runner.reduce(input);
    std::string gave;
    if (!outcome.ran) {
      differs = true;
      gave = fault_name(classify_fault(outcome.error).kind);
    } else {
      const bool same = (std::isnan(outcome.value) && std::isnan(wrong.got)) ||
                        std::fabs(outcome.value - wrong.got) <= allowed;
      right_somewhere = right_somewhere || compare(outcome.value, ref, input.dtype, input.n).ok;
      differs = differs || !same;
      if (same) continue;  // the list shows the results that differ
      gave = value_text(outcome.value);
    }
    if (results.size() < 4) results.push_back("seed " + thread_order::hex(seed) + " gave " + gave);
  }
  thread_order::use(thread_order::process_seed());
  wrong.checked_order = true;
  if (!differs && !right_somewhere) return;
  std::string list;
  for (const std::string& r : results) list += (list.empty() ? "" : ", ") + r;
  wrong.race = "a race: the result depends on the order threads run in (" + list +
               (right_somewhere ? "; some orders give the right result" : "") + ")";
}

bool is_power_of_two(std::size_t n) { return n >= 1 && (n & (n - 1)) == 0; }

// What the wrong cases have in common, for the hint (hints.hpp).
WrongResults wrong_results(const ModuleInfo* module, const CorrectnessPlan& plan, const std::vector<WrongCase>& wrong,
                           bool power_of_two_passed, bool one_block_passed) {
  WrongResults facts;
  if (wrong.empty()) return facts;
  facts.single_launch = module->kind != LabKind::multipass;
  facts.power_of_two_passed = power_of_two_passed;
  facts.one_block_passed = one_block_passed;
  facts.all_extremum_identity = facts.all_sums = facts.all_large = facts.all_odd_sizes = facts.all_several_blocks = true;
  bool one_type = true;
  for (const WrongCase& w : wrong) {
    one_type = one_type && w.what.dtype == wrong.front().what.dtype;
    facts.any_nan = facts.any_nan || std::isnan(w.got);
    facts.race = facts.race || !w.race.empty();
    // max or min that came out as 0, or failed only where every value is below 0: an identity of 0.
    const bool extremum = w.what.op != Op::sum;
    facts.all_extremum_identity =
        facts.all_extremum_identity && extremum && (w.got == 0 || w.what.pattern == Pattern::all_negative);
    facts.all_sums = facts.all_sums && !extremum;
    facts.all_large = facts.all_large && w.what.pattern == Pattern::large;
    facts.all_odd_sizes = facts.all_odd_sizes && !is_power_of_two(w.what.n);
    facts.all_several_blocks = facts.all_several_blocks && w.blocks > 1;
  }
  facts.one_type_of_several = one_type && plan.dtypes.size() > 1;
  return facts;
}

}  // namespace

Verdict check_correctness(int lab, const CorrectnessPlan& plan) {
  const LoadedLab loaded = load_lab(lab, Flavor::plain, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);
  const ModuleInfo* module = loaded.info;

  int cases = 0;
  bool todo = false, power_of_two_passed = false, one_block_passed = false;
  std::vector<WrongCase> wrong;
  std::optional<FaultCase> fault;
  std::string grader_error;
  try {
    for (DType dtype : plan.dtypes) {
      for (Op op : plan.ops) {
        if (!module->supports(dtype, op)) {
          WrongCase unsupported;
          unsupported.what = {dtype, op, 0, Pattern::uniform, std::string(dtype_name(dtype)) + " " + op_name(op)};
          unsupported.text = "not supported by the module";
          unsupported.got = NAN;
          wrong.push_back(unsupported);
          continue;
        }
        LabRunner runner(module, dtype, op, Flavor::plain);
        auto run_case = [&](std::size_t n, Pattern pattern) {
          const Case what{dtype, op, n, pattern, case_label(module->kind, dtype, op, n)};
          const HostArray input = make_input(pattern, dtype, n);
          thread_order::use(thread_order::process_seed());  // every case replays from one seed
          const RunOutcome outcome = runner.reduce(input);
          ++cases;
          if (outcome.todo) {
            todo = true;
            throw Stop{};
          }
          if (!outcome.ran) {
            fault = FaultCase{what, classify_fault(outcome.error), outcome.error};
            throw Stop{};  // a kernel fault can leave the device unusable; stop here
          }
          const Reference ref = reference(input, op);
          const Comparison cmp = compare(outcome.value, ref, dtype, n);
          if (cmp.ok) {
            power_of_two_passed = power_of_two_passed || is_power_of_two(n);
            one_block_passed = one_block_passed || outcome.launches.blocks == 1;
            return true;
          }
          WrongCase w{what, cmp.text, outcome.value, false, {}, outcome.launches.blocks};
          const int checked = static_cast<int>(std::count_if(wrong.begin(), wrong.end(),
                                                             [](const WrongCase& x) { return x.checked_order; }));
          if (thread_order::available() && checked < kWrongCasesRunAgain) run_under_other_orders(runner, input, ref, w);
          wrong.push_back(std::move(w));
          return false;
        };
        int wrong_random = 0;
        for (std::size_t n : plan.sizes)
          if (!run_case(n, Pattern::uniform) && ++wrong_random >= plan.stop_after_wrong) break;
        for (std::size_t n : plan.special_sizes)
          for (Pattern pattern : plan.special_patterns) run_case(n, pattern);
      }
    }
  } catch (const Stop&) {
  } catch (const std::exception& e) {
    grader_error = e.what();
  }
  if (todo) return not_implemented(lab, plan.origin);

  nlohmann::json figures = {
      {"cases_run", cases},
      {"cases_planned", case_count(plan)},
      {"cases_wrong", wrong.size()},
      {"sizes", plan.sizes},
      {"special_sizes", plan.special_sizes},
      {"thresholds", {{"tolerance", "2 x ceil(log2 n) x eps(type) x sum|x|; exact where no order of additions rounds"},
                      {"stop_after_wrong", plan.stop_after_wrong}}}};
  for (DType dtype : plan.dtypes) figures["dtypes"].push_back(dtype_name(dtype));
  for (Op op : plan.ops) figures["ops"].push_back(op_name(op));
  for (std::size_t i = 0; i < wrong.size() && i < 8; ++i) {
    const WrongCase& w = wrong[i];
    figures["wrong"].push_back({{"case", w.what.n ? w.what.where() : w.what.label},
                                {"result", w.text},
                                {"race", w.race.empty() ? nlohmann::json() : nlohmann::json(w.race)}});
  }
  if (fault) figures["fault"] = {{"kind", fault_name(fault->fault.kind)}, {"case", fault->what.where()}};

  const std::string replay = "Inputs: " + seed_note() + ".\nReplay: " + replay_command(lab) + "\n";
  auto listed = [&](std::size_t limit) {
    std::string lines;
    for (std::size_t i = 0; i < wrong.size() && i < limit; ++i)
      lines += "  " + (wrong[i].what.n ? wrong[i].what.where() : wrong[i].what.label) + ": " + wrong[i].text + "\n";
    if (wrong.size() > limit) lines += "  ... (" + std::to_string(wrong.size() - limit) + " more)\n";
    return lines;
  };

  if (fault) {
    const FaultKind kind = fault->fault.kind;
    std::ostringstream message;
    message << lab_title(lab) << " stopped with " << fault_name(kind) << " at " << fault->what.where() << ":\n"
            << indented(fault->error) << "\n";
    if (!wrong.empty())
      message << "Before it, " << wrong.size() << " of " << cases - 1 << " cases were wrong:\n" << listed(3);
    const bool whole_segments = module->kind == LabKind::multipass && is_power_of_two(fault->what.n);
    message << replay << doc_line(lab, fault_hint_at(kind, whole_segments)) << picture_line(lab);
    return fail(fault_summary(fault->fault, fault->what.label), message.str(), figures);
  }
  if (!grader_error.empty())
    return fail("grader error", "the grader could not run " + lab_title(lab) + ": " + grader_error, figures);
  if (wrong.empty())
    return pass(std::to_string(cases) + " cases ok",
                lab_title(lab) + ": all " + std::to_string(cases) + " inputs reduced correctly (" + seed_note() + ").",
                figures);

  const auto race = std::find_if(wrong.begin(), wrong.end(), [](const WrongCase& w) { return !w.race.empty(); });
  std::ostringstream message;
  message << lab_title(lab) << " computed a wrong result in " << wrong.size() << " of " << cases << " cases:\n"
          << listed(8);
  const std::string hint =
      wrong_result_hint(wrong_results(module, plan, wrong, power_of_two_passed, one_block_passed));
  std::string summary;
  if (race != wrong.end()) {
    message << "At " << race->what.where() << " this is " << race->race << ".\n";
    summary = "race: " + race->what.label;
  } else {
    const WrongCase& first = wrong.front();
    if (first.checked_order)
      message << "Under " << kOtherThreadOrders << " other orders of threads and blocks the result at "
              << first.what.where()
              << " is the same, and no two blocks touched one word unordered: not a race, the computation itself "
                 "is wrong.\n";
    summary = "wrong: " + first.what.label +
              (first.what.n ? std::string(", ") + pattern_name(first.what.pattern, first.what.dtype, first.what.op) : "");
  }
  message << replay << doc_line(lab, hint) << picture_line(lab);
  return fail(summary, message.str(), figures);
}

// ---------------------------------------------------------------------------------------
// Requests of labs 1-3

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

// A lab that faulted while being counted: the same summary and hint as in correctness.
Verdict counting_fault(int lab, const std::string& label, const std::string& error, bool whole_segments) {
  const Fault fault = classify_fault(error);
  return fail(fault_summary(fault, label), lab_title(lab) + " stopped with " + fault_name(fault.kind) +
                                               " while being counted at " + label + ":\n" + indented(error) + "\n" +
                                               "Replay: " + replay_command(lab) + "\n" +
                                               doc_line(lab, fault_hint_at(fault.kind, whole_segments)) + picture_line(lab));
}

}  // namespace

Verdict check_book_requests(int lab, const std::vector<std::size_t>& sizes, Origin origin) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, origin);
  if (!loaded) return not_loadable(lab, loaded);

  std::ostringstream figures, problems;
  std::string summary;
  std::optional<SharedJudgement> shared_problem;  // the first size whose tree costs too much
  std::size_t shared_problem_n = 0;
  nlohmann::json measured = {
      {"sizes", nlohmann::json::array()},
      {"thresholds", {{"rule", std::string("equal to the model of ") + lab_info(lab).figure + " in every graded count"}}}};
  for (const CountLine& line : kGradedCounts) measured["thresholds"]["graded_counts"].push_back(line.what);
  try {
    LabRunner runner(loaded.info, DType::f32, Op::sum);
    for (std::size_t n : sizes) {
      thread_order::use(thread_order::process_seed());
      const RunOutcome outcome = runner.reduce(make_input(Pattern::uniform, DType::f32, n), true);
      if (outcome.todo) return not_implemented(lab, origin);
      if (!outcome.ran) return counting_fault(lab, "n = " + std::to_string(n), outcome.error, is_power_of_two(n));
      const Counters expected = book_model_pass(lab, static_cast<unsigned>(n));
      const Counters& got = outcome.counters;
      std::string mismatch;
      for (const CountLine& line : kGradedCounts)
        if (line.get(got) != line.get(expected))
          mismatch += "    " + std::string(line.what) + ": " + std::to_string(line.get(got)) + ", the book's kernel " +
                      std::to_string(line.get(expected)) + "\n";
      nlohmann::json size = {{"n", n},
                              {"blocks", outcome.launches.blocks},
                              {"measured", counts_json(got)},
                              {"book", counts_json(expected)},
                              {"equal", mismatch.empty()}};
      if (lab_info(lab).shared_tree_bound) {
        const SharedJudgement tree = judge_shared_tree(got, outcome.launches);
        size["shared_wavefronts_bound"] = tree.bound;
        size["shared_ok"] = !tree.problem;
        if (tree.problem && (!shared_problem || n == 2048)) {  // 2048: the size the lab page shows
          shared_problem = tree;
          shared_problem_n = n;
        }
      }
      measured["sizes"].push_back(size);
      if (n == 256 || n == 2048) {
        figures << "  n = " << n << ": " << describe_requests(got) << " requests (the book's kernel: "
                << describe_requests(expected) << "), SIMD efficiency " << format("%.1f%%", 100 * simd_efficiency(got))
                << ", load sectors " << got.sectors[0] << ", store sectors " << got.sectors[1];
        if (lab_info(lab).shared_tree_bound) figures << "; shared memory " << describe_shared(got);
        figures << "\n";
        summary += (summary.empty() ? "" : " ") + std::to_string(total_requests(got)) + "/" +
                   std::to_string(total_requests(expected)) + " @" + std::to_string(n);
        if (lab_info(lab).shared_tree_bound && n == 2048) summary += ", smem " + describe_shared_short(got);
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
  if (p.empty() && shared_problem)
    return fail(shared_problem->summary + " @" + std::to_string(shared_problem_n),
                lab_title(lab) + " issues the global-memory requests of " + lab_info(lab).figure +
                    ", but its tree costs more in shared memory than the lesson's. At n = " +
                    std::to_string(shared_problem_n) + ", counted per warp instruction (a wavefront is one pass of "
                    "the 32 banks):\n    " + shared_problem->line + "\n" +
                    doc_line(lab, shared_hint(*shared_problem->problem)) + picture_line(lab),
                measured);
  if (p.empty())
    return pass(summary, lab_title(lab) + " issues exactly the global-memory requests of " + lab_info(lab).figure +
                             " at every size:\n" + figures.str(), measured);
  return fail(summary.empty() ? "counts differ" : summary + " (differs)",
              lab_title(lab) + " does not access global memory the way " + lab_info(lab).figure +
                  " does. Counted per warp instruction (a request is one 128-byte segment):\n" + p +
                  "A correct result with other counts means a different algorithm than the lesson's.\n" + doc_line(lab) + picture_line(lab),
              measured);
}

// ---------------------------------------------------------------------------------------
// Traffic of labs 4-7

Verdict check_traffic(int lab, const TrafficPlan& plan) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);

  std::ostringstream problems, figures;
  std::string summary;
  std::optional<TrafficProblem> first_problem;
  std::string first_label, first_line;
  std::optional<SharedJudgement> first_shared;
  int cases = 0;
  nlohmann::json measured = {{"cases", nlohmann::json::array()},
                             {"thresholds",
                              {{"bytes_loaded", "n x sizeof(T), exactly"},
                               {"load_sectors", "at most ceil(bytes / 32) + the load seam sectors measured (the partly "
                                                "covered sectors at the ends of each contiguous warp-wide run)"},
                               {"stores", 0},
                               {"atomics", plan.elements_per_block ? "ceil(n / elements_per_block)" : "one per block launched"},
                               {"elements_per_block", plan.elements_per_block},
                               {"max_barriers_per_block", plan.max_barriers_per_block}}}};
  try {
    for (DType dtype : plan.dtypes) {
      for (Op op : plan.ops) {
        LabRunner runner(loaded.info, dtype, op);
        for (std::size_t n : plan.sizes) {
          const std::string label = case_label(loaded.info->kind, dtype, op, n);
          thread_order::use(thread_order::process_seed());
          const RunOutcome outcome = runner.reduce(make_input(Pattern::uniform, dtype, n));
          if (outcome.todo) return not_implemented(lab, plan.origin);
          if (!outcome.ran) return counting_fault(lab, label, outcome.error, false);
          ++cases;
          const Counters& c = outcome.counters;
          const std::size_t bytes = n * dtype_bytes(dtype);
          const unsigned long long sectors = (bytes + 31) / 32;
          // Where two runs meet partway through a sector, both fetch it: how many such seams
          // there are depends on the grid and on n, so each run declares its own (run_seams.h).
          const unsigned long long seams = c.seam_sectors[0];
          const unsigned long long allowed_sectors = sectors + seams;
          const unsigned long long atomics =
              plan.elements_per_block ? (n + plan.elements_per_block - 1) / plan.elements_per_block : outcome.launches.blocks;
          const double barriers = outcome.launches.warps ? static_cast<double>(c.barrier_warps) / outcome.launches.warps : 0;
          std::string wrong;
          auto found = [&](TrafficProblem problem, const std::string& line) {
            wrong += "    " + line + "\n";
            if (!first_problem || problem < *first_problem) {
              if (!first_problem) first_label = label;
              first_problem = problem;
              first_line = line.substr(0, line.find(" ("));
            }
          };
          const std::string sector_rule =
              "at most " + std::to_string(allowed_sectors) + " (ceil(" + std::to_string(bytes) + " bytes / 32) = " +
              std::to_string(sectors) + ", plus " + std::to_string(seams) +
              " seam sector(s), where contiguous runs of loads meet partway through a sector)";
          if (c.bytes[0] < bytes)
            found(TrafficProblem::loads_missing, "bytes loaded " + std::to_string(c.bytes[0]) + ", expected " +
                                                     std::to_string(bytes) + ": some elements are never loaded");
          else if (c.bytes[0] > bytes)
            found(TrafficProblem::loads_repeated, "bytes loaded " + std::to_string(c.bytes[0]) + ", expected " +
                                                      std::to_string(bytes) +
                                                      ": some elements are loaded more than once, or past n");
          if (c.sectors[0] > allowed_sectors) {
            if (c.bytes[0] == bytes)
              found(TrafficProblem::uncoalesced,
                    "load sectors " + std::to_string(c.sectors[0]) + ", expected " + sector_rule +
                        ": each byte is loaded once, but in " + std::to_string(c.sectors[0]) + " sectors where " +
                        std::to_string(sectors) + " would do (" + format("%.1f", double(c.sectors[0]) / sectors) +
                        " times as many): consecutive lanes of a warp should read consecutive elements");
            else
              wrong += "    load sectors " + std::to_string(c.sectors[0]) + ", expected " + sector_rule + "\n";
          } else if (c.sectors[0] < sectors) {
            found(TrafficProblem::loads_missing, "load sectors " + std::to_string(c.sectors[0]) + ", expected " +
                                                     sector_rule + ": some bytes are never loaded");
          }
          if (c.requests[1] != 0)
            found(TrafficProblem::stores, "store requests " + std::to_string(c.requests[1]) +
                                              ", expected 0 (partial results belong in registers and shared memory)");
          // Fewer atomics than blocks, and stores instead: the blocks store (or +=) their results,
          // which also explains the stores (and a +='s extra loads) listed above.
          const bool stored_instead = c.requests[2] < atomics && c.requests[1] > 0;
          if (c.requests[2] != atomics)
            found(stored_instead ? TrafficProblem::block_result_stored : TrafficProblem::atomics,
                  "atomic requests " + std::to_string(c.requests[2]) + ", expected " + std::to_string(atomics) +
                      " (one per block" +
                      (plan.elements_per_block ? ", " + std::to_string(plan.elements_per_block) + " elements a block"
                                               : std::string(" launched")) +
                      ")");
          if (plan.max_barriers_per_block && barriers > plan.max_barriers_per_block)
            found(TrafficProblem::barriers, "__syncthreads per block " + format("%.2f", barriers) + ", expected at most " +
                                                std::to_string(plan.max_barriers_per_block));
          nlohmann::json counted = counts_json(c);
          if (plan.shared_tree_bound) {
            const SharedJudgement tree = judge_shared_tree(c, outcome.launches);
            counted["shared_wavefronts_bound"] = tree.bound;
            if (tree.problem) {
              found(TrafficProblem::shared_memory, tree.line);
              if (!first_shared) first_shared = tree;
            }
          }
          counted["barriers_per_block"] = barriers;
          measured["cases"].push_back(
              {{"dtype", dtype_name(dtype)},
               {"op", op_name(op)},
               {"n", n},
               {"launches", {{"launches", outcome.launches.launches},
                             {"blocks", outcome.launches.blocks},
                             {"warps", outcome.launches.warps}}},
               {"measured", counted},
               {"expected", {{"bytes_loaded", bytes},
                             {"ideal_load_sectors", sectors},
                             {"load_seam_sectors", seams},
                             {"max_load_sectors", allowed_sectors},
                             {"atomics", atomics},
                             {"max_barriers_per_block", plan.max_barriers_per_block}}},
               {"ok", wrong.empty()}});
          if (!wrong.empty() && problems.tellp() < 2000)
            problems << "  " << dtype_name(dtype) << " " << op_name(op) << ", n = " << n << ":\n" << wrong;
          if (dtype == plan.dtypes.front() && op == plan.ops.front() && n == plan.sizes.back()) {
            summary = std::to_string(c.requests[2]) + " atomics, " + format("%.0f", barriers) + " barriers @" + size_text(n);
            figures << "  n = " << n << ": load requests " << c.requests[0] << ", load sectors " << c.sectors[0]
                    << " (at most " << allowed_sectors << ": " << sectors << " + " << seams << " seam)"
                    << ", stores " << c.requests[1] << ", atomics " << c.requests[2] << ", __syncthreads per block "
                    << format("%.2f", barriers) << ", SIMD efficiency " << format("%.1f%%", 100 * simd_efficiency(c))
                    << ", shared memory " << describe_shared(c) << "\n";
          }
        }
      }
    }
  } catch (const std::exception& e) {
    return fail("grader error", std::string("the grader could not count the lab: ") + e.what());
  }
  if (!first_problem)
    return pass(summary, lab_title(lab) + ": global-memory traffic as the lesson promises in all " +
                             std::to_string(cases) + " cases:\n" + figures.str(), measured);
  if (*first_problem == TrafficProblem::shared_memory)
    return fail(first_shared->summary + ": " + first_label,
                lab_title(lab) + " uses global memory as this lab asks, but its tree costs more in shared memory "
                                 "than a conflict-free convergent tree (a wavefront is one pass of the 32 banks):\n" +
                    problems.str() + doc_line(lab, shared_hint(*first_shared->problem)) + picture_line(lab),
                measured);
  // The root cause's own figures head the table cell when they are the point ("atomic requests
  // 0, expected 1"), so the headline does not say "stores" where the lesson is the atomic.
  const std::string headline = *first_problem == TrafficProblem::block_result_stored
                                   ? first_line
                                   : std::string(traffic_summary(*first_problem));
  const bool generic_ops = plan.ops.size() > 1 || plan.ops.front() != Op::sum;
  return fail(headline + ": " + first_label,
              lab_title(lab) + " does not use global memory as this lab asks:\n" + problems.str() +
                  doc_line(lab, traffic_hint(*first_problem, generic_ops, lab)) + picture_line(lab),
              measured);
}

// ---------------------------------------------------------------------------------------
// Speed

namespace {

// Device copies the timed samples draw their inputs from: contents that differ between
// samples, so a lab cannot pass by remembering an earlier result.
constexpr int kTimedInputs = 2;
// Floats held per element of the benchmark: the pristine copies, and each contender's input
// and pass outputs (at most half the input).
constexpr double kBenchmarkCopies = kTimedInputs + 2 * 1.5;

std::size_t benchmark_size(std::size_t bytes_per_element, double copies) {
  if (const char* text = std::getenv("REDUCE_LAB_BENCH_N"); text && *text) return std::strtoull(text, nullptr, 10);
  const DeviceFacts facts = device_facts();
  std::size_t n = std::size_t{1} << 26;
  // Leave room for the L2 flush buffer and a margin; halve until the working set fits.
  while (n > (1u << 20) && static_cast<double>(n * bytes_per_element) * copies > static_cast<double>(facts.free_bytes / 2))
    n /= 2;
  return n;
}

// CMake's thresholds (REDUCE_LAB_MIN_SPEEDUP_LAB<N>, an instructor's override) where CTest set
// them, else the lab's own gates in grader/labs.json: never a silent 1.0.
double minimum_speedup(int lab) {
  const char* text = std::getenv("REDUCE_LAB_MIN_SPEEDUP");
  return text && *text ? std::atof(text) : lab_info(lab).min_speedup;
}

std::optional<double> minimum_bandwidth_fraction(int lab) {
  if (!lab_info(lab).min_bandwidth) return std::nullopt;
  const char* text = std::getenv("REDUCE_LAB_MIN_BANDWIDTH");
  return text && *text ? std::atof(text) : *lab_info(lab).min_bandwidth;
}

struct TimedInputs {
  std::vector<HostArray> host;
  std::vector<Reference> references;
  std::vector<DeviceBuffer> device;
};

// A timed sample whose result was wrong although the lab is right when run alone.
struct TimedWrong {
  std::string contender;
  int sample = 0;
  std::string text;
  bool earlier_result = false;  // the result of another sample's input
};

// One contender that times a lab: before each sample (untimed) it copies one of the inputs
// into the buffer the lab is given, changes one element at a random place, and flushes the
// L2; after each sample (untimed) it checks output[0] against that sample's own reference.
class TimedLab {
 public:
  TimedLab(const ModuleInfo* module, TimedInputs& inputs, std::uint64_t seed)
      : runner_(module, DType::f32, Op::sum), inputs_(inputs), rng_(seed) {
    runner_.allocate_for_timing(inputs.host.front().n);
  }

  Contender contender(const std::string& name, L2Flush& flush) {
    return {name, [this, &flush] { prepare(flush); }, [this, name] { return timed(name); }};
  }

 private:
  void prepare(L2Flush& flush) {
    const int which = sample_ % kTimedInputs;
    const HostArray& host = inputs_.host[which];
    runner_.load(inputs_.device[which]);
    // One element, at a random place, gets a value that moves the sum by more than the
    // tolerance, and by more for every later sample: no two samples' results are alike.
    const Reference& base = inputs_.references[which];
    // Larger than four tolerances plus twice the distance between the inputs' own sums, so
    // no earlier sample's result (of either input) is within the tolerance of this one's.
    double spread = 0, largest_tolerance = 1.0;
    for (const Reference& other : inputs_.references) {
      spread = std::max(spread, std::fabs(other.value - base.value));
      largest_tolerance = std::max(largest_tolerance, tolerance(other, DType::f32, host.n));
    }
    const double step = 4 * largest_tolerance + 2 * spread;
    const double magnitude = step * (sample_ + 2);
    const float value = static_cast<float>((rng_() & 1) ? magnitude : -magnitude);
    const std::size_t index = std::uniform_int_distribution<std::size_t>(0, host.n - 1)(rng_);
    float old;
    std::memcpy(&old, static_cast<const char*>(host.data()) + index * sizeof(float), sizeof old);
    runner_.set_input_element(index, &value);
    if (sample_ > 0) earlier_.push_back(expected_);
    expected_ = base;
    expected_.value += static_cast<double>(value) - old;
    expected_.sum_abs += std::fabs(static_cast<double>(value)) - std::fabs(static_cast<double>(old));
    flush();
  }


  double timed(const std::string& name) {
    const double ms = time_device_ms([this] { runner_.enqueue(); });
    const RunOutcome outcome = runner_.finish();
    if (!outcome.ran) throw std::runtime_error(outcome.error);
    const std::size_t n = inputs_.host.front().n;
    const Comparison cmp = compare(outcome.value, expected_, DType::f32, n);
    if (!cmp.ok) {
      bool earlier = false;
      for (const Reference& before : earlier_) earlier = earlier || compare(outcome.value, before, DType::f32, n).ok;
      throw TimedWrong{name, sample_, cmp.text, earlier};
    }
    ++sample_;
    return ms;
  }

  LabRunner runner_;
  TimedInputs& inputs_;
  std::mt19937_64 rng_;
  int sample_ = 0;
  Reference expected_;
  std::vector<Reference> earlier_;  // what the earlier samples' contents sum to
};

}  // namespace

std::size_t benchmark_floats() { return benchmark_size(4, kBenchmarkCopies); }

Verdict check_speedup(int lab) {
  const double required = minimum_speedup(lab);
  const std::optional<double> required_fraction = minimum_bandwidth_fraction(lab);
  const int base_lab = lab_info(lab).baseline;  // 0: the CPU loop
  // The thresholds go with every verdict, timed or not, so report.json always says what was asked.
  nlohmann::json figures = {{"thresholds", {{"min_speedup", required}}}};
  if (required_fraction) figures["thresholds"]["min_bandwidth_fraction"] = *required_fraction;
  auto failed = [&figures](const std::string& summary, const std::string& message) {
    return fail(summary, message, figures);
  };
  const LoadedLab loaded = load_lab(lab, Flavor::plain);
  if (!loaded) return fail(not_loadable(lab, loaded).summary, loaded.problem, figures);
  // Timed only when every check found the lab correct, and only the code they saw (design §13).
  if (auto refusal = build_dependent_code(lab)) return failed(refusal->summary, refusal->message);
  if (auto refusal = recorded_failure(lab)) return failed(refusal->summary, refusal->message);
  if (base_lab > 0)
    if (auto refusal = recorded_failure(base_lab))
      return failed("baseline lab " + std::to_string(base_lab) + " not correct",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) +
                        ", which is not correct yet: " + refusal->message);
  LoadedLab baseline;
  if (base_lab > 0) {
    baseline = load_lab(base_lab, Flavor::plain);
    if (!baseline)
      return failed("baseline lab " + std::to_string(base_lab) + " missing",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) +
                        ", which cannot be run yet:\n" + baseline.problem);
  }
  std::size_t n = 0;
  try {
    n = benchmark_size(4, kBenchmarkCopies);
    figures["n"] = n;
    TimedInputs inputs;
    for (int k = 0; k < kTimedInputs; ++k) {
      // Values in [-1, 1) from a different seed each. Not an offset range: an all-positive
      // input makes a correct lab's atomic accumulation (one add per block into a running
      // sum near n) err by more than the tree tolerance; the per-sample tweak below keeps
      // every sample's sum apart instead.
      inputs.host.push_back(make_input(Pattern::uniform, DType::f32, n, static_cast<unsigned>(k)));
    }
    // The references side by side: each is a long-double pass over 2^26 floats and more.
    std::vector<std::future<Reference>> references;
    for (const HostArray& host : inputs.host)
      references.push_back(std::async(std::launch::async, [&host] { return reference(host, Op::sum); }));
    for (auto& pending : references) inputs.references.push_back(pending.get());

    // Both contenders must be right at this size before their speed means anything.
    // The lab's own run is the one whose kernels are compared with the counted build's: a
    // second untimed call would already meet host code that remembers the first.
    std::vector<KernelLaunch> timed_kernels;
    auto verify = [&](int which, const ModuleInfo* module) -> std::string {
      RunOutcome outcome;
      auto run = [&] {
        LabRunner runner(module, DType::f32, Op::sum);
        outcome = runner.reduce(inputs.host.front());
      };
      if (which == lab && kernel_trace_available(nullptr))
        timed_kernels = trace_kernels(run);
      else
        run();
      if (outcome.todo) return lab_title(which) + " is not implemented yet";
      if (!outcome.ran) {
        const Fault fault = classify_fault(outcome.error);
        return lab_title(which) + " stopped with " + fault_name(fault.kind) + " at n = " + size_text(n) + ": " +
               outcome.error;
      }
      const Comparison cmp = compare(outcome.value, inputs.references.front(), DType::f32, n);
      return cmp.ok ? std::string() : lab_title(which) + " is not correct yet at n = " + size_text(n) + ": " + cmp.text;
    };
    if (std::string problem = verify(lab, loaded.info); !problem.empty())
      return failed("not correct yet", problem + "\nThe speed test waits until the lab is correct (labN.correctness).\n" +
                                           doc_line(lab));
    std::string traffic_note;
    if (auto refusal = timed_code_differs(lab, timed_kernels, inputs.host.front(), &traffic_note))
      return failed(refusal->summary, refusal->message);
    if (base_lab > 0)
      if (std::string problem = verify(base_lab, baseline.info); !problem.empty())
        return failed("baseline lab " + std::to_string(base_lab) + " not correct",
                    "The speed of " + lab_title(lab) + " is measured against your own " + lab_title(base_lab) + ", but " +
                        problem + ".\nFinish lab " + std::to_string(base_lab) + " first (" + lab_info(base_lab).doc + ").");

    Duel duel;
    std::string base_name;
    try {
      // Allocated once, outside every timed region; released before the copy bandwidth is measured.
      for (const HostArray& host : inputs.host) {
        inputs.device.emplace_back(n, sizeof(float));
        inputs.device.back().upload(host.data(), n * sizeof(float));
      }
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
      duel = interleave(base, contender.contender(lab_title(lab), flush), sample_count());
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
    const double speedup = duel.a_median / duel.b_median;
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
    std::ostringstream message;
    message << lab_title(lab) << " on " << facts.name << ", n = " << size_text(n) << " floats, median of "
            << duel.b_ms.size() << " interleaved samples each (every timed result checked):\n"
            << "  " << lab_title(lab) << ": " << format("%.4f ms", duel.b_median) << "\n"
            << "  " << base_name << ": " << format("%.4f ms", duel.a_median) << "\n"
            << "  speedup " << format("%.2fx", speedup) << " (required at least " << format("%.2fx", required) << ")\n"
            << traffic_note << "\n";
    std::string summary = format("%.2fx", speedup) + " (min " + format("%.2fx", required) + ")";
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
    const Fault fault = classify_fault(e.what());
    const std::string summary =
        fault.kind == FaultKind::failed ? "fault while timing" : fault_summary(fault, "n = " + std::to_string(n));
    return failed(summary, lab_title(lab) + " failed while being timed: " + e.what() + "\n" +
                               doc_line(lab, fault_hint(fault.kind)));
  }
}

}  // namespace reduce_lab::grader
