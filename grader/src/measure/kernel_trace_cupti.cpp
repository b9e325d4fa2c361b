// The GPU's activity records through CUPTI's Activity API: records of kind
// CONCURRENT_KERNEL need no profiling permission (unlike hardware counters), so the trace
// works wherever the toolkit does. CUPTI is attached only around the traced work and
// detached after it (cuptiFinalize), so nothing of it stays in the timed samples.
#include <cupti.h>
#include <cuda_runtime.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "measure/kernel_trace.hpp"

namespace reduce_lab::grader {

namespace {

constexpr std::size_t kBufferBytes = 1 << 20;

std::mutex records_mutex;
std::vector<KernelLaunch>* collecting = nullptr;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  // CUPTI wants 8-byte alignment.
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
    const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    KernelLaunch launch;
    launch.name = kernel_name_without_parameters(kernel->name ? kernel->name : "?");
    launch.grid[0] = static_cast<unsigned>(kernel->gridX);
    launch.grid[1] = static_cast<unsigned>(kernel->gridY);
    launch.grid[2] = static_cast<unsigned>(kernel->gridZ);
    launch.block[0] = static_cast<unsigned>(kernel->blockX);
    launch.block[1] = static_cast<unsigned>(kernel->blockY);
    launch.block[2] = static_cast<unsigned>(kernel->blockZ);
    launch.dynamic_shared = static_cast<unsigned>(kernel->dynamicSharedMemory);
    std::lock_guard<std::mutex> lock(records_mutex);
    if (collecting) collecting->push_back(launch);
  }
  std::free(buffer);
}

void cupti_check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  throw std::runtime_error(std::string("CUPTI could not ") + what + ": " + (text ? text : "unknown error"));
}

}  // namespace

bool kernel_trace_available(std::string*) { return true; }

std::vector<KernelLaunch> trace_kernels(const std::function<void()>& work) {
  std::vector<KernelLaunch> launches;
  std::string failure;
  cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "take activity buffers");
  cupti_check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "record kernel launches");
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    collecting = &launches;
  }
  try {
    work();
    if (cudaDeviceSynchronize() != cudaSuccess) failure = "the traced work did not finish";
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    collecting = nullptr;
  }
  cuptiFinalize();
  if (!failure.empty()) throw std::runtime_error(failure);
  return launches;
}

}  // namespace reduce_lab::grader
