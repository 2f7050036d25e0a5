// Printing from kernels: Printf (AscendC::printf / PRINTF in kernel_operator.h) and DumpTensor.
//
// Output is buffered per block and written to stdout when the launch ends, in block order, each
// line prefixed `[kernel block 3 AIV] ` (see tessera/device/debug.h for the limits).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/device/debug.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {
namespace detail {

// printf's argument promotions, plus half/bfloat16 as double (print them with %f or %g).
template <class T>
auto PrintfArg(T value) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(value));
  } else {
    return value;
  }
}

// Element types DumpTensor prints.
enum class DumpType : uint8_t {
  kF32,
  kF16,
  kBf16,
  kI8,
  kU8,
  kI16,
  kU16,
  kI32,
  kU32,
  kI64,
  kU64,
  kBool
};
template <class T>
constexpr DumpType DumpTypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return DumpType::kF32;
  else if constexpr (std::is_same_v<T, half>)
    return DumpType::kF16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return DumpType::kBf16;
  else if constexpr (std::is_same_v<T, bool>)
    return DumpType::kBool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return DumpType::kI8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return DumpType::kU8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return DumpType::kI16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return DumpType::kU16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DumpType::kI32;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return DumpType::kU32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DumpType::kI64;
  else {
    static_assert(std::is_same_v<T, uint64_t>,
                  "DumpTensor prints float, half, bfloat16, bool and 8..64-bit integer tensors");
    return DumpType::kU64;
  }
}

// Prints `DumpTensor: desc=.., dtype=.., position=.., N of M elements` and the values, 8 a line.
void DumpTensorData(DumpType type, const void* data, uint64_t count, uint64_t size, uint32_t desc,
                    std::string_view position);

}  // namespace detail

// printf-style formatting into the block's print buffer.
template <class... Args>
void Printf(const char* format, Args... args) {
  ::tessera::device::KernelPrintf(format, detail::PrintfArg(args)...);
}

// Prints the first `dumpSize` elements (at most the tensor's size) with the user's tag `desc`.
// Reads the memory directly: it is not an access the checked mode's findings look at.
template <class T>
void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  detail::DumpTensorData(detail::DumpTypeOf<T>(), tensor.GetPhyAddr(),
                         dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize(),
                         tensor.GetSize(), desc, TPositionName(tensor.GetPosition()));
}
template <class T>
void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  detail::DumpTensorData(detail::DumpTypeOf<T>(), tensor.GetPhyAddr(),
                         dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize(),
                         tensor.GetSize(), desc, "GM");
}

}  // namespace tessera::kernel
