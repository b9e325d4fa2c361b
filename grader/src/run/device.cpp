#include "run/device.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace reduce_lab::grader {

// Why the copies and allocations below avoid waiting for the device: with a dozen processes on
// one GPU (the kit's suite, a class's grades on a shared host), each wait is a wait for this
// process's turn on it. On an H200 beside twelve programs each running such cases, a case that
// allocated its buffers, copied with cudaMemcpy and freed them took 18-42 ms; with its buffers
// reused, its copies queued through page-locked memory, and two waits (the lab's kernels, then
// the copies back), 2-4 ms. Alone, 0.3-0.4 ms against 0.25 ms.
namespace {

// Freed allocations kept for the next buffer of exactly the same size (never a larger one:
// compute-sanitizer's memcheck must still see each buffer end where its elements do). Small
// ones only, up to a total, so a process holds little device memory it does not use.
class AllocationPool {
 public:
  static AllocationPool& instance() {
    static AllocationPool* pool = new AllocationPool;  // never destroyed: no cudaFree after the runtime's end
    return *pool;
  }

  void* take(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (const auto found = free_.find(bytes); found != free_.end()) {
        void* data = found->second;
        free_.erase(found);
        held_ -= bytes;
        return data;
      }
    }
    void* data = nullptr;
    check(cudaMalloc(&data, bytes), "allocating device memory");
    return data;
  }

  void give(void* data, std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (bytes <= kLargestKept && held_ + bytes <= kMostHeld) {
        free_.emplace(bytes, data);
        held_ += bytes;
        return;
      }
    }
    cudaFree(data);  // no check: called from a destructor, even after a kernel fault
  }

 private:
  static constexpr std::size_t kLargestKept = std::size_t{16} << 20;
  static constexpr std::size_t kMostHeld = std::size_t{64} << 20;
  std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;
  std::size_t held_ = 0;
};

// Page-locked host memory that copies go through, grown to the largest copy; an event marks the
// end of the copy that last used it, so that the next waits for it (at once, in the usual case).
class Stage {
 public:
  void* reserve(std::size_t bytes, const char* what) {
    if (in_use_) check(cudaEventSynchronize(done_), what);
    in_use_ = false;
    if (bytes > capacity_) {
      if (data_) check(cudaFreeHost(data_), what);
      data_ = nullptr;
      capacity_ = 0;
      check(cudaMallocHost(&data_, bytes), "allocating page-locked host memory");
      capacity_ = bytes;
    }
    if (!done_) check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), what);
    return data_;
  }
  void queued(const char* what) {
    check(cudaEventRecord(done_, 0), what);
    in_use_ = true;
  }

 private:
  void* data_ = nullptr;
  std::size_t capacity_ = 0;
  cudaEvent_t done_ = nullptr;
  bool in_use_ = false;
};

// Copies larger than this are made directly (cudaMemcpy): a stage that size would hold that much
// page-locked memory for the process's life.
constexpr std::size_t kLargestStaged = std::size_t{32} << 20;

Stage& upload_stage() {
  static Stage* stage = new Stage;
  return *stage;
}

Stage& readback_stage() {
  static Stage* stage = new Stage;
  return *stage;
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t count, std::size_t bytes_per_element)
    : count_(count), element_bytes_(bytes_per_element) {
  // At least one element, so a zero-sized buffer is still a valid allocation to poison.
  data_ = AllocationPool::instance().take(allocated_bytes());
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) AllocationPool::instance().give(data_, allocated_bytes());
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(count_, other.count_);
  std::swap(element_bytes_, other.element_bytes_);
  return *this;
}

void DeviceBuffer::upload(const void* host, std::size_t n) {
  check(cudaMemcpy(data_, host, n, cudaMemcpyHostToDevice), "copying the input to the device");
}

void DeviceBuffer::upload_queued(const void* host, std::size_t n) {
  constexpr const char* what = "copying the input to the device";
  if (n == 0) return;
  if (n > kLargestStaged) return upload(host, n);
  Stage& stage = upload_stage();
  void* staged = stage.reserve(n, what);
  std::memcpy(staged, host, n);
  check(cudaMemcpyAsync(data_, staged, n, cudaMemcpyHostToDevice), what);
  stage.queued(what);
}

void DeviceBuffer::upload_at(std::size_t index, const void* host, std::size_t count) {
  if (index + count > count_) throw std::out_of_range("DeviceBuffer::upload_at past the end of the buffer");
  check(cudaMemcpy(static_cast<char*>(data_) + index * element_bytes_, host, count * element_bytes_,
                   cudaMemcpyHostToDevice),
        "changing one element of the input");
}

void DeviceBuffer::download(void* host, std::size_t n) const {
  check(cudaMemcpy(host, data_, n, cudaMemcpyDeviceToHost), "copying the result back from the device");
}

void DeviceBuffer::download_at(std::size_t index, void* host, std::size_t count) const {
  if (index + count > count_) throw std::out_of_range("DeviceBuffer::download_at past the end of the buffer");
  check(cudaMemcpy(host, static_cast<const char*>(data_) + index * element_bytes_, count * element_bytes_,
                   cudaMemcpyDeviceToHost),
        "copying a result back from the device");
}

void DeviceBuffer::copy_from(const DeviceBuffer& other) {
  check(cudaMemcpyAsync(data_, other.data_, std::min(bytes(), other.bytes()), cudaMemcpyDeviceToDevice),
        "restoring the input on the device");
}

void read_back(const std::vector<Readback>& copies, const char* what) {
  // Each copy's place in the stage, 16-byte aligned.
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
  for (const Readback& copy : copies) {
    offsets.push_back(total);
    total += (copy.bytes + 15) / 16 * 16;
  }
  if (total == 0) return;
  if (total > kLargestStaged) {
    for (const Readback& copy : copies) check(cudaMemcpy(copy.host, copy.device, copy.bytes, cudaMemcpyDeviceToHost), what);
    return;
  }
  char* staged = static_cast<char*>(readback_stage().reserve(total, what));
  for (std::size_t i = 0; i < copies.size(); ++i)
    check(cudaMemcpyAsync(staged + offsets[i], copies[i].device, copies[i].bytes, cudaMemcpyDeviceToHost), what);
  check(cudaStreamSynchronize(0), what);
  for (std::size_t i = 0; i < copies.size(); ++i) std::memcpy(copies[i].host, staged + offsets[i], copies[i].bytes);
}

void DeviceBuffer::poison() { check(cudaMemsetAsync(data_, 0xFF, bytes()), "poisoning an output buffer"); }

void untimed_contexts() {
  // The driver creates one process's context at a time, and a context's hardware queues are most
  // of that time: on an H200, 16 processes starting at once each waited 2.1-2.6 s for theirs
  // (0.2 s alone), and 48 of them 8.9-10.9 s; with one queue each, 0.8-0.9 s and 2.3-3.1 s. The
  // kit's suite and a class's grades start hundreds of such processes on one GPU.
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
}

bool untimed_check(std::string_view test) { return test == "correctness" || test == "requests" || test == "races"; }

bool gpu_present(std::string* why_not) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why_not) *why_not = status != cudaSuccess ? cudaGetErrorString(status) : "no CUDA device";
    cudaGetLastError();  // clear, so later calls do not report this
    return false;
  }
  return true;
}

DeviceFacts device_facts() {
  DeviceFacts facts;
  int device = 0;
  check(cudaGetDevice(&device), "asking for the current device");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "reading the device properties");
  facts.name = properties.name;
  facts.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  facts.multiprocessors = properties.multiProcessorCount;
  facts.threads_per_multiprocessor = properties.maxThreadsPerMultiProcessor;
  check(cudaMemGetInfo(&facts.free_bytes, &facts.total_bytes), "reading free device memory");
  return facts;
}

}  // namespace reduce_lab::grader
