#include "checks/correctness_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "base/catalog.hpp"
#include "checks/check_messages.hpp"
#include "base/faults.hpp"
#include "checks/hints.hpp"
#include "measure/phase_times.hpp"
#include "run/lab_runner.hpp"
#include "base/reference.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader {

std::vector<std::size_t> powers_of_two(std::size_t low, std::size_t high) {
  std::vector<std::size_t> sizes;
  for (std::size_t n = low; n <= high; n *= 2) sizes.push_back(n);
  return sizes;
}

std::size_t case_count(const CorrectnessPlan& plan) {
  return (plan.sizes.size() + plan.shapes.size() +
          (plan.special_sizes.size() + plan.special_shapes.size()) * plan.special_patterns.size()) *
             plan.dtypes.size() * plan.ops.size() * plan.variants.size() +
         plan.once_sizes.size() + plan.once_shapes.size() +
         plan.special_sizes.size() * plan.dtypes.size() * plan.ops.size() * plan.block_variants.size();
}

namespace {

struct Case {
  DType dtype;
  Op op;
  std::size_t n;  // elements in the input
  Pattern pattern;
  std::string label;  // "n = 31", "float max n = 31", "float max 70000 x 3"
  std::size_t rows = 0;  // row labs: the input's rows; 0 otherwise
  std::string variant;   // "K = 4" for a lab with variants; empty otherwise
  unsigned variant_value = 0;  // Call::variant of the case (with_block_size's bits included)
  std::string where() const {
    const std::string size = rows ? shape_text({rows, n / rows}) : "n = " + std::to_string(n);
    return (variant.empty() ? std::string() : variant + ", ") + dtype_name(dtype) + " " + op_name(op) + ", " + size +
           ", " + pattern_name(pattern, dtype, op);
  }
};

struct WrongCase {
  Case what;
  std::string text;  // "got 1, expected 2"
  double got = 0;
  std::size_t row = 0;  // row labs: the first wrong row, whose result `got` is
  bool checked_order = false;  // run again under other thread orders (emulator)
  std::string race;            // what those runs gave, when the result depended on the order
  unsigned long long blocks = 0;  // blocks the case launched (the first pass's, for labs 1-3)
  bool block_size_ignored = false;  // it launched another block size than the case asked for
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
  const std::size_t n = input.n / input.rows;  // the elements the wrong value reduced
  const double allowed = tolerance(ref, input.dtype, n);
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
      const double value = outcome.values.at(wrong.row);
      const bool same = (std::isnan(value) && std::isnan(wrong.got)) || std::fabs(value - wrong.got) <= allowed;
      right_somewhere = right_somewhere || compare(value, ref, input.dtype, n).ok;
      differs = differs || !same;
      if (same) continue;  // the list shows the results that differ
      gave = value_text(value);
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

// What the wrong cases have in common, for the hint (hints.hpp).
WrongResults wrong_results(const ModuleInfo* module, const CorrectnessPlan& plan, const std::vector<WrongCase>& wrong,
                           bool power_of_two_passed, bool one_block_passed) {
  WrongResults facts;
  if (wrong.empty()) return facts;
  facts.single_launch = module->kind != LabKind::multipass;
  facts.power_of_two_passed = power_of_two_passed;
  facts.one_block_passed = one_block_passed;
  facts.all_extremum_identity = facts.all_sums = facts.all_large = facts.all_odd_sizes = facts.all_several_blocks =
      facts.all_other_block_sizes = true;
  bool one_type = true;
  for (const WrongCase& w : wrong) {
    one_type = one_type && w.what.dtype == wrong.front().what.dtype;
    facts.any_nan = facts.any_nan || std::isnan(w.got);
    facts.race = facts.race || !w.race.empty();
    facts.block_size_ignored = facts.block_size_ignored || w.block_size_ignored;
    facts.all_other_block_sizes = facts.all_other_block_sizes && variant_block_size(w.what.variant_value) != 0;
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
      // Every op of a type reduces the same inputs: each is drawn once and kept while the kept
      // ones are small (drawing them again for each op took a sixth of an emulator run).
      constexpr std::size_t kKeptInputBytes = std::size_t{256} << 20;
      // Past that, the last input drawn is kept too, until another replaces it: a GPU's one
      // large input (lab 8's 2^28 elements, 1-2 GiB) is then drawn once for the type, not once
      // for each op as before.
      using Key = std::tuple<Pattern, std::size_t, std::size_t>;
      std::map<Key, HostArray> drawn;
      std::size_t kept_bytes = 0;
      HostArray unkept;
      std::optional<Key> unkept_key;
      auto input_for = [&](Pattern pattern, Shape shape) -> const HostArray& {
        const Key key = std::make_tuple(pattern, shape.rows, shape.columns);
        if (const auto found = drawn.find(key); found != drawn.end()) return found->second;
        if (unkept_key == key) return unkept;
        HostArray input = [&] {
          const Phase phase("inputs");
          return make_matrix(pattern, dtype, shape);
        }();
        if (kept_bytes + input.bytes.size() > kKeptInputBytes) {
          unkept_key = key;
          return unkept = std::move(input);
        }
        kept_bytes += input.bytes.size();
        return drawn.emplace(key, std::move(input)).first->second;
      };
      for (Op op : plan.ops) {
        if (!module->supports(dtype, op)) {
          WrongCase unsupported;
          unsupported.what = {dtype, op, 0, Pattern::uniform, std::string(dtype_name(dtype)) + " " + op_name(op)};
          unsupported.text = "not supported by the module";
          unsupported.got = NAN;
          wrong.push_back(unsupported);
          continue;
        }
        std::vector<unsigned> variants = plan.variants;
        variants.insert(variants.end(), plan.block_variants.begin(), plan.block_variants.end());
        for (unsigned variant : variants) {
          LabRunner runner(module, dtype, op, Flavor::plain, variant);
          const unsigned block_size = variant_block_size(variant);
          const std::string variant_label = variant_text(lab, variant);
          const bool rows = module->kind == LabKind::rows;
          auto run_case = [&](Shape shape, Pattern pattern) {
            const std::size_t n = shape.elements();
            const Case what{dtype, op, n, pattern,
                            case_label(module->kind, dtype, op, n, shape.rows, variant_label), rows ? shape.rows : 0,
                            variant_label, variant};
            const HostArray& input = input_for(pattern, shape);
            thread_order::use(thread_order::process_seed());  // every case replays from one seed
            const RunOutcome outcome = [&] {
              const Phase phase("runs");
              return runner.reduce(input);
            }();
            ++cases;
            if (outcome.todo) {
              todo = true;
              throw Stop{};
            }
            if (!outcome.ran) {
              fault = FaultCase{what, classify_fault(outcome.error), outcome.error};
              throw Stop{};  // a kernel fault can leave the device unusable; stop here
            }
            const unsigned launched = threads_per_block(outcome.launches);
            if (block_size != 0 && launched != 0 && launched != (block_size + 31) / 32 * 32) {
              WrongCase w{what,
                          "launched blocks of " + std::to_string(launched) + " threads, not the " +
                              std::to_string(block_size) +
                              " the grader asked for: launch with the block_dim your host code is given",
                          outcome.value, 0, false, {}, outcome.launches.blocks, true};
              wrong.push_back(std::move(w));
              return false;
            }
            std::vector<Reference> refs;
            const WrongRows found = [&] {
              const Phase phase("references");
              refs = rows ? row_references(input, op) : std::vector{reference(input, op)};
              return wrong_rows(outcome.values, refs, dtype, shape.columns);
            }();
            const std::size_t first_wrong = found.first;
            Comparison cmp = found.first_comparison;
            if (found.count == 0) {
              power_of_two_passed = power_of_two_passed || is_power_of_two(n);
              one_block_passed = one_block_passed || outcome.launches.blocks == 1;
              return true;
            }
            if (rows)
              cmp.text = std::to_string(found.count) + " of " + std::to_string(shape.rows) + " rows wrong; row " +
                         std::to_string(first_wrong) + ": " + cmp.text;
            WrongCase w{what, cmp.text, outcome.values.at(first_wrong), first_wrong, false, {},
                        outcome.launches.blocks};
            const int checked = static_cast<int>(std::count_if(wrong.begin(), wrong.end(),
                                                               [](const WrongCase& x) { return x.checked_order; }));
            if (thread_order::available() && checked < kWrongCasesRunAgain)
              run_under_other_orders(runner, input, refs[first_wrong], w);
            wrong.push_back(std::move(w));
            return false;
          };
          std::vector<Shape> shapes = plan.shapes, special_shapes = plan.special_shapes;
          for (std::size_t n : plan.sizes) shapes.push_back({1, n});
          for (std::size_t n : plan.special_sizes) special_shapes.push_back({1, n});
          if (block_size != 0) {  // the special sizes with random inputs: the tree in another block size
            shapes.clear();
            for (std::size_t n : plan.special_sizes) shapes.push_back({1, n});
            special_shapes.clear();
          }
          if (dtype == plan.dtypes.front() && op == plan.ops.front() && variant == plan.variants.front()) {
            shapes.insert(shapes.end(), plan.once_shapes.begin(), plan.once_shapes.end());
            for (std::size_t n : plan.once_sizes) shapes.push_back({1, n});
          }
          int wrong_random = 0;
          for (Shape shape : shapes)
            if (!run_case(shape, Pattern::uniform) && ++wrong_random >= plan.stop_after_wrong) break;
          for (Shape shape : special_shapes)
            for (Pattern pattern : plan.special_patterns) run_case(shape, pattern);
        }
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
      {"once_sizes", plan.once_sizes},
      {"thresholds", {{"tolerance", "2 x ceil(log2 n) x eps(type) x sum|x|; exact where no order of additions rounds"},
                      {"stop_after_wrong", plan.stop_after_wrong}}}};
  for (const Shape& shape : plan.shapes) figures["shapes"].push_back({shape.rows, shape.columns});
  for (const Shape& shape : plan.special_shapes) figures["special_shapes"].push_back({shape.rows, shape.columns});
  for (const Shape& shape : plan.once_shapes) figures["once_shapes"].push_back({shape.rows, shape.columns});
  for (DType dtype : plan.dtypes) figures["dtypes"].push_back(dtype_name(dtype));
  for (Op op : plan.ops) figures["ops"].push_back(op_name(op));
  for (std::size_t i = 0; i < wrong.size() && i < 8; ++i) {
    const WrongCase& w = wrong[i];
    figures["wrong"].push_back({{"case", w.what.n ? w.what.where() : w.what.label},
                                {"result", w.text},
                                {"race", w.race.empty() ? nlohmann::json() : nlohmann::json(w.race)}});
  }
  if (fault) figures["fault"] = {{"kind", fault_name(fault->fault.kind)}, {"case", fault->what.where()}};
  // The case a failure shows, and draws (its See it line; ./lab's picture after a failed grade
  // reads first_wrong_variant): the fault's, else the first whose result depended on the order,
  // else the first wrong one.
  const auto race = std::find_if(wrong.begin(), wrong.end(), [](const WrongCase& w) { return !w.race.empty(); });
  const Case* shown = fault                ? &fault->what
                      : race != wrong.end() ? &race->what
                      : wrong.empty()       ? nullptr
                                            : &wrong.front().what;
  if (shown != nullptr && variant_value(shown->variant_value) != 0)
    figures["first_wrong_variant"] = variant_value(shown->variant_value);

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
    message << replay << doc_line(lab, fault_hint_at(kind, whole_segments)) << picture_line(lab, shown->variant_value);
    return fail(fault_summary(fault->fault, fault->what.label), message.str(), figures);
  }
  if (!grader_error.empty())
    return fail("grader error", "the grader could not run " + lab_title(lab) + ": " + grader_error, figures);
  if (wrong.empty())
    return pass(std::to_string(cases) + " cases ok",
                lab_title(lab) + ": all " + std::to_string(cases) + " inputs reduced correctly (" + seed_note() + ").",
                figures);

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
  message << replay << doc_line(lab, hint) << picture_line(lab, shown->variant_value);
  return fail(summary, message.str(), figures);
}

}  // namespace reduce_lab::grader
