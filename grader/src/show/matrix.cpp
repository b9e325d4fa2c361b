#include "show/matrix.hpp"

#include <algorithm>
#include <map>

namespace reduce_lab::grader::show {

namespace {

using reduce_emu::AccessKind;
using reduce_emu::MemorySpace;

constexpr long long kElementBytes = sizeof(float);  // a picture's run reduces floats (run.hpp)

void touch(Touches& t, unsigned warp, unsigned lane) {
  ++t.count;
  if (t.lane < 0) t.lane = static_cast<int>(lane);
  if (std::find(t.warps.begin(), t.warps.end(), warp) == t.warps.end()) t.warps.push_back(warp);
}

// "0..43", "3, 7": columns of one row, runs joined.
std::string column_runs(const std::vector<std::size_t>& columns) {
  std::string out;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < columns.size(); ++runs) {
    if (runs == 6) return out + ", ... (" + std::to_string(columns.size()) + " in all)";
    std::size_t j = i;
    while (j + 1 < columns.size() && columns[j + 1] == columns[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(columns[i]) + (j > i ? ".." + std::to_string(columns[j]) : "");
    i = j + 1;
  }
  return out;
}

std::string times(unsigned count) {
  return count == 0 ? "never" : count == 1 ? "once" : count == 2 ? "twice" : std::to_string(count) + " times";
}

// "block 0 warp 0 and block 1 warp 0": the warps of one element.
std::string warp_list(const Matrix& m, const std::vector<unsigned>& warps) {
  std::string out;
  for (std::size_t i = 0; i < warps.size() && i < 3; ++i)
    out += (i ? i + 1 == warps.size() ? " and " : ", " : "") + m.warp_name(warps[i]);
  if (warps.size() > 3) out += " and " + std::to_string(warps.size() - 3) + " more";
  return out;
}

}  // namespace

std::string Matrix::warp_name(unsigned index) const {
  const WarpId& w = warps[index];
  return (several_launches ? "launch " + std::to_string(w.launch + 1) + " " : std::string()) + "block " +
         std::to_string(w.block) + " warp " + std::to_string(w.warp);
}

Matrix matrix_layout(const reduce_emu::Record& record, std::uintptr_t input, std::size_t rows, std::size_t columns) {
  Matrix m;
  m.drawn = true;
  m.rows = rows;
  m.columns = columns;
  m.elements.resize(rows * columns);
  m.results.resize(rows);
  m.several_launches = record.launches.size() > 1;
  // The output: the first allocation other than the input that the run wrote.
  std::uintptr_t output = 0;
  for (const reduce_emu::RecordedLaunch& launch : record.launches)
    for (const reduce_emu::RecordedInstruction& ins : launch.instructions)
      if (!output && ins.space == MemorySpace::global && ins.kind != AccessKind::load && ins.allocation != input)
        output = ins.allocation;
  auto ours = [&](const reduce_emu::RecordedInstruction& ins) {
    return ins.space == MemorySpace::global && ((ins.allocation == input && ins.kind == AccessKind::load) ||
                                                (ins.allocation == output && ins.kind != AccessKind::load));
  };
  // Warps are numbered in (launch, block, warp) order, so the legend reads as the grid does.
  std::map<WarpId, unsigned> index;
  for (std::size_t l = 0; l < record.launches.size(); ++l)
    for (const reduce_emu::RecordedInstruction& ins : record.launches[l].instructions)
      if (ours(ins)) index[{l, ins.block, ins.warp}] = 0;
  for (auto& [warp, i] : index) {
    i = static_cast<unsigned>(m.warps.size());
    m.warps.push_back(warp);
  }
  const long long elements = static_cast<long long>(rows * columns);
  for (std::size_t l = 0; l < record.launches.size(); ++l)
    for (const reduce_emu::RecordedInstruction& ins : record.launches[l].instructions) {
      if (!ours(ins)) continue;
      const unsigned warp = index[{l, ins.block, ins.warp}];
      const long long parts = std::max<long long>(1, ins.bytes / kElementBytes);  // a 16-byte vector is 4
      for (const reduce_emu::LaneAccess& lane : ins.lanes)
        for (long long part = 0; part < parts; ++part) {
          const long long e = lane.element * ins.bytes / kElementBytes + part;
          if (ins.kind == AccessKind::load) {
            if (e < 0 || e >= elements)
              ++m.loads_outside;
            else
              touch(m.elements[static_cast<std::size_t>(e)], warp, lane.lane);
          } else if (e >= 0 && e < static_cast<long long>(rows)) {
            Touches& result = m.results[static_cast<std::size_t>(e)];
            touch(result, warp, lane.lane);
            result.atomic = result.atomic || ins.kind == AccessKind::atomic;
          }
        }
    }
  return m;
}

MatrixTally tally(const Matrix& matrix) {
  MatrixTally t;
  for (const Touches& e : matrix.elements) {
    if (e.count == 0) ++t.never_read;
    else if (e.count == 1) ++t.read_once;
    else ++t.read_again;
  }
  for (const Touches& r : matrix.results) {
    if (r.count == 0) ++t.never_stored;
    else if (result_once(r)) ++t.stored_once;
    else ++t.stored_again;
  }
  return t;
}

std::string matrix_cells(const Matrix& matrix, const std::vector<std::size_t>& elements) {
  if (elements.empty() || matrix.columns == 0) return "nothing";
  const std::size_t row = elements.front() / matrix.columns;
  std::vector<std::size_t> columns;
  for (std::size_t e : elements)
    if (e / matrix.columns == row) columns.push_back(e % matrix.columns);
  return "row " + std::to_string(row) + (columns.size() == 1 ? ", column " : ", columns ") + column_runs(columns);
}

MatrixColumns matrix_columns(const Matrix& matrix) {
  MatrixColumns c;
  while (c.per * kMatrixColumns < matrix.columns) c.per *= 2;
  c.count = (matrix.columns + c.per - 1) / c.per;
  return c;
}

MatrixCell matrix_cell(const Matrix& matrix, const MatrixColumns& c, std::size_t row, std::size_t column) {
  MatrixCell cell;
  cell.first = column * c.per;
  cell.last = std::min(matrix.columns, cell.first + c.per) - 1;
  for (std::size_t k = cell.first; k <= cell.last; ++k) {
    const Touches& e = matrix.element(row, k);
    if (cell.warp < 0 && !e.warps.empty()) cell.warp = static_cast<int>(e.warps.front());
    cell.reads = std::max(cell.reads, e.count);
    cell.unread = cell.unread || e.count == 0;
  }
  return cell;
}

std::string matrix_difference(const Matrix& reference, const Matrix& yours) {
  if (reference.rows != yours.rows || reference.columns != yours.columns) return "the two matrices differ in shape";
  // The first row where some element was read a different number of times, with every element
  // of that row read that way (the others are alike: a shifted row offset shows whole runs).
  for (std::size_t e = 0; e < yours.elements.size(); ++e) {
    const unsigned a = reference.elements[e].count, b = yours.elements[e].count;
    if (a == b) continue;
    std::vector<std::size_t> same;
    for (std::size_t k = e; k < yours.elements.size() && k / yours.columns == e / yours.columns; ++k)
      if (yours.elements[k].count == b && reference.elements[k].count == a) same.push_back(k);
    std::string words = "yours reads " + matrix_cells(yours, same) + " " + times(b);
    if (b > 0) words += " (" + warp_list(yours, yours.elements[e].warps) + ")";
    return words + "; the reference " + times(a) + (a == 1 ? ", as every element" : "");
  }
  for (std::size_t r = 0; r < yours.rows; ++r) {
    const Touches& a = reference.results[r];
    const Touches& b = yours.results[r];
    if (result_once(a) == result_once(b) && (a.count == 0) == (b.count == 0)) continue;
    return "yours writes output[" + std::to_string(r) + "] " + times(b.count) +
           (b.count ? " (" + warp_list(yours, b.warps) + ")" : "") + "; the reference " +
           (a.atomic ? "adds to it atomically" : times(a.count));
  }
  if (yours.loads_outside != reference.loads_outside)
    return "yours loads " + std::to_string(yours.loads_outside) + " elements past the matrix";
  return {};
}

std::string matrix_problems(const Matrix& matrix, const std::string& whose) {
  const MatrixTally t = tally(matrix);
  std::vector<std::string> parts;
  auto first = [&](auto wanted) {
    std::vector<std::size_t> found;
    for (std::size_t e = 0; e < matrix.elements.size(); ++e)
      if (wanted(matrix.elements[e])) found.push_back(e);
    return found;
  };
  if (t.read_again) {
    const std::vector<std::size_t> again = first([](const Touches& e) { return e.count > 1; });
    parts.push_back(std::to_string(t.read_again) + " elements read more than once (first " +
                    matrix_cells(matrix, again) + ", by " + warp_list(matrix, matrix.elements[again[0]].warps) + ")");
  }
  if (t.never_read)
    parts.push_back(std::to_string(t.never_read) + " never read (first " +
                    matrix_cells(matrix, first([](const Touches& e) { return e.count == 0; })) + ")");
  if (matrix.loads_outside) parts.push_back(std::to_string(matrix.loads_outside) + " loads past the matrix");
  if (t.never_stored) parts.push_back(std::to_string(t.never_stored) + " results never written");
  if (t.stored_again) parts.push_back(std::to_string(t.stored_again) + " results stored more than once");
  if (parts.empty()) return {};
  std::string out = whose + ": ";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out + ".";
}

}  // namespace reduce_lab::grader::show
