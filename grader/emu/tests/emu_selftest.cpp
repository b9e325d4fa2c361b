// Self-test of the CPU emulator: CUDA semantics (shuffles, votes, atomics, __shared__),
// the lockstep trap, fault reports, the counters against the gpu-counted figures of the
// reference solutions (design §4), and the speed of a large lab 3 run.
//
// The kernels below are written exactly as lab code is; the reference solutions are loaded
// as the grader loads them, as lab modules (built from solutions/*.cu by CMake).

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <reduce_lab/lab.cuh>
#include <reduce_emu/record.h>

#include "../../src/catch_compat.hpp"
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// Device buffers that free themselves; tests fail with a message instead of leaking.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    REQUIRE(cudaMalloc(&data_, count * sizeof(T)) == cudaSuccess);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void upload(const std::vector<T>& host) {
    REQUIRE(cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    REQUIRE(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }
  void fill(T value) { upload(std::vector<T>(count_, value)); }
  T* get() const { return data_; }
  Global<T> global() const { return Global<T>(data_); }

 private:
  T* data_ = nullptr;
  std::size_t count_;
};

// Runs body and returns the message launch() threw ("" if it did not throw).
template <class Body>
std::string launch_error(Body&& body) {
  try {
    body();
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "";
}

// Integer-valued inputs: float sums are exact, so results compare with ==.
std::vector<float> small_integers(std::size_t n, unsigned salt = 0) {
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(static_cast<int>((i * 7 + salt) % 9) - 4);
  return values;
}

double sum_of(const std::vector<float>& values) {
  double total = 0;
  for (float v : values) total += v;
  return total;
}

// One test case's emulator settings, put back after it: no counters, no read-only input, the
// default time limit, and the worker threads it had (`workers`, when not 0, for the case).
struct Settings {
  explicit Settings(unsigned workers = 0) : saved_workers(reduce_emu::worker_threads()) {
    reduce_emu::set_counters(nullptr);
    if (workers != 0) reduce_emu::set_worker_threads(workers);
  }
  ~Settings() {
    reduce_emu::set_counters(nullptr);
    reduce_emu::set_read_only_input(nullptr);
    reduce_emu::set_timeout(60);
    reduce_emu::set_worker_threads(saved_workers);
  }
  unsigned saved_workers;
};

}  // namespace

// ---------------------------------------------------------------------------------------
// Kernels in lab style.

// The warp-synchronous tail of old CUDA samples: correct only if the 32 lanes run each line
// in lockstep, which CUDA has not promised since Volta.
__global__ void VolatileTailKernel(Global<const float> input, Global<float> output) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = input[t] + input[t + 64];
  __syncthreads();
  if (t < 32) {
    volatile float* v = partial;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0) output[0] = partial[0];
}

// __syncwarp between the steps, but every lane still reads a word that another lane writes in
// the same step: a race under CUDA's rules (NVIDIA's "Using CUDA Warp-Level Primitives"
// makes the same point), even though it works on today's GPUs when the warp is converged.
__global__ void UnguardedSyncwarpTailKernel(Global<const float> input, Global<float> output) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = input[t] + input[t + 64];
  __syncthreads();
  if (t < 32) {
    volatile float* v = partial;
    v[t] += v[t + 32];
    __syncwarp();
    v[t] += v[t + 16];
    __syncwarp();
    v[t] += v[t + 8];
    __syncwarp();
    v[t] += v[t + 4];
    __syncwarp();
    v[t] += v[t + 2];
    __syncwarp();
    v[t] += v[t + 1];
  }
  if (t == 0) output[0] = partial[0];
}

// The same tree with the book's guard and a __syncwarp between steps: race-free.
__global__ void SyncwarpTailKernel(Global<const float> input, Global<float> output) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = input[t] + input[t + 64];
  __syncthreads();
  if (t < 32) {
    for (unsigned stride = 32; stride >= 1; stride /= 2) {
      if (t < stride) partial[t] += partial[t + stride];
      __syncwarp();
    }
  }
  if (t == 0) output[0] = partial[0];
}

// NVIDIA's recommended form: every step reads into a register, syncs, writes, syncs.
__global__ void RegisterTailKernel(Global<const float> input, Global<float> output) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = input[t] + input[t + 64];
  __syncthreads();
  if (t < 32) {
    float v = partial[t];
    for (unsigned offset = 32; offset >= 1; offset /= 2) {
      v += partial[t + offset];
      __syncwarp();
      partial[t] = v;
      __syncwarp();
    }
  }
  if (t == 0) output[0] = partial[0];
}

__global__ void ShuffleTailKernel(Global<const float> input, Global<float> output) {
  __shared__ float partial[64];
  const unsigned t = threadIdx.x;
  partial[t] = input[t] + input[t + 64];
  __syncthreads();
  if (t < 32) {
    float v = partial[t] + partial[t + 32];
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
    if (t == 0) output[0] = v;
  }
}

constexpr int kShuffleCases = 8;
__global__ void ShuffleKernel(Global<int> ints, Global<double> doubles, Global<long long> longs) {
  const unsigned t = threadIdx.x;
  const int lane = static_cast<int>(t % 32);
  const int v = 100 * static_cast<int>(t);
  ints[0 * 64 + t] = __shfl_sync(kFullMask, v, (lane * 7) % 32);
  ints[1 * 64 + t] = __shfl_up_sync(kFullMask, v, 3);
  ints[2 * 64 + t] = __shfl_down_sync(kFullMask, v, 5);
  ints[3 * 64 + t] = __shfl_xor_sync(kFullMask, v, 6);
  ints[4 * 64 + t] = __shfl_down_sync(kFullMask, v, 2, 8);
  ints[5 * 64 + t] = __shfl_xor_sync(kFullMask, v, 4, 4);
  ints[6 * 64 + t] = __shfl_sync(kFullMask, v, 35, 16);
  ints[7 * 64 + t] = __shfl_up_sync(kFullMask, v, 1, 8);
  doubles[t] = __shfl_xor_sync(kFullMask, 0.5 + t, 1);
  longs[t] = __shfl_down_sync(kFullMask, (1ll << 40) + t, 1);
}

// What CUDA documents for each shuffle (srcLane modulo width; up/down keep their own value
// off the edge of their width group; xor may read earlier groups, never later ones).
int expected_shuffle(int which, int t) {
  const int lane = t % 32, warp_base = t - lane;
  auto value = [&](int source_lane) { return 100 * (warp_base + source_lane); };
  auto idx = [&](int src, int width) { return value((lane / width) * width + src % width); };
  auto up = [&](int delta, int width) { return lane % width >= delta ? value(lane - delta) : value(lane); };
  auto down = [&](int delta, int width) { return lane % width + delta < width ? value(lane + delta) : value(lane); };
  auto bxor = [&](int mask, int width) {
    const int other = lane ^ mask;
    return other < (lane / width + 1) * width ? value(other) : value(lane);
  };
  switch (which) {
    case 0: return idx((lane * 7) % 32, 32);
    case 1: return up(3, 32);
    case 2: return down(5, 32);
    case 3: return bxor(6, 32);
    case 4: return down(2, 8);
    case 5: return bxor(4, 4);
    case 6: return idx(35, 16);
    case 7: return up(1, 8);
  }
  return 0;
}

__global__ void VoteKernel(Global<unsigned> out) {
  const unsigned t = threadIdx.x;
  const unsigned lane = t % 32;
  out[0 * 64 + t] = __ballot_sync(kFullMask, lane % 3 == 0);
  out[1 * 64 + t] = static_cast<unsigned>(__all_sync(kFullMask, t < 64));
  out[2 * 64 + t] = static_cast<unsigned>(__any_sync(kFullMask, t == 40));
  if (lane < 10) {
    out[3 * 64 + t] = __activemask();
  } else {
    out[3 * 64 + t] = __activemask();
  }
  if (lane < 16) {
    out[4 * 64 + t] = __ballot_sync(0x0000ffffu, lane & 1u);
  } else {
    out[4 * 64 + t] = __ballot_sync(0xffff0000u, lane & 1u);
  }
  out[5 * 64 + t] = static_cast<unsigned>(__syncthreads_count(t % 5 == 0));
  out[6 * 64 + t] = __match_any_sync(kFullMask, lane / 8);
}

__global__ void AtomicsKernel(Global<int> ints, Global<unsigned> uints, Global<unsigned long long> ulls,
                              Global<float> floats, Global<double> doubles) {
  const int id = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&ints[0], 1);
  atomicSub(&ints[1], 2);
  atomicMax(&ints[2], id);
  atomicMin(&ints[3], -id);
  atomicAdd(&uints[0], 3u);
  atomicMax(&uints[1], static_cast<unsigned>(id));
  atomicMin(&uints[2], static_cast<unsigned>(id + 5));
  atomicAdd(&ulls[0], 1ull << 33);
  atomicMax(&ulls[1], static_cast<unsigned long long>(id) << 33);
  atomicAdd(&floats[0], 1.0f);
  atomicAdd(&doubles[0], 0.5);
  // A lock-free increment through atomicCAS: every thread succeeds exactly once.
  int seen = ints[4];
  for (;;) {
    const int previous = atomicCAS(&ints[4], seen, seen + 1);
    if (previous == seen) break;
    seen = previous;
  }
  if (id == 77) atomicExch(&floats[1], 42.5f);
  // Atomics on __shared__ memory (plain pointers) as well.
  __shared__ unsigned block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  atomicAdd(&block_count, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&uints[3], block_count);
}

template <class T, unsigned BLOCK>
__global__ void TemplateSharedKernel(Global<const T> input, Global<T> output) {
  __shared__ T partial[BLOCK];
  partial[threadIdx.x] = input[blockIdx.x * BLOCK + threadIdx.x];
  for (unsigned stride = BLOCK / 2; stride >= 1; stride /= 2) {
    __syncthreads();
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) output[blockIdx.x] = partial[0];
}

constexpr int kDivergentKernelLine = __LINE__ + 3;  // the two barriers are 3 and 5 lines below
__global__ void DivergentBarrierKernel(Global<float> output) {
  if (threadIdx.x < 64) {
    __syncthreads();
  } else {
    __syncthreads();
  }
  output[threadIdx.x] = 1.0f;
}

constexpr int kEarlyExitBarrierLine = __LINE__ + 4;
__global__ void EarlyExitKernel(Global<float> data, unsigned n) {
  const unsigned i = threadIdx.x;
  if (i >= n) return;
  __syncthreads();
  data[i] = 2.0f * data[i];
}

constexpr int kWarpBarrierLine = __LINE__ + 4;
__global__ void SyncwarpAgainstBarrierKernel(Global<float> data) {
  if (threadIdx.x % 32 == 0) data[threadIdx.x] = 1.0f;
  if (threadIdx.x % 2 == 0) {
    __syncthreads();
  } else {
    __syncwarp();
  }
}

// What the build makes of `__shared__ int count;` (the rewrite is not applied to this file).
__global__ void SharedCountKernel(Global<const float> input, Global<float> output) {
  REDUCE_LAB_SHARED ::reduce_lab::Shared<int> count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  atomicAdd(&count, 1);
  atomicAdd(&output[0], input[threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) output[1] = static_cast<float>(count);
}

__global__ void OutOfBoundsKernel(Global<const float> input, Global<float> output) {
  output[threadIdx.x] = input[threadIdx.x + 1];
}

__global__ void OutOfBoundsStoreKernel(Global<float> output, unsigned count) {
  output[threadIdx.x + count - blockDim.x + 1] = 7.0f;
}

__global__ void SpinKernel(Global<int> flag) {
  while (flag[0] == 0) __syncwarp();
}

__global__ void TicketKernel(Global<unsigned> counter, Global<unsigned> tickets) {
  tickets[threadIdx.x] = atomicAdd(&counter[0], 1u);
  __syncthreads();
  tickets[blockDim.x + threadIdx.x] = atomicAdd(&counter[0], 1u);
}

namespace cg = cooperative_groups;

// A block tree written with cooperative groups, as NVIDIA's samples do: block syncs, then a
// warp tile that reduces with cg::reduce and shuffles.
__global__ void CooperativeGroupsKernel(Global<const float> input, Global<float> output) {
  static __shared__ float partial[256];
  cg::thread_block block = cg::this_thread_block();
  const unsigned t = block.thread_rank();
  partial[t] = input[blockIdx.x * 256 + t];
  for (unsigned stride = block.size() / 2; stride >= 32; stride /= 2) {
    block.sync();
    if (t < stride) partial[t] += partial[t + stride];
  }
  cg::sync(block);
  if (t < 32) {
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const float sum = cg::reduce(tile, partial[t], cg::plus<float>());
    const float down = tile.shfl_down(sum, 1);  // every lane holds the sum: so does its neighbour
    if (tile.thread_rank() == 0) output[blockIdx.x] = sum == down || tile.size() == 1 ? sum : -1.0f;
  }
}

// Every spelling of a block barrier: each one counts.
__global__ void EveryBarrierKernel(Global<int> out) {
  const unsigned t = threadIdx.x;
  __syncthreads();
  int votes = __syncthreads_count(t % 2 == 0);
  votes += __syncthreads_and(1);
  votes += __syncthreads_or(0);
  cg::this_thread_block().sync();
  cg::sync(cg::this_thread_block());
  if (t == 0) out[blockIdx.x] = votes;
}

// Dynamic shared memory, as the build's rewrite of `extern __shared__ float s[];` reads it.
__global__ void DynamicSharedKernel(Global<const float> input, Global<float> output) {
  float* const s = static_cast<float*>(::reduce_emu::detail::dynamic_shared_memory());
  const unsigned t = threadIdx.x;
  s[t] = input[t];
  __syncthreads();
  if (t == 0) {
    float sum = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) sum += s[k];
    output[0] = sum;
  }
}

// Reads its input through a raw pointer smuggled out of the Global: the access the kit
// cannot see, which the emulator stops.
__global__ void AroundGlobalKernel(Global<const float> input, Global<float> output) {
  const float* sneaky = nullptr;
  std::memcpy(&sneaky, &input, sizeof sneaky);
  output[threadIdx.x] = sneaky[threadIdx.x];
}

__global__ void CoordsKernel(Global<unsigned> out) {
  const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  out[block * threads + linear] = (blockIdx.y << 24) | (blockIdx.x << 16) | (threadIdx.z << 8) |
                                  (threadIdx.y << 4) | threadIdx.x;
}

int symbol_for_copies = 0;

// ---------------------------------------------------------------------------------------
// Lab modules, loaded the way the grader loads them.

namespace {

class LabModule {
 public:
  explicit LabModule(const char* path) {
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    INFO("dlopen(" << path << "): " << (handle_ == nullptr ? dlerror() : "ok"));
    REQUIRE(handle_ != nullptr);
    using Entry = const reduce_lab::ModuleInfo* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle_, "reduce_lab_module"));
    REQUIRE(entry != nullptr);
    info_ = entry();
    REQUIRE(info_->abi_version == reduce_lab::kAbiVersion);
    REQUIRE(std::string(info_->backend) == "emu");
    REQUIRE(info_->counting == 1);
  }
  const reduce_lab::ModuleInfo& info() const { return *info_; }

 private:
  void* handle_ = nullptr;  // kept loaded: kernels' names stay resolvable until exit
  const reduce_lab::ModuleInfo* info_ = nullptr;
};

struct PassResult {
  reduce_lab::Counters counters{};
  std::vector<float> outputs;
  std::string error;
  int status = 0;
  std::uintptr_t input = 0, output = 0;  // the device addresses the pass read and wrote
};

// One grader call: one pass of a multipass lab over `input`.
PassResult run_pass(const LabModule& lab, const std::vector<float>& input) {
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(input.size());
  out.fill(std::nanf(""));
  DeviceBuffer<reduce_lab::Counters> counters(1);
  REQUIRE(cudaMemset(counters.get(), 0, sizeof(reduce_lab::Counters)) == cudaSuccess);
  reduce_lab::Call call{};
  call.dtype = reduce_lab::DType::f32;
  call.op = reduce_lab::Op::sum;
  call.input = in.get();
  call.n = input.size();
  call.output = out.get();
  call.output_capacity = input.size();
  call.device_counters = counters.get();
  call.synchronize = 1;
  PassResult result;
  result.input = reinterpret_cast<std::uintptr_t>(in.get());
  result.output = reinterpret_cast<std::uintptr_t>(out.get());
  result.status = lab.info().run(&call);
  result.error = call.error;
  result.counters = counters.download()[0];
  const std::vector<float> all = out.download();
  result.outputs.assign(all.begin(), all.begin() + static_cast<long>(call.outputs_written));
  reduce_emu::set_counters(nullptr);
  return result;
}

constexpr int kLoad = static_cast<int>(reduce_lab::Access::load);
constexpr int kStore = static_cast<int>(reduce_lab::Access::store);

unsigned long long total(const unsigned long long (&per_kind)[reduce_lab::kAccessKinds]) {
  unsigned long long sum = 0;
  for (unsigned long long v : per_kind) sum += v;
  return sum;
}

struct Expected {
  unsigned long long load_requests, store_requests, instructions, active_lanes;
};

void check_lab(const char* path, unsigned n, const Expected& expected) {
  const LabModule lab(path);
  const std::vector<float> input = small_integers(n);
  for (unsigned long long seed : {1ull, 2ull, 0xdeadbeefull}) {
    reduce_emu::set_seed(seed);
    const PassResult result = run_pass(lab, input);
    INFO(lab.info().name << " N=" << n << " seed " << seed << " error: " << result.error);
    REQUIRE(result.status == 0);
    REQUIRE(result.outputs.size() == 1);
    CHECK(result.outputs[0] == static_cast<float>(sum_of(input)));
    const reduce_lab::Counters& c = result.counters;
    CHECK(c.requests[kLoad] == expected.load_requests);
    CHECK(c.requests[kStore] == expected.store_requests);
    if (expected.instructions != 0) {
      CHECK(total(c.instructions) == expected.instructions);
      CHECK(total(c.active_lanes) == expected.active_lanes);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------

TEST_CASE("lab 1 simple: requests, sectors, SIMD efficiency and barriers as on the GPU", "[counters][lab1]") {
  Settings settings;
  SECTION("N = 256") { check_lab(EMU_SELFTEST_LAB1, 256, {95, 48, 83, 767}); }
  SECTION("N = 2048") { check_lab(EMU_SELFTEST_LAB1, 2048, {767, 384, 0, 0}); }
  SECTION("sectors at N = 2048, barriers at N = 256") {
    const LabModule lab(EMU_SELFTEST_LAB1);
    const PassResult large = run_pass(lab, small_integers(2048));
    REQUIRE(large.status == 0);
    CHECK(large.counters.sectors[kLoad] == 2047);
    CHECK(large.counters.sectors[kStore] == 1024);
    const PassResult small = run_pass(lab, small_integers(256));
    REQUIRE(small.status == 0);
    CHECK(small.counters.barrier_warps == 32);  // 4 warps x 8 loop steps
  }
}

TEST_CASE("lab 2 convergent: requests and SIMD efficiency as on the GPU", "[counters][lab2]") {
  Settings settings;
  SECTION("N = 256") { check_lab(EMU_SELFTEST_LAB2, 256, {25, 13, 38, 767}); }
  SECTION("N = 2048") { check_lab(EMU_SELFTEST_LAB2, 2048, {137, 69, 0, 0}); }
}

TEST_CASE("lab 3 shared memory: requests as on the GPU", "[counters][lab3]") {
  Settings settings;
  SECTION("N = 256") { check_lab(EMU_SELFTEST_LAB3, 256, {8, 1, 0, 0}); }
  SECTION("N = 2048") {
    check_lab(EMU_SELFTEST_LAB3, 2048, {64, 1, 0, 0});
    const PassResult result = run_pass(LabModule(EMU_SELFTEST_LAB3), small_integers(2048));
    CHECK(result.counters.sectors[kLoad] == 2048 * 4 / 32);  // every input byte loaded once
  }
}

TEST_CASE("lab 3 on 2^20 floats runs fast enough on one core", "[speed]") {
  Settings settings(1);
  const LabModule lab(EMU_SELFTEST_LAB3);
  const std::vector<float> input = small_integers(1u << 20, 3);
  const auto start = std::chrono::steady_clock::now();
  const PassResult first = run_pass(lab, input);  // 512 blocks x 1024 threads
  REQUIRE(first.status == 0);
  REQUIRE(first.outputs.size() == 512);
  const PassResult second = run_pass(lab, first.outputs);  // 1 block x 256 threads
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(second.status == 0);
  REQUIRE(second.outputs.size() == 1);
  CHECK(second.outputs[0] == static_cast<float>(sum_of(input)));
  CHECK(first.counters.requests[kLoad] == (1u << 20) / 32);
  WARN("lab 3, 2^20 floats, one worker thread: " << seconds << " s");
#if defined(__OPTIMIZE__)
  CHECK(seconds < 2.0);
#endif
}

TEST_CASE("code relying on warp lockstep fails; __syncwarp and shuffles do not", "[lockstep]") {
  Settings settings;
  // Distinct positive integers: a term dropped or added twice always changes the (exact) sum.
  std::vector<float> input(128);
  for (unsigned i = 0; i < 128; ++i) input[i] = static_cast<float>(1 + (i * 2654435761u) % 65521u);
  const float expected = static_cast<float>(sum_of(input));
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(1);
  auto run = [&](void (*kernel)(Global<const float>, Global<float>), unsigned long long seed) {
    reduce_emu::set_seed(seed);
    out.fill(-1000.0f);
    launch(kernel, 1, 64, Global<const float>(in.get()), out.global());
    return out.download()[0];
  };
  int wrong = 0, wrong_unguarded = 0;
  for (unsigned long long seed = 1; seed <= 20; ++seed) {
    wrong += run(VolatileTailKernel, seed) != expected;
    wrong_unguarded += run(UnguardedSyncwarpTailKernel, seed) != expected;
  }
  CHECK(wrong >= 19);
  CHECK(wrong_unguarded >= 19);
  for (unsigned long long seed = 1; seed <= 20; ++seed) {
    INFO("seed " << seed);
    CHECK(run(SyncwarpTailKernel, seed) == expected);
    CHECK(run(RegisterTailKernel, seed) == expected);
    CHECK(run(ShuffleTailKernel, seed) == expected);
  }
}

TEST_CASE("shuffles follow CUDA's lane arithmetic", "[warp]") {
  Settings settings;
  DeviceBuffer<int> ints(kShuffleCases * 64);
  DeviceBuffer<double> doubles(64);
  DeviceBuffer<long long> longs(64);
  launch(ShuffleKernel, 1, 64, ints.global(), doubles.global(), longs.global());
  const std::vector<int> got = ints.download();
  for (int which = 0; which < kShuffleCases; ++which)
    for (int t = 0; t < 64; ++t) {
      INFO("case " << which << " thread " << t);
      CHECK(got[static_cast<std::size_t>(which * 64 + t)] == expected_shuffle(which, t));
    }
  const std::vector<double> d = doubles.download();
  const std::vector<long long> l = longs.download();
  for (int t = 0; t < 64; ++t) {
    CHECK(d[static_cast<std::size_t>(t)] == 0.5 + (t ^ 1));
    const int lane = t % 32;
    CHECK(l[static_cast<std::size_t>(t)] == (1ll << 40) + (lane == 31 ? t : t + 1));
  }
}

TEST_CASE("votes, __activemask, __syncthreads_count and __match_any_sync", "[warp]") {
  Settings settings;
  DeviceBuffer<unsigned> out(7 * 64);
  launch(VoteKernel, 1, 64, out.global());
  const std::vector<unsigned> got = out.download();
  unsigned every_third = 0;
  for (unsigned lane = 0; lane < 32; lane += 3) every_third |= 1u << lane;
  unsigned syncthreads_count = 0;
  for (unsigned t = 0; t < 64; ++t) syncthreads_count += t % 5 == 0;
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32;
    INFO("thread " << t);
    CHECK(got[0 * 64 + t] == every_third);
    CHECK(got[1 * 64 + t] == 1u);
    CHECK(got[2 * 64 + t] == (t >= 32 ? 1u : 0u));
    CHECK(got[3 * 64 + t] == (lane < 10 ? 0x3ffu : ~0x3ffu));
    CHECK(got[4 * 64 + t] == (lane < 16 ? 0x0000aaaau : 0xaaaa0000u));
    CHECK(got[5 * 64 + t] == syncthreads_count);
    CHECK(got[6 * 64 + t] == 0xffu << (lane / 8 * 8));
  }
}

TEST_CASE("atomics are atomic across blocks running on several OS threads", "[atomics]") {
  Settings settings(4);
  DeviceBuffer<int> ints(5);
  DeviceBuffer<unsigned> uints(4);
  DeviceBuffer<unsigned long long> ulls(2);
  DeviceBuffer<float> floats(2);
  DeviceBuffer<double> doubles(1);
  ints.upload({0, 0, -1, 1, 0});
  uints.upload({0, 0, ~0u, 0});
  ulls.upload({0, 0});
  floats.upload({0.0f, 0.0f});
  doubles.upload({0.0});
  constexpr unsigned blocks = 64, threads = 128, n = blocks * threads;
  reduce_lab::Counters counters{};
  reduce_emu::set_counters(&counters);
  launch(AtomicsKernel, blocks, threads, ints.global(), uints.global(), ulls.global(), floats.global(),
         doubles.global());
  const std::vector<int> i = ints.download();
  const std::vector<unsigned> u = uints.download();
  const std::vector<unsigned long long> ull = ulls.download();
  const std::vector<float> f = floats.download();
  const std::vector<double> d = doubles.download();
  CHECK(i[0] == static_cast<int>(n));
  CHECK(i[1] == -2 * static_cast<int>(n));
  CHECK(i[2] == static_cast<int>(n) - 1);
  CHECK(i[3] == -(static_cast<int>(n) - 1));
  CHECK(i[4] == static_cast<int>(n));
  CHECK(u[0] == 3 * n);
  CHECK(u[1] == n - 1);
  CHECK(u[2] == 5u);
  CHECK(u[3] == n);
  CHECK(ull[0] == (1ull << 33) * n);
  CHECK(ull[1] == static_cast<unsigned long long>(n - 1) << 33);
  CHECK(f[0] == static_cast<float>(n));
  CHECK(f[1] == 42.5f);
  CHECK(d[0] == 0.5 * n);
  // Every lane of a warp hits the same word: one request per warp and atomic instruction.
  const int atomic = static_cast<int>(reduce_lab::Access::atomic);
  CHECK(counters.requests[atomic] == counters.instructions[atomic]);
  CHECK(counters.instructions[atomic] >= 11ull * n / 32);
}

TEST_CASE("__shared__ in kernel templates is per block and per instantiation", "[shared]") {
  Settings settings(3);
  constexpr unsigned blocks = 40;
  const std::vector<float> input = small_integers(blocks * 256, 1);
  std::vector<int> int_input(blocks * 128);
  for (std::size_t k = 0; k < int_input.size(); ++k) int_input[k] = static_cast<int>(k % 13);
  DeviceBuffer<float> in_f(input);
  DeviceBuffer<float> out_f(blocks);
  DeviceBuffer<int> in_i(int_input);
  DeviceBuffer<int> out_i(blocks);
  launch(TemplateSharedKernel<float, 256>, blocks, 256, Global<const float>(in_f.get()), out_f.global());
  launch(TemplateSharedKernel<int, 128>, blocks, 128, Global<const int>(in_i.get()), out_i.global());
  const std::vector<float> sums_f = out_f.download();
  const std::vector<int> sums_i = out_i.download();
  for (unsigned b = 0; b < blocks; ++b) {
    double expected_f = 0;
    int expected_i = 0;
    for (unsigned k = 0; k < 256; ++k) expected_f += input[b * 256 + k];
    for (unsigned k = 0; k < 128; ++k) expected_i += int_input[b * 128 + k];
    CHECK(sums_f[b] == static_cast<float>(expected_f));
    CHECK(sums_i[b] == expected_i);
  }
}

TEST_CASE("multi-dimensional grids and blocks get CUDA's coordinates", "[launch]") {
  Settings settings;
  const dim3 grid(3, 2), block(4, 2, 3);
  const unsigned threads = 24;
  DeviceBuffer<unsigned> out(6 * threads);
  launch(CoordsKernel, grid, block, out.global());
  const std::vector<unsigned> got = out.download();
  for (unsigned by = 0; by < 2; ++by)
    for (unsigned bx = 0; bx < 3; ++bx)
      for (unsigned z = 0; z < 3; ++z)
        for (unsigned y = 0; y < 2; ++y)
          for (unsigned x = 0; x < 4; ++x)
            CHECK(got[(by * 3 + bx) * threads + x + 4 * (y + 2 * z)] ==
                  ((by << 24) | (bx << 16) | (z << 8) | (y << 4) | x));
  CHECK_THROWS_WITH(launch(CoordsKernel, 1, 2048, out.global()), Catch::Contains("invalid launch configuration"));
  CHECK_THROWS_WITH(launch(CoordsKernel, 0, 32, out.global()), Catch::Contains("invalid launch configuration"));
}

TEST_CASE("the seed fixes the thread order and REDUCE_LAB_EMU_SEED-style replays repeat it", "[seed]") {
  Settings settings;
  DeviceBuffer<unsigned> counter(1);
  DeviceBuffer<unsigned> tickets(512);
  auto order = [&](unsigned long long seed) {
    reduce_emu::set_seed(seed);
    counter.fill(0);
    launch(TicketKernel, 1, 256, counter.global(), tickets.global());
    return tickets.download();
  };
  CHECK(reduce_emu::seed() != 0ull);
  const auto first = order(42);
  CHECK(order(42) == first);
  CHECK(order(43) != first);
  // Within each phase every lane order is possible, but a phase never mixes with the next.
  for (unsigned t = 0; t < 256; ++t) {
    CHECK(first[t] < 256u);
    CHECK(first[256 + t] >= 256u);
  }
  std::vector<unsigned> identity(256);
  for (unsigned t = 0; t < 256; ++t) identity[t] = t;
  CHECK(std::vector<unsigned>(first.begin(), first.begin() + 256) != identity);
}

TEST_CASE("a __syncthreads not reached by every thread is reported as a deadlock, quickly", "[faults]") {
  Settings settings;
  DeviceBuffer<float> data(128);
  data.fill(1.0f);
  reduce_emu::set_seed(7);
  SECTION("threads at two different barriers") {
    const auto start = std::chrono::steady_clock::now();
    const std::string error = launch_error([&] { launch(DivergentBarrierKernel, 1, 128, data.global()); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(error);
    CHECK(seconds < 5.0);
    CHECK_THAT(error, Catch::Contains("deadlock"));
    CHECK_THAT(error, Catch::Contains("DivergentBarrierKernel"));
    CHECK_THAT(error, Catch::Contains("threads 0-63: wait at __syncthreads() at emu_selftest.cpp:" +
                                      std::to_string(kDivergentKernelLine)));
    CHECK_THAT(error, Catch::Contains("threads 64-127: wait at __syncthreads() at emu_selftest.cpp:" +
                                      std::to_string(kDivergentKernelLine + 2)));
    CHECK_THAT(error, Catch::Contains("REDUCE_LAB_EMU_SEED=0x7"));
  }
  SECTION("threads that returned before the barrier") {
    const std::string error = launch_error([&] { launch(EarlyExitKernel, 1, 128, data.global(), 100u); });
    INFO(error);
    CHECK_THAT(error, Catch::Contains("threads 0-99: wait at __syncthreads() at emu_selftest.cpp:" +
                                      std::to_string(kEarlyExitBarrierLine)));
    CHECK_THAT(error, Catch::Contains("threads 100-127: have exited"));
    // The kernel never got past the barrier: nothing was doubled.
    for (float v : data.download()) CHECK(v == 1.0f);
  }
  SECTION("lanes blocked in __syncwarp while the others wait at a barrier") {
    const std::string error = launch_error([&] { launch(SyncwarpAgainstBarrierKernel, 1, 64, data.global()); });
    INFO(error);
    CHECK_THAT(error, Catch::Contains("deadlock"));
    CHECK_THAT(error, Catch::Contains("wait at __syncthreads() at emu_selftest.cpp:" +
                                      std::to_string(kWarpBarrierLine)));
    CHECK_THAT(error, Catch::Contains("wait in __syncwarp(0xffffffff) at emu_selftest.cpp:" +
                                      std::to_string(kWarpBarrierLine + 2)));
  }
  // The emulator is usable again after a fault.
  DeviceBuffer<float> sums(2);
  launch(TemplateSharedKernel<float, 64>, 2, 64, Global<const float>(data.get()), sums.global());
}

TEST_CASE("an out-of-bounds access is reported with kernel, thread and index, and not performed", "[faults]") {
  Settings settings;
  SECTION("load one past the end") {
    DeviceBuffer<float> input(64);
    DeviceBuffer<float> output(64);
    const std::string error = launch_error(
        [&] { launch(OutOfBoundsKernel, 1, 64, Global<const float>(input.get()), output.global()); });
    INFO(error);
    CHECK_THAT(error, Catch::Contains("out-of-bounds global load"));
    CHECK_THAT(error, Catch::Contains("OutOfBoundsKernel(reduce_lab::Global<float const>, reduce_lab::Global<float>)"));
    CHECK_THAT(error, Catch::Contains("block (0,0,0), thread (63,0,0)"));
    CHECK_THAT(error, Catch::Contains("element 64 of an allocation of 64 elements (256 bytes"));
    CHECK_THAT(error, Catch::Contains("REDUCE_LAB_EMU_SEED="));
  }
  SECTION("store past the end leaves memory alone") {
    DeviceBuffer<float> output(60);  // 240 bytes; the allocation is padded to 256
    output.fill(0.0f);
    float* padding = static_cast<float*>(reduce_emu::kit_view(output.get() + 60));
    *padding = -3.0f;
    const std::string error = launch_error([&] { launch(OutOfBoundsStoreKernel, 1, 32, output.global(), 60u); });
    INFO(error);
    CHECK_THAT(error, Catch::Contains("out-of-bounds global store: element 60 of an allocation of 60 elements (240 bytes"));
    CHECK(*padding == -3.0f);
  }
  SECTION("a pointer that is not device memory") {
    std::vector<float> host(64);
    DeviceBuffer<float> output(64);
    const std::string error = launch_error(
        [&] { launch(OutOfBoundsKernel, 1, 32, Global<const float>(host.data()), output.global()); });
    CHECK_THAT(error, Catch::Contains("not inside any live cudaMalloc allocation"));
  }
}

TEST_CASE("a kernel that never ends is stopped at the time limit", "[faults]") {
  Settings settings;
  DeviceBuffer<int> flag(1);
  flag.fill(0);
  reduce_emu::set_timeout(1.0);
  const auto start = std::chrono::steady_clock::now();
  const std::string error = launch_error([&] { launch(SpinKernel, 4, 64, flag.global()); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(error);
  CHECK_THAT(error, Catch::Contains("time limit of 1 s"));
  CHECK_THAT(error, Catch::Contains("SpinKernel"));
  CHECK(seconds < 5.0);
}

TEST_CASE("the runtime API works on host memory and checks ranges", "[runtime]") {
  float* device = nullptr;
  REQUIRE(cudaMalloc(&device, 100 * sizeof(float)) == cudaSuccess);
  CHECK(reinterpret_cast<std::uintptr_t>(device) % 256 == 0);
  std::vector<float> host(101, 1.0f);
  CHECK(cudaMemcpy(device, host.data(), 100 * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(device, host.data(), 101 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMemset(device + 50, 0, 51 * sizeof(float)) == cudaErrorInvalidValue);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaMemsetAsync(device, 0, 100 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemcpyAsync(host.data(), device, 100 * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(host[99] == 0.0f);
  CHECK(cudaFree(device) == cudaSuccess);
  CHECK(cudaFree(device) == cudaErrorInvalidValue);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidValue)) == "cudaErrorInvalidValue");
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  const int value = 17;
  CHECK(cudaMemcpyToSymbol(symbol_for_copies, &value, sizeof value) == cudaSuccess);
  int back = 0;
  CHECK(cudaMemcpyFromSymbol(&back, symbol_for_copies, sizeof back) == cudaSuccess);
  CHECK(back == 17);

  int count = 0;
  CHECK(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 1);
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, 0) == cudaSuccess);
  CHECK(std::string(properties.name) == "CPU emulator");
  CHECK(properties.l2CacheSize > 0);
  CHECK(properties.major == 0);
  std::size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess);
  CHECK(free_bytes <= total_bytes);

  cudaStream_t stream;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&stream) == cudaSuccess);
  CHECK(cudaEventCreate(&start) == cudaSuccess);
  CHECK(cudaEventCreate(&stop) == cudaSuccess);
  CHECK(cudaEventRecord(start, stream) == cudaSuccess);
  CHECK(cudaEventRecord(stop, stream) == cudaSuccess);
  CHECK(cudaEventSynchronize(stop) == cudaSuccess);
  float milliseconds = -1;
  CHECK(cudaEventElapsedTime(&milliseconds, start, stop) == cudaSuccess);
  CHECK(milliseconds >= 0.0f);
  CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(cudaEventDestroy(start) == cudaSuccess);
  CHECK(cudaEventDestroy(stop) == cudaSuccess);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("cooperative groups: block sync, warp tiles, cg::reduce, static __shared__", "[cg]") {
  Settings settings;
  constexpr unsigned blocks = 6;
  const std::vector<float> input = small_integers(blocks * 256, 3);
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(blocks);
  DeviceBuffer<reduce_lab::Counters> counters(1);
  REQUIRE(cudaMemset(counters.get(), 0, sizeof(reduce_lab::Counters)) == cudaSuccess);
  reduce_emu::set_counters(counters.get());
  for (unsigned long long seed : {1ull, 7ull, 99ull}) {
    reduce_emu::set_seed(seed);
    launch(CooperativeGroupsKernel, blocks, 256, Global<const float>(in.get()), out.global());
    const std::vector<float> sums = out.download();
    for (unsigned b = 0; b < blocks; ++b) {
      double expected = 0;
      for (unsigned k = 0; k < 256; ++k) expected += input[b * 256 + k];
      CHECK(sums[b] == static_cast<float>(expected));
    }
  }
  reduce_emu::set_counters(nullptr);
  // Three loop syncs and one cg::sync per block, 8 warps each, 3 launches.
  CHECK(counters.download()[0].barrier_warps == 3ull * blocks * 8 * 4);
}

TEST_CASE("every block barrier counts, whichever spelling", "[cg][counters]") {
  Settings settings;
  DeviceBuffer<int> out(2);
  DeviceBuffer<reduce_lab::Counters> counters(1);
  REQUIRE(cudaMemset(counters.get(), 0, sizeof(reduce_lab::Counters)) == cudaSuccess);
  reduce_emu::set_counters(counters.get());
  launch(EveryBarrierKernel, 2, 64, out.global());
  reduce_emu::set_counters(nullptr);
  CHECK(out.download() == std::vector<int>{33, 33});  // 32 even threads, and = 1, or = 0
  CHECK(counters.download()[0].barrier_warps == 2ull * 2 * 6);  // 2 blocks x 2 warps x 6 barriers
}

TEST_CASE("dynamic shared memory is per block and sized by the launch", "[shared]") {
  Settings settings;
  const std::vector<float> input = small_integers(128, 5);
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(1);
  reduce_lab::launch(DynamicSharedKernel, 1, 128, reduce_lab::dynamic_shared(128 * sizeof(float)),
                     Global<const float>(in.get()), out.global());
  CHECK(out.download()[0] == static_cast<float>(sum_of(input)));
  const std::string error = launch_error([&] {
    reduce_lab::launch(DynamicSharedKernel, 1, 128, reduce_lab::dynamic_shared(300 * 1024),
                       Global<const float>(in.get()), out.global());
  });
  CHECK_THAT(error, Catch::Contains("dynamic shared memory is at most 227 KB"));
}

// Run only as a process of its own by the test below (hidden tag): the faulting launch ends it.
TEST_CASE("a launch that reads around Global<T>", "[.around_global_child]") {
  Settings settings;
  DeviceBuffer<float> in(32);
  DeviceBuffer<float> out(32);
  launch(AroundGlobalKernel, 1, 32, Global<const float>(in.get()), out.global());
}

TEST_CASE("device memory is reached only through Global<T>", "[faults]") {
  Settings settings;
  SECTION("a kernel that reads around Global<T> is stopped and named") {
    int pipe_ends[2];
    REQUIRE(pipe(pipe_ends) == 0);
    std::fflush(nullptr);
    // A fresh process, not a fork of this one: a fork inherits the emulator's worker pool
    // without its threads (and possibly a lock one of them held), and can hang on it.
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      dup2(pipe_ends[1], STDERR_FILENO);
      close(pipe_ends[0]);
      execl("/proc/self/exe", "emu_selftest", "[.around_global_child]", static_cast<char*>(nullptr));
      _exit(127);  // not reached: exec, then the access faults
    }
    close(pipe_ends[1]);
    std::string report;
    char buffer[512];
    for (ssize_t got; (got = read(pipe_ends[0], buffer, sizeof buffer)) > 0;) report.append(buffer, static_cast<std::size_t>(got));
    close(pipe_ends[0]);
    int status = 0;
    waitpid(child, &status, 0);
    INFO(report);
    CHECK(WIFSIGNALED(status));
    CHECK_THAT(report, Catch::Contains("an access around Global<T>"));
    CHECK_THAT(report, Catch::Contains("AroundGlobalKernel"));
  }
  SECTION("host code cannot read an element through a Global") {
    DeviceBuffer<float> data(4);
    data.fill(2.0f);
    const Global<const float> global(data.get());
    std::string error;
    try {
      (void)global[1];
    } catch (const std::runtime_error& e) {
      error = e.what();
    }
    CHECK_THAT(error, Catch::Contains("host code accessed device memory through a Global<T>"));
  }
}

// ---------------------------------------------------------------------------------------
// Recording a run (reduce_emu/record.h): what the pictures of the next capability are drawn from.

namespace {

using reduce_emu::AccessKind;
using reduce_emu::MemorySpace;

// What one barrier interval of a launch did to one memory: the threads that accessed it and
// the elements they read and wrote (the rows of the book's tree figures).
struct Step {
  std::set<unsigned> threads;
  std::set<long long> read, written;
  bool operator==(const Step& other) const {
    return threads == other.threads && read == other.read && written == other.written;
  }
};

std::ostream& operator<<(std::ostream& out, const std::set<long long>& items) {
  out << "{";
  for (long long item : items) out << " " << item;
  return out << " }";
}
std::ostream& operator<<(std::ostream& out, const Step& step) {
  out << "threads {";
  for (unsigned t : step.threads) out << " " << t;
  return out << " } read " << step.read << " written " << step.written;
}

// allocation 0: shared memory.
std::map<unsigned, Step> steps_of(const reduce_emu::RecordedLaunch& launch, std::uintptr_t allocation) {
  std::map<unsigned, Step> steps;
  for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
    if ((allocation == 0) != (ins.space == MemorySpace::shared)) continue;
    if (allocation != 0 && ins.allocation != allocation) continue;
    Step& step = steps[ins.interval];
    for (const reduce_emu::LaneAccess& lane : ins.lanes) {
      step.threads.insert(ins.warp * 32 + lane.lane);
      (ins.kind == AccessKind::load ? step.read : step.written).insert(lane.element);
    }
  }
  return steps;
}

std::set<unsigned> threads(std::initializer_list<unsigned> ids) { return ids; }
std::set<long long> elements(long long from, long long to, long long step = 1) {
  std::set<long long> items;
  for (long long i = from; i <= to; i += step) items.insert(i);
  return items;
}

// Replays the recorded loads and stores of one memory in record order: every value a load
// recorded must be the last value stored there (or the input), so the values and the order
// are both what the kernel did. Holds for kernels without races, as the labs' trees are.
void check_values_replay(const reduce_emu::RecordedLaunch& launch, std::uintptr_t allocation,
                         std::map<long long, float> memory) {
  unsigned checked = 0;
  for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
    if ((allocation == 0) != (ins.space == MemorySpace::shared)) continue;
    if (allocation != 0 && ins.allocation != allocation) continue;
    for (const reduce_emu::LaneAccess& lane : ins.lanes) {
      if (ins.kind == AccessKind::load) {
        INFO("interval " << ins.interval << " lane " << lane.lane << " element " << lane.element);
        REQUIRE(memory.count(lane.element) == 1);
        CHECK(lane.as<float>() == memory[lane.element]);
        ++checked;
      } else {
        memory[lane.element] = lane.as<float>();
      }
    }
  }
  CHECK(checked > 0);
}

reduce_emu::Record record_pass(const LabModule& lab, const std::vector<float>& input, PassResult* result) {
  reduce_emu::start_recording();
  *result = run_pass(lab, input);
  return reduce_emu::take_record();
}

// One recorded pass of a lab that must succeed in one launch.
struct RecordedPass {
  PassResult pass;
  reduce_emu::Record record;
  const reduce_emu::RecordedLaunch& launch() const { return record.launches.at(0); }
};
RecordedPass record_lab(const char* path, const std::vector<float>& input) {
  const LabModule lab(path);
  RecordedPass recorded;
  recorded.record = record_pass(lab, input, &recorded.pass);
  INFO(lab.info().name << ": " << recorded.pass.error);
  REQUIRE(recorded.pass.status == 0);
  REQUIRE(recorded.record.launches.size() == 1);
  return recorded;
}

// The memory a replay starts from: the pass's input.
std::map<long long, float> as_memory(const std::vector<float>& input) {
  std::map<long long, float> memory;
  for (std::size_t i = 0; i < input.size(); ++i) memory[static_cast<long long>(i)] = input[i];
  return memory;
}

}  // namespace

TEST_CASE("a recorded lab 1 at n = 16 is the book's Fig. 10.7 tree", "[record][lab1]") {
  Settings settings;
  const LabModule lab(EMU_SELFTEST_LAB1);
  const std::vector<float> input = small_integers(16, 1);
  for (unsigned long long seed : {1ull, 0xdeadbeefull}) {
    reduce_emu::set_seed(seed);
    PassResult pass;
    const reduce_emu::Record record = record_pass(lab, input, &pass);
    INFO("seed " << seed << " error: " << pass.error);
    REQUIRE(pass.status == 0);
    CHECK_FALSE(record.truncated);
    REQUIRE(record.launches.size() == 1);
    const reduce_emu::RecordedLaunch& launch = record.launches[0];
    CHECK_THAT(launch.kernel, Catch::StartsWith("SimpleSumReductionKernel"));
    CHECK(launch.grid.x == 1);
    CHECK(launch.block.x == 8);
    CHECK(launch.end.outcome == reduce_emu::LaunchOutcome::finished);
    CHECK(launch.end.message.empty());

    // Thread t owns element 2t; while t is a multiple of the stride it adds the element
    // `stride` to its right: strides 1, 2, 4, 8 in intervals 0-3, then thread 0 copies the sum.
    const std::map<unsigned, Step> tree = steps_of(launch, pass.input);
    const std::map<unsigned, Step> expected = {
        {0, {threads({0, 1, 2, 3, 4, 5, 6, 7}), elements(0, 15), elements(0, 14, 2)}},
        {1, {threads({0, 2, 4, 6}), elements(0, 14, 2), elements(0, 12, 4)}},
        {2, {threads({0, 4}), elements(0, 12, 4), elements(0, 8, 8)}},
        {3, {threads({0}), elements(0, 8, 8), elements(0, 0)}},
        {4, {threads({0}), elements(0, 0), {}}},
    };
    CHECK(tree == expected);
    const std::map<unsigned, Step> out = steps_of(launch, pass.output);
    CHECK(out == (std::map<unsigned, Step>{{4, {threads({0}), {}, elements(0, 0)}}}));

    // One warp: each step's add is two loads and a store, with the active lanes as the mask.
    for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
      CHECK(ins.block == 0);
      CHECK(ins.warp == 0);
      CHECK(ins.bytes == 4);
      CHECK(ins.space == MemorySpace::global);
      CHECK(static_cast<unsigned>(__builtin_popcount(ins.mask)) == ins.lanes.size());
      if (ins.interval == 1) CHECK(ins.mask == 0x55u);
    }
    CHECK(launch.instructions.size() == 4 * 3 + 2);

    // Values: the loads saw what the stores before them left, and the sum reached output[0].
    check_values_replay(launch, pass.input, as_memory(input));
    const reduce_emu::RecordedInstruction& last = launch.instructions.back();
    REQUIRE(last.allocation == pass.output);
    CHECK(last.kind == AccessKind::store);
    CHECK(last.lanes.at(0).as<float>() == static_cast<float>(sum_of(input)));

    REQUIRE(launch.barriers.size() == 4);
    for (unsigned k = 0; k < 4; ++k) {
      CHECK(launch.barriers[k].interval == k);
      CHECK(launch.barriers[k].file == "01_simple.cu");
      CHECK(launch.barriers[k].line == launch.barriers[0].line);
    }
    // Lane accesses: 3 per active thread and step (8 + 4 + 2 + 1 threads), 2 for the copy.
    CHECK(record.events == 3 * 15 + 2 + launch.barriers.size());
  }
}

TEST_CASE("a recorded lab 2 at n = 16 keeps its owners together", "[record][lab2]") {
  Settings settings;
  const std::vector<float> input = small_integers(16, 2);
  const RecordedPass recorded = record_lab(EMU_SELFTEST_LAB2, input);
  const reduce_emu::RecordedLaunch& launch = recorded.launch();
  const std::map<unsigned, Step> expected = {
      {0, {threads({0, 1, 2, 3, 4, 5, 6, 7}), elements(0, 15), elements(0, 7)}},
      {1, {threads({0, 1, 2, 3}), elements(0, 7), elements(0, 3)}},
      {2, {threads({0, 1}), elements(0, 3), elements(0, 1)}},
      {3, {threads({0}), elements(0, 1), elements(0, 0)}},
      {4, {threads({0}), elements(0, 0), {}}},
  };
  CHECK(steps_of(launch, recorded.pass.input) == expected);
  for (const reduce_emu::RecordedInstruction& ins : launch.instructions)
    if (ins.interval < 4) CHECK(ins.mask == (1u << (8 >> ins.interval)) - 1);  // the lowest lanes
  check_values_replay(launch, recorded.pass.input, as_memory(input));
}

TEST_CASE("a recorded lab 3 at n = 16 shows its tree in shared memory", "[record][lab3]") {
  Settings settings;
  const std::vector<float> input = small_integers(16, 3);
  const RecordedPass recorded = record_lab(EMU_SELFTEST_LAB3, input);
  const reduce_emu::RecordedLaunch& launch = recorded.launch();
  // The first add on load reads global memory once; the tree after it stays in shared memory.
  CHECK(steps_of(launch, recorded.pass.input) ==
        (std::map<unsigned, Step>{{0, {threads({0, 1, 2, 3, 4, 5, 6, 7}), elements(0, 15), {}}}}));
  const std::map<unsigned, Step> expected = {
      {0, {threads({0, 1, 2, 3, 4, 5, 6, 7}), {}, elements(0, 7)}},
      {1, {threads({0, 1, 2, 3}), elements(0, 7), elements(0, 3)}},
      {2, {threads({0, 1}), elements(0, 3), elements(0, 1)}},
      {3, {threads({0}), elements(0, 1), elements(0, 0)}},
  };
  CHECK(steps_of(launch, 0) == expected);
  CHECK(steps_of(launch, recorded.pass.output) == (std::map<unsigned, Step>{{3, {threads({0}), {}, elements(0, 0)}}}));
  CHECK(launch.barriers.size() == 3);
  // input_s[t] = input[t] + input[t + 8], and the tree's values as the replay finds them.
  std::map<long long, float> shared;
  for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
    if (ins.space != MemorySpace::shared || ins.interval != 0) continue;
    CHECK(ins.kind == AccessKind::store);
    CHECK_FALSE(ins.dynamic_shared);
    for (const reduce_emu::LaneAccess& lane : ins.lanes)
      CHECK(lane.as<float>() == input[lane.lane] + input[lane.lane + 8]);
  }
  check_values_replay(launch, 0, shared);
}

TEST_CASE("recorded atomics: global ones with the value before and after, shared ones after", "[record][atomics]") {
  Settings settings;
  const std::vector<float> input = small_integers(8, 5);
  DeviceBuffer<float> in(input);
  DeviceBuffer<float> out(2);
  out.fill(0.0f);
  reduce_emu::start_recording();
  launch(SharedCountKernel, 1, 8, Global<const float>(in.get()), out.global());
  const reduce_emu::Record record = reduce_emu::take_record();
  REQUIRE(record.launches.size() == 1);
  const reduce_emu::RecordedLaunch& launch = record.launches[0];
  CHECK(launch.end.outcome == reduce_emu::LaunchOutcome::finished);
  unsigned global_atomics = 0, shared_atomics = 0;
  for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
    if (ins.kind != AccessKind::atomic) continue;
    CHECK(ins.interval == 1);
    CHECK(ins.mask == 0xffu);
    std::set<float> before, after;
    for (const reduce_emu::LaneAccess& lane : ins.lanes) {
      CHECK(lane.element == 0);
      after.insert(lane.as<float>());
      if (ins.has_old) {
        // Each lane added its own input to what the element held just before.
        CHECK(lane.as<float>() == lane.old_as<float>() + input[lane.lane]);
        before.insert(lane.old_as<float>());
      }
    }
    if (ins.space == MemorySpace::global) {
      ++global_atomics;
      CHECK(ins.has_old);
      CHECK(ins.allocation == reinterpret_cast<std::uintptr_t>(out.get()));
      CHECK(before.count(0.0f) == 1);                            // the first saw the zero
      CHECK(after.count(static_cast<float>(sum_of(input))) == 1);  // the last left the sum
    } else {
      ++shared_atomics;
      CHECK_FALSE(ins.has_old);
      std::set<int> counts;
      for (const reduce_emu::LaneAccess& lane : ins.lanes) counts.insert(lane.as<int>());
      CHECK(counts == std::set<int>{1, 2, 3, 4, 5, 6, 7, 8});
    }
  }
  CHECK(global_atomics == 1);
  CHECK(shared_atomics == 1);
  CHECK(out.download()[1] == 8.0f);
}

TEST_CASE("a recorded deadlock or fault ends the record where the block stopped", "[record][faults]") {
  Settings settings;
  reduce_emu::set_seed(7);
  SECTION("deadlock: the threads waiting, and the accesses before it") {
    DeviceBuffer<float> data(64);
    data.fill(0.0f);
    reduce_emu::start_recording();
    const std::string error = launch_error([&] { launch(SyncwarpAgainstBarrierKernel, 1, 64, data.global()); });
    const reduce_emu::Record record = reduce_emu::take_record();
    CHECK_THAT(error, Catch::Contains("deadlock"));
    REQUIRE(record.launches.size() == 1);
    const reduce_emu::RecordedLaunch& launch = record.launches[0];
    CHECK(launch.end.outcome == reduce_emu::LaunchOutcome::deadlock);
    CHECK(launch.end.message == error);
    CHECK(launch.end.block == 0);
    CHECK(launch.end.interval == 0);
    REQUIRE(launch.end.threads.size() == 64);
    for (const reduce_emu::StoppedThread& t : launch.end.threads) {
      INFO("thread " << t.thread);
      CHECK(t.file == "emu_selftest.cpp");
      if (t.thread % 2 == 0) {
        CHECK(t.state == reduce_emu::StoppedThread::State::at_barrier);
        CHECK(t.line == kWarpBarrierLine);
      } else {
        CHECK(t.state == reduce_emu::StoppedThread::State::at_warp_collective);
        CHECK(t.line == kWarpBarrierLine + 2);
      }
    }
    // Lane 0 of each warp stored before the warps stopped: in the record, though no warp met.
    REQUIRE(launch.instructions.size() == 2);
    for (const reduce_emu::RecordedInstruction& ins : launch.instructions) {
      CHECK(ins.kind == AccessKind::store);
      CHECK(ins.mask == 1u);
      CHECK(ins.lanes.at(0).element == ins.warp * 32);
      CHECK(ins.lanes.at(0).as<float>() == 1.0f);
    }
    CHECK(launch.barriers.empty());
  }
  SECTION("fault: the thread whose access was out of bounds") {
    DeviceBuffer<float> input(64);
    DeviceBuffer<float> output(64);
    reduce_emu::start_recording();
    const std::string error = launch_error(
        [&] { launch(OutOfBoundsKernel, 1, 64, Global<const float>(input.get()), output.global()); });
    const reduce_emu::Record record = reduce_emu::take_record();
    REQUIRE(record.launches.size() == 1);
    const reduce_emu::LaunchEnd& end = record.launches[0].end;
    CHECK(end.outcome == reduce_emu::LaunchOutcome::fault);
    CHECK_THAT(end.message, Catch::Contains("out-of-bounds global load"));
    CHECK(end.faulting_thread == 63);
    REQUIRE(end.threads.size() == 64);
    CHECK(end.threads[63].state == reduce_emu::StoppedThread::State::faulted);
    for (const reduce_emu::StoppedThread& t : end.threads)
      if (t.thread != 63) CHECK(t.state != reduce_emu::StoppedThread::State::faulted);
  }
  // Not recording any more: a launch leaves nothing behind, and the next record starts empty.
  CHECK_FALSE(reduce_emu::recording());
  DeviceBuffer<float> data(64);
  launch(EarlyExitKernel, 1, 64, data.global(), 64u);
  reduce_emu::start_recording();
  CHECK(reduce_emu::take_record().launches.empty());
}

TEST_CASE("a record stops at its cap and says so", "[record]") {
  Settings settings;
  const LabModule lab(EMU_SELFTEST_LAB1);
  const std::vector<float> input = small_integers(256);
  PassResult pass;
  const reduce_emu::Record full = record_pass(lab, input, &pass);
  REQUIRE(pass.status == 0);
  CHECK_FALSE(full.truncated);
  REQUIRE(full.events > 100);

  reduce_emu::RecordOptions options;
  options.max_events = 100;
  reduce_emu::start_recording(options);
  const PassResult capped = run_pass(lab, input);
  const reduce_emu::Record record = reduce_emu::take_record();
  // The run itself is whole: the sum and the counters do not depend on the cap.
  REQUIRE(capped.status == 0);
  CHECK(capped.outputs == pass.outputs);
  CHECK(capped.counters.requests[kLoad] == pass.counters.requests[kLoad]);
  CHECK(record.truncated);
  CHECK(record.max_events == 100);
  CHECK(record.events <= 100);
  REQUIRE(record.launches.size() == 1);
  std::size_t lanes = 0;
  for (const reduce_emu::RecordedInstruction& ins : record.launches[0].instructions) lanes += ins.lanes.size();
  CHECK(lanes + record.launches[0].barriers.size() == record.events);
  CHECK(record.launches[0].instructions.size() < full.launches[0].instructions.size());
}

// Races between blocks: found whatever order the blocks run in.

// Each block stores its number to the same word.
__global__ void StoreRaceKernel(Global<unsigned> out) {
  if (threadIdx.x == 0) out[0] = blockIdx.x;
}

// Block 1 stores a word that block 0 loads: a load and a store of two blocks, unordered.
__global__ void LoadStoreRaceKernel(Global<float> data, Global<float> out) {
  if (threadIdx.x == 0 && blockIdx.x == 1) data[3] = 1.0f;
  if (threadIdx.x == 5 && blockIdx.x == 0) out[0] = data[3];
}

// Block 0 stores the identity into a word the other blocks add to atomically.
__global__ void StoreAtomicRaceKernel(Global<float> out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = 0.0f;
  if (threadIdx.x == 0) atomicAdd(out, 1.0f);
}

// Every thread of every block adds to one word: atomics never race with atomics.
__global__ void AtomicsOnlyKernel(Global<unsigned> out) { atomicAdd(out, 1u); }

// Within one block, a barrier orders a store before another thread's load.
__global__ void SameBlockKernel(Global<float> data, Global<float> out) {
  const unsigned slot = blockIdx.x * 2;
  if (threadIdx.x == 0) data[slot] = 1.0f + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 31) out[blockIdx.x] = data[slot] + data[slot + 1];
}

__global__ void StoreSlotKernel(Global<float> data) {
  if (threadIdx.x == 0 && blockIdx.x == 2) data[0] = 7.0f;
}
__global__ void UpdateSlotKernel(Global<float> data) {
  if (threadIdx.x == 0 && blockIdx.x == 0) data[0] += 1.0f;
}

// cuda-samples' threadFenceReduction: each block stores its partial, fences, and takes a
// ticket; the last block reads every partial. `fence` false leaves the fence out.
template <bool fence>
__global__ void LastBlockKernel(Global<const float> input, Global<float> partials, Global<unsigned> retired,
                                Global<float> out) {
  __shared__ float sums[64];
  __shared__ bool am_last;
  const unsigned t = threadIdx.x;
  sums[t] = input[blockIdx.x * 64 + t];
  for (unsigned stride = 32; stride >= 1; stride /= 2) {
    __syncthreads();
    if (t < stride) sums[t] += sums[t + stride];
  }
  if (t == 0) partials[blockIdx.x] = sums[0];
  if (fence) __threadfence();
  if (t == 0) am_last = atomicInc(retired, gridDim.x) == gridDim.x - 1;
  __syncthreads();
  if (am_last && t == 0) {
    float total = 0.0f;
    for (unsigned b = 0; b < gridDim.x; ++b) total += partials[b];
    out[0] = total;
    retired[0] = 0;
  }
}

// The order blocks start in: each block's first thread takes a ticket.
__global__ void BlockTicketKernel(Global<unsigned> counter, Global<unsigned> tickets) {
  if (threadIdx.x == 0) tickets[blockIdx.x] = atomicAdd(&counter[0], 1u);
}

TEST_CASE("a race between blocks is found whatever order they run in, and named", "[races]") {
  Settings settings(2);
  auto under_seeds = [](auto&& run) {
    for (unsigned long long seed : {1ull, 2ull, 3ull, 0x5eedull, 0xfeedull}) {
      reduce_emu::set_seed(seed);
      run(seed);
    }
  };
  SECTION("two stores") {
    DeviceBuffer<unsigned> out(1);
    under_seeds([&](unsigned long long) {
      const std::string error = launch_error([&] { launch(StoreRaceKernel, 4, 32, out.global()); });
      INFO(error);
      CHECK_THAT(error, Catch::Contains("emulator: race between blocks: thread (0,0,0) of block ("));
      CHECK_THAT(error, Catch::Contains("stores to element 0 of an allocation of 1 4-byte elements, which thread "
                                        "(0,0,0) of block ("));
      CHECK_THAT(error, Catch::Contains(") stored to in the same launch"));
      CHECK_THAT(error, Catch::Contains("StoreRaceKernel"));
      CHECK_THAT(error, Catch::Contains("REDUCE_LAB_EMU_SEED="));
    });
  }
  SECTION("a load and a store") {
    DeviceBuffer<float> data(8);
    DeviceBuffer<float> out(1);
    under_seeds([&](unsigned long long) {
      data.fill(0.0f);
      const std::string error = launch_error([&] { launch(LoadStoreRaceKernel, 2, 32, data.global(), out.global()); });
      INFO(error);
      CHECK_THAT(error, Catch::Contains("race between blocks"));
      CHECK_THAT(error, Catch::Contains("element 3 of an allocation of 8"));
      // Whichever came first, both are named: thread 5 of block 0 and thread 0 of block 1.
      const bool load_second = error.find("thread (5,0,0) of block (0,0,0) loads") != std::string::npos &&
                               error.find("thread (0,0,0) of block (1,0,0) stored to") != std::string::npos;
      const bool store_second = error.find("thread (0,0,0) of block (1,0,0) stores to") != std::string::npos &&
                                error.find("thread (5,0,0) of block (0,0,0) loaded") != std::string::npos;
      CHECK((load_second || store_second));
    });
  }
  SECTION("a store and atomics") {
    DeviceBuffer<float> out(1);
    under_seeds([&](unsigned long long) {
      const std::string error = launch_error([&] { launch(StoreAtomicRaceKernel, 8, 32, out.global()); });
      INFO(error);
      CHECK_THAT(error, Catch::Contains("race between blocks"));
      CHECK_THAT(error, Catch::Contains("atomically update"));
    });
  }
  SECTION("a store without __threadfence() is not published by the atomic after it") {
    DeviceBuffer<float> input(std::vector<float>(16 * 64, 1.0f));
    DeviceBuffer<float> partials(16);
    DeviceBuffer<unsigned> retired(1);
    DeviceBuffer<float> out(1);
    under_seeds([&](unsigned long long) {
      retired.fill(0);
      const std::string error = launch_error([&] {
        launch(LastBlockKernel<false>, 16, 64, Global<const float>(input.get()), partials.global(),
               retired.global(), out.global());
      });
      INFO(error);
      CHECK_THAT(error, Catch::Contains("race between blocks"));
      CHECK_THAT(error, Catch::Contains("loads element"));
      CHECK_THAT(error, Catch::Contains("of an allocation of 16 4-byte elements"));
    });
  }
}

TEST_CASE("what orders blocks is not a race: atomics, fence and atomic, one block, separate launches", "[races]") {
  Settings settings(4);
  for (unsigned long long seed : {1ull, 2ull, 3ull, 0x5eedull, 0xfeedull, 0xbeefull}) {
    reduce_emu::set_seed(seed);
    INFO("seed " << seed);
    {
      DeviceBuffer<unsigned> out(1);
      out.fill(0);
      CHECK(launch_error([&] { launch(AtomicsOnlyKernel, 16, 128, out.global()); }) == "");
      CHECK(out.download()[0] == 16u * 128u);
    }
    {
      DeviceBuffer<float> data(16);
      DeviceBuffer<float> out(8);
      data.fill(0.5f);
      CHECK(launch_error([&] { launch(SameBlockKernel, 8, 64, data.global(), out.global()); }) == "");
      CHECK(out.download()[3] == 4.5f);
    }
    {
      DeviceBuffer<float> data(1);
      data.fill(0.0f);
      CHECK(launch_error([&] { launch(StoreSlotKernel, 4, 32, data.global()); }) == "");
      CHECK(launch_error([&] { launch(UpdateSlotKernel, 4, 32, data.global()); }) == "");
      CHECK(data.download()[0] == 8.0f);
    }
    {
      const unsigned blocks = 40;
      DeviceBuffer<float> input(small_integers(blocks * 64, static_cast<unsigned>(seed)));
      DeviceBuffer<float> partials(blocks);
      DeviceBuffer<unsigned> retired(1);
      DeviceBuffer<float> out(1);
      retired.fill(0);
      for (int again = 0; again < 2; ++again) {  // the last block left the counter at 0
        const std::string error = launch_error([&] {
          launch(LastBlockKernel<true>, blocks, 64, Global<const float>(input.get()), partials.global(),
                 retired.global(), out.global());
        });
        INFO(error);
        CHECK(error == "");
        CHECK(out.download()[0] == static_cast<float>(sum_of(small_integers(blocks * 64, static_cast<unsigned>(seed)))));
      }
    }
  }
}

// Every block loads the whole input.
__global__ void LoadsOnlyKernel(Global<const float> data, Global<float> out) {
  if (threadIdx.x < 8) atomicAdd(&out[0], data[threadIdx.x]);
}

TEST_CASE("the lab's input, which it only reads: a store or atomic to it is a fault, loads are not", "[races][faults]") {
  Settings settings(2);
  DeviceBuffer<float> data(8);
  DeviceBuffer<float> out(1);
  for (unsigned long long seed : {1ull, 2ull, 0x5eedull}) {
    reduce_emu::set_seed(seed);
    data.fill(0.5f);  // the last launch below may have stored before its race was found
    reduce_emu::set_read_only_input(data.get());
    out.fill(0.0f);
    CHECK(launch_error([&] { launch(LoadsOnlyKernel, 16, 32, Global<const float>(data.get()), out.global()); }) == "");
    CHECK(out.download()[0] == 16 * 8 * 0.5f);
    // Block 1's store would race with block 0's load; it is named for what it is instead.
    std::string error = launch_error([&] { launch(LoadStoreRaceKernel, 2, 32, data.global(), out.global()); });
    INFO(error);
    CHECK_THAT(error, Catch::Contains("emulator: store to the lab's input: element 3 of an allocation of 8 4-byte "
                                      "elements, which the lab only reads"));
    CHECK_THAT(error, Catch::Contains("the access was not performed"));
    CHECK_THAT(error, !Catch::Contains("race"));
    CHECK(data.download()[3] == 0.5f);
    DeviceBuffer<unsigned> counter(1);
    counter.fill(0);
    reduce_emu::set_read_only_input(counter.get());
    error = launch_error([&] { launch(AtomicsOnlyKernel, 4, 32, counter.global()); });
    CHECK_THAT(error, Catch::Contains("emulator: atomic update of the lab's input: element 0 of an allocation of 1"));
    CHECK(counter.download()[0] == 0u);
    reduce_emu::set_read_only_input(data.get());
    // Other allocations, and the input once the call is over, are checked as before.
    DeviceBuffer<unsigned> slot(1);
    error = launch_error([&] { launch(StoreRaceKernel, 4, 32, slot.global()); });
    CHECK_THAT(error, Catch::Contains("race between blocks"));
    reduce_emu::set_read_only_input(nullptr);
    error = launch_error([&] { launch(LoadStoreRaceKernel, 2, 32, data.global(), out.global()); });
    CHECK_THAT(error, Catch::Contains("race between blocks"));
  }
}

TEST_CASE("counted runs measure traffic only: the race checks are for correctness runs", "[races][counters]") {
  Settings settings;
  DeviceBuffer<unsigned> out(1);
  reduce_lab::Counters counters{};
  reduce_emu::set_counters(&counters);
  CHECK(launch_error([&] { launch(StoreRaceKernel, 4, 32, out.global()); }) == "");
  CHECK(counters.requests[static_cast<int>(reduce_lab::Access::store)] == 4);
}

TEST_CASE("the seed chooses the order blocks are handed out in", "[seed][races]") {
  Settings settings(1);  // one worker: blocks run one after another, in that order
  const unsigned blocks = 64;
  DeviceBuffer<unsigned> counter(1);
  DeviceBuffer<unsigned> tickets(blocks);
  auto order = [&](unsigned long long seed) {
    reduce_emu::set_seed(seed);
    counter.fill(0);
    launch(BlockTicketKernel, blocks, 32, counter.global(), tickets.global());
    return tickets.download();
  };
  const auto first = order(42);
  CHECK(order(42) == first);
  std::vector<unsigned> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned b = 0; b < blocks; ++b) CHECK(sorted[b] == b);  // a permutation
  int different = 0, first_block_changes = 0;
  for (unsigned long long seed = 1; seed <= 8; ++seed) {
    const auto other = order(seed);
    different += other != first;
    first_block_changes += std::find(other.begin(), other.end(), 0u) - other.begin() !=
                           std::find(first.begin(), first.end(), 0u) - first.begin();
  }
  CHECK(different == 8);
  CHECK(first_block_changes >= 6);
}
