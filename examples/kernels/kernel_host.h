// Host-side plumbing shared by the sample programs: device copies of host vectors and the tiling
// buffer, freed on scope exit.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/device/memory.h"

namespace samples {

class DeviceBytes {
 public:
  static tessera::Result<DeviceBytes> From(const void* host, size_t bytes) {
    TESSERA_ASSIGN_OR_RETURN(void* p, tessera::device::Malloc(bytes == 0 ? 1 : bytes));
    DeviceBytes d(p, bytes);
    if (bytes > 0) {
      TESSERA_RETURN_IF_ERROR(tessera::device::Memcpy(p, bytes, host, bytes,
                                                      tessera::device::MemcpyKind::kHostToDevice));
    }
    return d;
  }
  template <class T>
  static tessera::Result<DeviceBytes> From(const std::vector<T>& host) {
    return From(host.data(), host.size() * sizeof(T));
  }
  DeviceBytes(DeviceBytes&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
  }
  DeviceBytes(const DeviceBytes&) = delete;
  ~DeviceBytes() {
    if (ptr_) (void)tessera::device::Free(ptr_);
  }

  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }
  template <class T>
  tessera::Status CopyTo(std::vector<T>& host) const {
    return tessera::device::Memcpy(host.data(), host.size() * sizeof(T), ptr_, bytes_,
                                   tessera::device::MemcpyKind::kDeviceToHost);
  }

 private:
  DeviceBytes(void* p, size_t bytes) : ptr_(p), bytes_(bytes) {}
  void* ptr_;
  size_t bytes_;
};

}  // namespace samples
