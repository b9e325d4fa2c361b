#include "checks/hints.hpp"

#include "base/catalog.hpp"

namespace reduce_lab::grader {

namespace {

// A race between threads of one block. A __syncwarp() between the steps of a warp-synchronous
// tail is not enough when a step reads a neighbour's slot and writes its own in one statement:
// the lanes of that step are not ordered, so the guard (read, __syncwarp, write) is named too.
constexpr const char* kRaceHint =
    "a race between threads: a __syncthreads() missing between writing shared memory and reading it (every step "
    "of a tree ends at a barrier); or, in a warp-synchronous tail (strides below 32), a step whose lanes read "
    "input_s[t + offset] while others write it: __syncwarp() between steps does not order the lanes within a "
    "step, so read into a register, __syncwarp(), write, __syncwarp(); __shfl_down_sync needs neither.";

// Right with one block, wrong (or order-dependent) with several: what goes wrong is how the
// blocks' sums meet in output[0], not the tree inside a block.
constexpr const char* kBlocksHint =
    "one atomicAdd per block: after the block's tree, one thread adds the block's sum into output[0] with "
    "atomicAdd(output, sum). A plain store (output[0] = sum) or a plain output[0] += sum is not atomic: blocks "
    "that finish together overwrite each other's sums (every case of one block was right; every wrong case had "
    "several).";

constexpr const char* kSumIdentityHint =
    "the identity of a sum, 0: output[0] must hold 0 before any block adds into it (one line before the launch: "
    "reduce_lab::fill(output, 0.0f)), and every missing element counts as 0. A NaN result means output[0] was "
    "added to, or returned, before it was set: the grader fills it with NaN bytes before every call.";

constexpr const char* kOpIdentityHint =
    "the op's identity: set the output to it before any block combines into it (reduce_lab::fill(output, "
    "Op::identity())), and start every accumulator, and every missing element, at Op::identity(): 0 only for a "
    "sum; for max the lowest value of T, for min the highest (all-negative input shows an identity of 0).";

constexpr const char* kAccumulatorHint =
    "the type of every accumulator and shared array: T, not float or int (an int sum must wrap as int does, and a "
    "float accumulator rounds large values).";

constexpr const char* kAnySizeHint =
    "any n: each of a thread's elements that exists (i < n) is added once, and a missing one is replaced by the "
    "op's identity; the grid covers all n elements.";

constexpr const char* kWholeSegmentsBoundsHint =
    "the index arithmetic: every n here is a power of two and every block gets all 2 x blockDim.x elements of its "
    "segment, so no element is missing and no bounds check is needed; a read past the end is an owner index (which "
    "threads own a partial sum at each stride) or its partner (owner + stride) beyond the block's segment.";

constexpr const char* kBlockSizeHint =
    "the block size: the host code launches the block_dim it is given (the grader asks for other sizes too), and "
    "the kernel works from blockDim.x, never from a constant such as MAX_BLOCK_DIM: in a smaller block the tree has "
    "fewer partial sums, and other steps are partial.";

}  // namespace

const char* idea_to_revisit(int lab) { return is_lab(lab) ? lab_info(lab).revisit.c_str() : ""; }

std::string wrong_result_hint(const WrongResults& wrong) {
  if (wrong.block_size_ignored || wrong.all_other_block_sizes) return kBlockSizeHint;
  // Blocks that are each right but meet wrongly: whether or not the emulator saw the order matter.
  if (wrong.single_launch && wrong.all_several_blocks && wrong.one_block_passed) return kBlocksHint;
  if (wrong.race) return kRaceHint;
  if (wrong.single_launch && (wrong.any_nan || wrong.all_extremum_identity))
    return wrong.all_sums ? kSumIdentityHint : kOpIdentityHint;
  // Only the large values, or only one of several types: what the accumulators hold.
  if (wrong.all_large || wrong.one_type_of_several) return kAccumulatorHint;
  if (wrong.single_launch && wrong.all_odd_sizes && wrong.power_of_two_passed) return kAnySizeHint;
  return "";
}

std::string fault_hint_at(FaultKind kind, bool whole_segments) {
  if (kind == FaultKind::out_of_bounds && whole_segments) return kWholeSegmentsBoundsHint;
  return fault_hint(kind);
}

const char* timed_hint() {
  return "every call does the whole reduction: no result kept from an earlier call, no kernel skipped, and no race "
         "(a barrier between writing shared memory and reading it).";
}

const char* traffic_summary(TrafficProblem problem) {
  switch (problem) {
    case TrafficProblem::block_result_stored: return "atomics";  // the line itself heads the summary
    case TrafficProblem::loads_missing: return "loads missing";
    case TrafficProblem::loads_repeated: return "loads repeated";
    case TrafficProblem::uncoalesced: return "uncoalesced";
    case TrafficProblem::stores: return "stores of partials";
    case TrafficProblem::atomics: return "atomics";
    case TrafficProblem::row_stores: return "stores per row";
    case TrafficProblem::row_atomics: return "atomics per row";
    case TrafficProblem::barriers: return "barriers";
    case TrafficProblem::shared_memory: return "shared memory";
  }
  return "traffic differs";
}

std::string traffic_hint(TrafficProblem problem, bool generic_ops, int lab) {
  const std::string one_atomic =
      generic_ops ? "one atomic per block (reduce_lab::atomic_combine<Op>(output, value))" : "one atomicAdd per block";
  switch (problem) {
    case TrafficProblem::block_result_stored:
      return one_atomic + ": after the block's tree, one thread combines the block's result into output[0] "
                          "atomically. A plain store (output[0] = sum) or output[0] += sum (a load, then a store) "
                          "is not atomic: blocks that finish together overwrite each other's results.";
    case TrafficProblem::loads_missing:
      return "every element 0 to n-1 is loaded: the grid covers all n elements, and each thread's loop reaches "
             "its last element.";
    case TrafficProblem::loads_repeated:
      return "each element is loaded once, by one thread: a thread's elements and the blocks' segments do not "
             "overlap, and nothing at or past n is read.";
    case TrafficProblem::uncoalesced:
      return "coalescing: consecutive lanes of a warp read consecutive elements (the index ends in + threadIdx.x), "
             "so each warp instruction reads one contiguous run that fills whole 32-byte sectors; a run narrower "
             "than a sector (one lane reading alone, a tail read one element at a time) shares its sector with "
             "others, and each of them fetches it again.";
    case TrafficProblem::stores:
      return "partial results stay in registers and shared memory: the only global write is the block's one "
             "atomic.";
    case TrafficProblem::atomics:
      return one_atomic + ": one thread combines the block's result into output, after the block's tree.";
    case TrafficProblem::row_stores:
      return "one store per row: after a row's reduction, one lane (or thread) writes out[row]; partial results "
             "stay in registers and shared memory, and nothing else of out is written.";
    case TrafficProblem::row_atomics:
      return "atomics only where several blocks share a row, one per block "
             "(reduce_lab::atomic_combine<Op>(out + row, value)); a row that one warp or block reduces is stored.";
    case TrafficProblem::barriers:
      return idea_to_revisit(lab);  // a lab whose barriers are bounded names them in its own idea
    case TrafficProblem::shared_memory:
      return "";  // named by the shared-memory judgement itself (shared_hint)
  }
  return "";
}

}  // namespace reduce_lab::grader
