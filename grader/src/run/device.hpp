// Device memory and facts about the device, every call checked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <reduce_lab/check.h>

namespace reduce_lab::grader {

// Owns one cudaMalloc allocation of `count` elements of `bytes_per_element`.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, std::size_t bytes_per_element);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  std::size_t count() const { return count_; }
  std::size_t bytes() const { return count_ * element_bytes_; }

  void upload(const void* host, std::size_t bytes);
  // The same copy, in stream order behind the work already queued, returning before it ends: the
  // host's bytes go through page-locked memory of the process's own (`host` may change at once).
  void upload_queued(const void* host, std::size_t bytes);
  // Overwrites `count` elements from element `index` on.
  void upload_at(std::size_t index, const void* host, std::size_t count);
  void download(void* host, std::size_t bytes) const;
  // Reads `count` elements from element `index` on.
  void download_at(std::size_t index, void* host, std::size_t count) const;
  void copy_from(const DeviceBuffer& other);  // device to device, stream-ordered
  // Fills with 0xFF bytes: NaN for floating point, -1 for integers. A lab that leaves an
  // output unwritten, or reads one it never set, then cannot pass by luck.
  void poison();

 private:
  std::size_t allocated_bytes() const { return std::max(bytes(), element_bytes_); }

  void* data_ = nullptr;
  std::size_t count_ = 0;
  std::size_t element_bytes_ = 0;
};

// One copy back from the device: `bytes` from `device` into `host`.
struct Readback {
  const void* device;
  void* host;
  std::size_t bytes;
};

// Makes every copy in stream order behind the work already queued, and waits once for them all:
// one wait for the device, where a cudaMemcpy each would wait for each.
void read_back(const std::vector<Readback>& copies, const char* what);

// For a process that times nothing (the correctness, requests and races checks, Nsight Compute's
// runs): CUDA contexts get one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1), unless the
// environment already chose. Streams then share it, which changes no result, only concurrency.
// Call it before the process's first CUDA call.
void untimed_contexts();
// Whether graded check `test` ("correctness", "speedup", ...) times nothing on the GPU.
bool untimed_check(std::string_view test);

// True when a CUDA device can be used (false on the emulator's machines without a GPU).
bool gpu_present(std::string* why_not = nullptr);

struct DeviceFacts {
  std::string name;
  std::size_t l2_bytes = 0;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  int multiprocessors = 0;
  int threads_per_multiprocessor = 0;  // the most resident threads on one multiprocessor
};
DeviceFacts device_facts();

}  // namespace reduce_lab::grader
