// Helpers of the compat kernel tests: device memory filled from and read back to the host, and a
// fixture that runs each test in fast mode (false) and checked mode (true).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "tessera/device/device.h"
#include "tessera/device/memory.h"

namespace compat_test {

// `bytes` of device memory; Put/Get copy all of them.
struct Dev {
  explicit Dev(size_t bytes) : ptr(*tessera::device::Malloc(bytes)), size(bytes) {}
  ~Dev() { (void)tessera::device::Free(ptr); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  void Put(const void* host) {
    ASSERT_TRUE(
        tessera::device::Memcpy(ptr, size, host, size, tessera::device::MemcpyKind::kHostToDevice)
            .ok());
  }
  void Get(void* host) {
    ASSERT_TRUE(
        tessera::device::Memcpy(host, size, ptr, size, tessera::device::MemcpyKind::kDeviceToHost)
            .ok());
  }
  void* ptr;
  size_t size;
};

// The parameter turns checked mode on for the test; the previous mode is restored after it.
class FastAndCheckedTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    was_checked_ = tessera::device::CheckedMode();
    tessera::device::SetCheckedMode(GetParam());
  }
  void TearDown() override { tessera::device::SetCheckedMode(was_checked_); }

 private:
  bool was_checked_ = false;
};

}  // namespace compat_test
