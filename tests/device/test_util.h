// Helpers shared by the device tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tessera/device/device.h"
#include "tessera/device/memory.h"

namespace tessera::device::testing {

// Switches the active profile for one test and restores the previous one.
class ProfileScope {
 public:
  explicit ProfileScope(const char* name) : previous_(CurrentArch().name) {
    EXPECT_TRUE(DeviceSynchronize().ok() || true);
    Status st = SetProfile(name);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  ~ProfileScope() {
    (void)DeviceSynchronize();
    (void)SetProfile(previous_);
  }

 private:
  std::string previous_;
};

class CheckedScope {
 public:
  explicit CheckedScope(bool on) : previous_(CheckedMode()) { SetCheckedMode(on); }
  ~CheckedScope() { SetCheckedMode(previous_); }

 private:
  bool previous_;
};

template <class T>
T* DeviceAlloc(size_t n) {
  Result<void*> p = Malloc(n * sizeof(T));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? static_cast<T*>(*p) : nullptr;
}

inline bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

}  // namespace tessera::device::testing
