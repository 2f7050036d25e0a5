// graph/tensor.h: ge::Shape as the vendor's host tiling queries take it (AscendC::TensorShape).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ge {

class Shape {
 public:
  Shape() = default;
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  size_t GetDimNum() const { return dims_.size(); }
  // 0 for an index out of range.
  int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
  void SetDim(size_t idx, int64_t value) {
    if (idx < dims_.size()) dims_[idx] = value;
  }
  const std::vector<int64_t>& GetDims() const { return dims_; }
  // Product of the dims; 0 for no dims or a dim that is 0 or negative.
  int64_t GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) {
      if (d <= 0) return 0;
      n *= d;
    }
    return n;
  }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace ge
