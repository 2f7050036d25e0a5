// Shared helpers of the cube instructions: element sizes and the checked-mode checks of operands
// (position, alignment, extent), each failing the block with the API's name and the values.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/cube/cube.h"

namespace tessera::kernel::detail {

inline uint32_t CubeTypeBytes(CubeType t) {
  switch (t) {
    case CubeType::kS8:
    case CubeType::kU8:
      return 1;
    case CubeType::kF16:
    case CubeType::kBF16:
    case CubeType::kS16:
    case CubeType::kU16:
      return 2;
    case CubeType::kU64:
      return 8;
    default:
      return 4;
  }
}

const char* CubeTypeName(CubeType t);

// Checked mode only (the callers test `checked` first).
void CheckPosition(const char* api, const char* role, const CubeOperand& t,
                   std::initializer_list<TPosition> allowed);
void CheckAligned(const char* api, const char* role, const CubeOperand& t, uint32_t bytes);
void CheckExtent(const char* api, const char* role, const CubeOperand& t, uint64_t elements);

inline std::string Str(uint64_t v) {
  return std::to_string(v);
}

}  // namespace tessera::kernel::detail
