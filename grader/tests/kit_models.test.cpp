// The book models the requests tests compare with must reproduce the figures measured on
// an H200 with the same counting model (design §4).
#include "book_models.hpp"
#include "catch.hpp"

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
  SECTION("many blocks: each block repeats the 2048-element segment") {
    CHECK(total_requests(model_simple_pass(1u << 20)) == 512ull * 1151);
    CHECK(total_requests(model_shared_memory_pass(1u << 20)) == 512ull * 65);
  }
}
