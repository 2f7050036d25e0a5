// GlobalTensor<T>: a view of device (global) memory handed to a kernel as a pointer argument.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/device/gm_access.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/check.h"

namespace tessera::kernel {

// L2 cache hints for a global tensor's accesses (the vendor's values). The CPU's caches take no
// hints, so a hint is recorded and changes no data: reads and writes see the same memory.
enum class CacheMode {
  CACHE_MODE_DISABLE = 0,
  CACHE_MODE_NORMAL = 1,
  CACHE_MODE_LAST = 2,
  CACHE_MODE_PERSISTENT = 4
};
enum class CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

template <class T>
class GlobalTensor {
 public:
  using PrimType = T;

  // `count` elements from `buffer`. In checked mode the buffer must be device memory.
  void SetGlobalBuffer(T* buffer, uint64_t count) {
    data_ = buffer;
    size_ = count;
    buffer_size_ = count;
    checked_ = CheckedLaunch();
    if (checked_ && buffer != nullptr && count > 0) CheckExtent();
  }
  // Without a count the extent is the rest of the device allocation (unbounded in fast mode).
  void SetGlobalBuffer(T* buffer) {
    const bool checked = CheckedLaunch();
    const uint64_t count =
        checked ? device::DeviceBytesFrom(buffer) / sizeof(T) : UINT64_MAX / sizeof(T);
    SetGlobalBuffer(buffer, count);
  }

  uint64_t GetSize() const { return size_; }
  // The element count SetGlobalBuffer was given; views from operator[] keep it (their GetSize is
  // what is left after their offset). DataCopy streams its writes to a large buffer by this.
  uint64_t GetBufferSize() const { return buffer_size_; }
  template <CacheRwMode rwMode = CacheRwMode::RW>
  void SetL2CacheHint(CacheMode mode) {
    cache_mode_ = mode;
  }
  CacheMode GetL2CacheHint() const { return cache_mode_; }
  T* GetPhyAddr() const { return data_; }
  T* data() const { return data_; }
  bool checked() const { return checked_; }

  T GetValue(uint64_t index) const {
    CheckIndex(index, "GlobalTensor::GetValue");
    if (checked_)
      device::NoteGmAccess(device::GmAccess::kRead, data_ + index, sizeof(T),
                           "GlobalTensor::GetValue");
    return data_[index];
  }
  void SetValue(uint64_t index, T value) const {
    CheckIndex(index, "GlobalTensor::SetValue");
    if (checked_)
      device::NoteGmAccess(device::GmAccess::kWrite, data_ + index, sizeof(T),
                           "GlobalTensor::SetValue");
    data_[index] = value;
  }
  T& operator()(uint64_t index) const {
    CheckIndex(index, "GlobalTensor::operator()");
    return data_[index];
  }
  // The view starting `offset` elements in.
  GlobalTensor operator[](uint64_t offset) const {
    TESSERA_KERNEL_CHECK(checked_, offset <= size_, "GlobalTensor::operator[]",
                         "offset " + std::to_string(offset) +
                             " is outside the tensor's extent of " + std::to_string(size_) +
                             " elements");
    GlobalTensor view = *this;
    view.data_ += offset;
    view.size_ = offset <= size_ ? size_ - offset : 0;
    return view;
  }

  // Checked mode: fails the block unless [0, count) lies in the extent.
  void CheckRange(uint64_t count, const char* api, const char* role) const {
    TESSERA_KERNEL_CHECK(checked_, count <= size_, api,
                         std::string(role) + ": " + std::to_string(count) +
                             " elements exceed the global tensor's extent of " +
                             std::to_string(size_));
  }

 private:
  void CheckIndex(uint64_t index, const char* api) const {
    TESSERA_KERNEL_CHECK(checked_, index < size_, api,
                         "index " + std::to_string(index) +
                             " is outside the global tensor's extent of " + std::to_string(size_) +
                             " elements");
  }

  // Checked mode: the whole extent must lie in one live device allocation.
  void CheckExtent() const {
    const size_t available = device::DeviceBytesFrom(data_);
    if (available == 0) {
      KernelFail("GlobalTensor::SetGlobalBuffer",
                 "buffer is not device memory (pass it as a kernel pointer argument)");
    }
    if (size_ > available / sizeof(T)) {
      KernelFail("GlobalTensor::SetGlobalBuffer", "extent of " + std::to_string(size_) +
                                                      " elements exceeds the " +
                                                      std::to_string(available / sizeof(T)) +
                                                      " elements left in its device allocation");
    }
  }

  T* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t buffer_size_ = 0;
  bool checked_ = false;
  CacheMode cache_mode_ = CacheMode::CACHE_MODE_NORMAL;
};

}  // namespace tessera::kernel
