// AscendC::Std: the vendor's kernel-side <type_traits> subset. Everything is the standard
// library's trait, except is_floating_point, which also counts the device's half type (as the
// vendor's does), and the vendor's own is_one_of / is_one_of_value / is_constant.
#pragma once

#include <type_traits>

#include "tessera/core/float16.h"

namespace AscendC::Std {

using std::add_const;
using std::add_const_t;
using std::add_cv;
using std::add_cv_t;
using std::add_lvalue_reference;
using std::add_lvalue_reference_t;
using std::add_pointer;
using std::add_pointer_t;
using std::add_rvalue_reference;
using std::add_rvalue_reference_t;
using std::add_volatile;
using std::add_volatile_t;
using std::bool_constant;
using std::conditional;
using std::conditional_t;
using std::decay;
using std::decay_t;
using std::enable_if;
using std::enable_if_t;
using std::false_type;
using std::integral_constant;
using std::is_array;
using std::is_array_v;
using std::is_base_of;
using std::is_base_of_v;
using std::is_class;
using std::is_class_v;
using std::is_const;
using std::is_const_v;
using std::is_convertible;
using std::is_convertible_v;
using std::is_function;
using std::is_function_v;
using std::is_integral;
using std::is_integral_v;
using std::is_pointer;
using std::is_pointer_v;
using std::is_reference;
using std::is_reference_v;
using std::is_same;
using std::is_same_v;
using std::is_union;
using std::is_union_v;
using std::is_void;
using std::is_void_v;
using std::remove_const;
using std::remove_const_t;
using std::remove_cv;
using std::remove_cv_t;
using std::remove_extent;
using std::remove_extent_t;
using std::remove_pointer;
using std::remove_pointer_t;
using std::remove_reference;
using std::remove_reference_t;
using std::remove_volatile;
using std::remove_volatile_t;
using std::true_type;

template <class T>
struct remove_cvref {
  using type = std::remove_cv_t<std::remove_reference_t<T>>;
};
template <class T>
using remove_cvref_t = typename remove_cvref<T>::type;

// float, double, long double and half, cv-qualified or not.
template <class T>
struct is_floating_point : bool_constant<std::is_floating_point_v<T> ||
                                         std::is_same_v<std::remove_cv_t<T>, ::tessera::half>> {};
template <class T>
inline constexpr bool is_floating_point_v = is_floating_point<T>::value;

// True when T is one of Args.
template <class T, class... Args>
struct is_one_of : bool_constant<(std::is_same_v<T, Args> || ...)> {};
template <class T, class... Args>
inline constexpr bool is_one_of_v = is_one_of<T, Args...>::value;

// True when Value equals one of Values.
template <class T, T Value, T... Values>
struct is_one_of_value : bool_constant<((Value == Values) || ...)> {};
template <class T, T Value, T... Values>
inline constexpr bool is_one_of_value_v = is_one_of_value<T, Value, Values...>::value;

// True when T (through const and references) is integral_constant<U, v> with v == n.
template <auto n, class T>
struct is_constant : false_type {};
template <auto n, class T>
struct is_constant<n, const T> : is_constant<n, T> {};
template <auto n, class T>
struct is_constant<n, T&> : is_constant<n, T> {};
template <auto n, class T>
struct is_constant<n, T&&> : is_constant<n, T> {};
template <auto n, class U, U v>
struct is_constant<n, integral_constant<U, v>> : bool_constant<v == n> {};

}  // namespace AscendC::Std
