#include "checks/count_checks.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "checks/book_models.hpp"
#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "checks/counter_fields.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "run/lab_runner.hpp"
#include "checks/shared_checks.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader {

namespace {

// Steps of a tree adding `fan_in` values a step over `values` values: ceil(log_fan_in(values)).
unsigned fan_in_steps(unsigned fan_in, unsigned values) {
  unsigned steps = 0;
  for (unsigned long long covered = 1; covered < values && fan_in > 1; covered *= fan_in) ++steps;
  return steps;
}

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

// "has bank conflicts and leaves lanes idle": the flaws a judgement found, for a message.
std::string shared_flaws(const SharedJudgement& tree) {
  const bool banks = tree.conflicts > 0, idle = tree.lines.size() > (banks ? 1u : 0u);
  return std::string(banks ? "has bank conflicts" : "") + (banks && idle ? " and " : "") +
         (idle ? "leaves lanes idle (divergence)" : "");
}

// The judgement's figures, one indented line each.
std::string shared_lines(const SharedJudgement& tree) {
  std::string text;
  for (const std::string& line : tree.lines) text += "    " + line + "\n";
  return text;
}

// Row labs: each row's result is written once, and only by its own warp or block, or by the
// blocks that share the row. Counted in lanes: a store or an atomic of one lane writes one value.
template <class Found>
void judge_row_writes(const Counters& c, std::size_t rows, unsigned long long blocks, Found&& found) {
  const unsigned long long stores = c.active_lanes[static_cast<int>(Access::store)];
  const unsigned long long atomics = c.active_lanes[static_cast<int>(Access::atomic)];
  const std::string m = std::to_string(rows);
  if (stores > rows)
    found(TrafficProblem::row_stores, "values stored " + std::to_string(stores) + ", expected at most " + m +
                                          " (one per row; partial results belong in registers and shared memory)");
  else if (atomics == 0 && stores != rows)
    found(TrafficProblem::row_stores, "values stored " + std::to_string(stores) + ", expected " + m + " (one per row)");
  if (atomics > 0 && blocks <= rows)
    found(TrafficProblem::row_atomics, "atomics " + std::to_string(atomics) + " with " + std::to_string(blocks) +
                                           " block(s) for " + m + " rows, expected none (no row is shared by blocks)");
  else if (atomics > blocks)
    found(TrafficProblem::row_atomics, "atomics " + std::to_string(atomics) + ", expected at most " +
                                           std::to_string(blocks) + " (one per block launched)");
  else if (atomics > 0 && stores + atomics < rows)
    found(TrafficProblem::row_stores, "values stored " + std::to_string(stores) + " and atomics " +
                                          std::to_string(atomics) + ", expected every one of the " + m +
                                          " rows written");
}

}  // namespace

Verdict check_book_requests(int lab, const std::vector<std::size_t>& sizes, Origin origin) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, origin);
  if (!loaded) return not_loadable(lab, loaded);
  // What the counts are compared with: the book's kernels of labs 1-3, or another model's (lab 11's).
  const std::string& model = lab_info(lab).book_model;
  const std::string model_kernel = model == "simple" || model == "convergent" || model == "shared-memory"
                                       ? "the book's kernel"
                                       : "the " + model + " kernel";

  std::ostringstream figures, problems;
  std::string summary;
  std::optional<SharedJudgement> shared_problem;  // the first size whose tree has a flaw
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
          mismatch += "    " + std::string(line.what) + ": " + std::to_string(line.get(got)) + ", " + model_kernel +
                      " " + std::to_string(line.get(expected)) + "\n";
      nlohmann::json size = {{"n", n},
                              {"blocks", outcome.launches.blocks},
                              {"measured", counts_json(got)},
                              {"book", counts_json(expected)},
                              {"equal", mismatch.empty()}};
      if (lab_info(lab).shared_tree_bound) {
        const SharedJudgement tree = judge_shared_tree(got, outcome.launches);
        size["shared_bound"] = shared_bound_json(tree);
        size["shared_ok"] = !tree.problem;
        if (tree.problem && (!shared_problem || n == 2048)) {  // 2048: the size the lab page shows
          shared_problem = tree;
          shared_problem_n = n;
        }
      }
      measured["sizes"].push_back(size);
      if (n == 256 || n == 2048) {
        figures << "  n = " << n << ": " << describe_requests(got) << " requests (" << model_kernel << ": "
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
                    ", but its tree in shared memory " + shared_flaws(*shared_problem) + ". At n = " +
                    std::to_string(shared_problem_n) + ", counted per warp instruction (a wavefront is one pass of "
                    "the 32 banks):\n" + shared_lines(*shared_problem) +
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

Verdict check_traffic(int lab, const TrafficPlan& plan) {
  const LoadedLab loaded = load_lab(lab, Flavor::counted, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);

  std::ostringstream problems, figures;
  std::string summary, variant_barriers, variant_values;
  std::optional<TrafficProblem> first_problem;
  std::string first_label, first_line;
  std::optional<SharedJudgement> first_shared;
  int cases = 0;
  nlohmann::json measured = {{"cases", nlohmann::json::array()},
                             {"thresholds",
                              {{"bytes_loaded", "n x sizeof(T), exactly"},
                               {"load_sectors", "at most ceil(bytes / 32) + the load seam sectors measured (the partly "
                                                "covered sectors at the ends of each contiguous warp-wide run)"},
                               {"stores",
                                plan.shapes.empty() ? nlohmann::json(0) : nlohmann::json("one value per row")},
                               {"atomics", !plan.shapes.empty()       ? "at most one per block, where blocks share rows"
                                           : plan.elements_per_block ? "ceil(n / elements_per_block)"
                                                                     : "one per block launched"},
                               {"elements_per_block", plan.elements_per_block},
                               {"max_barriers_per_block", plan.max_barriers_per_block}}}};
  try {
    const bool rows = loaded.info->kind == LabKind::rows;
    for (DType dtype : plan.dtypes) {
      for (Op op : plan.ops) for (unsigned variant : plan.variants) {
        LabRunner runner(loaded.info, dtype, op, Flavor::counted, variant);
        const std::string variant_label = variant_text(lab, variant);
        const bool first_config = dtype == plan.dtypes.front() && op == plan.ops.front();
        std::vector<Shape> shapes = plan.shapes;
        for (std::size_t n : plan.sizes) shapes.push_back({1, n});
        if (first_config && variant == plan.variants.front())
          shapes.insert(shapes.begin(), plan.once_shapes.begin(), plan.once_shapes.end());  // the last names the summary
        for (const Shape& shape : shapes) {
          const std::size_t n = shape.elements();
          const std::string label = case_label(loaded.info->kind, dtype, op, n, shape.rows, variant_label);
          thread_order::use(thread_order::process_seed());
          const RunOutcome outcome = runner.reduce(make_matrix(Pattern::uniform, dtype, shape));
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
          const unsigned barrier_bound = plan.barriers_per_fan_in_step
                                             ? fan_in_steps(variant_value(variant), threads_per_block(outcome.launches))
                                             : plan.max_barriers_per_block;
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
          if (rows) {
            judge_row_writes(c, shape.rows, outcome.launches.blocks, found);
          } else {
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
          }
          if (barrier_bound && barriers > barrier_bound)
            found(TrafficProblem::barriers,
                  "__syncthreads per block " + format("%.2f", barriers) + ", expected at most " +
                      std::to_string(barrier_bound) +
                      (plan.barriers_per_fan_in_step
                           ? " (one per step of a tree adding " + std::to_string(variant) + " values a step: ceil(log_" +
                                 std::to_string(variant) + "(" + std::to_string(threads_per_block(outcome.launches)) +
                                 " threads)))"
                           : std::string()));
          nlohmann::json counted = counts_json(c);
          if (plan.shared_tree_bound) {
            const SharedJudgement tree = judge_shared_tree(c, outcome.launches);
            counted["shared_bound"] = shared_bound_json(tree);
            for (const std::string& line : tree.lines) found(TrafficProblem::shared_memory, line);
            if (tree.problem && !first_shared) first_shared = tree;
          }
          counted["barriers_per_block"] = barriers;
          measured["cases"].push_back(
              {{"dtype", dtype_name(dtype)},
               {"op", op_name(op)},
               {"variant", variant},
               {"n", n},
               {"rows", shape.rows},
               {"launches", {{"launches", outcome.launches.launches},
                             {"blocks", outcome.launches.blocks},
                             {"warps", outcome.launches.warps}}},
               {"measured", counted},
               {"expected", {{"bytes_loaded", bytes},
                             {"ideal_load_sectors", sectors},
                             {"load_seam_sectors", seams},
                             {"max_load_sectors", allowed_sectors},
                             {"atomics", rows ? nlohmann::json("at most one per block, where blocks share rows")
                                              : nlohmann::json(atomics)},
                             {"max_barriers_per_block", barrier_bound}}},
               {"ok", wrong.empty()}});
          if (!wrong.empty() && problems.tellp() < 2000)
            problems << "  " << (variant_label.empty() ? "" : variant_label + ", ") << dtype_name(dtype) << " "
                     << op_name(op) << ", "
                     << (rows ? shape_text(shape) : "n = " + std::to_string(n)) << ":\n" << wrong;
          if (first_config && &shape == &shapes.back()) {
            const std::string where = rows ? shape_text(shape) : size_text(n);
            // A lab with variants: the barriers of each, "512 atomics, barriers 10/5/4/3 (K = 2/4/8/16) @2^20".
            // A lab that chooses a parameter (lab 10's factor) says what it chose there.
            const LabInfo::Sweep& sweep = lab_info(lab).sweep;
            const std::string chose =
                sweep.values.empty() ? "" : " (" + sweep.name + " " + std::to_string(outcome.variant_used) + ")";
            if (variant_label.empty())
              summary = std::to_string(c.requests[2]) + " atomics" + chose + ", " + format("%.0f", barriers) +
                        " barriers @" + where;
            else {
              variant_barriers += (variant == plan.variants.front() ? "" : "/") + format("%.0f", barriers);
              variant_values += (variant == plan.variants.front() ? "" : "/") + std::to_string(variant);
              summary = std::to_string(c.requests[2]) + " atomics, barriers " + variant_barriers + " (" +
                        lab_info(lab).variant_name + " = " + variant_values + ") @" + where;
            }
            figures << "  " << (variant_label.empty() ? "" : variant_label + ", ")
                    << (rows ? where : "n = " + std::to_string(n)) << ": load requests " << c.requests[0]
                    << ", load sectors " << c.sectors[0]
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
                lab_title(lab) + " uses global memory as this lab asks, but its tree in shared memory " +
                    shared_flaws(*first_shared) + " (counted per warp instruction; a wavefront is one pass of the "
                    "32 banks):\n" + problems.str() + doc_line(lab, shared_hint(*first_shared->problem)) +
                    picture_line(lab),
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

}  // namespace reduce_lab::grader
