// exe_graph/runtime/runtime_attrs.h: gert::RuntimeAttrs, an op's attributes by declaration index
// (GetAttrPointer<T>(i), GetInt/GetFloat/GetBool/GetStr/GetListInt/GetListFloat).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/runtime/op_def.h"

namespace gert {

// A list attribute's values.
template <class T>
class TypedContinuousVector {
 public:
  TypedContinuousVector() = default;
  explicit TypedContinuousVector(std::vector<T> values) : values_(std::move(values)) {}
  size_t GetSize() const { return values_.size(); }
  const T* GetData() const { return values_.data(); }

 private:
  std::vector<T> values_;
};

class RuntimeAttrs {
 public:
  RuntimeAttrs() = default;
  // `values[i]`: attribute i of the op's declaration order.
  explicit RuntimeAttrs(std::vector<tessera::runtime::AttrValue> values) {
    for (auto& v : values)
      entries_.push_back(Entry::Of(std::move(v)));
  }

  size_t GetAttrNum() const { return entries_.size(); }
  // Attribute `index` as T (int64_t, float, bool, char for strings, TypedContinuousVector of
  // int64_t or float for lists); nullptr when the index is out of range or T is not its type.
  template <class T>
  const T* GetAttrPointer(size_t index) const {
    if (index >= entries_.size()) return nullptr;
    const Entry& e = entries_[index];
    using K = tessera::runtime::AttrKind;
    if constexpr (std::is_same_v<T, int64_t>) {
      return e.kind == K::kInt ? &e.i : nullptr;
    } else if constexpr (std::is_same_v<T, float>) {
      return e.kind == K::kFloat ? &e.f : nullptr;
    } else if constexpr (std::is_same_v<T, bool>) {
      return e.kind == K::kBool ? &e.b : nullptr;
    } else if constexpr (std::is_same_v<T, char>) {
      return e.kind == K::kString ? e.s.c_str() : nullptr;
    } else if constexpr (std::is_same_v<T, TypedContinuousVector<int64_t>>) {
      return e.kind == K::kIntList ? &e.li : nullptr;
    } else if constexpr (std::is_same_v<T, TypedContinuousVector<float>>) {
      return e.kind == K::kFloatList ? &e.lf : nullptr;
    } else {
      static_assert(sizeof(T) == 0,
                    "GetAttrPointer<T>: T must be int64_t, float, bool, char or "
                    "TypedContinuousVector<int64_t|float>");
      return nullptr;
    }
  }
  const int64_t* GetInt(size_t index) const { return GetAttrPointer<int64_t>(index); }
  const float* GetFloat(size_t index) const { return GetAttrPointer<float>(index); }
  const bool* GetBool(size_t index) const { return GetAttrPointer<bool>(index); }
  const char* GetStr(size_t index) const { return GetAttrPointer<char>(index); }
  const TypedContinuousVector<int64_t>* GetListInt(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
  }
  const TypedContinuousVector<float>* GetListFloat(size_t index) const {
    return GetAttrPointer<TypedContinuousVector<float>>(index);
  }

 private:
  struct Entry {
    tessera::runtime::AttrKind kind = tessera::runtime::AttrKind::kInt;
    int64_t i = 0;
    float f = 0;
    bool b = false;
    std::string s;
    TypedContinuousVector<int64_t> li;
    TypedContinuousVector<float> lf;

    static Entry Of(tessera::runtime::AttrValue v) {
      Entry e;
      e.kind = tessera::runtime::KindOf(v);
      if (auto* p = std::get_if<int64_t>(&v)) e.i = *p;
      if (auto* p = std::get_if<float>(&v)) e.f = *p;
      if (auto* p = std::get_if<bool>(&v)) e.b = *p;
      if (auto* p = std::get_if<std::string>(&v)) e.s = std::move(*p);
      if (auto* p = std::get_if<std::vector<int64_t>>(&v))
        e.li = TypedContinuousVector<int64_t>(std::move(*p));
      if (auto* p = std::get_if<std::vector<float>>(&v))
        e.lf = TypedContinuousVector<float>(std::move(*p));
      return e;
    }
  };
  std::vector<Entry> entries_;
};

// The call's attribute values in declaration order `names`. The runtime resolves every declared
// attribute before tiling; an absent one keeps its index with an int 0 (GetAttrPointer of another
// type then gives nullptr).
inline std::vector<tessera::runtime::AttrValue> OrderedAttrs(
    const std::map<std::string, tessera::runtime::AttrValue>& attrs,
    const std::vector<std::string>& names) {
  std::vector<tessera::runtime::AttrValue> out;
  for (const auto& n : names) {
    const auto it = attrs.find(n);
    out.push_back(it != attrs.end() ? it->second : tessera::runtime::AttrValue{int64_t{0}});
  }
  return out;
}

}  // namespace gert
