#include "tessera/kernel/print.h"

#include <charconv>
#include <string>
#include <type_traits>

namespace tessera::kernel::detail {
namespace {

template <class T>
void AppendNumber(std::string& out, T value) {
  char buf[48];
  const auto res = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, res.ptr);
}

const char* DumpTypeName(DumpType type) {
  static const char* const kNames[] = {"float32", "float16", "bfloat16", "int8",  "uint8",  "int16",
                                       "uint16",  "int32",   "uint32",   "int64", "uint64", "bool"};
  return kNames[static_cast<int>(type)];
}

template <class T>
void AppendAt(std::string& out, const void* data, uint64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    // Read as a byte: a bool object holding anything but 0 or 1 is undefined behaviour.
    out += static_cast<const uint8_t*>(data)[i] != 0 ? "true" : "false";
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    AppendNumber(out, static_cast<float>(static_cast<const T*>(data)[i]));
  } else {
    AppendNumber(out, static_cast<const T*>(data)[i]);
  }
}

void AppendValue(std::string& out, DumpType type, const void* data, uint64_t i) {
  switch (type) {
    case DumpType::kF32:
      return AppendAt<float>(out, data, i);
    case DumpType::kF16:
      return AppendAt<half>(out, data, i);
    case DumpType::kBf16:
      return AppendAt<bfloat16>(out, data, i);
    case DumpType::kI8:
      return AppendAt<int8_t>(out, data, i);
    case DumpType::kU8:
      return AppendAt<uint8_t>(out, data, i);
    case DumpType::kI16:
      return AppendAt<int16_t>(out, data, i);
    case DumpType::kU16:
      return AppendAt<uint16_t>(out, data, i);
    case DumpType::kI32:
      return AppendAt<int32_t>(out, data, i);
    case DumpType::kU32:
      return AppendAt<uint32_t>(out, data, i);
    case DumpType::kI64:
      return AppendAt<int64_t>(out, data, i);
    case DumpType::kU64:
      return AppendAt<uint64_t>(out, data, i);
    case DumpType::kBool:
      return AppendAt<bool>(out, data, i);
    default:
      out += '?';
      return;
  }
}

}  // namespace

void DumpTensorData(DumpType type, const void* data, uint64_t count, uint64_t size, uint32_t desc,
                    std::string_view position) {
  constexpr uint64_t kPerLine = 8;
  std::string out = "DumpTensor: desc=" + std::to_string(desc) +
                    ", dtype=" + std::string(DumpTypeName(type)) +
                    ", position=" + std::string(position) + ", " + std::to_string(count) + " of " +
                    std::to_string(size) + " elements\n";
  for (uint64_t i = 0; i < count; ++i) {
    if (i % kPerLine == 0) {
      out += '[';
      AppendNumber(out, i);
      out += ']';
    }
    out += ' ';
    AppendValue(out, type, data, i);
    if (i % kPerLine == kPerLine - 1 || i + 1 == count) out += '\n';
  }
  ::tessera::device::KernelPrint(out);
}

}  // namespace tessera::kernel::detail
