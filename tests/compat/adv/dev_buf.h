// Test helpers shared by the advanced-API tests: a device buffer mirrored by a host vector, and
// UB sizes rounded to whole 32-byte blocks.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/device/memory.h"

namespace adv_test {

// One device buffer holding a copy of `host`; Download() reads it back into the host vector.
template <class T>
class DevBuf {
 public:
  explicit DevBuf(std::vector<T> host) : host_(std::move(host)) {
    auto p = tessera::device::Malloc(std::max<size_t>(host_.size(), 1) * sizeof(T));
    EXPECT_TRUE(p.ok());
    ptr_ = *p;
    Upload();
  }
  ~DevBuf() { EXPECT_TRUE(tessera::device::Free(ptr_).ok()); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void Upload() {
    EXPECT_TRUE(tessera::device::Memcpy(ptr_, bytes(), host_.data(), bytes(),
                                        tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
  }
  std::vector<T>& Download() {
    EXPECT_TRUE(tessera::device::Memcpy(host_.data(), bytes(), ptr_, bytes(),
                                        tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    return host_;
  }
  uint8_t* gm() const { return static_cast<uint8_t*>(ptr_); }
  size_t bytes() const { return host_.size() * sizeof(T); }

 private:
  std::vector<T> host_;
  void* ptr_ = nullptr;
};

// n elements of T rounded up to whole 32-byte blocks.
template <class T>
uint32_t Align(uint32_t n) {
  const uint32_t per = 32 / sizeof(T);
  return (n + per - 1) / per * per;
}

}  // namespace adv_test
