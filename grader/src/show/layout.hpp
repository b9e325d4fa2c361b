// The picture of one recorded run, laid out as the book draws a reduction tree: one row per
// step (a barrier interval of the block drawn), one column per thread and per element of each
// array the kernel touched. Built from the emulator's record alone (reduce_emu/record.h), never
// from a model of what the lab should do, so a wrong kernel draws its own wrong tree. The
// terminal and SVG writers (terminal.hpp, svg.hpp) only draw what this file decides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <reduce_emu/record.h>
#include <reduce_lab/abi.h>

#include "show/matrix.hpp"

namespace reduce_lab::grader::show {

// What a step did to one cell (bits): it read it, wrote it, or updated it atomically.
enum Use : unsigned char { kRead = 1, kWritten = 2, kAtomic = 4 };

// One array drawn as a row of cells: a global allocation, or the block's shared memory.
struct Memory {
  std::string name;  // "input", "output", "shared", or "global 2" for another allocation
  bool shared = false;
  std::uintptr_t allocation = 0;  // global: the allocation's device address
  unsigned cell_bytes = 4;        // one cell: the narrowest access the kernel made to it
  long long cells = 0;            // global: the whole allocation; shared: up to the last cell touched
};

struct Cell {
  unsigned char use = 0;   // Use bits
  bool has_value = false;  // written or updated: the value it was left holding
  double value = 0;
};

struct Step {
  std::size_t launch = 0;                // which launch of the run (labs 1-7 make one)
  unsigned interval = 0;                 // the barriers the block had passed: the book's step number
  std::vector<unsigned> lanes_per_warp;  // lanes of each warp that accessed memory in this step
  std::vector<bool> thread_active;       // per thread of the block
  std::vector<std::vector<Cell>> cells;  // per memory (Picture::memories), per cell
  Counters counts{};                     // this step's warp instructions, as the grader counts them
  std::string barrier;                   // "01_simple.cu:19" where the step ended; empty for the last
  std::size_t number = 0;                // the step's number in the run: its index, unless steps were left out
};

// How the drawn launch ended, when not normally: the row it stopped in and why.
struct Stop {
  bool stopped = false;
  std::string kind;      // "deadlock", "time limit" or "fault"
  std::size_t step = 0;  // index into Picture::steps of the step it stopped in
  std::string where;     // who was where: "threads 0-3 wait at 01_simple.cu:20; 4-7 exited"
  std::string message;   // the emulator's report, first line
};

struct Picture {
  std::string kernel;             // demangled, without its parameter list
  std::size_t n = 0;              // elements reduced
  unsigned threads = 0;           // per block
  unsigned long long blocks = 0;  // in the launch drawn (block 0 is drawn)
  std::vector<Memory> memories;
  std::vector<Step> steps;
  Stop stop;
  bool truncated = false;  // the record hit its cap: later steps are missing
  // Steps not drawn: a launch's rows stop after kStepsDrawn (a loop that never ends would
  // draw thousands), but for the one it stopped in, which is drawn after the gap.
  std::size_t steps_left_out = 0;
  // A row lab's run: the whole launch's input as a matrix (matrix.hpp), drawn instead of the steps.
  Matrix matrix;
  unsigned warps() const { return (threads + 31) / 32; }
};

// The rows drawn of one launch (and the row of the step it stopped in, after them).
constexpr unsigned kStepsDrawn = 40;

// Lays out block 0 of every launch in `record`. `input` is the device address of the n-element
// array the run reduced (named "input"); the other global allocations are "output" (the first
// one written) and "global K".
Picture layout(const reduce_emu::Record& record, std::uintptr_t input, std::size_t n);

// The first step where two pictures differ, named in words; empty `words` when they agree.
// Two matrices (row labs) differ where an element or a result was touched a different number of
// times (matrix_difference): which warps did it may differ, a mapping is the student's choice.
struct Difference {
  bool found = false;
  std::size_t step = 0;  // index into both pictures' steps (the shorter one may lack it)
  std::string words;     // "step 3: the reference reads input[8] and writes input[0]; yours does not"
};
Difference first_difference(const Picture& reference, const Picture& yours);

// How the run drawn ended early, in words, for the note under a picture: "yours stopped in step
// 3 with a deadlock: ..." or "the time limit stopped yours in step 81234: ...". `whose`: "yours".
std::string stop_words(const Picture& picture, const std::string& whose);

// "steps 40 to 81233 not drawn": the row between step `s - 1` and step `s` where
// rows were left out there, else empty.
std::string gap_words(const Picture& picture, std::size_t s);

// "input[0, 8]", "shared[0..7]": cells of one memory, as the messages name them.
std::string cell_list(const Memory& memory, const std::vector<long long>& cells);

// Active threads per step, "8 4 2 1 1": what the unit tests compare with the book.
std::vector<unsigned> active_threads(const Picture& picture);

}  // namespace reduce_lab::grader::show
