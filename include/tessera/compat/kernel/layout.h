// The vendor's Layout and Coordinate structures (AscendC::Shape / Stride / Coord as Std::tuple
// aliases, Layout<Shape, Stride>, MakeShape / MakeStride / MakeCoord / MakeLayout, is_layout,
// Crd2Idx): a layout maps a coordinate to the index sum(coord[i] * stride[i]) of flat shapes.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tessera/compat/kernel/std.h"

namespace AscendC {

template <typename... Shapes>
using Shape = Std::tuple<Shapes...>;
template <typename... Strides>
using Stride = Std::tuple<Strides...>;
template <typename... Coords>
using Coord = Std::tuple<Coords...>;

template <typename... Ts>
constexpr Shape<Ts...> MakeShape(const Ts&... t) {
  return Shape<Ts...>(t...);
}
template <typename... Ts>
constexpr Stride<Ts...> MakeStride(const Ts&... t) {
  return Stride<Ts...>(t...);
}
template <typename... Ts>
constexpr Coord<Ts...> MakeCoord(const Ts&... t) {
  return Coord<Ts...>(t...);
}

template <typename ShapeType, typename StrideType>
struct Layout : private Std::tuple<ShapeType, StrideType> {
  constexpr Layout(const ShapeType& shape = {}, const StrideType& stride = {})
      : Std::tuple<ShapeType, StrideType>(shape, stride) {}
  constexpr decltype(auto) layout() { return *this; }
  constexpr decltype(auto) layout() const { return *this; }
  constexpr decltype(auto) GetShape() { return Std::get<0>(Base()); }
  constexpr decltype(auto) GetShape() const { return Std::get<0>(Base()); }
  constexpr decltype(auto) GetStride() { return Std::get<1>(Base()); }
  constexpr decltype(auto) GetStride() const { return Std::get<1>(Base()); }
  template <typename CoordType>
  constexpr auto operator()(const CoordType& coord) const;

 private:
  constexpr Std::tuple<ShapeType, StrideType>& Base() { return *this; }
  constexpr const Std::tuple<ShapeType, StrideType>& Base() const { return *this; }
};

template <typename ShapeType, typename StrideType>
constexpr auto MakeLayout(const ShapeType& shape, const StrideType& stride) {
  return Layout<ShapeType, StrideType>(shape, stride);
}

template <typename T>
struct is_layout : std::false_type {};
template <typename ShapeType, typename StrideType>
struct is_layout<Layout<ShapeType, StrideType>> : std::true_type {};

namespace layout_detail {
template <typename CoordType, typename StrideType, size_t... I>
constexpr auto Dot(const CoordType& coord, const StrideType& stride, std::index_sequence<I...>) {
  return (static_cast<size_t>(0) + ... +
          (static_cast<size_t>(Std::get<I>(coord)) * static_cast<size_t>(Std::get<I>(stride))));
}
}  // namespace layout_detail

// The index of `coord` under `stride`: sum(coord[i] * stride[i]); both have one entry per
// dimension.
template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const ShapeType& /*shape*/,
                       const StrideType& stride) {
  static_assert(std::tuple_size_v<CoordType> == std::tuple_size_v<StrideType>,
                "Crd2Idx: the coordinate and the stride have one entry per dimension");
  return layout_detail::Dot(coord, stride,
                            std::make_index_sequence<std::tuple_size_v<CoordType>>{});
}
template <typename CoordType, typename ShapeType, typename StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const Layout<ShapeType, StrideType>& layout) {
  return Crd2Idx(coord, layout.GetShape(), layout.GetStride());
}

template <typename ShapeType, typename StrideType>
template <typename CoordType>
constexpr auto Layout<ShapeType, StrideType>::operator()(const CoordType& coord) const {
  return Crd2Idx(coord, *this);
}

}  // namespace AscendC
