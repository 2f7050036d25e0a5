// AscendC::Std beyond its type traits (tessera/compat/kernel/adv/utils.h): the vendor's tuple,
// forward/move, index sequences, min/max/abs/sqrt. On the CPU these are the standard library's
// own; min and max accept two operand types as the vendor's do.
#pragma once

#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>

namespace AscendC::Std {

using std::forward;
using std::index_sequence;
using std::integer_sequence;
using std::make_index_sequence;
using std::move;

using std::get;
using std::make_tuple;
using std::tie;
using std::tuple;
using std::tuple_element;
using std::tuple_size;

template <class T, class U>
constexpr auto min(const T& a, const U& b) {
  return b < a ? b : a;
}
template <class T, class U>
constexpr auto max(const T& a, const U& b) {
  return a < b ? b : a;
}
template <class T>
T abs(const T v) {
  return v < T(0) ? -v : v;
}
template <class T>
T sqrt(const T v) {
  return static_cast<T>(std::sqrt(static_cast<double>(v)));
}

}  // namespace AscendC::Std
