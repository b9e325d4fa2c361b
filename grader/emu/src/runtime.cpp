// The CUDA runtime API on host memory. Work is synchronous: a launch or copy has finished
// when its call returns, so streams, events and synchronisation have nothing to wait for.

#include "internal.h"

#include <cxxabi.h>
#include <sys/mman.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <shared_mutex>
#include <string>

namespace reduce_emu {
namespace detail {

std::atomic<unsigned long long> allocation_generation{0};

namespace {

// Device memory is mapped twice. The address a cudaMalloc returns (what the grader and the
// lab hold) is a reservation with no access at all; the bytes live in a second mapping that
// only the kit reaches: Global<T> (through count_access, which checks every access first),
// the runtime's copies and fills, and the kit's atomics. So lab code that touches device
// memory around Global<T> (a raw pointer smuggled out of one) faults at once and is named
// (crash handler in scheduler.cpp), as host code that dereferences a device pointer does on
// a GPU, instead of reading uncounted and unchecked.
struct Mapping {
  std::size_t bytes;   // what was asked for: the bounds of every check
  std::size_t mapped;  // page-rounded size of both mappings
  std::uintptr_t kit;  // where the bytes really are
  AllocationShadow* shadow;  // owned: freed with the allocation
};

struct Registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, Mapping> allocations;  // device address -> mapping
};

Registry& registry() {
  static Registry* instance = new Registry;  // outlives static destructors that may still free
  return *instance;
}

std::atomic<int> last_error{cudaSuccess};

cudaError_t fail(cudaError_t error) {
  last_error.store(error);
  return error;
}

// The allocation that holds [pointer, pointer + bytes), if any.
bool inside_allocation(const void* pointer, std::size_t bytes) {
  Allocation found;
  if (!find_allocation(pointer, &found)) return false;
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(pointer);
  return p + bytes <= found.base + found.bytes && p + bytes >= p;
}

bool is_device(const void* pointer) {
  Allocation found;
  return find_allocation(pointer, &found);
}

std::size_t page_bytes() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

cudaError_t allocate(void** pointer, std::size_t bytes) {
  if (pointer == nullptr) return fail(cudaErrorInvalidValue);
  *pointer = nullptr;
  const std::size_t mapped = (std::max<std::size_t>(bytes, 1) + page_bytes() - 1) / page_bytes() * page_bytes();
  // One spare page keeps allocations apart: a pointer one past the end of one (a Global
  // may be made from it) must never be the start of the next.
  void* device = mmap(nullptr, mapped + page_bytes(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (device == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
  void* kit = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (kit == MAP_FAILED) {
    munmap(device, mapped + page_bytes());
    return fail(cudaErrorMemoryAllocation);
  }
  install_crash_handler();  // host code that dereferences device memory is named too
  AllocationShadow* shadow = nullptr;
  try {
    shadow = new AllocationShadow(bytes);
  } catch (const std::bad_alloc&) {
    munmap(device, mapped + page_bytes());
    munmap(kit, mapped);
    return fail(cudaErrorMemoryAllocation);
  }
  {
    std::unique_lock<std::shared_mutex> lock(registry().mutex);
    registry().allocations[reinterpret_cast<std::uintptr_t>(device)] =
        Mapping{bytes, mapped, reinterpret_cast<std::uintptr_t>(kit), shadow};
  }
  *pointer = device;
  return cudaSuccess;
}

unsigned long long physical_memory() {
  return static_cast<unsigned long long>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
}

unsigned long long available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  unsigned long long kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return static_cast<unsigned long long>(sysconf(_SC_AVPHYS_PAGES)) *
         static_cast<unsigned long long>(sysconf(_SC_PAGESIZE));
}

// The largest CPU cache stands in for the L2: the grader rewrites an "L2-sized" buffer to
// evict it between timed samples.
int last_level_cache_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<int>(std::min<long>(bytes, 1l << 30));
  }
  return 8 << 20;
}

}  // namespace

bool find_allocation(const void* pointer, Allocation* found) {
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(pointer);
  std::shared_lock<std::shared_mutex> lock(registry().mutex);
  const auto& allocations = registry().allocations;
  auto next = allocations.upper_bound(p);
  if (next == allocations.begin()) return false;
  const auto& [base, mapping] = *std::prev(next);
  // One past the end still belongs to the allocation: a Global may be made from it and
  // indexed backwards.
  if (p > base + mapping.bytes) return false;
  *found = Allocation{base, mapping.bytes, mapping.kit, mapping.shadow};
  return true;
}

// The kit's address of the device bytes at `pointer`; other pointers are returned as they are.
void* kit_address(const void* pointer) {
  Allocation found;
  if (!find_allocation(pointer, &found)) return const_cast<void*>(pointer);
  return reinterpret_cast<void*>(found.kit + (reinterpret_cast<std::uintptr_t>(pointer) - found.base));
}

bool device_reservation(const void* pointer, Allocation* found) {
  const std::uintptr_t p = reinterpret_cast<std::uintptr_t>(pointer);
  // Called from a signal handler: never wait for the lock.
  if (!registry().mutex.try_lock_shared()) return false;
  bool inside = false;
  const auto& allocations = registry().allocations;
  auto next = allocations.upper_bound(p);
  if (next != allocations.begin()) {
    const auto& [base, mapping] = *std::prev(next);
    if (p < base + mapping.mapped) {
      *found = Allocation{base, mapping.bytes, mapping.kit, mapping.shadow};
      inside = true;
    }
  }
  registry().mutex.unlock_shared();
  return inside;
}

std::string demangled_symbol(const void* address) {
  Dl_info info{};
  char fallback[64];
  std::snprintf(fallback, sizeof fallback, "%p", address);
  if (dladdr(address, &info) == 0) return std::string("at ") + fallback;
  if (info.dli_sname == nullptr) {
    const char* file = info.dli_fname != nullptr ? info.dli_fname : "?";
    return std::string("at ") + fallback + " in " + short_file(file) + " (its name is not exported)";
  }
  int status = 0;
  char* readable = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
  std::string name = (status == 0 && readable != nullptr) ? readable : info.dli_sname;
  std::free(readable);
  return name;
}

std::string coords_text(uint3 c) {
  char text[64];
  std::snprintf(text, sizeof text, "(%u,%u,%u)", c.x, c.y, c.z);
  return text;
}

std::string short_file(const char* path) {
  if (path == nullptr) return "?";
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

cudaError_t symbol_copy(void* destination, const void* source, std::size_t bytes, std::size_t symbol_bytes,
                        std::size_t offset) {
  if (offset > symbol_bytes || bytes > symbol_bytes - offset) return fail(cudaErrorInvalidValue);
  std::memmove(destination, source, bytes);
  return cudaSuccess;
}

}  // namespace detail

void* kit_view(const void* p) { return detail::kit_address(p); }

}  // namespace reduce_emu

using reduce_emu::detail::fail;
using reduce_emu::detail::inside_allocation;

struct CUstream_st {
  unsigned flags;
};

struct CUevent_st {
  reduce_emu::detail::Clock::time_point when;
  bool recorded;
};

cudaError_t cudaMalloc(void** pointer, std::size_t bytes) { return reduce_emu::detail::allocate(pointer, bytes); }

cudaError_t cudaMallocManaged(void** pointer, std::size_t bytes, unsigned int) {
  return reduce_emu::detail::allocate(pointer, bytes);
}

cudaError_t cudaMallocHost(void** pointer, std::size_t bytes) {
  if (pointer == nullptr) return fail(cudaErrorInvalidValue);
  if (posix_memalign(pointer, 4096, std::max<std::size_t>(bytes, 1)) != 0) return fail(cudaErrorMemoryAllocation);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}

cudaError_t cudaFree(void* pointer) {
  if (pointer == nullptr) return cudaSuccess;
  auto& reg = reduce_emu::detail::registry();
  reduce_emu::detail::Mapping mapping{};
  {
    std::unique_lock<std::shared_mutex> lock(reg.mutex);
    auto found = reg.allocations.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (found == reg.allocations.end()) return fail(cudaErrorInvalidValue);
    mapping = found->second;
    reg.allocations.erase(found);
    reduce_emu::detail::allocation_generation.fetch_add(1, std::memory_order_acq_rel);
  }
  munmap(pointer, mapping.mapped + reduce_emu::detail::page_bytes());
  munmap(reinterpret_cast<void*>(mapping.kit), mapping.mapped);
  delete mapping.shadow;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return cudaSuccess;
  if (destination == nullptr || source == nullptr) return fail(cudaErrorInvalidValue);
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice:
      if (!inside_allocation(destination, bytes)) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyDeviceToHost:
      if (!inside_allocation(source, bytes)) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyDeviceToDevice:
      if (!inside_allocation(source, bytes) || !inside_allocation(destination, bytes)) return fail(cudaErrorInvalidValue);
      break;
    case cudaMemcpyDefault:
      // Whichever side is device memory must hold the whole range.
      if (reduce_emu::detail::is_device(source) && !inside_allocation(source, bytes)) return fail(cudaErrorInvalidValue);
      if (reduce_emu::detail::is_device(destination) && !inside_allocation(destination, bytes))
        return fail(cudaErrorInvalidValue);
      break;
    default: return fail(cudaErrorInvalidMemcpyDirection);
  }
  std::memmove(reduce_emu::detail::kit_address(destination), reduce_emu::detail::kit_address(source), bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* destination, const void* source, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
  return cudaMemcpy(destination, source, bytes, kind);
}

cudaError_t cudaMemset(void* destination, int value, std::size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (!inside_allocation(destination, bytes)) return fail(cudaErrorInvalidValue);
  std::memset(reduce_emu::detail::kit_address(destination), value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* destination, int value, std::size_t bytes, cudaStream_t) {
  return cudaMemset(destination, value, bytes);
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaDeviceReset() { return cudaSuccess; }

cudaError_t cudaGetLastError() { return static_cast<cudaError_t>(reduce_emu::detail::last_error.exchange(cudaSuccess)); }
cudaError_t cudaPeekAtLastError() { return static_cast<cudaError_t>(reduce_emu::detail::last_error.load()); }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorUnknown: return "cudaErrorUnknown";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (p == nullptr) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "CPU emulator");
  p->totalGlobalMem = reduce_emu::detail::physical_memory();
  p->sharedMemPerBlock = 48 * 1024;
  p->sharedMemPerBlockOptin = 48 * 1024;
  p->sharedMemPerMultiprocessor = 48 * 1024;
  p->regsPerBlock = 65536;
  p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 * 1024;
  p->major = 0;  // not a real architecture: code that branches on it should notice
  p->minor = 0;
  p->textureAlignment = 512;
  // A lab that sizes its grid from the device (lab 7) launches as on a given GPU when these
  // are set: the kit compares the emulator's counts with that GPU's this way.
  const char* multiprocessors = std::getenv("REDUCE_LAB_EMU_MULTIPROCESSORS");
  const char* threads = std::getenv("REDUCE_LAB_EMU_THREADS_PER_MULTIPROCESSOR");
  p->multiProcessorCount = multiprocessors ? std::atoi(multiprocessors) : static_cast<int>(reduce_emu::worker_threads());
  p->maxThreadsPerMultiProcessor = threads ? std::atoi(threads) : 1024;
  p->maxBlocksPerMultiProcessor = 1;
  p->l2CacheSize = reduce_emu::detail::last_level_cache_bytes();
  p->concurrentKernels = 0;
  p->unifiedAddressing = 1;
  p->managedMemory = 1;
  p->canMapHostMemory = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  if (value == nullptr) return fail(cudaErrorInvalidValue);
  cudaDeviceProp p;
  if (const cudaError_t error = cudaGetDeviceProperties(&p, device); error != cudaSuccess) return error;
  switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    default: return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return fail(cudaErrorInvalidValue);
  *free_bytes = static_cast<std::size_t>(reduce_emu::detail::available_memory());
  *total_bytes = static_cast<std::size_t>(reduce_emu::detail::physical_memory());
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return fail(cudaErrorInvalidValue);
  *version = 0;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (stream == nullptr) return fail(cudaErrorInvalidValue);
  *stream = new CUstream_st{flags};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream != cudaStreamLegacy && stream != cudaStreamPerThread) delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  if (event == nullptr) return fail(cudaErrorInvalidValue);
  *event = new CUevent_st{reduce_emu::detail::Clock::time_point{}, false};
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  if (event == nullptr) return fail(cudaErrorInvalidResourceHandle);
  event->when = reduce_emu::detail::Clock::now();
  event->recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event == nullptr ? fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return event == nullptr ? fail(cudaErrorInvalidResourceHandle) : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* milliseconds, cudaEvent_t start, cudaEvent_t end) {
  if (milliseconds == nullptr || start == nullptr || end == nullptr) return fail(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return fail(cudaErrorInvalidResourceHandle);
  *milliseconds = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
