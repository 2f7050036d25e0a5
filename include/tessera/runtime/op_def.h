// OpDef: how an operator declares itself - inputs, outputs, attributes, supported dtype/format
// combinations per SoC, and its tiling and shape-inference functions - as in CANN's OpDef.
//
//   class AddCustom : public tessera::runtime::OpDef {
//    public:
//     AddCustom() : OpDef("AddCustom") {
//       Input("x").ParamType(REQUIRED).DataType({DataType::kFloat16,
//       DataType::kFloat32}).Format({Format::kND, Format::kND});
//       Input("y").ParamType(REQUIRED).DataType({DataType::kFloat16,
//       DataType::kFloat32}).Format({Format::kND, Format::kND});
//       Output("z").ParamType(REQUIRED).Follow("x");
//       Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
//       SetTiling(AddTiling);
//       AddConfig("x86-64-v3");
//     }
//   };
//
// The i-th entry of every parameter's DataType and Format lists together form supported
// combination i (the lists are columns). Validate() checks the declaration; CheckCall() checks a
// call against it with CANN's familiar messages. Reference(fn) attaches a host-side reference that
// `tessera run` compares the kernel's outputs with.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/float16.h"
#include "tessera/core/format.h"
#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::runtime {

class TilingContext;
class InferShapeContext;

// As in CANN, one option enum serves parameters (REQUIRED, OPTIONAL, DYNAMIC) and attributes
// (REQUIRED, OPTIONAL).
enum class Option : uint8_t { REQUIRED, OPTIONAL, DYNAMIC };
using enum Option;
const char* OptionName(Option option);

enum class AttrKind : uint8_t { kInt, kFloat, kBool, kString, kIntList, kFloatList };
using AttrValue =
    std::variant<int64_t, float, bool, std::string, std::vector<int64_t>, std::vector<float>>;
const char* AttrKindName(AttrKind kind);
AttrKind KindOf(const AttrValue& value);

using TilingFunc = std::function<Status(TilingContext&)>;

// What a run-time attribute's writer sees on every call (OpAttrDef::RunTimeValue): the call's
// value, the dtypes of its tensors, and this call's copy of the plan's tiling bytes to write.
struct RunTimeValueContext {
  const std::string& op_type;
  const std::string& name;
  const AttrValue& value;  // of the declared kind (int, float or bool)
  const std::vector<std::optional<DataType>>& input_dtypes;  // nullopt: an absent input
  const std::vector<DataType>& output_dtypes;
  uint8_t* tiling;  // the call's tiling bytes
  size_t tiling_size;

  // The tiling struct as the plan's tiling function wrote it; Precondition: sizeof(T) ==
  // tiling_size (the runtime checks the op's TilingDataType before calling the writer).
  template <class T>
  T GetTiling() const {
    T data;
    std::memcpy(&data, tiling, sizeof(T));
    return data;
  }
  template <class T>
  void SetTiling(const T& data) const {
    std::memcpy(tiling, &data, sizeof(T));
  }
};
// Writes one call's value of a run-time attribute into its tiling bytes; a failed Status fails
// stage 1 of that call (e.g. a value the dtype cannot hold).
using RunTimeValueWriter = std::function<Status(const RunTimeValueContext&)>;
// Simplified-key mode 2: returns the op's custom key fragment for a call (CANN's GenSimplifiedKey);
// the runtime prefixes "<OpType>/d=<0|1>,p=<precision>/". Runs after the tiling function.
using GenSimplifiedKeyFunc = std::function<Result<std::string>(const TilingContext&)>;
// Computes output descs from input descs and attributes (graph use; the runtime also uses it to
// check output shapes).
using InferShapeFunc = std::function<Status(InferShapeContext&)>;

// One tensor handed to a reference function: `desc.dtype` elements, contiguous row-major, on the
// host. Read and write them typed (`As<float>()`, `As<half>()`, `As<bfloat16>()`, `As<int32_t>()`,
// bool as uint8_t) or as doubles through Get/Set, which serve every dtype.
struct ReferenceTensor {
  TensorDesc desc;
  void* data = nullptr;  // inputs must not be written

  int64_t size() const;  // element count
  template <class T>
  T* As() const {
    return static_cast<T*>(data);
  }
  // Element `i` as a double (float16/bfloat16 widened exactly, bool as 0/1).
  double Get(int64_t i) const;
  // Stores `v` in element `i`: rounded to nearest even for float types, truncated toward zero and
  // saturated for integers, nonzero -> true for bool.
  void Set(int64_t i, double v) const;
};

// Element `i` of contiguous `dtype` elements at `data`, as ReferenceTensor::Get / Set convert it.
double ReadElement(tessera::DataType dtype, const void* data, int64_t i);
void WriteElement(tessera::DataType dtype, void* data, int64_t i, double v);

// What a reference function receives: the call's inputs in declaration order (nullopt: an absent
// optional input), its outputs (zero-filled, to be filled) and its attributes with the defaults of
// absent optional ones filled in.
//
// The reference may also shape the tolerance of this call (both optional, mutable so a reference
// taking `const ReferenceArgs&` can set them): `ulps` starts as the declared Reference() ulps and
// may be changed for this call (e.g. by the length of a dot product); `magnitudes[i]`, when the
// reference fills it with one finite value >= 0 per element of output i, replaces |ref| as the
// scale of that output's relative tolerance (e.g. max(1, |ref|), or the terms of a sum that
// cancels). Left empty, |ref| is used.
struct ReferenceArgs {
  std::vector<std::optional<ReferenceTensor>> inputs;
  std::vector<ReferenceTensor> outputs;
  std::map<std::string, AttrValue> attrs;
  mutable double ulps = 1.0;
  mutable std::vector<std::vector<double>> magnitudes;
};

// Computes the op's outputs on the host; a non-OK status means the reference cannot compute this
// call (tools report it as an error, not as a mismatch).
using ReferenceFunc = std::function<Status(const ReferenceArgs&)>;

class OpParamDef {
 public:
  explicit OpParamDef(std::string name) : name_(std::move(name)) {}
  OpParamDef& ParamType(Option type) {
    type_ = type;
    return *this;
  }
  OpParamDef& DataType(std::vector<tessera::DataType> dtypes) {
    dtypes_ = std::move(dtypes);
    return *this;
  }
  OpParamDef& Format(std::vector<tessera::Format> formats) {
    formats_ = std::move(formats);
    return *this;
  }
  // Copy dtype, format (and for outputs, shape) from parameter `other`.
  OpParamDef& Follow(std::string other) {
    follow_ = std::move(other);
    return *this;
  }
  // The domain of this input's floating-point values that the op's Reference() and kernels are
  // meant for: tools that make up inputs (`tessera run`) draw them uniformly from [lo, hi], or with
  // `random_sign` draw the magnitude from [lo, hi] (lo >= 0) and a random sign (e.g. a divisor
  // away from 0). Integer and bool inputs keep the tool's per-dtype ranges. Validate() requires
  // finite lo < hi. Undeclared: [-100, 100].
  OpParamDef& ValueRange(double lo, double hi, bool random_sign = false) {
    value_range_ = ValueRangeDef{lo, hi, random_sign};
    return *this;
  }

  const std::string& name() const { return name_; }
  Option type() const { return type_; }
  const std::vector<tessera::DataType>& dtypes() const { return dtypes_; }
  const std::vector<tessera::Format>& formats() const { return formats_; }
  const std::optional<std::string>& follow() const { return follow_; }
  struct ValueRangeDef {
    double lo = -100;
    double hi = 100;
    bool random_sign = false;
  };
  const ValueRangeDef& value_range() const { return value_range_; }

 private:
  std::string name_;
  Option type_ = Option::REQUIRED;
  std::vector<tessera::DataType> dtypes_;
  std::vector<tessera::Format> formats_;
  std::optional<std::string> follow_;
  ValueRangeDef value_range_;
};

class OpAttrDef {
 public:
  explicit OpAttrDef(std::string name) : name_(std::move(name)) {}
  OpAttrDef& AttrType(Option requirement) {
    requirement_ = requirement;
    return *this;
  }
  // Declare the kind; for optional attributes the value is the default.
  OpAttrDef& Int(int64_t v = 0) { return Set(AttrKind::kInt, v); }
  OpAttrDef& Float(float v = 0.0f) { return Set(AttrKind::kFloat, v); }
  OpAttrDef& Bool(bool v = false) { return Set(AttrKind::kBool, v); }
  OpAttrDef& String(std::string v = "") { return Set(AttrKind::kString, std::move(v)); }
  OpAttrDef& ListInt(std::vector<int64_t> v = {}) { return Set(AttrKind::kIntList, std::move(v)); }
  OpAttrDef& ListFloat(std::vector<float> v = {}) {
    return Set(AttrKind::kFloatList, std::move(v));
  }

  // Simplified-key mode 1: the package holds one binary per declared value of this attribute
  // (int, bool or string attributes). `tiling_keys` names the kernel entries that binary holds
  // (the keys the tiling function picks for that value); empty means every entry of the kernel.
  OpAttrDef& BinaryValue(const AttrValue& value, std::vector<uint64_t> tiling_keys = {});
  // Several values, each binary with every entry.
  OpAttrDef& BinaryValues(const std::vector<AttrValue>& values);

  // Marks the attribute as run-time data (a scalar operand such as Adds' value): it is not part
  // of the plan, so a new value reuses the cached plan. Int, float and bool attributes only. The
  // tiling function sees the attribute's default (optional) or zero (required), never the call's
  // value; on every call the runtime copies the plan's tiling bytes, and `writer` (by default: the
  // value stored into the tiling field of the attribute's name - float32 for float, int64 or int32
  // for int, bool for bool) writes the call's value into that copy, which the kernel receives.
  OpAttrDef& RunTimeValue(RunTimeValueWriter writer = nullptr) {
    run_time_ = true;
    run_time_writer_ = std::move(writer);
    return *this;
  }
  bool run_time() const { return run_time_; }
  const RunTimeValueWriter& run_time_writer() const { return run_time_writer_; }

  struct BinaryValueDef {
    AttrValue value;
    std::vector<uint64_t> tiling_keys;
  };

  const std::string& name() const { return name_; }
  Option requirement() const { return requirement_; }
  const std::optional<AttrKind>& kind() const { return kind_; }
  const AttrValue& default_value() const { return default_; }
  const std::vector<BinaryValueDef>& binary_values() const { return binary_values_; }

 private:
  OpAttrDef& Set(AttrKind kind, AttrValue value) {
    kind_ = kind;
    default_ = std::move(value);
    return *this;
  }
  std::string name_;
  Option requirement_ = Option::OPTIONAL;
  std::optional<AttrKind> kind_;
  AttrValue default_ = int64_t{0};
  std::vector<BinaryValueDef> binary_values_;
  bool run_time_ = false;
  RunTimeValueWriter run_time_writer_;
};

// Per-SoC overrides of some parameters (e.g. fewer dtypes on an older ISA level).
class OpAICoreConfig {
 public:
  OpParamDef& Input(const std::string& name) { return Find(inputs_, name); }
  OpParamDef& Output(const std::string& name) { return Find(outputs_, name); }
  const std::vector<OpParamDef>& inputs() const { return inputs_; }
  const std::vector<OpParamDef>& outputs() const { return outputs_; }

 private:
  static OpParamDef& Find(std::vector<OpParamDef>& list, const std::string& name);
  std::vector<OpParamDef> inputs_;
  std::vector<OpParamDef> outputs_;
};

// One supported combination: the dtype and format of every input then every output.
struct Combination {
  std::vector<tessera::DataType> dtypes;
  std::vector<tessera::Format> formats;
};

// The dtype/format of one actual argument, for CheckCall (absent optional inputs: present=false).
struct ArgSpec {
  bool present = true;
  tessera::DataType dtype = tessera::DataType::kFloat32;
  tessera::Format format = tessera::Format::kND;
};

class OpDef {
 public:
  explicit OpDef(std::string type) : type_(std::move(type)) {}
  virtual ~OpDef() = default;

  OpParamDef& Input(const std::string& name);
  OpParamDef& Output(const std::string& name);
  OpAttrDef& Attr(const std::string& name);
  OpDef& SetTiling(TilingFunc fn);
  // Declares the op's TilingData struct: the runtime refuses a package whose manifest records a
  // different layout (schema hash) than the loaded tiling function's.
  template <class T>
  OpDef& TilingDataType() {
    static constexpr tiling::TilingSchema kSchema = tiling::TilingSchemaOf<T>();
    tiling_schema_ = &kSchema;
    tiling_schema_hash_ = kSchema.hash;
    return *this;
  }
  uint64_t tiling_schema_hash() const { return tiling_schema_hash_; }
  // The declared tiling struct's schema (field names and layout), or null when none was declared.
  const tiling::TilingSchema* tiling_schema() const { return tiling_schema_; }
  OpDef& SetInferShape(InferShapeFunc fn);
  // A host-side reference of the op (optional). `tessera run` fills the inputs, runs the kernel,
  // runs `fn` on the same inputs and compares every output element: a float element passes when
  // |got - ref| <= ulps * eps * |ref| + the dtype's smallest subnormal (eps 2^-23 float32, 2^-10
  // float16, 2^-7 bfloat16), NaN matches NaN; integer and bool elements must be equal. `ulps` >= 0
  // and finite (Validate checks). The reference writes its outputs in their dtype, so 1 ulp covers
  // a kernel that rounds once in a different order. The reference may adjust the tolerance per call
  // (ReferenceArgs::ulps, ::magnitudes).
  OpDef& Reference(ReferenceFunc fn, double ulps = 1.0);
  OpDef& AddConfig(const std::string& soc);
  OpDef& AddConfig(const std::string& soc, OpAICoreConfig config);

  // How the runtime builds the simplified key that picks this op's kernel binary
  // (docs/runtime_packages.md, "Simplified keys"): 0 (default) dtype/format per input and output;
  // 1 also the values of attributes that declare BinaryValue(s) and dynamic-input counts; 2 a
  // custom fragment from SetGenSimplifiedKey.
  OpDef& SimplifiedKeyMode(uint32_t mode) {
    simplified_key_mode_ = mode;
    return *this;
  }
  // Mode 2: the callback (selects mode 2 as well).
  OpDef& SetGenSimplifiedKey(GenSimplifiedKeyFunc fn);
  // Mode 2: one binary is built per declared fragment, holding the entries `tiling_keys` (empty:
  // every entry of the kernel).
  OpDef& SimplifiedKey(std::string fragment, std::vector<uint64_t> tiling_keys = {});
  // Several fragments, each binary with every entry.
  OpDef& SimplifiedKeys(const std::vector<std::string>& fragments);

  const std::string& type() const { return type_; }
  // snake_case of the type: the kernel name (AddCustom -> add_custom).
  std::string KernelName() const;
  const std::vector<OpParamDef>& inputs() const { return inputs_; }
  const std::vector<OpParamDef>& outputs() const { return outputs_; }
  const std::vector<OpAttrDef>& attrs() const { return attrs_; }
  const TilingFunc& tiling() const { return tiling_; }
  const InferShapeFunc& infer_shape() const { return infer_shape_; }
  // Empty when the op declares no reference.
  const ReferenceFunc& reference() const { return reference_; }
  double reference_ulps() const { return reference_ulps_; }
  std::vector<std::string> socs() const;
  uint32_t simplified_key_mode() const { return simplified_key_mode_; }
  const GenSimplifiedKeyFunc& gen_simplified_key() const { return gen_simplified_key_; }
  struct KeyFragmentDef {
    std::string fragment;
    std::vector<uint64_t> tiling_keys;
  };
  const std::vector<KeyFragmentDef>& simplified_key_fragments() const { return key_fragments_; }

  // Checks the declaration: every list has the same number of columns, Follow targets exist and
  // do not chain into a cycle, names are unique, attributes have kinds, required parameters come
  // before optional ones where CANN requires it, a tiling function exists, at least one SoC, and
  // the simplified-key declarations fit the mode (binary values of a keyable kind and spelling,
  // mode 2 with a callback and at least one well-formed fragment), and a declared Reference has a
  // function and a finite tolerance >= 0, and every input's ValueRange is finite with lo < hi
  // (lo >= 0 with random_sign).
  Status Validate() const;

  // The supported combinations on `soc` (after its overrides, Follow resolved). NotFound when the
  // SoC was not configured with AddConfig.
  Result<std::vector<Combination>> Combinations(const std::string& soc) const;

  // Checks a call's dtypes/formats (inputs then outputs) against the combinations on `soc`, with
  // CANN's messages: "SoC version X verification failed. This SoC is not configured through the
  // AddConfig API" or "The dtype or format of the actual input or output ... is inconsistent with
  // the prototype, details: x(DT_FLOAT16, ND), ... Supported dtype and format list is: ...".
  Status CheckCall(const std::string& soc, const std::vector<ArgSpec>& inputs,
                   const std::vector<ArgSpec>& outputs) const;

  // Resolves call attributes: fills defaults of optional ones, rejects unknown names, missing
  // required ones and values of the wrong kind.
  Result<std::map<std::string, AttrValue>> ResolveAttrs(
      const std::map<std::string, AttrValue>& given) const;

 private:
  const OpParamDef* FindParam(const std::string& name) const;
  Status ValidateSimplifiedKeys() const;
  std::vector<OpParamDef> Effective(const std::vector<OpParamDef>& base,
                                    const std::vector<OpParamDef>& overrides) const;

  std::string type_;
  std::vector<OpParamDef> inputs_;
  std::vector<OpParamDef> outputs_;
  std::vector<OpAttrDef> attrs_;
  TilingFunc tiling_;
  InferShapeFunc infer_shape_;
  ReferenceFunc reference_;
  bool reference_declared_ = false;
  double reference_ulps_ = 1.0;
  std::vector<std::pair<std::string, OpAICoreConfig>> configs_;
  uint64_t tiling_schema_hash_ = 0;
  const tiling::TilingSchema* tiling_schema_ = nullptr;
  uint32_t simplified_key_mode_ = 0;
  GenSimplifiedKeyFunc gen_simplified_key_;
  std::vector<KeyFragmentDef> key_fragments_;
};

// An attribute value as spelled in a mode-1 simplified key: int decimal, bool "true"/"false",
// string as is. Empty for kinds that cannot select a binary (float, lists).
std::optional<std::string> SimplifiedKeyValueText(const AttrValue& value);

// The simplified key of a call whose tiling ran in `ctx`, by `op`'s mode: mode 0 and 1 from the
// context's dtypes/formats (and for 1 the binary-value attributes and dynamic-input counts), mode 2
// from the op's callback. A failing or throwing callback, and a fragment that is empty, too long,
// holds '/' (e.g. a whole "<OpType>/..." key) or starts with "d=", give InvalidArgument naming the
// op.
Result<std::string> CallSimplifiedKey(const OpDef& op, const TilingContext& ctx,
                                      bool deterministic);

// Shape inference inputs and outputs.
class InferShapeContext {
 public:
  InferShapeContext(std::vector<TensorDesc> inputs, std::map<std::string, AttrValue> attrs,
                    size_t num_outputs)
      : inputs_(std::move(inputs)), attrs_(std::move(attrs)), outputs_(num_outputs) {}
  const std::vector<TensorDesc>& inputs() const { return inputs_; }
  const std::map<std::string, AttrValue>& attrs() const { return attrs_; }
  std::vector<TensorDesc>& outputs() { return outputs_; }

 private:
  std::vector<TensorDesc> inputs_;
  std::map<std::string, AttrValue> attrs_;
  std::vector<TensorDesc> outputs_;
};

}  // namespace tessera::runtime
