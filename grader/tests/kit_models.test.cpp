// The book models the requests tests compare with must reproduce the figures measured on
// an H200 with the same counting model (design §4).
#include "checks/book_models.hpp"
#include "catch_compat.hpp"
#include "checks/profiler_names.hpp"
#include "checks/shared_checks.hpp"

#include <reduce_lab/bank_tally.h>

using namespace reduce_lab::grader;

TEST_CASE("kit models") {
  SECTION("n = 256, one block of 128 threads") {
    const auto simple = model_simple_pass(256), convergent = model_convergent_pass(256),
               shared = model_shared_memory_pass(256);
    CHECK(simple.requests[0] == 95);
    CHECK(simple.requests[1] == 48);
    CHECK(convergent.requests[0] == 25);
    CHECK(convergent.requests[1] == 13);
    CHECK(shared.requests[0] == 8);
    CHECK(shared.requests[1] == 1);
    // SIMD efficiency over the counted warp instructions: 767/(83*32) and 767/(38*32).
    CHECK(simple.active_lanes[0] + simple.active_lanes[1] == 767);
    CHECK(simple.instructions[0] + simple.instructions[1] == 83);
    CHECK(convergent.instructions[0] + convergent.instructions[1] == 38);
    CHECK(simd_efficiency(simple) == Approx(0.2888).epsilon(0.001));
    CHECK(simd_efficiency(convergent) == Approx(0.6307).epsilon(0.001));
    CHECK(simple.barrier_warps == 8 * 4);
    // Neighbored-less: lab 1's pairs and so its 143 requests, in far fewer warp instructions.
    const auto less = model_neighbored_less_pass(256);
    CHECK(total_requests(less) == total_requests(simple));
    CHECK(total_requests(less) == 143);
    CHECK(less.instructions[0] + less.instructions[1] < simple.instructions[0] + simple.instructions[1]);
  }
  SECTION("n = 2048, one block of 1024 threads") {
    const auto simple = model_simple_pass(2048);
    CHECK(total_requests(simple) == 1151);
    CHECK(simple.sectors[0] == 2047);
    CHECK(simple.sectors[1] == 1024);
    CHECK(total_requests(model_convergent_pass(2048)) == 206);
    CHECK(total_requests(model_shared_memory_pass(2048)) == 65);
  }
  SECTION("closed forms of docs/01-03 for n >= 64 (W = n/64 warps per block, one block)") {
    for (unsigned n = 64; n <= 2048; n *= 2) {
      const unsigned long long w = n / 64;
      CHECK(total_requests(model_simple_pass(n)) == 36 * w - 1);
      CHECK(total_requests(model_convergent_pass(n)) == 6 * w + 14);
      CHECK(total_requests(model_shared_memory_pass(n)) == 2 * w + 1);
    }
  }
  SECTION("the profilers' names of --profile, with the figures Nsight Compute read on an H200 at n = 2048") {
    const std::string simple = profiler_names_text(model_simple_pass(2048), 32);
    CHECK_THAT(simple, Catch::Contains("gld_efficiency | smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct | "
                                       "bytes loaded / (32 x load sectors) 25.01%"));
    CHECK_THAT(simple,
               Catch::Contains("gld_transactions | l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum | load sectors 2047"));
    CHECK_THAT(simple, Catch::Contains("global-memory instructions only, 21.0 a warp"));
    const std::string convergent = profiler_names_text(model_convergent_pass(2048), 32);
    CHECK_THAT(convergent, Catch::Contains("bytes loaded / (32 x load sectors) 99.01%"));
    CHECK_THAT(convergent, Catch::Contains("bytes stored / (32 x store sectors) 98.84%"));
  }
  SECTION("many blocks: each block repeats the 2048-element segment") {
    CHECK(total_requests(model_simple_pass(1u << 20)) == 512ull * 1151);
    CHECK(total_requests(model_shared_memory_pass(1u << 20)) == 512ull * 65);
  }
}

// The bank model (design §11) on patterns whose cost is known, and the trees of
// docs/03-shared-memory.md at n = 2048, whose totals an H100 measured with Nsight Compute.
namespace {
using reduce_lab::BankTally;

BankTally::Cost cost_of(unsigned bytes, unsigned (*element)(unsigned lane), unsigned lanes = 32) {
  BankTally tally;
  for (unsigned lane = 0; lane < lanes; ++lane) tally.add(lane, std::uintptr_t{bytes} * element(lane), bytes);
  return tally.cost();
}

// One block of 1024 threads (32 warps): the first add's store, the tree, the final read.
reduce_lab::Counters tree_2048(bool interleaved) {
  reduce_lab::Counters c{};
  auto instruction = [&c](reduce_lab::Access kind, auto active, auto element) {
    for (unsigned w = 0; w < 32; ++w) {
      BankTally tally;
      for (unsigned lane = 0; lane < 32; ++lane)
        if (active(32 * w + lane)) tally.add(lane, 4u * element(32 * w + lane), 4);
      tally.flush(kind, c);
    }
  };
  auto everyone = [](unsigned) { return true; };
  instruction(reduce_lab::Access::store, everyone, [](unsigned t) { return t; });
  for (unsigned step = 0; step < 10; ++step) {
    const unsigned stride = interleaved ? 1u << step : 512u >> step;
    auto owner = [=](unsigned t) { return interleaved ? 2 * stride * t < 1024 : t < stride; };
    auto target = [=](unsigned t) { return interleaved ? 2 * stride * t : t; };
    instruction(reduce_lab::Access::load, owner, [=](unsigned t) { return target(t) + stride; });
    instruction(reduce_lab::Access::load, owner, target);
    instruction(reduce_lab::Access::store, owner, target);
  }
  instruction(reduce_lab::Access::load, [](unsigned t) { return t == 0; }, [](unsigned) { return 0u; });
  return c;
}
}  // namespace

TEST_CASE("kit models: shared-memory banks") {
  SECTION("4-byte accesses: one bank per lane, a shared word, and strides") {
    CHECK(cost_of(4, [](unsigned l) { return l; }).wavefronts == 1);
    CHECK(cost_of(4, [](unsigned) { return 7u; }).wavefronts == 1);      // one word: a broadcast
    CHECK(cost_of(4, [](unsigned l) { return 2 * l; }).wavefronts == 2);  // lanes l and l + 16 share a bank
    CHECK(cost_of(4, [](unsigned l) { return 32 * l; }).wavefronts == 32);
    CHECK(cost_of(4, [](unsigned l) { return 33 * l; }).wavefronts == 1);  // padded: every bank once
    CHECK(cost_of(4, [](unsigned l) { return 32 * l; }).ideal == 1);
  }
  SECTION("8-byte accesses are served per half-warp, 16-byte per quarter-warp") {
    const auto consecutive8 = cost_of(8, [](unsigned l) { return l; });
    CHECK(consecutive8.wavefronts == 2);
    CHECK(consecutive8.ideal == 2);
    CHECK(cost_of(8, [](unsigned l) { return 2 * l; }).wavefronts == 4);  // each half-warp 2-way
    CHECK(cost_of(8, [](unsigned l) { return l; }, 16).wavefronts == 1);  // one half-warp active
    const auto consecutive16 = cost_of(16, [](unsigned l) { return l; });
    CHECK(consecutive16.wavefronts == 4);
    CHECK(consecutive16.ideal == 4);
    CHECK(cost_of(16, [](unsigned l) { return l % 8; }).wavefronts == 4);  // quarters share units, apart
  }
  SECTION("n = 2048: sequential and interleaved addressing (docs/03-shared-memory.md, Banks)") {
    const auto sequential = tree_2048(false), interleaved = tree_2048(true);
    CHECK(sequential.shared_wavefronts[0] == 73);
    CHECK(sequential.shared_wavefronts[1] == 68);
    CHECK(sequential.shared_conflicts[0] + sequential.shared_conflicts[1] == 0);
    CHECK(interleaved.shared_wavefronts[0] == 383);
    CHECK(interleaved.shared_wavefronts[1] == 223);
    CHECK(interleaved.shared_conflicts[0] == 310);
    CHECK(interleaved.shared_conflicts[1] == 155);
    // The grader models the lesson's tree (adjacent owners) as the sequential tree.
    const auto bound = shared_tree_model(32);
    CHECK(bound.shared_wavefronts[0] == 73);
    CHECK(bound.shared_wavefronts[1] == 68);
  }
}

// The shared-memory judgement of labs 3-6 (shared_checks.hpp) on the shapes it must tell
// apart: the lesson's flaws (bank conflicts, divergent owners' idle lanes) fail by name;
// conflict-free extra work with busy lanes (a padded copy of the tree, warp sums) passes.
namespace {

// Shared-memory accesses of one block of `warps` warps, one warp instruction at a time.
struct Block {
  unsigned warps;
  reduce_lab::Counters counters{};
  template <class Active, class Word>
  void access(reduce_lab::Access kind, Active active, Word word) {
    for (unsigned w = 0; w < warps; ++w) {
      BankTally tally;
      for (unsigned lane = 0; lane < 32; ++lane)
        if (active(32 * w + lane)) tally.add(lane, 4u * word(32 * w + lane), 4);
      tally.flush(kind, counters);
    }
  }
  SharedJudgement judged() const { return judge_shared_tree(counters, {1, 1, warps}); }
};

// Sequential addressing in a padded array of the student's own (element i at word i + i / 32,
// the plain array after it), copied to the plain input_s[0] that the provided line reads.
Block padded_tree_copied(unsigned warps) {
  using reduce_lab::Access;
  const unsigned threads = 32 * warps, plain = threads + threads / 32;
  auto padded = [](unsigned i) { return i + i / 32; };
  Block b{warps};
  b.access(Access::store, [](unsigned) { return true; }, padded);
  for (unsigned stride = threads / 2; stride >= 1; stride /= 2) {
    auto owner = [stride](unsigned t) { return t < stride; };
    b.access(Access::load, owner, [=](unsigned t) { return padded(t + stride); });
    b.access(Access::load, owner, padded);
    b.access(Access::store, owner, padded);
  }
  auto first = [](unsigned t) { return t == 0; };
  b.access(Access::load, first, padded);
  b.access(Access::store, first, [=](unsigned) { return plain; });
  b.access(Access::load, first, [=](unsigned) { return plain; });
  return b;
}

// Each warp reduces with shuffles; lane 0 stores the warp's sum, and warp 0 reads them all.
Block warp_sums(unsigned warps) {
  Block b{warps};
  b.access(reduce_lab::Access::store, [](unsigned t) { return t % 32 == 0; }, [](unsigned t) { return t / 32; });
  b.access(reduce_lab::Access::load, [=](unsigned t) { return t < warps; }, [](unsigned t) { return t; });
  return b;
}

}  // namespace

TEST_CASE("kit models: the shared-memory judgement") {
  SECTION("the book's trees over one block of 32 warps") {
    const reduce_lab::Counters adjacent = shared_tree_model(32), divergent = shared_tree_model(32, Owners::divergent);
    CHECK(adjacent.shared_instructions[0] + adjacent.shared_instructions[1] == 141);
    CHECK(shared_idle_lanes(adjacent) == 141 * 32 - 4094);
    CHECK(divergent.shared_instructions[0] + divergent.shared_instructions[1] == 606);
    CHECK(shared_idle_lanes(divergent) == 606 * 32 - 4094);
    CHECK(divergent.shared_conflicts[0] + divergent.shared_conflicts[1] == 0);
  }
  SECTION("a padded conflict-free tree copied to input_s[0] passes, though it costs 2 wavefronts more") {
    for (unsigned warps : {2u, 4u, 32u}) {
      const Block b = padded_tree_copied(warps);
      CHECK(b.counters.shared_conflicts[0] + b.counters.shared_conflicts[1] == 0);
      CHECK(!b.judged().problem);
    }
    const Block b = padded_tree_copied(32);
    CHECK(b.counters.shared_wavefronts[0] + b.counters.shared_wavefronts[1] == 143);
  }
  SECTION("warp sums in shared memory pass: few instructions with few lanes are no divergence") {
    CHECK(!warp_sums(32).judged().problem);
    CHECK(!warp_sums(2).judged().problem);
  }
  SECTION("divergent owners fail as divergence, with the figures of both trees") {
    const SharedJudgement j = judge_shared_tree(shared_tree_model(32, Owners::divergent), {1, 1, 32});
    REQUIRE(j.problem);
    CHECK(*j.problem == SharedProblem::divergence);
    CHECK(j.idle_lanes == 15298);
    CHECK(j.adjacent_idle_lanes == 418);
    CHECK(j.divergent_idle_lanes == 15298);
    CHECK(j.max_idle_lanes == 7858);
    REQUIRE(j.lines.size() == 1);
    CHECK(j.lines[0].find("SIMD efficiency 21.1%") != std::string::npos);
    CHECK(j.lines[0].find("a convergent tree needs 141 instructions") != std::string::npos);
    CHECK(j.summary == "divergence: 15298 idle lanes, max 7858");
    // Two blocks of two warps each: the bound scales with the blocks.
    reduce_lab::Counters two = shared_tree_model(2, Owners::divergent);
    for (int k = 0; k < reduce_lab::kAccessKinds; ++k) {
      two.shared_instructions[k] *= 2;
      two.shared_active_lanes[k] *= 2;
    }
    const SharedJudgement small = judge_shared_tree(two, {1, 2, 4});
    REQUIRE(small.problem);
    CHECK(*small.problem == SharedProblem::divergence);
  }
  SECTION("a block of one warp has no divergence to judge") {
    const SharedJudgement j = padded_tree_copied(1).judged();
    CHECK(j.max_idle_lanes == 0);
    CHECK(!j.problem);
  }
  SECTION("interleaved addressing fails on its bank conflicts, whatever its lanes") {
    const SharedJudgement j = judge_shared_tree(tree_2048(true), {1, 1, 32});
    REQUIRE(j.problem);
    CHECK(*j.problem == SharedProblem::bank_conflicts);
    CHECK(j.conflicts == 465);
    CHECK(j.summary == "bank conflicts: 465 of 606 wf");
    CHECK(!judge_shared_tree(tree_2048(false), {1, 1, 32}).problem);
  }
}
