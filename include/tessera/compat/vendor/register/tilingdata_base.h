// register/tilingdata_base.h: the vendor's class form of tiling data, for host code written
// against CANN's op-tiling API.
//
//   namespace optiling {
//   BEGIN_TILING_DATA_DEF(AddTiling)
//     TILING_DATA_FIELD_DEF(uint32_t, totalLength);
//     TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, split);
//     TILING_DATA_FIELD_DEF_STRUCT(OtherTiling, inner);   // another class declared this way
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(AddCustom, AddTiling)
//   }
//   AddTiling t; t.set_totalLength(n); t.SaveToBuffer(buf, capacity);
//
// Each class derives from optiling::TilingDef and has, per field, a public member, set_<field>()
// and get_<field>() (arrays: set_<field>(const T*) copies the declared length, get_<field>()
// returns the array). SaveToBuffer writes the fields in the native C layout of the equivalent
// plain struct (natural alignment, zero padding), which is what a kernel's plain struct with the
// same members reads; GetDataSize() is that struct's sizeof. Field types: every integer width,
// float and bool; a nested field must be a class declared with these macros.
//
// tessera's own BEGIN_TILING_DATA_DEF (tessera/tiling/tiling_data.h, C++20, plain structs with a
// field table) shares the macro names. In a translation unit that includes this header, the names
// mean the vendor's class from here on: when tessera's header was included before, its macros are
// replaced; under C++20 this header includes tessera's first, so a later include of it cannot
// take the names back. Headers that declare tessera tiling structs (tessera/tiling/matmul_tiling.h,
// ...) must therefore be included before this one. This header builds as C++17 and C++20.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#if __cplusplus >= 202002L && __has_include("tessera/tiling/tiling_data.h")
#include "tessera/tiling/tiling_data.h"
#endif

namespace tessera::compat::detail {

template <int I>
struct VendorFieldIndex {};

// Size and alignment of a field, or of a whole class's layout.
struct VendorLayout {
  size_t size;
  size_t align;
};

template <class T>
inline constexpr bool kIsVendorTilingElement =
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int16_t> ||
    std::is_same_v<T, uint16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> ||
    std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, float> ||
    std::is_same_v<T, bool>;

constexpr size_t AlignUp(size_t offset, size_t align) {
  return (offset + align - 1) / align * align;
}

// The C layout of a struct with these members in order: natural alignment, tail padding.
constexpr VendorLayout StructLayout(const VendorLayout* fields, size_t count) {
  size_t offset = 0;
  size_t align = 1;
  for (size_t i = 0; i < count; ++i) {
    offset = AlignUp(offset, fields[i].align) + fields[i].size;
    if (fields[i].align > align) align = fields[i].align;
  }
  return {AlignUp(offset, align), align};
}

}  // namespace tessera::compat::detail

namespace optiling {

// Base of every class declared with BEGIN_TILING_DATA_DEF: what the framework needs without
// knowing the class.
class TilingDef {
 public:
  virtual ~TilingDef() = default;
  // Writes the fields (see the header comment) to `data`; with a NULL `data` or a capacity below
  // GetDataSize() it writes nothing and prints an error on stderr, as CANN logs one.
  void SaveToBuffer(void* data, size_t capacity) const {
    const size_t size = GetDataSize();
    if (data == nullptr || capacity < size) {
      std::fprintf(stderr,
                   "[ERROR] TilingDef::SaveToBuffer: %s needs %zu bytes, buffer %p holds %zu\n",
                   GetTilingClassName(), size, data, capacity);
      return;
    }
    std::memset(data, 0, size);
    TesseraVendorSaveAt_(static_cast<uint8_t*>(data));
  }
  // Bytes of the serialized class (sizeof the equivalent plain struct).
  virtual size_t GetDataSize() const = 0;
  virtual const char* GetTilingClassName() const = 0;
  // Writes the fields at `base` (already zeroed, GetDataSize() bytes).
  virtual void TesseraVendorSaveAt_(uint8_t* base) const = 0;
};

using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();

// The op type -> tiling class table filled by REGISTER_TILING_DATA_CLASS (one per process).
class CTilingDataClassFactory {
 public:
  static CTilingDataClassFactory& GetInstance() {
    static CTilingDataClassFactory factory;
    return factory;
  }
  // A second registration of the same op type replaces the first, as CANN's map does.
  static void RegisterTilingData(const char* op_type, TilingDataConstructor constructor) {
    GetInstance().constructors_[op_type] = constructor;
  }
  // A new instance of the class registered for `op_type`; for "Op_<key>" without a class of its
  // own, the class of "Op" (CANN's tiling-key fallback); nullptr when neither is registered.
  std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op_type) const {
    if (op_type == nullptr) return nullptr;
    std::string name(op_type);
    auto it = constructors_.find(name);
    if (it == constructors_.end()) {
      const size_t underscore = name.rfind('_');
      if (underscore != std::string::npos) it = constructors_.find(name.substr(0, underscore));
    }
    return it == constructors_.end() ? nullptr : it->second();
  }

 private:
  std::map<std::string, TilingDataConstructor> constructors_;
};

}  // namespace optiling

#ifdef BEGIN_TILING_DATA_DEF
#undef BEGIN_TILING_DATA_DEF
#undef TILING_DATA_FIELD_DEF
#undef TILING_DATA_FIELD_DEF_ARR
#undef TILING_DATA_FIELD_DEF_STRUCT
#undef END_TILING_DATA_DEF
#endif

// Each field macro adds, under its index k (from __COUNTER__): TesseraVendorLayout_(k) (size and
// alignment) and TesseraVendorSave_(k, base, offset) (aligns `offset`, writes, advances). END
// folds them over 0..N-1; offsets are computed, not taken from the object, because the class
// itself has a vtable.
#define BEGIN_TILING_DATA_DEF(class_name)                           \
  class class_name : public ::optiling::TilingDef {                 \
   public:                                                          \
    using TesseraVendorSelf_ = class_name;                          \
    static constexpr const char* kTesseraVendorName_ = #class_name; \
    static constexpr int kTesseraVendorBase_ = __COUNTER__;         \
    const char* GetTilingClassName() const override { return kTesseraVendorName_; }

#define TESSERA_VENDOR_TILING_FIELD_(element_type, field_name, length)                            \
  static_assert(::tessera::compat::detail::kIsVendorTilingElement<element_type>,                  \
                "Tiling field '" #field_name                                                      \
                "': the type must be an integer of 8 to 64 bits, float or bool");                 \
  static constexpr ::tessera::compat::detail::VendorLayout TesseraVendorLayout_(                  \
      ::tessera::compat::detail::VendorFieldIndex<(__COUNTER__ - kTesseraVendorBase_ - 1) / 2>) { \
    return {sizeof(element_type) * (length), alignof(element_type)};                              \
  }                                                                                               \
  void TesseraVendorSave_(                                                                        \
      ::tessera::compat::detail::VendorFieldIndex<(__COUNTER__ - kTesseraVendorBase_ - 2) / 2>,   \
      uint8_t* tessera_base_, size_t& tessera_offset_) const {                                    \
    tessera_offset_ = ::tessera::compat::detail::AlignUp(tessera_offset_, alignof(element_type)); \
    ::std::memcpy(tessera_base_ + tessera_offset_, &field_name, sizeof(element_type) * (length)); \
    tessera_offset_ += sizeof(element_type) * (length);                                           \
  }

// TILING_DATA_FIELD_DEF(type, name): a scalar, zero until set.
#define TILING_DATA_FIELD_DEF(element_type, field_name) \
  element_type field_name{};                            \
  void set_##field_name(element_type tessera_value_) {  \
    field_name = tessera_value_;                        \
  }                                                     \
  element_type get_##field_name() const {               \
    return field_name;                                  \
  }                                                     \
  TESSERA_VENDOR_TILING_FIELD_(element_type, field_name, 1)

// TILING_DATA_FIELD_DEF_ARR(type, length, name): set_<name>(p) copies `length` elements from p
// (the caller guarantees that many, as in CANN); get_<name>() returns the array.
#define TILING_DATA_FIELD_DEF_ARR(element_type, length, field_name)                                \
  static_assert((length) >= 1, "Tiling field '" #field_name "': array length must be at least 1"); \
  element_type field_name[length]{};                                                               \
  void set_##field_name(const element_type* tessera_values_) {                                     \
    if (tessera_values_ != nullptr)                                                                \
      ::std::memcpy(field_name, tessera_values_, sizeof(field_name));                              \
  }                                                                                                \
  element_type* get_##field_name() {                                                               \
    return field_name;                                                                             \
  }                                                                                                \
  const element_type* get_##field_name() const {                                                   \
    return field_name;                                                                             \
  }                                                                                                \
  TESSERA_VENDOR_TILING_FIELD_(element_type, field_name, length)

// TILING_DATA_FIELD_DEF_STRUCT(type, name): a nested class declared with these macros, reached as
// the public member `name` (t.name.set_x(1)); set_<name>/get_<name> copy it whole.
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                     \
  static_assert(::std::is_base_of_v<::optiling::TilingDef, struct_type>,                          \
                "Tiling field '" #field_name                                                      \
                "': TILING_DATA_FIELD_DEF_STRUCT needs a class declared with "                    \
                "BEGIN_TILING_DATA_DEF");                                                         \
  struct_type field_name{};                                                                       \
  void set_##field_name(const struct_type& tessera_value_) {                                      \
    field_name = tessera_value_;                                                                  \
  }                                                                                               \
  const struct_type& get_##field_name() const {                                                   \
    return field_name;                                                                            \
  }                                                                                               \
  static constexpr ::tessera::compat::detail::VendorLayout TesseraVendorLayout_(                  \
      ::tessera::compat::detail::VendorFieldIndex<(__COUNTER__ - kTesseraVendorBase_ - 1) / 2>) { \
    return struct_type::TesseraVendorClassLayout_();                                              \
  }                                                                                               \
  void TesseraVendorSave_(                                                                        \
      ::tessera::compat::detail::VendorFieldIndex<(__COUNTER__ - kTesseraVendorBase_ - 2) / 2>,   \
      uint8_t* tessera_base_, size_t& tessera_offset_) const {                                    \
    constexpr auto tessera_layout_ = struct_type::TesseraVendorClassLayout_();                    \
    tessera_offset_ = ::tessera::compat::detail::AlignUp(tessera_offset_, tessera_layout_.align); \
    field_name.TesseraVendorSaveAt_(tessera_base_ + tessera_offset_);                             \
    tessera_offset_ += tessera_layout_.size;                                                      \
  }

// Field k consumed two __COUNTER__ tessera_values_ (2k+1, 2k+2 above the tessera_base_): the count
// is half.
#define END_TILING_DATA_DEF                                                                      \
  static constexpr int kTesseraVendorFieldCount_() {                                             \
    return (__COUNTER__ - kTesseraVendorBase_ - 1) / 2;                                          \
  }                                                                                              \
  template <int... I>                                                                            \
  static constexpr ::tessera::compat::detail::VendorLayout TesseraVendorFold_(                   \
      ::std::integer_sequence<int, I...>) {                                                      \
    const ::tessera::compat::detail::VendorLayout tessera_fields_[] = {                          \
        TesseraVendorLayout_(::tessera::compat::detail::VendorFieldIndex<I>{})...};              \
    return ::tessera::compat::detail::StructLayout(tessera_fields_, sizeof...(I));               \
  }                                                                                              \
  static constexpr ::tessera::compat::detail::VendorLayout TesseraVendorClassLayout_() {         \
    return TesseraVendorFold_(::std::make_integer_sequence<int, kTesseraVendorFieldCount_()>{}); \
  }                                                                                              \
  template <int... I>                                                                            \
  void TesseraVendorSaveAll_(uint8_t* tessera_base_, ::std::integer_sequence<int, I...>) const { \
    size_t tessera_offset_ = 0;                                                                  \
    (TesseraVendorSave_(::tessera::compat::detail::VendorFieldIndex<I>{}, tessera_base_,         \
                        tessera_offset_),                                                        \
     ...);                                                                                       \
  }                                                                                              \
  void TesseraVendorSaveAt_(uint8_t* tessera_base_) const override {                             \
    TesseraVendorSaveAll_(tessera_base_,                                                         \
                          ::std::make_integer_sequence<int, kTesseraVendorFieldCount_()>{});     \
  }                                                                                              \
  size_t GetDataSize() const override {                                                          \
    return TesseraVendorClassLayout_().size;                                                     \
  }                                                                                              \
  }

// REGISTER_TILING_DATA_CLASS(OpType, Class): binds the class to an op type in
// CTilingDataClassFactory ("Op_<tilingKey>" for a key's own class, "<Struct>Op" for a nested one).
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                   \
  class op_type##class_name##Helper {                                                     \
   public:                                                                                \
    op_type##class_name##Helper() {                                                       \
      ::optiling::CTilingDataClassFactory::RegisterTilingData(#op_type,                   \
                                                              &CreateTilingDataInstance); \
    }                                                                                     \
    static ::std::shared_ptr<::optiling::TilingDef> CreateTilingDataInstance() {          \
      return ::std::make_shared<class_name>();                                            \
    }                                                                                     \
  };                                                                                      \
  [[maybe_unused]] static const op_type##class_name##Helper                               \
      g_tilingdata_##op_type##class_name##helper;
