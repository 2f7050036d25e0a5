// graph/types.h: ge::DataType and ge::Format with CANN's values (equal to tessera's DataType and
// Format codes where tessera has the type), and their conversion to tessera's.
#pragma once

#include <cstdint>
#include <optional>

#include "graph/ge_error_codes.h"
#include "tessera/core/data_type.h"
#include "tessera/core/format.h"

namespace ge {

enum DataType {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_STRING = 13,
  DT_COMPLEX64 = 16,
  DT_COMPLEX128 = 17,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
};

enum Format {
  FORMAT_NCHW = 0,
  FORMAT_NHWC = 1,
  FORMAT_ND = 2,
  FORMAT_NC1HWC0 = 3,
  FORMAT_FRACTAL_Z = 4,
  FORMAT_FRACTAL_NZ = 29,
  FORMAT_RESERVED = 40,
};

// tessera's dtype of a ge dtype; nullopt for the ones tessera has no kernels for (DT_UINT16, ...).
inline std::optional<tessera::DataType> ToTessera(DataType dtype) {
  if (!tessera::IsValidDataType(static_cast<int>(dtype))) return std::nullopt;
  return static_cast<tessera::DataType>(dtype);
}
inline std::optional<tessera::Format> ToTessera(Format format) {
  if (!tessera::IsValidFormat(static_cast<int>(format))) return std::nullopt;
  return static_cast<tessera::Format>(format);
}
inline DataType FromTessera(tessera::DataType dtype) {
  return static_cast<DataType>(dtype);
}
inline Format FromTessera(tessera::Format format) {
  return static_cast<Format>(format);
}

}  // namespace ge
