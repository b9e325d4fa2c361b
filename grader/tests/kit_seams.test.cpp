// The traffic bound of labs 4-7 (load sectors <= ceil(bytes / 32) + seam sectors) holds for
// every way of reading each byte once in contiguous warp-wide runs, on every grid, and fails
// uncoalesced reads. The kernels here are address patterns, not code: each warp instruction
// is the addresses its active lanes read, counted by WarpTally, the definition the emulator
// and the book models share (the gpu-counted build's global.cuh computes the same figures).
#include <reduce_lab/run_seams.h>
#include <reduce_lab/warp_tally.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "catch_compat.hpp"

using reduce_lab::Access;
using reduce_lab::Counters;
using reduce_lab::WarpTally;

namespace {

struct Grid {
  const char* name;
  unsigned blocks;  // one wave of blocks of `threads`: multiprocessors x threads each / block size
  unsigned threads;
};

// An H100 and an H200 (132 multiprocessors of 2048 threads), an A100 (108), the emulator on a
// 2-core machine (2 of 1024) and a single multiprocessor, with the block sizes lab 7 uses.
const std::vector<Grid> kGrids = {{"H100/H200, 256 threads", 1056, 256}, {"H100/H200, 512 threads", 528, 512},
                                  {"A100, 128 threads", 1728, 128},     {"emulator, 256 threads", 8, 256},
                                  {"one multiprocessor, 128 threads", 8, 128}, {"one block of 1024", 1, 1024}};

std::vector<unsigned long long> sizes() {
  std::vector<unsigned long long> n = {1000, 2049, 4097, 65537, 1000007, 1u << 20, (1u << 20) + 33};
  for (unsigned long long i = 1; i <= 300; ++i) n.push_back(i);
  return n;
}

// A pattern issues the warp instructions of one kernel on `grid` over n elements of `size`
// bytes (the input starts at address 0, aligned as every buffer the grader hands out is).
using Issue = std::function<void(const std::vector<unsigned long long>& addresses, unsigned width)>;
using Pattern = std::function<void(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue)>;

Counters run(const Pattern& pattern, unsigned long long n, unsigned size, const Grid& grid) {
  Counters c{};
  pattern(n, size, grid, [&](const std::vector<unsigned long long>& addresses, unsigned width) {
    WarpTally tally;
    for (unsigned long long a : addresses) tally.add(a, width);
    tally.flush(Access::load, c);
  });
  return c;
}

// Elements [first, end) of `items` of `width` bytes, warp by warp: each warp of the grid reads
// `per_round` consecutive items a round, its lanes on consecutive items (coalesced), the grid
// striding by all its threads. `first` need not be aligned: that is where seams come from.
void coalesced(unsigned long long first, unsigned long long end, unsigned width, unsigned long long threads,
               const Issue& issue) {
  for (unsigned long long round = first; round < end; round += threads)
    for (unsigned long long warp = round; warp < end && warp < round + threads; warp += 32) {
      std::vector<unsigned long long> lanes;
      for (unsigned long long i = warp; i < warp + 32 && i < end; ++i) lanes.push_back(i * width);
      issue(lanes, width);
    }
}

// 16-byte vectors in a grid-stride loop, then the tail one element per lane (NVIDIA's
// vectorized pattern; the reference and ok_lab7_vector_seam).
void vectors_then_tail(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  const unsigned long long vector = 16 / size, vectors = n / vector;
  coalesced(0, vectors, 16, 1ull * grid.blocks * grid.threads, issue);
  coalesced(vectors * vector, n, size, 1ull * grid.blocks * grid.threads, issue);
}

// The same with the tail read by one thread, an element at a time (NVIDIA's own tail: for
// double it is at most one element).
void vectors_then_one_thread_tail(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  const unsigned long long vector = 16 / size, vectors = n / vector;
  coalesced(0, vectors, 16, 1ull * grid.blocks * grid.threads, issue);
  for (unsigned long long i = vectors * vector; i < n; ++i) issue({i * size}, size);
}

// Each block a contiguous tile of an odd number of vectors, then the tail one per lane
// (ok_lab7_double_vector_seams): every block boundary lies halfway through a sector.
void odd_vector_tiles(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  const unsigned long long vector = 16 / size, vectors = n / vector;
  const unsigned long long tile = ((vectors + grid.blocks - 1) / grid.blocks) | 1;
  for (unsigned long long first = 0; first < vectors; first += tile)
    coalesced(first, std::min(first + tile, vectors), 16, grid.threads, issue);
  coalesced(vectors * vector, n, size, 1ull * grid.blocks * grid.threads, issue);
}

// Each block a contiguous tile of single elements, at least a warp's worth.
void element_tiles(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  const unsigned long long tile = std::max<unsigned long long>(32, (n + grid.blocks - 1) / grid.blocks);
  for (unsigned long long first = 0; first < n; first += tile)
    coalesced(first, std::min(first + tile, n), size, grid.threads, issue);
}

// Three launches over thirds of the input, each a grid-stride loop over single elements. A
// third of fewer elements than fill a sector is not a warp-wide run (it is one short run
// between two others, as when one lane reads alone): from 3 sectors' worth up.
void three_launches(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  if (n * size < 3 * 32) return;
  const unsigned long long a = n / 3, b = 2 * n / 3;
  coalesced(0, a, size, 1ull * grid.blocks * grid.threads, issue);
  coalesced(a, b, size, 1ull * grid.blocks * grid.threads, issue);
  coalesced(b, n, size, 1ull * grid.blocks * grid.threads, issue);
}

// Uncoalesced: the first lane of each warp reads the warp's 32 elements one at a time.
void lane_zero_reads(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue) {
  const unsigned long long threads = 1ull * grid.blocks * grid.threads;
  for (unsigned long long round = 0; round < n; round += threads)
    for (unsigned long long warp = round; warp < n && warp < round + threads; warp += 32)
      for (unsigned long long i = warp; i < warp + 32 && i < n; ++i) issue({i * size}, size);
}

// Uncoalesced: each thread reads `run` consecutive elements of its own (a CPU loop's chunk),
// so the lanes of one instruction are `run` elements apart (lab5_uncoalesced with run 4).
void thread_chunks(unsigned long long n, unsigned size, const Grid& grid, const Issue& issue, unsigned run) {
  const unsigned long long chunks = (n + run - 1) / run, threads = 1ull * grid.blocks * grid.threads;
  for (unsigned long long round = 0; round < chunks; round += threads)
    for (unsigned long long warp = round; warp < chunks && warp < round + threads; warp += 32)
      for (unsigned k = 0; k < run; ++k) {
        std::vector<unsigned long long> lanes;
        for (unsigned long long t = warp; t < warp + 32 && t < chunks; ++t)
          if (t * run + k < n) lanes.push_back((t * run + k) * size);
        issue(lanes, size);
      }
}

unsigned long long ideal(unsigned long long n, unsigned size) { return (n * size + 31) / 32; }

}  // namespace

TEST_CASE("kit seams") {
  SECTION("a run declares where it ends partway from a sector's start, and where it starts partway if a sector long") {
    using reduce_lab::run_seam_sectors;
    CHECK(run_seam_sectors(0, 512) == 0);      // whole sectors
    CHECK(run_seam_sectors(16, 528) == 2);     // 512 bytes from halfway through a sector
    CHECK(run_seam_sectors(0, 496) == 1);      // ends partway
    CHECK(run_seam_sectors(512, 528) == 1);    // one vector, the first half of its sector
    CHECK(run_seam_sectors(528, 536) == 0);    // a double strictly inside a sector
    CHECK(run_seam_sectors(24, 32) == 0);      // the last double of a sector: the run below declares it
    CHECK(run_seam_sectors(24, 40) == 1);      // two doubles across a sector boundary: the second sector
    CHECK(run_seam_sectors(24, 56) == 2);      // four: a sector long, both ends
    CHECK(run_seam_sectors(32, 64) == 0);
  }

  SECTION("WarpTally finds one contiguous run of distinct addresses in any lane order, and nothing else") {
    auto seams = [](std::vector<unsigned long long> addresses, unsigned width) {
      Counters c{};
      WarpTally tally;
      for (unsigned long long a : addresses) tally.add(a, width);
      tally.flush(Access::load, c);
      return c.seam_sectors[0];
    };
    CHECK(seams({16, 20, 24, 28, 32, 36, 40, 44}, 4) == 2);
    CHECK(seams({36, 16, 44, 28, 20, 32, 40, 24}, 4) == 2);  // the same run, lanes in another order
    CHECK(seams({16, 20, 28, 32}, 4) == 0);          // a gap
    CHECK(seams({16, 20, 20, 24}, 4) == 0);          // a repeated address
    CHECK(seams({16, 48, 80}, 4) == 0);              // strided
    CHECK(seams({512}, 16) == 1);
  }

  const std::vector<std::pair<const char*, Pattern>> legal = {
      {"16-byte vectors, then the tail one element per lane", vectors_then_tail},
      {"tiles of an odd number of vectors per block, then the tail", odd_vector_tiles},
      {"tiles of single elements per block", element_tiles},
      {"three launches over thirds of the input", three_launches},
  };
  for (const auto& [name, pattern] : legal) {
    SECTION(std::string("legal on every grid: ") + name) {
      for (unsigned size : {4u, 8u})
        for (const Grid& grid : kGrids)
          for (unsigned long long n : sizes()) {
            const Counters c = run(pattern, n, size, grid);
            INFO(grid.name << ", " << size << "-byte elements, n = " << n << ": " << c.sectors[0] << " sectors, ideal "
                           << ideal(n, size) << ", seams " << c.seam_sectors[0]);
            if (c.instructions[0] == 0) continue;  // a pattern that does not apply to this n
            REQUIRE(c.bytes[0] == n * size);
            REQUIRE(c.sectors[0] <= ideal(n, size) + c.seam_sectors[0]);
          }
    }
  }
  SECTION("legal on every grid: NVIDIA's pattern with double, the tail read by one thread") {
    for (const Grid& grid : kGrids)
      for (unsigned long long n : sizes()) {
        const Counters c = run(vectors_then_one_thread_tail, n, 8, grid);
        INFO(grid.name << ", n = " << n);
        REQUIRE(c.sectors[0] <= ideal(n, 8) + c.seam_sectors[0]);
      }
  }

  SECTION("uncoalesced reads exceed the bound on every grid, by far") {
    for (unsigned size : {4u, 8u})
      for (const Grid& grid : kGrids)
        for (unsigned long long n : {1000ull, 2049ull, 1000007ull}) {
          INFO(grid.name << ", " << size << "-byte elements, n = " << n);
          const Counters alone = run(lane_zero_reads, n, size, grid);
          CHECK(alone.bytes[0] == n * size);
          CHECK(2 * alone.sectors[0] > 3 * (ideal(n, size) + alone.seam_sectors[0]));  // 2x the bound or more
          for (unsigned run_length : {2u, 4u, 32u}) {
            const Counters chunks = run(
                [&](unsigned long long m, unsigned s, const Grid& g, const Issue& issue) {
                  thread_chunks(m, s, g, issue, run_length);
                },
                n, size, grid);
            CHECK(chunks.bytes[0] == n * size);
            CHECK(chunks.seam_sectors[0] <= 2 * run_length);  // only where a last warp has one lane
            CHECK(chunks.sectors[0] >= 2 * ideal(n, size) - 32);
          }
        }
  }
}
