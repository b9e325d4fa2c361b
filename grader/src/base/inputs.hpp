// Fresh inputs for every run. A seed drawn per process (or replayed from REDUCE_LAB_SEED)
// is printed with every failure, so a student can rerun exactly what failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <reduce_lab/abi.h>

namespace reduce_lab::grader {

enum class Pattern {
  uniform,       // [-1, 1) for floating point, [-100, 100] for int
  ones,          // all 1: the sum is n
  cancellation,  // pairs x and -x in random places: the exact sum is 0
  all_negative,  // [-1000, -1): max must not return the identity
  integers,      // {-1, 0, 1} as floating point: every partial sum is exact, so must the result be
  large,         // ints in [-2^30, 2^30] (sums wrap modulo 2^32), floating point in [-1e6, 1e6)
};

// What a case's input holds, for messages; "large" reads differently for ints and floats,
// and only an int sum wraps.
const char* pattern_name(Pattern pattern, DType dtype, Op op = Op::sum);

// Leaves the bytes a vector grows by unset: every input is written whole by whoever makes it
// (make_input's threads, a few at a time), so zeroing it first, on one thread, was only a cost.
template <class T>
struct UnsetAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UnsetAllocator<U>;
  };
  UnsetAllocator() = default;
  template <class U>
  UnsetAllocator(const UnsetAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* at) noexcept {
    ::new (static_cast<void*>(at)) U;
  }
  template <class U, class... Args>
  void construct(U* at, Args&&... args) {
    ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }
};

struct HostArray {
  DType dtype = DType::f32;
  std::size_t n = 0;
  std::size_t rows = 1;  // row labs: a row-major matrix of rows x (n / rows) elements
  std::vector<unsigned char, UnsetAllocator<unsigned char>> bytes;  // every byte set by its maker
  const void* data() const { return bytes.data(); }
  void* data() { return bytes.data(); }
};

std::size_t dtype_bytes(DType dtype);
const char* dtype_name(DType dtype);
// n as messages and charts print it: 2^k for a power of two from 2 up, else the number.
std::string size_text(std::size_t n);

// A matrix of a row lab (lab 8): rows x columns elements, row-major. The other labs' n is 1 x n.
struct Shape {
  std::size_t rows = 1;
  std::size_t columns = 0;
  std::size_t elements() const { return rows * columns; }
};
// "1000 x 1000", "2^20+1 x 2"
std::string shape_text(Shape shape);
// The size argument of labgrader --profile-all: N, or a matrix's ROWSxCOLUMNS; and back.
std::string profile_size(Shape shape);
Shape parse_profile_size(const std::string& size);
// The input a speed test times, as its messages name it: "n = 2^26", or a row lab's matrix,
// "9586980 x 7".
std::string timed_input_text(Shape shape);
const char* op_name(Op op);

// The seed of this process: REDUCE_LAB_SEED when set, otherwise random.
std::uint64_t process_seed();
// "seed 1234 (replay with REDUCE_LAB_SEED=1234)"; on the emulator the thread-order seed too.
std::string seed_note();
// The command that replays this process's inputs (and on the emulator its thread order) for
// lab `lab`: "REDUCE_LAB_SEED=123 REDUCE_LAB_EMU_SEED=0x1f ./lab grade 4 --emu".
std::string replay_command(int lab);

// Deterministic for a given (process seed, pattern, dtype, n, variant). Variants are inputs
// of the same kind with other contents (the speed test alternates between them).
HostArray make_input(Pattern pattern, DType dtype, std::size_t n, unsigned variant = 0);
// The same, as a matrix: make_input of shape.elements() elements, read as shape.rows rows.
HostArray make_matrix(Pattern pattern, DType dtype, Shape shape, unsigned variant = 0);

}  // namespace reduce_lab::grader
