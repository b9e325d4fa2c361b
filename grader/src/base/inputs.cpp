#include "base/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "base/settings.hpp"
#include "base/thread_order.hpp"

namespace reduce_lab::grader {

const char* pattern_name(Pattern pattern, DType dtype, Op op) {
  switch (pattern) {
    case Pattern::uniform: return "random values in [-1, 1)";
    case Pattern::ones: return "all ones";
    case Pattern::cancellation: return "values that cancel to 0";
    case Pattern::all_negative: return "all-negative values";
    case Pattern::integers: return "random values in {-1, 0, 1}";
    case Pattern::large:
      if (dtype != DType::i32) return "large values in [-10^6, 10^6)";
      return op == Op::sum ? "large values (ints up to 2^30: the sum wraps)" : "large values (ints up to 2^30)";
  }
  return "?";
}

std::size_t dtype_bytes(DType dtype) { return dtype == DType::f64 ? 8 : 4; }

std::string size_text(std::size_t n) {
  if (n >= 2 && (n & (n - 1)) == 0) {
    int log = 0;
    while ((std::size_t{1} << log) < n) ++log;
    return "2^" + std::to_string(log);
  }
  return std::to_string(n);
}

std::string shape_text(Shape shape) {
  auto text = [](std::size_t x) {
    // A small side reads as it is (3 x 100003, 257 x 32); a large power of two, or one past it,
    // reads as one: 2^20+1.
    if (x <= 1024) return std::to_string(x);
    return ((x - 1) & (x - 2)) == 0 ? size_text(x - 1) + "+1" : size_text(x);
  };
  return text(shape.rows) + " x " + text(shape.columns);
}

std::string profile_size(Shape shape) {
  const std::string columns = std::to_string(shape.columns);
  return shape.rows > 1 ? std::to_string(shape.rows) + "x" + columns : columns;
}

Shape parse_profile_size(const std::string& size) {
  const std::size_t x = size.find('x');
  if (x == std::string::npos) return {1, std::strtoull(size.c_str(), nullptr, 10)};
  return {std::strtoull(size.substr(0, x).c_str(), nullptr, 10), std::strtoull(size.substr(x + 1).c_str(), nullptr, 10)};
}

std::string timed_input_text(Shape shape) {
  return shape.rows > 1 ? shape_text(shape) : "n = " + size_text(shape.columns);
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::i32: return "int";
  }
  return "?";
}

const char* op_name(Op op) {
  switch (op) {
    case Op::sum: return "sum";
    case Op::max: return "max";
    case Op::min: return "min";
    case Op::order: return "order";
  }
  return "?";
}

std::uint64_t process_seed() {
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const std::optional<std::uint64_t> chosen = settings().seed) return *chosen;
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32 | device()) % 1000000000ull;
  }();
  return seed;
}

std::string seed_note() {
  const std::string seed = std::to_string(process_seed());
  if (thread_order::available())
    return "input seed " + seed + ", emulator thread-order seed " + thread_order::hex(thread_order::process_seed()) +
           " (replay with REDUCE_LAB_SEED=" + seed + " REDUCE_LAB_EMU_SEED=" +
           thread_order::hex(thread_order::process_seed()) + ")";
  return "seed " + seed + " (replay with REDUCE_LAB_SEED=" + seed + ")";
}

std::string replay_command(int lab) {
  std::string command = "REDUCE_LAB_SEED=" + std::to_string(process_seed());
  if (thread_order::available())
    return command + " REDUCE_LAB_EMU_SEED=" + thread_order::hex(thread_order::process_seed()) + " ./lab grade " +
           std::to_string(lab) + " --emu";
  return command + " ./lab grade " + std::to_string(lab) + " --gpu";
}

namespace {

// Chunk 0 of every input (the whole of every input up to kChunk elements: most correctness
// cases): the standard library's distributions over mt19937_64, as those inputs always were.
struct StandardDraw {
  using result_type = std::mt19937_64::result_type;
  std::mt19937_64 rng;
  static constexpr result_type min() { return std::mt19937_64::min(); }
  static constexpr result_type max() { return std::mt19937_64::max(); }
  result_type operator()() { return rng(); }
  double real(double low, double high) { return std::uniform_real_distribution<double>(low, high)(rng); }
  long long integer(long long low, long long high) { return std::uniform_int_distribution<long long>(low, high)(rng); }
  int small(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); }
};

// The later chunks of the large inputs (a speed test's 2^26 floats, lab 8's 2^28-element rows):
// SplitMix64 with the value mapped by hand. libstdc++'s uniform_real_distribution over
// mt19937_64 cost 10 ns a value, most of a speed test's "inputs" phase; this, under 1 ns. The
// values are as uniform for a sum; they depend only on the seed, as before.
struct FastDraw {
  using result_type = std::uint64_t;
  std::uint64_t state;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  result_type operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double real(double low, double high) { return low + (high - low) * (static_cast<double>((*this)() >> 11) * 0x1.0p-53); }
  long long integer(long long low, long long high) {
    const unsigned long long range = static_cast<unsigned long long>(high - low) + 1;
    return low + static_cast<long long>((static_cast<unsigned __int128>((*this)()) * range) >> 64);
  }
  int small(int low, int high) { return static_cast<int>(integer(low, high)); }
};

template <class T, class Draw>
void fill(Pattern pattern, std::size_t n, Draw& draw, T* out) {
  constexpr bool integral = std::is_integral<T>::value;
  auto uniform = [&](double low, double high) {
    if constexpr (integral) {
      return static_cast<T>(draw.integer(static_cast<long long>(low), static_cast<long long>(high)));
    } else {
      // A double just under `high` can round up to it as a float: keep the interval half-open.
      const T value = static_cast<T>(draw.real(low, high));
      return value < static_cast<T>(high) ? value : std::nextafter(static_cast<T>(high), static_cast<T>(low));
    }
  };
  switch (pattern) {
    case Pattern::uniform:
      for (std::size_t i = 0; i < n; ++i) out[i] = integral ? uniform(-100, 100) : uniform(-1, 1);
      break;
    case Pattern::ones:
      std::fill(out, out + n, T(1));
      break;
    case Pattern::integers:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<T>(draw.small(-1, 1));
      break;
    case Pattern::large:
      for (std::size_t i = 0; i < n; ++i) out[i] = integral ? uniform(-1073741824.0, 1073741824.0) : uniform(-1e6, 1e6);
      break;
    case Pattern::all_negative:
      for (std::size_t i = 0; i < n; ++i) out[i] = uniform(-1000, -1);
      break;
    case Pattern::cancellation: {
      for (std::size_t i = 0; i + 1 < n; i += 2) {
        out[i] = integral ? uniform(-100, 100) : uniform(-1, 1);
        out[i + 1] = static_cast<T>(-out[i]);
      }
      if (n % 2) out[n - 1] = T(0);
      std::shuffle(out, out + n, draw);
      break;
    }
  }
}

}  // namespace

HostArray make_input(Pattern pattern, DType dtype, std::size_t n, unsigned variant) {
  HostArray array;
  array.dtype = dtype;
  array.n = n;
  array.bytes.resize(n * dtype_bytes(dtype));
  std::vector<std::uint64_t> key{process_seed(), static_cast<std::uint64_t>(pattern), static_cast<std::uint64_t>(dtype),
                                 static_cast<std::uint64_t>(n)};
  if (variant != 0) key.push_back(variant);  // variant 0 keeps the inputs of a printed seed
  auto fill_range = [&](std::size_t first, std::size_t count, auto& draw) {
    switch (dtype) {
      case DType::f32: fill(pattern, count, draw, reinterpret_cast<float*>(array.data()) + first); break;
      case DType::f64: fill(pattern, count, draw, reinterpret_cast<double*>(array.data()) + first); break;
      case DType::i32: fill(pattern, count, draw, reinterpret_cast<int*>(array.data()) + first); break;
    }
  };
  // The speed tests' inputs (2^26 floats and more) took most of a speed test's second or two to
  // draw one value at a time. Elementwise patterns are drawn in chunks of their own generators
  // instead, on several threads: the values depend only on the seed, never on the thread count,
  // and the first chunk is the old single generator, so every input of up to kChunk elements
  // (most correctness cases) is what it always was. The later chunks are FastDraw's.
  // The cancellation pattern is drawn as a whole, one chunk (StandardDraw's, whatever its size).
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::size_t chunk = pattern == Pattern::cancellation ? std::max<std::size_t>(n, 1) : kChunk;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  auto fill_chunks = [&](std::size_t first_chunk, std::size_t step) {
    for (std::size_t c = first_chunk; c < chunks; c += step) {
      std::vector<std::uint64_t> chunk_key = key;
      if (c != 0) chunk_key.insert(chunk_key.end(), {0x63686e6bu, c});  // seed_seq keeps 32 bits a value
      std::seed_seq seq(chunk_key.begin(), chunk_key.end());
      const std::size_t first = c * chunk, count = std::min(chunk, n - first);
      if (c == 0) {
        StandardDraw draw{std::mt19937_64(seq)};
        fill_range(first, count, draw);
      } else {
        std::uint32_t words[2];
        seq.generate(words, words + 2);
        FastDraw draw{static_cast<std::uint64_t>(words[0]) << 32 | words[1]};
        fill_range(first, count, draw);
      }
    }
  };
  // One chunk (every correctness input) is drawn here, without a thread of its own.
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>({chunks, 8, std::thread::hardware_concurrency()}));
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(fill_chunks, t, threads);
  fill_chunks(0, threads);
  for (std::thread& worker : workers) worker.join();
  return array;
}

HostArray make_matrix(Pattern pattern, DType dtype, Shape shape, unsigned variant) {
  HostArray matrix = make_input(pattern, dtype, shape.elements(), variant);
  matrix.rows = shape.rows;
  return matrix;
}

}  // namespace reduce_lab::grader
