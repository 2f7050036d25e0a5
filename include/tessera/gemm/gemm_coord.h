// Shapes, coordinates and operand types of the gemm templates (CATLASS names: GemmShape,
// GemmCoord, MatrixCoord, GemmType).
#pragma once

#include <cstdint>
#include <type_traits>

#include "tessera/core/float16.h"

namespace tessera::gemm {

// A compile-time tile shape: M x N output, K reduction.
template <uint32_t M_ = 1, uint32_t N_ = 1, uint32_t K_ = 1>
struct GemmShape {
  static constexpr uint32_t M = M_;
  static constexpr uint32_t N = N_;
  static constexpr uint32_t K = K_;
};

// A run-time problem or block shape.
struct GemmCoord {
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  friend constexpr bool operator==(const GemmCoord&, const GemmCoord&) = default;
};

// A (row, column) position or extent in a matrix (of elements or of tiles).
struct MatrixCoord {
  uint32_t row = 0;
  uint32_t column = 0;
  friend constexpr bool operator==(const MatrixCoord&, const MatrixCoord&) = default;
};

namespace layout {
// Row-major: element (r, c) of a rows x cols matrix at r * ld + c. For A this is [M, K]; for B
// [K, N].
struct RowMajor {
  static constexpr bool kColumnMajor = false;
};
// Column-major: element (r, c) at c * ld + r - the transpose stored row-major: A given as [K, M]
// (transpose_x1), B as [N, K] (transpose_x2).
struct ColumnMajor {
  static constexpr bool kColumnMajor = true;
};
}  // namespace layout

// An operand: element type and layout in GM.
template <class Element_, class Layout_ = layout::RowMajor>
struct GemmType {
  using Element = Element_;
  using Layout = Layout_;
};

// The cube's accumulator: float for float, half and bfloat16 inputs; int32 for int8.
template <class T>
using AccumulatorOf = std::conditional_t<std::is_same_v<T, int8_t>, int32_t, float>;

template <class T>
inline constexpr bool kIsCubeInput = std::is_same_v<T, float> || std::is_same_v<T, half> ||
                                     std::is_same_v<T, bfloat16> || std::is_same_v<T, int8_t>;

constexpr uint32_t CeilDiv(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}
constexpr uint32_t RoundUp(uint32_t a, uint32_t b) {
  return CeilDiv(a, b) * b;
}

}  // namespace tessera::gemm
