#include "npy.h"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace tessera::cli {

std::string_view NpyDescr(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kBfloat16:
      return "<u2";
    case DataType::kInt8:
      return "|i1";
    case DataType::kUint8:
      return "|u1";
    case DataType::kInt16:
      return "<i2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kBool:
      return "|b1";
    default:
      return "";
  }
}

std::string NpyHeader(const TensorDesc& desc) {
  std::string shape;
  for (int64_t d : desc.shape.dims())
    shape += std::to_string(d) + ", ";
  if (desc.shape.rank() > 1) shape.resize(shape.size() - 2);  // (7,) keeps its comma
  if (desc.shape.rank() == 1) shape.pop_back();
  std::string dict = "{'descr': '" + std::string(NpyDescr(desc.dtype)) +
                     "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

Status WriteNpy(const std::filesystem::path& path, const TensorDesc& desc,
                std::span<const uint8_t> data) {
  const int64_t count = desc.shape.NumElements().value_or(-1);
  if (count < 0 || static_cast<uint64_t>(count) * DataTypeSize(desc.dtype) != data.size()) {
    return InvalidArgument(path.string() + ": " + std::to_string(data.size()) +
                           " bytes given for " + desc.ToString());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out.is_open()) {
    return FailedPrecondition("cannot create " + path.string() + ": " + std::strerror(errno));
  }
  const std::string header = NpyHeader(desc);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) {
    return FailedPrecondition("cannot write " + path.string() + " (disk full?)");
  }
  return OkStatus();
}

}  // namespace tessera::cli
