// Shape: up to 8 int64 dimensions; rank 0 is a scalar with one element.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "tessera/core/status.h"

namespace tessera {

class Shape {
 public:
  static constexpr int kMaxRank = 8;

  // A scalar (rank 0).
  Shape() = default;
  // Fails when there are more than kMaxRank dims or a dim is negative.
  static Result<Shape> Make(std::span<const int64_t> dims);
  static Result<Shape> Make(std::initializer_list<int64_t> dims) {
    return Make(std::span<const int64_t>(dims.begin(), dims.size()));
  }
  // Parses "16384,4096" or "[2, 3]" (an empty string or "[]" is a scalar).
  static Result<Shape> Parse(std::string_view text);

  int rank() const { return rank_; }
  // Precondition: 0 <= i < rank().
  int64_t dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  std::span<const int64_t> dims() const { return {dims_.data(), static_cast<size_t>(rank_)}; }
  // Product of the dims; fails with OutOfRange when it does not fit in int64.
  Result<int64_t> NumElements() const;
  // "[16384, 4096]".
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i) {
      if (a.dims_[static_cast<size_t>(i)] != b.dims_[static_cast<size_t>(i)]) return false;
    }
    return true;
  }

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

}  // namespace tessera
