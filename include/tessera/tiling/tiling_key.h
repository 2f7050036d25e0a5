// TilingKey: a 64-bit key selecting a compile-time kernel variant (PyPTO rules).
//
// A schema is an ordered list of fields {name, bits, values}. A field's offset is the sum of the
// bits before it; packing stores the *index* of the value in `values`: key = OR_i(index_i <<
// offset_i). Rules: bits > 0; values non-empty and unique; len(values) <= 2^bits; total bits <= 64;
// names unique and non-empty. An optional is_valid(values in field order) rejects unsupported
// combinations.
//
// Two forms share the rules:
//  - StaticKeySchema<N>: constexpr; a broken rule is a compile error; drives kernel specialisation.
//      constexpr bool IsValid(std::span<const int64_t> v) { return !(v[0] == 1 && v[1] == 64); }
//      constexpr StaticKeySchema kSchema({{"UseScale", 1, Values<0, 1>},
//                                         {"BlockM", 2, Values<64, 128>}}, &IsValid);
//  - KeySchema: built at run time (Create returns a Status naming the broken rule); validates key
//    maps from users with a distinct error for missing, extra, unlisted and rejected values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::tiling {

inline constexpr int kMaxKeyBits = 64;

// A field of a static schema. `values` must view static storage; Values<...> provides it.
struct KeyField {
  std::string_view name;
  int bits;
  std::span<const int64_t> values;
};

namespace detail {
template <int64_t... V>
inline constexpr int64_t kKeyValues[] = {V...};
}  // namespace detail

// A static list of key values: `Values<64, 128>`. `Values<>` is empty (and breaks the rules).
template <int64_t... V>
inline constexpr std::span<const int64_t> Values{detail::kKeyValues<V...>};
template <>
inline constexpr std::span<const int64_t> Values<>{};

// is_valid of a static schema: receives one value per field, in field order.
using KeyPredicate = bool (*)(std::span<const int64_t> values);

// Field name -> value, as a launch passes a key.
using KeyMap = std::map<std::string, int64_t, std::less<>>;

namespace detail {

enum class KeyRule : uint8_t {
  kOk,
  kEmptyName,
  kDuplicateName,
  kBitsNotPositive,
  kNoValues,
  kDuplicateValue,
  kTooManyValues,
  kTooManyBits,
};

struct KeyRuleResult {
  KeyRule rule = KeyRule::kOk;
  size_t field = 0;
  int64_t value =
      0;  // the duplicated value for kDuplicateValue, the running total for kTooManyBits
};

// Checks every rule in field order; `Fields` is any range of {name, bits, values}.
template <class Fields>
constexpr KeyRuleResult CheckKeyRules(const Fields& fields) {
  int64_t total = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& f = fields[i];
    if (f.name.empty()) return {KeyRule::kEmptyName, i, 0};
    for (size_t j = 0; j < i; ++j) {
      if (fields[j].name == f.name) return {KeyRule::kDuplicateName, i, 0};
    }
    if (f.bits <= 0) return {KeyRule::kBitsNotPositive, i, f.bits};
    if (f.values.size() == 0) return {KeyRule::kNoValues, i, 0};
    for (size_t a = 0; a < f.values.size(); ++a) {
      for (size_t b = 0; b < a; ++b) {
        if (f.values[a] == f.values[b]) return {KeyRule::kDuplicateValue, i, f.values[a]};
      }
    }
    const int bits = f.bits;
    total += bits;
    if (total > kMaxKeyBits) return {KeyRule::kTooManyBits, i, total};
    if (bits < 64 && f.values.size() > (uint64_t{1} << bits)) {
      return {KeyRule::kTooManyValues, i, static_cast<int64_t>(f.values.size())};
    }
  }
  return {};
}

// Index of `value` in `values`, or -1.
template <class Values>
constexpr int64_t IndexOfValue(const Values& values, int64_t value) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] == value) return static_cast<int64_t>(i);
  }
  return -1;
}

// Never defined: a static schema breaking a rule calls one of these from a consteval constructor,
// so the compiler stops and the function's name in its error says which rule was broken.
void TilingKeyRuleBroken_field_name_must_be_non_empty();
void TilingKeyRuleBroken_field_names_must_be_unique();
void TilingKeyRuleBroken_bits_must_be_positive();
void TilingKeyRuleBroken_values_must_be_non_empty();
void TilingKeyRuleBroken_values_must_be_unique();
void TilingKeyRuleBroken_more_values_than_2_pow_bits();
void TilingKeyRuleBroken_total_bits_exceed_64();

}  // namespace detail

// A schema fixed at compile time. Construct it as a constexpr variable; breaking a rule fails to
// compile with a detail::TilingKeyRuleBroken_<rule> error.
template <size_t N>
class StaticKeySchema {
 public:
  consteval StaticKeySchema(const KeyField (&fields)[N])
      : StaticKeySchema(fields, nullptr, false) {}
  // Comparing a function pointer with null is not a constant expression under GCC's sanitizers, so
  // whether a predicate exists is decided by the overload, not by a comparison.
  consteval StaticKeySchema(const KeyField (&fields)[N], KeyPredicate is_valid)
      : StaticKeySchema(fields, is_valid, true) {}

 private:
  consteval StaticKeySchema(const KeyField (&fields)[N], KeyPredicate is_valid, bool has_is_valid)
      : is_valid_(is_valid), has_is_valid_(has_is_valid) {
    for (size_t i = 0; i < N; ++i)
      fields_[i] = fields[i];
    switch (detail::CheckKeyRules(fields_).rule) {
      case detail::KeyRule::kOk:
        break;
      case detail::KeyRule::kEmptyName:
        detail::TilingKeyRuleBroken_field_name_must_be_non_empty();
        break;
      case detail::KeyRule::kDuplicateName:
        detail::TilingKeyRuleBroken_field_names_must_be_unique();
        break;
      case detail::KeyRule::kBitsNotPositive:
        detail::TilingKeyRuleBroken_bits_must_be_positive();
        break;
      case detail::KeyRule::kNoValues:
        detail::TilingKeyRuleBroken_values_must_be_non_empty();
        break;
      case detail::KeyRule::kDuplicateValue:
        detail::TilingKeyRuleBroken_values_must_be_unique();
        break;
      case detail::KeyRule::kTooManyValues:
        detail::TilingKeyRuleBroken_more_values_than_2_pow_bits();
        break;
      case detail::KeyRule::kTooManyBits:
        detail::TilingKeyRuleBroken_total_bits_exceed_64();
        break;
    }
  }

 public:
  static constexpr size_t size() { return N; }
  constexpr const std::array<KeyField, N>& fields() const { return fields_; }
  constexpr KeyPredicate is_valid() const { return is_valid_; }
  constexpr bool has_is_valid() const { return has_is_valid_; }

  constexpr int offset(size_t field) const {
    int off = 0;
    for (size_t i = 0; i < field; ++i)
      off += fields_[i].bits;
    return off;
  }
  constexpr int total_bits() const { return offset(N); }

  // True when every value is in its field's list and is_valid accepts the combination.
  constexpr bool Accepts(const std::array<int64_t, N>& values) const {
    for (size_t i = 0; i < N; ++i) {
      if (detail::IndexOfValue(fields_[i].values, values[i]) < 0) return false;
    }
    return !has_is_valid_ || is_valid_(values);
  }

  // The packed key of `values` (one per field, in order); nullopt when !Accepts(values).
  constexpr std::optional<uint64_t> Pack(const std::array<int64_t, N>& values) const {
    if (!Accepts(values)) return std::nullopt;
    uint64_t key = 0;
    for (size_t i = 0; i < N; ++i) {
      key |= static_cast<uint64_t>(detail::IndexOfValue(fields_[i].values, values[i])) << offset(i);
    }
    return key;
  }

  // Calls fn(values) for the cartesian product of all values (last field varies fastest, like
  // itertools.product) filtered by is_valid.
  template <class Fn>
  constexpr void ForEachValid(Fn&& fn) const {
    std::array<size_t, N> idx{};
    while (true) {
      std::array<int64_t, N> values{};
      for (size_t i = 0; i < N; ++i)
        values[i] = fields_[i].values[idx[i]];
      if (!has_is_valid_ || is_valid_(values)) fn(values);
      size_t i = N;
      while (i > 0 && ++idx[i - 1] == fields_[i - 1].values.size())
        idx[--i] = 0;
      if (i == 0) return;
    }
  }

  constexpr size_t CountValid() const {
    size_t count = 0;
    ForEachValid([&](const std::array<int64_t, N>&) { ++count; });
    return count;
  }

 private:
  std::array<KeyField, N> fields_{};
  KeyPredicate is_valid_;
  bool has_is_valid_;
};

// Every valid combination of a static schema, in ForEachValid order; constexpr.
template <const auto& Schema>
constexpr auto EnumerateValid() {
  constexpr size_t kN = std::remove_cvref_t<decltype(Schema)>::size();
  std::array<std::array<int64_t, kN>, Schema.CountValid()> out{};
  size_t next = 0;
  Schema.ForEachValid([&](const std::array<int64_t, kN>& values) { out[next++] = values; });
  return out;
}

// A field of a run-time schema (owning).
struct KeyFieldDef {
  std::string name;
  int bits = 0;
  std::vector<int64_t> values;
};

// A schema built at run time (from a manifest, a CLI, or a StaticKeySchema).
class KeySchema {
 public:
  using Predicate = std::function<bool(std::span<const int64_t> values)>;

  // Fails naming the field and the broken rule.
  static Result<KeySchema> Create(std::vector<KeyFieldDef> fields, Predicate is_valid = {});

  template <size_t N>
  static KeySchema FromStatic(const StaticKeySchema<N>& schema) {
    std::vector<KeyFieldDef> defs;
    for (const KeyField& f : schema.fields()) {
      defs.push_back({std::string(f.name), f.bits, {f.values.begin(), f.values.end()}});
    }
    Predicate pred;
    if (schema.has_is_valid()) pred = schema.is_valid();
    // Cannot fail: the static schema passed the same rules at compile time.
    return Create(std::move(defs), std::move(pred)).value();
  }

  std::span<const KeyFieldDef> fields() const { return fields_; }
  int offset(size_t field) const { return offsets_[field]; }
  int total_bits() const { return total_bits_; }

  // Checks a key map: exactly the schema's fields (errors: missing field, extra field), each value
  // in its list (error names field, value and list), and is_valid (error names the combination).
  Status Validate(const KeyMap& key) const;
  // Validate, then pack.
  Result<uint64_t> Pack(const KeyMap& key) const;
  // Same checks for values given in field order.
  Result<uint64_t> PackValues(std::span<const int64_t> values) const;
  // Values in field order. Fails when the key has bits above total_bits() or an index past its
  // field's list. Does not apply is_valid (a rejected combination still decodes, for diagnostics).
  Result<std::vector<int64_t>> Unpack(uint64_t key) const;
  // Unpack as a name -> value map.
  Result<KeyMap> Decode(uint64_t key) const;
  // The cartesian product filtered by is_valid, in StaticKeySchema::ForEachValid order.
  std::vector<std::vector<int64_t>> EnumerateValid() const;
  // "{UseScale: 1, BlockM: 64}"; precondition: one value per field.
  std::string Describe(std::span<const int64_t> values) const;

 private:
  Status CheckValues(std::span<const int64_t> values) const;

  std::vector<KeyFieldDef> fields_;
  std::vector<int> offsets_;
  int total_bits_ = 0;
  Predicate is_valid_;
};

}  // namespace tessera::tiling
