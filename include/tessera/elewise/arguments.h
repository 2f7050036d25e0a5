// Run-time arguments of an elewise operator: tensors on device memory, scalars and attributes.
//
//   auto args = ArgumentsBuilder{}
//                   .inputOutput(TensorArg{x, DataType::kFloat32, shape}, 1e-6f,
//                                TensorArg{y, DataType::kFloat32, shape})
//                   .attr("epsilon", 1e-6)
//                   .build();
//
// Parameters are positional: the i-th one binds PlaceHolder<i>. There is no limit on their number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/shape.h"

namespace tessera::elewise {

// A tensor in device memory. row_stride (elements) > 0 makes it a 2-D view [rows, shape.last]
// whose rows are row_stride apart (e.g. one half of a wider tensor); 0 means dense. `strides`
// (elements, one per dim, >= 0; empty: dense or row_stride) describes any other view of an input,
// e.g. a transposed or sliced one, for operators without reductions; outputs are dense.
struct TensorArg {
  void* data = nullptr;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  int64_t row_stride = 0;
  std::vector<int64_t> strides;
};

// A runtime scalar for PlaceHolder<N, float> or PlaceHolder<N, int32_t>.
struct ScalarArg {
  DataType dtype = DataType::kFloat32;
  float f = 0.0f;
  int32_t i = 0;
};

using Argument = std::variant<TensorArg, ScalarArg>;
using AttrValue = std::variant<int64_t, double, bool, std::string>;

// Named operator attributes, readable by schedules (host) and by computes (Attr<"name">).
class Attributes {
 public:
  void Set(std::string name, AttrValue value) {
    for (auto& [n, v] : items_) {
      if (n == name) {
        v = std::move(value);
        return;
      }
    }
    items_.emplace_back(std::move(name), std::move(value));
  }
  const AttrValue* Find(std::string_view name) const {
    for (const auto& [n, v] : items_) {
      if (n == name) return &v;
    }
    return nullptr;
  }
  // The attribute as a number (int64, double or bool), or nullopt when absent or a string.
  std::optional<double> Number(std::string_view name) const {
    const AttrValue* v = Find(name);
    if (v == nullptr) return std::nullopt;
    if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(v)) return *d;
    if (const auto* b = std::get_if<bool>(v)) return *b ? 1.0 : 0.0;
    return std::nullopt;
  }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

struct Arguments {
  std::vector<Argument> params;
  Attributes attrs;
};

class ArgumentsBuilder {
 public:
  // Appends parameters in PlaceHolder order: TensorArg, ScalarArg, float or int32_t.
  template <class... A>
  ArgumentsBuilder& inputOutput(A&&... a) {
    (Add(std::forward<A>(a)), ...);
    return *this;
  }
  // Sets attribute `name` (integers, floating point, bool or string).
  template <class V>
  ArgumentsBuilder& attr(std::string name, V value) {
    if constexpr (std::is_same_v<V, bool>) {
      args_.attrs.Set(std::move(name), value);
    } else if constexpr (std::is_integral_v<V>) {
      args_.attrs.Set(std::move(name), static_cast<int64_t>(value));
    } else if constexpr (std::is_floating_point_v<V>) {
      args_.attrs.Set(std::move(name), static_cast<double>(value));
    } else {
      args_.attrs.Set(std::move(name), std::string(value));
    }
    return *this;
  }
  Arguments build() const { return args_; }

 private:
  void Add(const TensorArg& t) { args_.params.emplace_back(t); }
  void Add(const ScalarArg& s) { args_.params.emplace_back(s); }
  void Add(float f) { args_.params.emplace_back(ScalarArg{DataType::kFloat32, f, 0}); }
  void Add(int32_t i) { args_.params.emplace_back(ScalarArg{DataType::kInt32, 0.0f, i}); }

  Arguments args_;
};

}  // namespace tessera::elewise
