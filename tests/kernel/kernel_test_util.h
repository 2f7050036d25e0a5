// Helpers for kernel-API tests: device buffers and one-call launches.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace tessera::kernel::testing {

// A device copy of a host vector, freed on destruction.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T>& host) : size_(host.size()) {
    auto p = device::Malloc(std::max<size_t>(1, size_) * sizeof(T));
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    ptr_ = static_cast<T*>(*p);
    if (size_ > 0) {
      EXPECT_TRUE(device::Memcpy(ptr_, size_ * sizeof(T), host.data(), size_ * sizeof(T),
                                 device::MemcpyKind::kHostToDevice)
                      .ok());
    }
  }
  explicit DeviceBuffer(size_t n, T fill = T{}) : DeviceBuffer(std::vector<T>(n, fill)) {}
  ~DeviceBuffer() { EXPECT_TRUE(device::Free(ptr_).ok()); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::vector<T> ToHost() const {
    std::vector<T> out(size_);
    if (size_ > 0) {
      EXPECT_TRUE(device::Memcpy(out.data(), size_ * sizeof(T), ptr_, size_ * sizeof(T),
                                 device::MemcpyKind::kDeviceToHost)
                      .ok());
    }
    return out;
  }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

// Launches `kernel` with `blocks` AIV blocks on a new stream and returns the stream's status.
template <class... Params, class... Args>
Status RunKernel(const char* name, uint32_t blocks, void (*kernel)(Params...), Args&&... args) {
  auto stream = device::Stream::Create();
  if (!stream.ok()) return stream.status();
  Status st = device::Launch(device::LaunchConfig{blocks, device::KernelType::kAiv, name}, kernel,
                             *stream, std::forward<Args>(args)...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

inline bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

class CheckedScope {
 public:
  explicit CheckedScope(bool on) : previous_(device::CheckedMode()) { device::SetCheckedMode(on); }
  ~CheckedScope() { device::SetCheckedMode(previous_); }

 private:
  bool previous_;
};

}  // namespace tessera::kernel::testing
