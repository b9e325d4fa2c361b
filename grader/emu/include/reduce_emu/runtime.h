// The host-side half of the CUDA runtime, on host memory: what a harness written against
// <cuda_runtime.h> calls (allocation, copies, events, device properties), plus the CUDA
// keywords and vector types that host and device code share. "Device" memory is ordinary
// host memory; every allocation is recorded so kernels' global accesses and the copies can
// be bounds-checked. Nothing here needs a CUDA toolkit.
#pragma once

#include <cstddef>
#include <cstring>

// CUDA's execution-space and memory-space keywords. __shared__ is per block: each block runs
// on one worker OS thread at a time, with all of its threads as fibers on that thread, so a
// thread_local variable is exactly one copy per running block. At block scope thread_local
// implies static, so `__shared__ float s[N];` and `static __shared__ float s[N];` both work.
// `extern __shared__ T name[];` (dynamic shared memory) is rewritten by the build into a
// pointer to the block's dynamic shared memory (cmake/counting_rewrite.cmake).
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ thread_local
#define __forceinline__ __inline__ __attribute__((always_inline))
// __noinline__ is left alone: GCC and libstdc++ already use it as an attribute name.
#define __restrict__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Numeric values follow the CUDA runtime's, so logs read the same on both backends.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
};

struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  std::size_t totalConstMem;
  int major;
  int minor;
  std::size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int concurrentManagedAccess;
  std::size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
};

// Streams and events are opaque handles, as in CUDA. Work runs synchronously inside the
// call that issues it, so a stream is only a name and an event only a host clock reading.
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

constexpr unsigned int cudaStreamDefault = 0x0;
constexpr unsigned int cudaStreamNonBlocking = 0x1;
constexpr unsigned int cudaEventDefault = 0x0;
constexpr unsigned int cudaEventBlockingSync = 0x1;
constexpr unsigned int cudaEventDisableTiming = 0x2;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

cudaError_t cudaMalloc(void** pointer, std::size_t bytes);
template <class T>
inline cudaError_t cudaMalloc(T** pointer, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}
cudaError_t cudaMallocManaged(void** pointer, std::size_t bytes, unsigned int flags = 1);
template <class T>
inline cudaError_t cudaMallocManaged(T** pointer, std::size_t bytes, unsigned int flags = 1) {
  return cudaMallocManaged(reinterpret_cast<void**>(pointer), bytes, flags);
}
cudaError_t cudaMallocHost(void** pointer, std::size_t bytes);
template <class T>
inline cudaError_t cudaMallocHost(T** pointer, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(pointer), bytes);
}
cudaError_t cudaFree(void* pointer);
cudaError_t cudaFreeHost(void* pointer);

cudaError_t cudaMemcpy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void* destination, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* destination, int value, std::size_t bytes, cudaStream_t stream = 0);

namespace reduce_emu {
namespace detail {
// Symbols are host variables here; the copy only has to stay inside the variable.
cudaError_t symbol_copy(void* destination, const void* source, std::size_t bytes, std::size_t symbol_bytes,
                        std::size_t offset);
}  // namespace detail
}  // namespace reduce_emu

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* source, std::size_t bytes,
                                      std::size_t offset = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  return reduce_emu::detail::symbol_copy(reinterpret_cast<char*>(const_cast<T*>(&symbol)) + offset, source,
                                         bytes, sizeof(T), offset);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* destination, const T& symbol, std::size_t bytes,
                                        std::size_t offset = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  return reduce_emu::detail::symbol_copy(destination, reinterpret_cast<const char*>(&symbol) + offset, bytes,
                                         sizeof(T), offset);
}

cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* milliseconds, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
