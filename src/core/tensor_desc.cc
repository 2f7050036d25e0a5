#include "tessera/core/tensor_desc.h"

namespace tessera {

Status TensorDesc::Validate() const {
  if (!IsValidDataType(static_cast<int>(dtype))) {
    return InvalidArgument("tensor dtype code " + std::to_string(static_cast<int>(dtype)) +
                           " is not a supported data type");
  }
  if (!IsValidFormat(static_cast<int>(format))) {
    return InvalidArgument("tensor format code " + std::to_string(static_cast<int>(format)) +
                           " is not a supported format");
  }
  if (!strides.empty() && strides.size() != static_cast<size_t>(shape.rank())) {
    return InvalidArgument("tensor has " + std::to_string(strides.size()) + " strides for rank " +
                           std::to_string(shape.rank()) + "; expected one stride per dim");
  }
  for (size_t i = 0; i < strides.size(); ++i) {
    if (strides[i] < 0) {
      return InvalidArgument("tensor stride " + std::to_string(i) + " is " +
                             std::to_string(strides[i]) + "; expected >= 0");
    }
  }
  return StorageBytes().status();
}

std::vector<int64_t> TensorDesc::ContiguousStrides() const {
  std::vector<int64_t> out(static_cast<size_t>(shape.rank()));
  int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = stride;
    stride *= shape.dim(i) > 0 ? shape.dim(i) : 1;
  }
  return out;
}

bool TensorDesc::IsContiguous() const {
  return strides.empty() || strides == ContiguousStrides();
}

Result<int64_t> TensorDesc::StorageBytes() const {
  TESSERA_ASSIGN_OR_RETURN(int64_t count, shape.NumElements());
  if (count == 0) return int64_t{0};
  const auto elem = static_cast<int64_t>(DataTypeSize(dtype));
  int64_t bytes = 0;
  if (strides.empty()) {  // contiguous: no stride vector needed (this runs on every op call)
    if (__builtin_mul_overflow(count, elem, &bytes)) {
      return OutOfRange("byte size of tensor " + shape.ToString() + " overflows int64");
    }
    return bytes;
  }
  // Span = 1 + sum((dim - 1) * stride) elements.
  int64_t span = 1;
  const std::vector<int64_t>& eff = strides;
  for (int i = 0; i < shape.rank(); ++i) {
    int64_t term = 0;
    if (__builtin_mul_overflow(shape.dim(i) - 1, eff[static_cast<size_t>(i)], &term) ||
        __builtin_add_overflow(span, term, &span)) {
      return OutOfRange("storage of tensor " + shape.ToString() + " overflows int64");
    }
  }
  if (__builtin_mul_overflow(span, elem, &bytes)) {
    return OutOfRange("byte size of tensor " + shape.ToString() + " overflows int64");
  }
  return bytes;
}

std::string TensorDesc::ToString() const {
  return std::string(DataTypeName(dtype)) + shape.ToString() + " " +
         std::string(FormatName(format));
}

}  // namespace tessera
