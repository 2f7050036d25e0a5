#include "tessera/core/data_type.h"

#include <array>
#include <cctype>
#include <string>

namespace tessera {
namespace {

struct DataTypeInfo {
  DataType dtype;
  size_t size;
  std::string_view name;
  std::string_view cann_name;
  bool floating;
};

constexpr std::array<DataTypeInfo, 9> kInfo = {{
    {DataType::kFloat32, 4, "float32", "DT_FLOAT", true},
    {DataType::kFloat16, 2, "float16", "DT_FLOAT16", true},
    {DataType::kBfloat16, 2, "bfloat16", "DT_BF16", true},
    {DataType::kInt8, 1, "int8", "DT_INT8", false},
    {DataType::kUint8, 1, "uint8", "DT_UINT8", false},
    {DataType::kInt16, 2, "int16", "DT_INT16", false},
    {DataType::kInt32, 4, "int32", "DT_INT32", false},
    {DataType::kInt64, 8, "int64", "DT_INT64", false},
    {DataType::kBool, 1, "bool", "DT_BOOL", false},
}};

constexpr std::array<DataType, 9> kAll = {
    DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16, DataType::kInt8, DataType::kUint8,
    DataType::kInt16,   DataType::kInt32,   DataType::kInt64,    DataType::kBool};

const DataTypeInfo* Find(DataType dtype) {
  for (const auto& info : kInfo) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::span<const DataType> AllDataTypes() {
  return kAll;
}

size_t DataTypeSize(DataType dtype) {
  const DataTypeInfo* info = Find(dtype);
  return info ? info->size : 0;
}

std::string_view DataTypeName(DataType dtype) {
  const DataTypeInfo* info = Find(dtype);
  return info ? info->name : "invalid";
}

std::string_view DataTypeCannName(DataType dtype) {
  const DataTypeInfo* info = Find(dtype);
  return info ? info->cann_name : "DT_UNDEFINED";
}

bool IsFloatingPoint(DataType dtype) {
  const DataTypeInfo* info = Find(dtype);
  return info && info->floating;
}

bool IsValidDataType(int code) {
  for (const auto& info : kInfo) {
    if (static_cast<int>(info.dtype) == code) return true;
  }
  return false;
}

Result<DataType> ParseDataType(std::string_view text) {
  const std::string key = Lower(text);
  struct Alias {
    std::string_view name;
    DataType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"float", DataType::kFloat32}, {"fp32", DataType::kFloat32}, {"f32", DataType::kFloat32},
      {"half", DataType::kFloat16},  {"fp16", DataType::kFloat16}, {"f16", DataType::kFloat16},
      {"bf16", DataType::kBfloat16}, {"int", DataType::kInt32},    {"long", DataType::kInt64},
  };
  for (const auto& info : kInfo) {
    if (key == info.name || key == Lower(info.cann_name)) return info.dtype;
  }
  for (const auto& alias : kAliases) {
    if (key == alias.name) return alias.dtype;
  }
  std::string accepted;
  for (const auto& info : kInfo) {
    if (!accepted.empty()) accepted += ", ";
    accepted += info.name;
  }
  return InvalidArgument("unknown data type '" + std::string(text) + "'; expected one of " +
                         accepted);
}

}  // namespace tessera
