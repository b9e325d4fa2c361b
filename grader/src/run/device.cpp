#include "run/device.hpp"

#include <stdexcept>
#include <utility>

namespace reduce_lab::grader {

DeviceBuffer::DeviceBuffer(std::size_t count, std::size_t bytes_per_element)
    : count_(count), element_bytes_(bytes_per_element) {
  // At least one element, so a zero-sized buffer is still a valid allocation to poison.
  check(cudaMalloc(&data_, std::max<std::size_t>(bytes(), element_bytes_)), "allocating device memory");
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);  // no check: a destructor must not throw, even after a kernel fault
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

void DeviceBuffer::poison() { check(cudaMemsetAsync(data_, 0xFF, bytes()), "poisoning an output buffer"); }

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
