#include "checks/order_check.hpp"

#include <algorithm>
#include <cstring>
#include <sstream>

#include <reduce_lab/order_probe.h>

#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "base/faults.hpp"
#include "run/lab_runner.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader {

namespace probe = reduce_lab::order_probe;

const char* tree_order_name(TreeOrder order) {
  switch (order) {
    case TreeOrder::keeps: return "keeps order";
    case TreeOrder::mirrored: return "swaps operands";
    case TreeOrder::mixed: return "does not keep order";
    case TreeOrder::lost: return "loses elements";
  }
  return "?";
}

TreeOrder classify_order(unsigned bits, std::size_t n) {
  if (bits == probe::kIdentityBits || probe::low(bits) != 0 || probe::high(bits) + 1 != n) return TreeOrder::lost;
  if (n == 1 || (bits & probe::kInOrder)) return TreeOrder::keeps;
  if (bits & probe::kMirrored) return TreeOrder::mirrored;
  return TreeOrder::mixed;
}

namespace {

HostArray positions(std::size_t n) {
  HostArray input;
  input.dtype = DType::i32;
  input.n = n;
  input.bytes.resize(n * sizeof(unsigned));
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned bits = probe::element(static_cast<unsigned>(i));
    std::memcpy(input.bytes.data() + i * sizeof bits, &bits, sizeof bits);
  }
  return input;
}

// n as the report prints it: 2, 4, ... 512, then 2^10 and up.
std::string n_text(std::size_t n) { return n < 1024 ? std::to_string(n) : size_text(n); }

std::string positions_text(unsigned bits) {
  return std::to_string(probe::low(bits)) + ".." + std::to_string(probe::high(bits));
}

// One tree's run at every power of two: where it first stopped keeping order, and how.
struct TreeRun {
  unsigned tree = 0;
  std::size_t kept_up_to = 1;     // the largest n up to which every result kept order
  std::size_t first_other = 0;    // the first n whose result did not (0: none)
  TreeOrder first = TreeOrder::keeps, largest = TreeOrder::keeps;
  unsigned first_bits = 0;
  bool todo = false;
  std::string fault, fault_where;
};

TreeRun run_tree(const ModuleInfo* module, unsigned tree) {
  TreeRun run;
  run.tree = tree;
  LabRunner runner(module, DType::i32, Op::order, Flavor::plain, tree);
  for (std::size_t n = 2; n <= probe::kMaxElements; n *= 2) {
    thread_order::use(thread_order::process_seed());
    const RunOutcome outcome = runner.reduce(positions(n));
    if (outcome.todo) {
      run.todo = true;
      return run;
    }
    if (!outcome.ran) {
      run.fault = outcome.error;
      run.fault_where = variant_text(module->lab, tree) + ", n = " + std::to_string(n);
      return run;
    }
    const std::int32_t value = static_cast<std::int32_t>(outcome.value);
    unsigned bits;
    std::memcpy(&bits, &value, sizeof bits);
    const TreeOrder order = classify_order(bits, n);
    run.largest = order;
    if (order == TreeOrder::keeps && run.first_other == 0) run.kept_up_to = n;
    if (order != TreeOrder::keeps && run.first_other == 0) {
      run.first_other = n;
      run.first = order;
      run.first_bits = bits;
    }
    if (order == TreeOrder::lost) break;  // the sums' check names the elements; no larger n tells more
  }
  return run;
}

std::string tree_name(int lab, unsigned tree) { return variant_text(lab, tree) + " (lab " + std::to_string(tree) + "'s)"; }

// One line of the report: what the tree did, from the smallest n on.
std::string tree_line(int lab, const TreeRun& run) {
  std::string line = tree_name(lab, run.tree) + ": ";
  if (run.first_other == 0)
    return line + "keeps order at every n from 2 to " + size_text(probe::kMaxElements);
  line += run.kept_up_to > 1 ? "keeps order up to n = " + n_text(run.kept_up_to) + "; at n = " : "at n = ";
  line += n_text(run.first_other) + " it " + tree_order_name(run.first) + " (Order's result: positions " +
          positions_text(run.first_bits);
  if (run.first == TreeOrder::mixed) line += ", each once, in neither order";
  if (run.first == TreeOrder::mirrored) line += ", right to left";
  return line + ")";
}

}  // namespace

Verdict check_order(int lab, const CorrectnessPlan& plan) {
  const Verdict sums = check_correctness(lab, plan);
  if (sums.status != Status::pass) return sums;

  const LoadedLab loaded = load_lab(lab, Flavor::plain, plan.origin);
  if (!loaded) return not_loadable(lab, loaded);
  const LabInfo& info = lab_info(lab);
  std::vector<TreeRun> runs;
  for (unsigned tree : info.variants) {
    runs.push_back(run_tree(loaded.info, tree));
    const TreeRun& run = runs.back();
    if (run.todo) return not_implemented(lab, plan.origin);
    if (!run.fault.empty()) {
      const Fault fault = classify_fault(run.fault);
      return fail(fault_summary(fault, run.fault_where + ", Order"),
                  lab_title(lab) + " stopped with " + fault_name(fault.kind) + " at " + run.fault_where +
                      " with Order:\n" + indented(run.fault) + "\n" + doc_line(lab) + picture_line(lab, tree));
    }
  }

  nlohmann::json figures = sums.figures;
  std::string report, problems, summary_keeps;
  const TreeRun* first_problem = nullptr;
  for (const TreeRun& run : runs) {
    const bool expected = std::find(info.keeps_order.begin(), info.keeps_order.end(), run.tree) != info.keeps_order.end();
    const bool kept = run.first_other == 0;
    figures["order"].push_back({{"variant", run.tree},
                                {"expected", expected ? "keeps order" : "does not keep order"},
                                {"kept_up_to", run.kept_up_to},
                                {"first_other_n", run.first_other},
                                {"first_other", run.first_other ? nlohmann::json(tree_order_name(run.first)) : nlohmann::json()},
                                {"largest_n", tree_order_name(run.largest)}});
    report += "  " + tree_line(lab, run) + "\n";
    if (kept) summary_keeps += (summary_keeps.empty() ? " " : ", ") + std::to_string(run.tree);
    std::string problem;
    if (run.first == TreeOrder::lost)
      problem = tree_name(lab, run.tree) + " does not combine every position exactly once at n = " +
                n_text(run.first_other) + ": its result covers positions " + positions_text(run.first_bits) +
                ". Each element must enter the tree once.";
    else if (expected && run.first == TreeOrder::mirrored)
      problem = tree_name(lab, run.tree) +
                " swaps its operands: every pair it combines puts the right-hand range first, so Order's result "
                "runs right to left. A tree may only combine neighbouring ranges, the left one as op's first "
                "operand: op(input[i], input[i + stride]), not op(input[i + stride], input[i]).";
    else if (expected && !kept)
      problem = tree_name(lab, run.tree) + " should keep order, as lab " + std::to_string(run.tree) +
                "'s tree does, but at n = " + n_text(run.first_other) +
                " it combines ranges that are not neighbours. Combine element i with the one `stride` places to "
                "its right, the left one first.";
    else if (!expected && kept)
      problem = tree_name(lab, run.tree) + " keeps order at every n up to " + size_text(probe::kMaxElements) +
                ", but lab " + std::to_string(run.tree) + "'s tree does not: port the tree you wrote for lab " +
                std::to_string(run.tree) + ", with op(a, b) where it adds a + b.";
    if (!problem.empty()) {
      problems += "  " + problem + "\n";
      if (first_problem == nullptr) first_problem = &run;
    }
  }
  const std::string cases = sums.figures.value("cases_run", 0) ? std::to_string(sums.figures["cases_run"].get<int>()) : "all";
  const std::string head = lab_title(lab) + ": the trees reduced all " + cases +
                           " int sums correctly. With Order, an operator that is associative but not commutative:\n";
  if (first_problem != nullptr) {
    // A tree that kept order at every n has first == keeps: its problem is that it kept it.
    const std::string summary = std::string(tree_order_name(first_problem->first)) + ": " +
                                variant_text(lab, first_problem->tree);
    std::string keeps, others;  // "1", "2, 4, 7"
    for (unsigned tree : info.variants) {
      std::string& list =
          std::find(info.keeps_order.begin(), info.keeps_order.end(), tree) != info.keeps_order.end() ? keeps : others;
      list += (list.empty() ? "" : ", ") + std::to_string(tree);
    }
    // A tree that kept order where its lab's does not was not that lab's tree; any other problem is
    // in how the tree pairs its operands.
    const bool ported_wrong = first_problem->first_other == 0;
    const std::string hint = ported_wrong ? "each tree here is an earlier lab's: port lab " +
                                                std::to_string(first_problem->tree) +
                                                "'s tree as you wrote it there, with op(a, b) where it adds a + b."
                                          : info.revisit;
    return fail(summary,
                head + report + "Expected: keeping order, tree " + (keeps.empty() ? std::string("none") : keeps) +
                    "; not keeping it, tree " + (others.empty() ? std::string("none") : others) + ".\n" + problems +
                    doc_line(lab, hint) +
                    // ./lab show draws a float sum, whose pictures cannot tell a swap: op(b, a) reads
                    // and writes what op(a, b) does. A tree that pairs other elements they do show.
                    (first_problem->first == TreeOrder::mirrored ? std::string() : picture_line(lab, first_problem->tree)),
                figures);
  }
  // Short, for the table: the trees that keep order ("1 in order").
  std::string summary = (summary_keeps.empty() ? std::string("none") : summary_keeps.substr(1)) + " in order";
  return pass(summary, head + report + "As the lesson says: only a tree that combines neighbouring ranges, left first, "
                                        "may reduce an operator that is not commutative.\n", figures);
}

}  // namespace reduce_lab::grader
