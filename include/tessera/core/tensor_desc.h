// TensorDesc: what a tensor is, without its data - dtype, shape, format and element strides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/format.h"
#include "tessera/core/shape.h"
#include "tessera/core/status.h"

namespace tessera {

struct TensorDesc {
  DataType dtype = DataType::kFloat32;
  Shape shape;
  Format format = Format::kND;
  // Element strides, one per dim; empty means contiguous row-major.
  std::vector<int64_t> strides;

  // Checks strides (rank matches, none negative) and that the element count fits in int64.
  Status Validate() const;
  // Row-major strides of `shape`.
  std::vector<int64_t> ContiguousStrides() const;
  bool IsContiguous() const;
  // Bytes spanned by the elements (0 when any dim is 0), overflow-checked.
  Result<int64_t> StorageBytes() const;
  // "float32[2, 3] ND".
  std::string ToString() const;
};

}  // namespace tessera
