// DataType: the element types tessera tensors hold.
//
// Enumerator values equal CANN's aclDataType codes, so a dtype packed into a tiling key or written
// into a manifest means the same thing on both sides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "tessera/core/float16.h"
#include "tessera/core/status.h"

namespace tessera {

enum class DataType : uint8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt8 = 2,
  kInt32 = 3,
  kUint8 = 4,
  kInt16 = 6,
  kInt64 = 9,
  kBool = 12,
  kBfloat16 = 27,
};

// Every supported dtype, in a fixed order (for listing and exhaustive tests).
std::span<const DataType> AllDataTypes();

// Size of one element in bytes.
size_t DataTypeSize(DataType dtype);
// Canonical lower-case name: "float32", "float16", "bfloat16", "int8", ..., "bool".
std::string_view DataTypeName(DataType dtype);
// CANN spelling used in familiar error messages: "DT_FLOAT", "DT_FLOAT16", "DT_BF16", ...
std::string_view DataTypeCannName(DataType dtype);
bool IsFloatingPoint(DataType dtype);
// Accepts the canonical name, common aliases (float, fp32, half, fp16, bf16, int, long) and the
// CANN names; case-insensitive. Unknown names get an error listing the accepted ones.
Result<DataType> ParseDataType(std::string_view text);
// True when `code` is the value of a supported DataType (for data read from bytes or the C API).
bool IsValidDataType(int code);

// The DataType of a C++ element type, for templates: DataTypeOf<float>::value == kFloat32.
template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct DataTypeOf<half> {
  static constexpr DataType value = DataType::kFloat16;
};
template <>
struct DataTypeOf<bfloat16> {
  static constexpr DataType value = DataType::kBfloat16;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DataType::kUint8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DataType::kInt16;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = DataType::kBool;
};

}  // namespace tessera
