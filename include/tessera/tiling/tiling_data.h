// TilingData: the run-time parameter struct a tiling function fills and a kernel reads.
//
// Declared with the Ascend C macros, it is a plain C struct (native layout, trivially copyable)
// plus a constexpr field table, so the kernel side reads it with one memcpy and host tools can
// introspect, serialise, edit and print it through the type-erased TilingSchema.
//
//   BEGIN_TILING_DATA_DEF(AddTiling)
//     TILING_DATA_FIELD_DEF(int64_t, rows)               // default 0
//     TILING_DATA_FIELD_DEF(float, scale, 1.0f)          // default 1.0
//     TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides, 4, 1)
//   END_TILING_DATA_DEF;
//
// A field may also embed another TilingData struct (its fields keep their native layout inside):
//
//   BEGIN_TILING_DATA_DEF(MatmulLeakyTiling)
//     TILING_DATA_FIELD_DEF(float, alpha)
//     TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData)
//   END_TILING_DATA_DEF;
//
// Introspection sees the embedded struct as a field of type "struct" with its own schema; tools
// address its fields as "cubeTilingData.baseM".
//
// Rules (compile errors when broken): element types int64_t, float or bool; arrays of 1..2048
// elements; at least one field; unique names (a duplicate is a C++ redeclaration error); an
// embedded struct must itself be a TilingData struct. (int32_t fields exist only in tessera's own
// vendor-layout structs such as TCubeTiling, declared with TESSERA_TILING_FIELD_DEF_INT32_.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::tiling {

// Element type of a tiling field. Values are stable: they feed the schema hash.
enum class TilingFieldType : uint8_t {
  kInt64 = 0,
  kFloat32 = 1,
  kBool = 2,
  kInt32 = 3,   // vendor-layout structs only (TCubeTiling)
  kStruct = 4,  // an embedded TilingData struct; TilingField::nested describes it
};

// "int64", "float32", "bool", "int32", "struct".
std::string_view TilingFieldTypeName(TilingFieldType type);

struct TilingSchema;

// One field of a TilingData struct. `length` is 1 for scalars and embedded structs; `is_array`
// tells an array of one element from a scalar.
struct TilingField {
  std::string_view name;
  TilingFieldType type;
  uint32_t offset;
  uint32_t length;
  bool is_array;
  const TilingSchema* nested = nullptr;  // the embedded struct's schema (kStruct only)

  constexpr uint32_t element_size() const;  // bytes of one element (the struct for kStruct)
  constexpr uint32_t alignment() const;     // native alignment of one element
  constexpr uint32_t byte_size() const { return element_size() * length; }
};

// Type-erased description of a TilingData struct; what tools and the runtime work with.
struct TilingSchema {
  std::string_view name;
  std::span<const TilingField> fields;
  size_t size;
  size_t alignment;
  // FNV-1a 64 over sizeof and each field's name, type, offset, length and array-ness (not the
  // struct name): equal hashes mean host and kernel agree on the layout.
  uint64_t hash;

  // nullptr when no field has that name (top-level names only; see FindPath for "a.b").
  const TilingField* Find(std::string_view field_name) const {
    for (const TilingField& f : fields) {
      if (f.name == field_name) return &f;
    }
    return nullptr;
  }
};

constexpr uint32_t TilingField::element_size() const {
  switch (type) {
    case TilingFieldType::kBool:
      return 1u;
    case TilingFieldType::kInt64:
      return 8u;
    case TilingFieldType::kStruct:
      return static_cast<uint32_t>(nested->size);
    default:
      return 4u;
  }
}

constexpr uint32_t TilingField::alignment() const {
  return type == TilingFieldType::kStruct ? static_cast<uint32_t>(nested->alignment)
                                          : element_size();
}

// A field reached through embedded structs ("cubeTilingData.baseM"): the innermost field and its
// byte offset from the start of the outermost struct.
struct TilingFieldPath {
  const TilingField* field = nullptr;
  uint32_t offset = 0;
};
// Resolves a dotted path; fails naming the struct and the missing part.
Result<TilingFieldPath> FindTilingField(const TilingSchema& schema, std::string_view path);

namespace detail {

template <class T>
inline constexpr bool kIsTilingElement =
    std::is_same_v<T, int64_t> || std::is_same_v<T, float> || std::is_same_v<T, bool>;

template <class T>
constexpr TilingFieldType TilingTypeOf() {
  if constexpr (std::is_same_v<T, int64_t>) return TilingFieldType::kInt64;
  if constexpr (std::is_same_v<T, float>) return TilingFieldType::kFloat32;
  if constexpr (std::is_same_v<T, int32_t>) return TilingFieldType::kInt32;
  if constexpr (std::is_class_v<T>) return TilingFieldType::kStruct;
  return TilingFieldType::kBool;
}

template <int I>
struct FieldIndex {};

// The schema of an embedded struct, with static storage (defined below, after TilingSchemaOf).
template <class T>
constexpr const TilingSchema* NestedSchema();

// Member is `decltype(Struct::field)`: a scalar or a one-dimensional array of a tiling element,
// or an embedded TilingData struct.
template <class Member>
constexpr TilingField MakeField(std::string_view name, size_t offset) {
  using Element = std::remove_extent_t<Member>;
  const TilingSchema* nested = nullptr;
  if constexpr (std::is_class_v<Element>) nested = NestedSchema<Element>();
  return TilingField{name,
                     TilingTypeOf<Element>(),
                     static_cast<uint32_t>(offset),
                     static_cast<uint32_t>(std::is_array_v<Member> ? std::extent_v<Member> : 1),
                     std::is_array_v<Member>,
                     nested};
}

constexpr uint64_t Fnv1a(uint64_t h, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    h ^= (v >> (8 * i)) & 0xffu;
    h *= 0x100000001b3ull;
  }
  return h;
}

template <size_t N>
constexpr uint64_t SchemaHash(const std::array<TilingField, N>& fields, size_t size) {
  uint64_t h = Fnv1a(0xcbf29ce484222325ull, size, 8);
  for (const TilingField& f : fields) {
    for (char c : f.name)
      h = Fnv1a(h, static_cast<unsigned char>(c), 1);
    h = Fnv1a(h, 0, 1);  // terminator so "ab"+"c" differs from "a"+"bc"
    h = Fnv1a(h, static_cast<uint64_t>(f.type), 1);
    h = Fnv1a(h, f.offset, 4);
    h = Fnv1a(h, f.length, 4);
    h = Fnv1a(h, f.is_array ? 1 : 0, 1);
    // Only embedded structs add bytes, so the hashes of flat structs stay what they were.
    if (f.type == TilingFieldType::kStruct) h = Fnv1a(h, f.nested->hash, 8);
  }
  return h;
}

template <class T, size_t... I>
constexpr std::array<TilingField, sizeof...(I)> CollectFields(std::index_sequence<I...>) {
  return {T::TesseraTilingField_(FieldIndex<static_cast<int>(I)>{})...};
}

// Recomputes the native C layout from the field table; a mismatch with the compiler's offsets or
// sizeof means the table is not describing the struct (for example a member added by hand).
template <class T, size_t N>
constexpr bool LayoutMatchesTable(const std::array<TilingField, N>& fields) {
  size_t offset = 0;
  size_t align = 1;
  for (const TilingField& f : fields) {
    const size_t a = f.alignment();
    offset = (offset + a - 1) / a * a;
    if (offset != f.offset) return false;
    offset += f.byte_size();
    align = a > align ? a : align;
  }
  return (offset + align - 1) / align * align == sizeof(T) && align == alignof(T);
}

template <class T>
constexpr std::array<TilingField, T::kTesseraFieldCount_> BuildFieldTable() {
  static_assert(std::is_standard_layout_v<T> && std::is_trivially_copyable_v<T>,
                "A TilingData struct must be standard-layout and trivially copyable: declare it "
                "only with BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF[_ARR|_STRUCT] / "
                "END_TILING_DATA_DEF");
  constexpr auto fields = CollectFields<T>(std::make_index_sequence<T::kTesseraFieldCount_>{});
  static_assert(
      LayoutMatchesTable<T>(fields),
      "TilingData field table does not match the struct's native layout (sizeof/offsets)");
  return fields;
}

// Type-erased helpers behind the typed API below (tiling_data.cc).
Status CheckSchemaHash(const TilingSchema& schema, uint64_t producer_hash);
Status CheckBufferSize(const TilingSchema& schema, size_t size);
// schema.size bytes: each field's bytes copied from `data` (a struct of that schema), the rest 0.
std::vector<uint8_t> SerializeFields(const TilingSchema& schema, const void* data);

}  // namespace detail

// True for structs declared with BEGIN_TILING_DATA_DEF.
template <class T>
concept TilingData = requires {
  T::kTesseraFieldCount_;
};

// The field table of a TilingData struct, in declaration order (= layout order).
template <TilingData T>
inline constexpr std::array<TilingField, T::kTesseraFieldCount_> kTilingFields =
    detail::BuildFieldTable<T>();

// The schema of a TilingData struct; constexpr, so `static_assert(TilingSchemaOf<T>().size == 40)`.
template <TilingData T>
constexpr TilingSchema TilingSchemaOf() {
  return TilingSchema{T::kTesseraTilingName_, kTilingFields<T>, sizeof(T), alignof(T),
                      detail::SchemaHash(kTilingFields<T>, sizeof(T))};
}

namespace detail {
template <TilingData T>
inline constexpr TilingSchema kSchemaStorage = TilingSchemaOf<T>();
template <class T>
constexpr const TilingSchema* NestedSchema() {
  static_assert(TilingData<T>,
                "TILING_DATA_FIELD_DEF_STRUCT: the embedded type must be a TilingData struct "
                "(declared with BEGIN_TILING_DATA_DEF)");
  return &kSchemaStorage<T>;
}
}  // namespace detail

// The bytes a kernel receives as its tiling argument: the struct's layout with every field's
// value and zero padding. Copied field by field, because a struct's padding bytes hold whatever
// the stack held; the bytes must be deterministic and equal to other producers' (Python's
// TilingData serialises the same layout with zero padding).
template <TilingData T>
std::vector<uint8_t> SerializeTiling(const T& data) {
  return detail::SerializeFields(TilingSchemaOf<T>(), &data);
}

// Reads a struct back from tiling bytes. Fails with "buffer too short" when `bytes` holds fewer
// than sizeof(T) bytes (a longer buffer is fine: tiling buffers may be padded).
template <TilingData T>
Result<T> ParseTiling(std::span<const uint8_t> bytes) {
  TESSERA_RETURN_IF_ERROR(detail::CheckBufferSize(TilingSchemaOf<T>(), bytes.size()));
  T data;
  std::memcpy(&data, bytes.data(), sizeof(T));
  return data;
}

// As above, but first refuses bytes produced for a different layout: `producer_hash` is the schema
// hash of the struct that wrote them (the tiling function's), compared with T's (the kernel's).
template <TilingData T>
Result<T> ParseTiling(std::span<const uint8_t> bytes, uint64_t producer_hash) {
  TESSERA_RETURN_IF_ERROR(detail::CheckSchemaHash(TilingSchemaOf<T>(), producer_hash));
  return ParseTiling<T>(bytes);
}

// Fails when `producer` and `consumer` describe different layouts; the message names both structs
// and their hashes. Used to refuse a kernel whose tiling struct differs from its tiling function's.
Status CheckSchemaCompatible(const TilingSchema& producer, const TilingSchema& consumer);

// Sets fields by name from text (for the CLI). Scalars: "12", "-3", "0.5", "true"/"false"/"1"/"0".
// Arrays: "1,2" or "[1, 2]" with exactly the declared number of elements. Fields of embedded
// structs by path: "cubeTilingData.baseM". On any error `bytes` is unchanged. Errors: unknown
// field, value of the wrong type or out of the type's range, array length mismatch, a whole
// struct given one value, short buffer.
Status SetTilingFields(const TilingSchema& schema, std::span<uint8_t> bytes,
                       const std::map<std::string, std::string, std::less<>>& values);

template <TilingData T>
Status SetTilingFields(T& data, const std::map<std::string, std::string, std::less<>>& values) {
  return SetTilingFields(TilingSchemaOf<T>(),
                         std::span<uint8_t>(reinterpret_cast<uint8_t*>(&data), sizeof(T)), values);
}

// {"struct": name, "size": n, "alignment": a, "hash": "0x...", "fields": [{"name", "type",
// "offset", "length", "is_array", "value"}]}; `value` is a number/bool, or a list for arrays. An
// embedded struct has "type": "struct", "struct": its name, and as `value` its own "fields" list
// (offsets relative to the embedded struct). Fails only when `bytes` is shorter than the struct.
Result<std::string> TilingToJson(const TilingSchema& schema, std::span<const uint8_t> bytes,
                                 int indent = -1);

template <TilingData T>
std::string TilingToJson(const T& data, int indent = -1) {
  // Cannot fail: the buffer is exactly the struct.
  return TilingToJson(TilingSchemaOf<T>(),
                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&data), sizeof(T)),
                      indent)
      .value();
}

// Kernel side: the struct held by the tiling argument, copied out (the argument may be unaligned).
template <TilingData T>
inline T GetTilingData(const uint8_t* tiling) {
  T data;
  std::memcpy(&data, tiling, sizeof(T));
  return data;
}

}  // namespace tessera::tiling

// Declaration macros (Ascend C spelling). Each field macro declares the member and an overload
// TesseraTilingField_(FieldIndex<k>) returning its table entry; __COUNTER__ numbers the fields of
// one struct 0, 1, 2, ... so the table can be collected with an index_sequence once the struct is
// complete (offsetof needs a complete type).

#define BEGIN_TILING_DATA_DEF(struct_name) TESSERA_BEGIN_TILING_DATA_DEF_(struct_name)

// The same under names the vendor header register/tilingdata_base.h does not redefine, for
// tessera's own structs that vendor code includes (TCubeTiling), whatever the include order.
#define TESSERA_BEGIN_TILING_DATA_DEF_(struct_name)                         \
  struct struct_name {                                                      \
    using TesseraSelf_ = struct_name;                                       \
    static constexpr ::std::string_view kTesseraTilingName_ = #struct_name; \
    static constexpr int kTesseraCounterBase_ = __COUNTER__;

#define TESSERA_TILING_REGISTER_ANY_FIELD_(field_name)                                 \
  static constexpr ::tessera::tiling::TilingField TesseraTilingField_(                 \
      ::tessera::tiling::detail::FieldIndex<__COUNTER__ - kTesseraCounterBase_ - 1>) { \
    return ::tessera::tiling::detail::MakeField<decltype(TesseraSelf_::field_name)>(   \
        #field_name, offsetof(TesseraSelf_, field_name));                              \
  }

#define TESSERA_TILING_REGISTER_FIELD_(element_type, field_name)                                \
  static_assert(::tessera::tiling::detail::kIsTilingElement<element_type>,                      \
                "Tiling field '" #field_name "': element type must be int64_t, float or bool"); \
  TESSERA_TILING_REGISTER_ANY_FIELD_(field_name)

// TILING_DATA_FIELD_DEF(type, name [, default]): a scalar; without a default it is zero.
#define TILING_DATA_FIELD_DEF(element_type, field_name, ...) \
  element_type field_name{__VA_ARGS__};                      \
  TESSERA_TILING_REGISTER_FIELD_(element_type, field_name)

// TILING_DATA_FIELD_DEF_ARR(type, length, name [, defaults...]): a fixed array of 1..2048 elements;
// missing defaults are zero.
#define TILING_DATA_FIELD_DEF_ARR(element_type, length, field_name, ...)                    \
  static_assert((length) >= 1 && (length) <= 2048,                                          \
                "Tiling field '" #field_name "': array length must be between 1 and 2048"); \
  element_type field_name[length]{__VA_ARGS__};                                             \
  TESSERA_TILING_REGISTER_FIELD_(element_type, field_name)

// TILING_DATA_FIELD_DEF_STRUCT(type, name): embeds the TilingData struct `type` (for example
// TCubeTiling); its members start value-initialised (their declared defaults).
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)         \
  static_assert(::tessera::tiling::TilingData<struct_type>,           \
                "Tiling field '" #field_name                          \
                "': TILING_DATA_FIELD_DEF_STRUCT needs a TilingData " \
                "struct declared with BEGIN_TILING_DATA_DEF");        \
  struct_type field_name{};                                           \
  TESSERA_TILING_REGISTER_ANY_FIELD_(field_name)

// For tessera's vendor-layout structs only (TCubeTiling is 50 int32 fields on the NPU): an int32
// scalar. User structs keep to int64_t, float and bool.
#define TESSERA_TILING_FIELD_DEF_INT32_(field_name, ...) \
  int32_t field_name{__VA_ARGS__};                       \
  TESSERA_TILING_REGISTER_ANY_FIELD_(field_name)

#define END_TILING_DATA_DEF TESSERA_END_TILING_DATA_DEF_
#define TESSERA_END_TILING_DATA_DEF_                                                      \
  static constexpr int kTesseraFieldCount_ = __COUNTER__ - kTesseraCounterBase_ - 1;      \
  static_assert(kTesseraFieldCount_ > 0, "A TilingData struct needs at least one field"); \
  }

// Kernel side, Ascend C spelling: declares `var` as a copy of the struct in the tiling argument.
#define GET_TILING_DATA_WITH_STRUCT(struct_type, var, tiling_arg) \
  const struct_type var = ::tessera::tiling::GetTilingData<struct_type>(tiling_arg)
