#include <string>

#include "cube_internal.h"

namespace tessera::kernel::detail {

const char* CubeTypeName(CubeType t) {
  static const char* const kNames[] = {"half",    "bfloat16_t", "float",   "int8_t",   "uint8_t",
                                       "int16_t", "uint16_t",   "int32_t", "uint32_t", "uint64_t"};
  const auto i = static_cast<size_t>(t);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "invalid";
}

void CheckPosition(const char* api, const char* role, const CubeOperand& t,
                   std::initializer_list<TPosition> allowed) {
  for (TPosition p : allowed) {
    if (t.pos == p) return;
  }
  std::string expected;
  for (TPosition p : allowed)
    expected += (expected.empty() ? "" : " or ") + std::string(TPositionName(p));
  KernelFail(api, std::string(role) + " is in " + TPositionName(t.pos) + "; expected " + expected);
}

void CheckAligned(const char* api, const char* role, const CubeOperand& t, uint32_t bytes) {
  const auto addr = reinterpret_cast<uintptr_t>(t.data);
  if (addr % bytes != 0) {
    KernelFail(api, std::string(role) + " (" + TPositionName(t.pos) + ") starts at an address " +
                        Str(addr % bytes) + " bytes past a " + Str(bytes) +
                        "-byte boundary; it must be " + Str(bytes) + "-byte aligned");
  }
}

void CheckExtent(const char* api, const char* role, const CubeOperand& t, uint64_t elements) {
  if (!t.live) {
    KernelFail(api, std::string(role) + ": use after FreeTensor: the tensor (" +
                        TPositionName(t.pos) + ") was already freed with FreeTensor");
  }
  if (elements > t.elements) {
    KernelFail(api, std::string(role) + " (" + TPositionName(t.pos) + ", " + CubeTypeName(t.type) +
                        ") needs " + Str(elements) + " elements but the tensor holds " +
                        Str(t.elements));
  }
}

}  // namespace tessera::kernel::detail
