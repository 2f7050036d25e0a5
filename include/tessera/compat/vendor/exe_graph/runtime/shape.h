// exe_graph/runtime/shape.h and storage_shape.h: gert::Shape and gert::StorageShape as vendor
// tiling and shape functions read and write them.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "tessera/core/shape.h"

namespace gert {

class Shape {
 public:
  static constexpr size_t kMaxDimNum = 25;
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims)
      AppendDim(d);
  }
  explicit Shape(const tessera::Shape& shape) {
    for (int64_t d : shape.dims())
      AppendDim(d);
  }

  size_t GetDimNum() const { return dim_num_; }
  // Dims beyond kMaxDimNum are ignored, as the fixed-size vendor shape cannot hold them.
  void SetDimNum(size_t n) { dim_num_ = std::min(n, kMaxDimNum); }
  // 0 for an index out of range.
  int64_t GetDim(size_t i) const { return i < dim_num_ ? dims_[i] : 0; }
  void SetDim(size_t i, int64_t v) {
    if (i < dim_num_) dims_[i] = v;
  }
  Shape& AppendDim(int64_t v) {
    if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = v;
    return *this;
  }
  bool IsScalar() const { return dim_num_ == 0; }
  // Product of the dims (1 for a scalar); -1 when it overflows int64 or a dim is negative.
  int64_t GetShapeSize() const {
    int64_t n = 1;
    for (size_t i = 0; i < dim_num_; ++i) {
      if (dims_[i] < 0) return -1;
      if (dims_[i] != 0 && n > std::numeric_limits<int64_t>::max() / dims_[i]) return -1;
      n *= dims_[i];
    }
    return n;
  }
  const int64_t& operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  bool operator==(const Shape& o) const {
    return dim_num_ == o.dim_num_ &&
           std::equal(dims_.begin(), dims_.begin() + dim_num_, o.dims_.begin());
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  size_t dim_num_ = 0;
  std::array<int64_t, kMaxDimNum> dims_{};
};

// A tensor's shape as the graph sees it (origin) and as memory holds it (storage); equal for ND.
class StorageShape {
 public:
  StorageShape() = default;
  StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}
  const Shape& GetOriginShape() const { return origin_; }
  const Shape& GetStorageShape() const { return storage_; }
  Shape& MutableOriginShape() { return origin_; }
  Shape& MutableStorageShape() { return storage_; }

 private:
  Shape origin_;
  Shape storage_;
};

}  // namespace gert
