// The shape and dtype types the vendor's host tiling queries take: AscendC::TensorShape is
// ge::Shape, AscendC::TensorDataType is ge::DataType.
//
// Vendor samples compile their host code as C++17, and graph/types.h (the op-host header, with
// tessera's dtype conversions) needs C++20. Under C++17 this header declares ge::DataType itself,
// with the same enumerators and values; under C++20 it uses graph/types.h, so a translation unit
// that includes both still has one ge::DataType.
#pragma once

#include "graph/tensor.h"
#include "securec.h"  // the vendor's tiling headers bring memcpy_s / memset_s with them

#if __cplusplus >= 202002L
#include "graph/types.h"
#else
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
}  // namespace ge
#endif

namespace AscendC {
using TensorShape = ge::Shape;
using TensorDataType = ge::DataType;
}  // namespace AscendC
