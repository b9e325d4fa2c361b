// The picture of a row lab's run (lab 8): the m x n input drawn as a matrix, each element
// marked by the warp that loaded it, and the m results by the warp that stored them, over the
// whole launch (every block: which warps share a row IS the lesson). Built from the emulator's
// record alone (reduce_emu/record.h), never from a model of the lab, so a kernel whose rows
// overlap draws elements read twice, and one that skips elements draws them never read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <reduce_emu/record.h>

namespace reduce_lab::grader::show {

// One warp of the run: a (block, warp) pair, and the launch where the run made several.
struct WarpId {
  std::size_t launch = 0;
  unsigned long long block = 0;
  unsigned warp = 0;
  bool operator<(const WarpId& o) const {
    if (launch != o.launch) return launch < o.launch;
    return block != o.block ? block < o.block : warp < o.warp;
  }
  bool operator==(const WarpId& o) const { return launch == o.launch && block == o.block && warp == o.warp; }
};

// Who touched one element: how often, and which warps (indices into Matrix::warps, in order).
struct Touches {
  unsigned count = 0;             // lane accesses: a load of the input, a store or atomic of an output
  bool atomic = false;            // outputs: updated atomically (blocks sharing a row add their parts)
  std::vector<unsigned> warps;    // each warp once
  int lane = -1;                  // the first access's lane
};

struct Matrix {
  bool drawn = false;  // a row lab's run: the writers draw this instead of the steps
  std::size_t rows = 0, columns = 0;
  std::vector<WarpId> warps;      // every warp that touched the input or the output, in (launch, block, warp) order
  std::vector<Touches> elements;  // rows x columns, row-major: the input's loads
  std::vector<Touches> results;   // per row: the output's stores and atomics
  long long loads_outside = 0;    // lane loads of the input's allocation past its m x n elements
  bool several_launches = false;  // warps are named with their launch

  const Touches& element(std::size_t row, std::size_t column) const { return elements[row * columns + column]; }
  std::string warp_name(unsigned index) const;  // "block 0 warp 1", "launch 2 block 0 warp 1"
};

// The letter both writers mark warp `index` with: A-Z, then a-z, then '?'.
inline char warp_letter(unsigned index) {
  return index < 26 ? static_cast<char>('A' + index) : index < 52 ? static_cast<char>('a' + index - 26) : '?';
}

// The matrix of the run in `record`: `input` is the device address of its m x n elements;
// the output is the first other allocation the run stored to or updated atomically.
Matrix matrix_layout(const reduce_emu::Record& record, std::uintptr_t input, std::size_t rows, std::size_t columns);

// What the picture must show at a glance, counted: elements read exactly once, more than once,
// never; results written exactly once (stores, or atomics from any number of warps), more, never.
struct MatrixTally {
  std::size_t read_once = 0, read_again = 0, never_read = 0;
  std::size_t stored_once = 0, stored_again = 0, never_stored = 0;
};
MatrixTally tally(const Matrix& matrix);

// A result is right-looking when one store or any number of atomics made it.
inline bool result_once(const Touches& t) { return t.atomic ? t.count > 0 : t.count == 1; }

// "row 1, columns 0..43": the elements (indices in the matrix) of the first one's row, runs joined.
std::string matrix_cells(const Matrix& matrix, const std::vector<std::size_t>& elements);

// The matrix drawn in columns of `per` elements each (a power of two) when a row is wider than
// kMatrixColumns: a wide matrix is summarised, never wrapped. A summarised column is drawn as
// its first element's reader, and marked when any of its elements is read more than once or never.
constexpr std::size_t kMatrixColumns = 64;
struct MatrixColumns {
  std::size_t per = 1, count = 0;
};
MatrixColumns matrix_columns(const Matrix& matrix);
// One drawn cell: elements [first, first + per) of a row, summarised.
struct MatrixCell {
  int warp = -1;          // the first element's first reader; -1: none
  unsigned reads = 0;     // the most any of its elements was read
  bool unread = false;    // some element was never read
  std::size_t first = 0, last = 0;  // its columns
};
MatrixCell matrix_cell(const Matrix& matrix, const MatrixColumns& c, std::size_t row, std::size_t column);

// How two matrices' runs differ in words ("yours reads row 1, columns 0..43 twice; the reference
// reads each element once"), empty when every element and result was touched as often in both.
std::string matrix_difference(const Matrix& reference, const Matrix& yours);

// What was wrong in one run, in words, for the note under it; empty when each element was read
// once and each result written once.
std::string matrix_problems(const Matrix& matrix, const std::string& whose);

}  // namespace reduce_lab::grader::show
