#include "tessera/runtime/op_def.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <set>

#include "runtime/package/package_match.h"
#include "tessera/runtime/tiling_context.h"

namespace tessera::runtime {
namespace {

std::string Describe(const std::string& name, tessera::DataType dtype, tessera::Format format) {
  return name + "(" + std::string(DataTypeCannName(dtype)) + ", " +
         std::string(FormatName(format)) + ")";
}

std::string JoinNames(const std::vector<OpParamDef>& params) {
  std::string out;
  for (const auto& p : params)
    out += (out.empty() ? "" : ", ") + p.name();
  return out;
}

template <class I>
I SaturateInt(double v) {
  if (std::isnan(v)) return 0;
  const double t = std::trunc(v);
  if (t <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (t >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(t);
}

template <class T>
T Load(const void* data, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(data) + static_cast<size_t>(i) * sizeof(T),
              sizeof(T));
  return v;
}

template <class T>
void Store(void* data, int64_t i, T v) {
  std::memcpy(static_cast<uint8_t*>(data) + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
}

}  // namespace

int64_t ReferenceTensor::size() const {
  return desc.shape.NumElements().value_or(0);
}

double ReferenceTensor::Get(int64_t i) const {
  return ReadElement(desc.dtype, data, i);
}

void ReferenceTensor::Set(int64_t i, double v) const {
  WriteElement(desc.dtype, data, i, v);
}

double ReadElement(tessera::DataType dtype, const void* data, int64_t i) {
  switch (dtype) {
    case tessera::DataType::kFloat32:
      return Load<float>(data, i);
    case tessera::DataType::kFloat16:
      return static_cast<float>(Load<half>(data, i));
    case tessera::DataType::kBfloat16:
      return static_cast<float>(Load<bfloat16>(data, i));
    case tessera::DataType::kInt8:
      return Load<int8_t>(data, i);
    case tessera::DataType::kUint8:
      return Load<uint8_t>(data, i);
    case tessera::DataType::kInt16:
      return Load<int16_t>(data, i);
    case tessera::DataType::kInt32:
      return Load<int32_t>(data, i);
    case tessera::DataType::kInt64:
      return static_cast<double>(Load<int64_t>(data, i));
    case tessera::DataType::kBool:
      return Load<uint8_t>(data, i) != 0 ? 1.0 : 0.0;
    default:
      return 0;
  }
}

void WriteElement(tessera::DataType dtype, void* data, int64_t i, double v) {
  switch (dtype) {
    case tessera::DataType::kFloat32:
      return Store(data, i, static_cast<float>(v));
    case tessera::DataType::kFloat16:
      return Store(data, i, half(static_cast<float>(v)));
    case tessera::DataType::kBfloat16:
      return Store(data, i, bfloat16(static_cast<float>(v)));
    case tessera::DataType::kInt8:
      return Store(data, i, SaturateInt<int8_t>(v));
    case tessera::DataType::kUint8:
      return Store(data, i, SaturateInt<uint8_t>(v));
    case tessera::DataType::kInt16:
      return Store(data, i, SaturateInt<int16_t>(v));
    case tessera::DataType::kInt32:
      return Store(data, i, SaturateInt<int32_t>(v));
    case tessera::DataType::kInt64:
      return Store(data, i, SaturateInt<int64_t>(v));
    case tessera::DataType::kBool:
      return Store(data, i, static_cast<uint8_t>(v != 0 ? 1 : 0));
    default:
      return;
  }
}

const char* OptionName(Option option) {
  switch (option) {
    case Option::REQUIRED:
      return "REQUIRED";
    case Option::OPTIONAL:
      return "OPTIONAL";
    case Option::DYNAMIC:
      return "DYNAMIC";
    default:
      return "invalid";
  }
}

const char* AttrKindName(AttrKind kind) {
  static const char* const kNames[] = {"int", "float", "bool", "string", "list_int", "list_float"};
  const auto i = static_cast<size_t>(kind);
  return i < 6 ? kNames[i] : "invalid";
}

AttrKind KindOf(const AttrValue& value) {
  return static_cast<AttrKind>(value.index());
}

OpAttrDef& OpAttrDef::BinaryValue(const AttrValue& value, std::vector<uint64_t> tiling_keys) {
  binary_values_.push_back({value, std::move(tiling_keys)});
  return *this;
}

OpAttrDef& OpAttrDef::BinaryValues(const std::vector<AttrValue>& values) {
  for (const AttrValue& v : values)
    BinaryValue(v);
  return *this;
}

OpParamDef& OpAICoreConfig::Find(std::vector<OpParamDef>& list, const std::string& name) {
  for (auto& p : list) {
    if (p.name() == name) return p;
  }
  list.emplace_back(name);
  return list.back();
}

OpParamDef& OpDef::Input(const std::string& name) {
  for (auto& p : inputs_) {
    if (p.name() == name) return p;
  }
  inputs_.emplace_back(name);
  return inputs_.back();
}

OpParamDef& OpDef::Output(const std::string& name) {
  for (auto& p : outputs_) {
    if (p.name() == name) return p;
  }
  outputs_.emplace_back(name);
  return outputs_.back();
}

OpAttrDef& OpDef::Attr(const std::string& name) {
  for (auto& a : attrs_) {
    if (a.name() == name) return a;
  }
  attrs_.emplace_back(name);
  return attrs_.back();
}

OpDef& OpDef::SetTiling(TilingFunc fn) {
  tiling_ = std::move(fn);
  return *this;
}

OpDef& OpDef::SetInferShape(InferShapeFunc fn) {
  infer_shape_ = std::move(fn);
  return *this;
}

OpDef& OpDef::Reference(ReferenceFunc fn, double ulps) {
  reference_ = std::move(fn);
  reference_declared_ = true;
  reference_ulps_ = ulps;
  return *this;
}

OpDef& OpDef::SetGenSimplifiedKey(GenSimplifiedKeyFunc fn) {
  gen_simplified_key_ = std::move(fn);
  simplified_key_mode_ = 2;
  return *this;
}

OpDef& OpDef::SimplifiedKey(std::string fragment, std::vector<uint64_t> tiling_keys) {
  key_fragments_.push_back({std::move(fragment), std::move(tiling_keys)});
  return *this;
}

OpDef& OpDef::SimplifiedKeys(const std::vector<std::string>& fragments) {
  for (const std::string& f : fragments)
    SimplifiedKey(f);
  return *this;
}

OpDef& OpDef::AddConfig(const std::string& soc) {
  return AddConfig(soc, OpAICoreConfig());
}

OpDef& OpDef::AddConfig(const std::string& soc, OpAICoreConfig config) {
  for (auto& [name, existing] : configs_) {
    if (name == soc) {
      existing = std::move(config);
      return *this;
    }
  }
  configs_.emplace_back(soc, std::move(config));
  return *this;
}

std::vector<std::string> OpDef::socs() const {
  std::vector<std::string> out;
  for (const auto& [soc, config] : configs_)
    out.push_back(soc);
  return out;
}

std::string OpDef::KernelName() const {
  std::string out;
  for (size_t i = 0; i < type_.size(); ++i) {
    const char c = type_[i];
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0) {
      const char prev = type_[i - 1];
      const bool next_lower =
          i + 1 < type_.size() && std::islower(static_cast<unsigned char>(type_[i + 1]));
      if (std::islower(static_cast<unsigned char>(prev)) ||
          std::isdigit(static_cast<unsigned char>(prev)) ||
          (std::isupper(static_cast<unsigned char>(prev)) && next_lower)) {
        out += '_';
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

const OpParamDef* OpDef::FindParam(const std::string& name) const {
  for (const auto& p : inputs_) {
    if (p.name() == name) return &p;
  }
  for (const auto& p : outputs_) {
    if (p.name() == name) return &p;
  }
  return nullptr;
}

namespace {

// The tiling field type a run-time attribute of `kind` may be stored into by the default writer.
bool DefaultWritable(AttrKind kind, tiling::TilingFieldType field) {
  switch (kind) {
    case AttrKind::kFloat:
      return field == tiling::TilingFieldType::kFloat32;
    case AttrKind::kInt:
      return field == tiling::TilingFieldType::kInt64 || field == tiling::TilingFieldType::kInt32;
    case AttrKind::kBool:
      return field == tiling::TilingFieldType::kBool;
    default:
      return false;
  }
}

Status ValidateRunTimeAttr(const std::string& op, const OpAttrDef& a,
                           const tiling::TilingSchema* schema) {
  if (!a.run_time()) return OkStatus();
  const std::string attr = op + "attribute '" + a.name() + "' ";
  const AttrKind kind = *a.kind();
  if (kind != AttrKind::kInt && kind != AttrKind::kFloat && kind != AttrKind::kBool) {
    return InvalidArgument(attr + "is " + AttrKindName(kind) +
                           " and RunTimeValue; only int, float and bool attributes can be "
                           "run-time values");
  }
  if (!a.binary_values().empty()) {
    return InvalidArgument(attr +
                           "is a RunTimeValue and declares BinaryValue(s): a value that "
                           "selects a binary is part of the plan");
  }
  if (schema == nullptr) {
    return InvalidArgument(attr +
                           "is a RunTimeValue, but the op declares no TilingDataType<T>() "
                           "for the value to be written into");
  }
  if (a.run_time_writer()) return OkStatus();
  const tiling::TilingField* field = schema->Find(a.name());
  if (field == nullptr || field->is_array || !DefaultWritable(kind, field->type)) {
    return InvalidArgument(
        attr + "is a RunTimeValue without a writer, so tiling struct " + std::string(schema->name) +
        " needs a scalar field '" + a.name() + "' of type " +
        (kind == AttrKind::kFloat ? "float32"
         : kind == AttrKind::kInt ? "int64 or int32"
                                  : "bool") +
        (field ? std::string(", not ") + std::string(tiling::TilingFieldTypeName(field->type)) +
                     (field->is_array ? " array" : "")
               : std::string(" (it has none)")) +
        "; or pass a writer to RunTimeValue(...)");
  }
  return OkStatus();
}

}  // namespace

Status OpDef::Validate() const {
  const std::string op = "OpDef " + type_ + ": ";
  if (type_.empty()) return InvalidArgument("OpDef: the op type is empty");
  if (outputs_.empty()) return InvalidArgument(op + "declares no output");
  std::set<std::string> names;
  for (const auto* list : {&inputs_, &outputs_}) {
    for (const auto& p : *list) {
      if (!names.insert(p.name()).second) {
        return InvalidArgument(op + "the name '" + p.name() + "' is declared twice");
      }
    }
  }
  for (const auto& a : attrs_) {
    if (!names.insert(a.name()).second) {
      return InvalidArgument(op + "the name '" + a.name() + "' is declared twice");
    }
    if (!a.kind()) {
      return InvalidArgument(op + "attribute '" + a.name() +
                             "' has no type; call Int, Float, Bool, String, ListInt or ListFloat");
    }
    TESSERA_RETURN_IF_ERROR(ValidateRunTimeAttr(op, a, tiling_schema_));
  }
  // Columns: every parameter that does not follow another has the same number of combinations.
  const OpParamDef* first = nullptr;
  for (const auto* list : {&inputs_, &outputs_}) {
    for (const auto& p : *list) {
      if (p.follow()) {
        const OpParamDef* target = FindParam(*p.follow());
        if (target == nullptr) {
          return InvalidArgument(op + "'" + p.name() + "' follows '" + *p.follow() +
                                 "', which is not a declared input or output");
        }
        std::set<std::string> seen{p.name()};
        while (target->follow()) {
          if (!seen.insert(target->name()).second) {
            return InvalidArgument(op + "Follow starting at '" + p.name() + "' forms a cycle");
          }
          target = FindParam(*target->follow());
          if (target == nullptr) {
            return InvalidArgument(op + "Follow chain from '" + p.name() +
                                   "' reaches an unknown name");
          }
        }
        continue;
      }
      if (p.dtypes().empty()) {
        return InvalidArgument(op + "'" + p.name() + "' declares no DataType and follows nothing");
      }
      if (!p.formats().empty() && p.formats().size() != p.dtypes().size()) {
        return InvalidArgument(op + "'" + p.name() + "' declares " +
                               std::to_string(p.dtypes().size()) + " dtypes but " +
                               std::to_string(p.formats().size()) +
                               " formats; the lists are columns and must have equal length");
      }
      if (first == nullptr) {
        first = &p;
      } else if (p.dtypes().size() != first->dtypes().size()) {
        return InvalidArgument(op + "'" + p.name() + "' declares " +
                               std::to_string(p.dtypes().size()) + " dtypes but '" + first->name() +
                               "' declares " + std::to_string(first->dtypes().size()) +
                               "; the lists are columns of supported combinations and must have "
                               "equal length");
      }
    }
  }
  if (first == nullptr)
    return InvalidArgument(op + "every parameter follows another; nothing declares dtypes");
  if (!tiling_) return InvalidArgument(op + "no tiling function (call SetTiling)");
  TESSERA_RETURN_IF_ERROR(ValidateSimplifiedKeys());
  if (configs_.empty()) return InvalidArgument(op + "no SoC configured (call AddConfig)");
  if (reference_declared_ && !reference_) {
    return InvalidArgument(op +
                           "Reference() was given an empty function; pass the reference or "
                           "drop the Reference() call");
  }
  if (reference_declared_ && !(std::isfinite(reference_ulps_) && reference_ulps_ >= 0)) {
    return InvalidArgument(op + "Reference() tolerance is " + std::to_string(reference_ulps_) +
                           " ulps; expected a finite number >= 0");
  }
  for (const OpParamDef& p : inputs_) {
    const OpParamDef::ValueRangeDef& r = p.value_range();
    if (!(std::isfinite(r.lo) && std::isfinite(r.hi) && r.lo < r.hi) ||
        (r.random_sign && r.lo < 0)) {
      return InvalidArgument(op + "input " + p.name() + " ValueRange(" + std::to_string(r.lo) +
                             ", " + std::to_string(r.hi) + (r.random_sign ? ", random_sign" : "") +
                             "): expected finite lo < hi" +
                             (r.random_sign ? " and lo >= 0 (a magnitude)" : ""));
    }
  }
  for (const auto& [soc, config] : configs_) {
    for (const auto* list : {&config.inputs(), &config.outputs()}) {
      for (const auto& p : *list) {
        if (FindParam(p.name()) == nullptr) {
          return InvalidArgument(op + "AddConfig(\"" + soc + "\") overrides '" + p.name() +
                                 "', which is not declared");
        }
      }
    }
  }
  return OkStatus();
}

Status OpDef::ValidateSimplifiedKeys() const {
  const std::string op = "OpDef " + type_ + ": ";
  const uint32_t mode = simplified_key_mode_;
  if (mode > kMaxSimplifiedKeyMode) {
    return InvalidArgument(op + "SimplifiedKeyMode(" + std::to_string(mode) +
                           ") is unknown; expected 0, 1 or 2");
  }
  if (mode != 2 && gen_simplified_key_) {
    return InvalidArgument(op + "has a SetGenSimplifiedKey callback but SimplifiedKeyMode(" +
                           std::to_string(mode) + "); the callback is used only in mode 2");
  }
  if (mode != 2 && !key_fragments_.empty()) {
    return InvalidArgument(op + "declares SimplifiedKey(\"" + key_fragments_[0].fragment +
                           "\") but SimplifiedKeyMode(" + std::to_string(mode) +
                           "); custom fragments belong to mode 2");
  }
  if (mode == 2) {
    if (!gen_simplified_key_) {
      return InvalidArgument(op + "SimplifiedKeyMode(2) needs a callback (SetGenSimplifiedKey)");
    }
    if (key_fragments_.empty()) {
      return InvalidArgument(op + "SimplifiedKeyMode(2) declares no SimplifiedKey(fragment); " +
                             "declare the fragment of every binary the package builds");
    }
    std::set<std::string> seen;
    for (const KeyFragmentDef& f : key_fragments_) {
      const Status st = CheckSimplifiedKeyFragment(f.fragment, type_);
      if (!st.ok()) return InvalidArgument(op + std::string(st.message()));
      if (!seen.insert(f.fragment).second) {
        return InvalidArgument(op + "declares SimplifiedKey(\"" + f.fragment + "\") twice");
      }
    }
  }
  for (const OpAttrDef& a : attrs_) {
    if (a.binary_values().empty()) continue;
    const std::string attr = op + "attribute '" + a.name() + "' ";
    if (mode != 1) {
      return InvalidArgument(attr + "declares BinaryValue(s) but SimplifiedKeyMode(" +
                             std::to_string(mode) + "); binary values belong to mode 1");
    }
    const AttrKind kind = *a.kind();
    if (kind != AttrKind::kInt && kind != AttrKind::kBool && kind != AttrKind::kString) {
      return InvalidArgument(attr + "is " + AttrKindName(kind) +
                             "; only int, bool and string attributes can select a binary");
    }
    std::set<std::string> seen;
    for (const auto& v : a.binary_values()) {
      if (KindOf(v.value) != kind) {
        return InvalidArgument(attr + "declares a binary value of kind " +
                               AttrKindName(KindOf(v.value)) + "; expected " + AttrKindName(kind));
      }
      const std::string text = *SimplifiedKeyValueText(v.value);
      if (!IsSimplifiedKeyValue(text)) {
        return InvalidArgument(attr + "declares binary value \"" + text +
                               "\"; expected letters, digits and \"_.+-\" (it is spelled in the " +
                               "simplified key)");
      }
      if (!seen.insert(text).second) {
        return InvalidArgument(attr + "declares binary value " + text + " twice");
      }
    }
  }
  return OkStatus();
}

std::vector<OpParamDef> OpDef::Effective(const std::vector<OpParamDef>& base,
                                         const std::vector<OpParamDef>& overrides) const {
  std::vector<OpParamDef> out = base;
  for (auto& p : out) {
    for (const auto& o : overrides) {
      if (o.name() != p.name()) continue;
      if (!o.dtypes().empty()) p.DataType(o.dtypes());
      if (!o.formats().empty()) p.Format(o.formats());
    }
  }
  return out;
}

Result<std::vector<Combination>> OpDef::Combinations(const std::string& soc) const {
  const OpAICoreConfig* config = nullptr;
  for (const auto& [name, c] : configs_) {
    if (name == soc) config = &c;
  }
  if (config == nullptr) {
    std::string configured;
    for (const auto& s : socs())
      configured += (configured.empty() ? "" : ", ") + s;
    return NotFound("SoC version " + soc +
                    " verification failed. This SoC is not configured through the AddConfig API "
                    "(op " +
                    type_ + " is configured for: " + configured + ")");
  }
  const std::vector<OpParamDef> ins = Effective(inputs_, config->inputs());
  const std::vector<OpParamDef> outs = Effective(outputs_, config->outputs());
  std::vector<const OpParamDef*> all;
  for (const auto& p : ins)
    all.push_back(&p);
  for (const auto& p : outs)
    all.push_back(&p);
  const auto find = [&](const std::string& name) -> const OpParamDef* {
    for (const auto* p : all) {
      if (p->name() == name) return p;
    }
    return nullptr;
  };
  size_t columns = 0;
  for (const auto* p : all) {
    if (!p->follow()) columns = std::max(columns, p->dtypes().size());
  }
  std::vector<Combination> combos(columns);
  for (size_t c = 0; c < columns; ++c) {
    for (const auto* p : all) {
      const OpParamDef* source = p;
      while (source->follow())
        source = find(*source->follow());
      combos[c].dtypes.push_back(source->dtypes()[c]);
      combos[c].formats.push_back(source->formats().empty() ? Format::kND : source->formats()[c]);
    }
  }
  return combos;
}

Status OpDef::CheckCall(const std::string& soc, const std::vector<ArgSpec>& inputs,
                        const std::vector<ArgSpec>& outputs) const {
  if (inputs.size() != inputs_.size()) {
    return InvalidArgument(type_ + " expects " + std::to_string(inputs_.size()) + " inputs (" +
                           JoinNames(inputs_) + "), got " + std::to_string(inputs.size()));
  }
  if (outputs.size() != outputs_.size()) {
    return InvalidArgument(type_ + " expects " + std::to_string(outputs_.size()) + " outputs (" +
                           JoinNames(outputs_) + "), got " + std::to_string(outputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].present && inputs_[i].type() == Option::REQUIRED) {
      return InvalidArgument(type_ + ": required input '" + inputs_[i].name() + "' is missing");
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].present) {
      return InvalidArgument(type_ + ": output '" + outputs_[i].name() + "' is missing");
    }
  }
  TESSERA_ASSIGN_OR_RETURN(std::vector<Combination> combos, Combinations(soc));
  std::vector<ArgSpec> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  for (const Combination& c : combos) {
    bool match = true;
    for (size_t k = 0; k < args.size() && match; ++k) {
      if (!args[k].present) continue;
      match = args[k].dtype == c.dtypes[k] && args[k].format == c.formats[k];
    }
    if (match) return OkStatus();
  }
  std::vector<std::string> names;
  for (const auto& p : inputs_)
    names.push_back(p.name());
  for (const auto& p : outputs_)
    names.push_back(p.name());
  std::string details;
  for (size_t k = 0; k < args.size(); ++k) {
    if (!args[k].present) continue;
    details += (details.empty() ? "" : ", ") + Describe(names[k], args[k].dtype, args[k].format);
  }
  std::string supported;
  for (const Combination& c : combos) {
    supported += "\n  ";
    for (size_t k = 0; k < names.size(); ++k) {
      supported += (k ? ", " : "") + Describe(names[k], c.dtypes[k], c.formats[k]);
    }
  }
  return InvalidArgument("The dtype or format of the actual input or output of " + type_ +
                         " is inconsistent with the prototype, details: " + details +
                         ". Supported dtype and format list is:" + supported);
}

Result<std::map<std::string, AttrValue>> OpDef::ResolveAttrs(
    const std::map<std::string, AttrValue>& given) const {
  std::map<std::string, AttrValue> out;
  for (const auto& [name, value] : given) {
    const auto it = std::find_if(attrs_.begin(), attrs_.end(),
                                 [&](const OpAttrDef& a) { return a.name() == name; });
    if (it == attrs_.end()) {
      std::string known;
      for (const auto& a : attrs_)
        known += (known.empty() ? "" : ", ") + a.name();
      return InvalidArgument(type_ + " has no attribute '" + name + "'" +
                             (known.empty() ? "" : "; its attributes are " + known));
    }
    if (KindOf(value) != *it->kind()) {
      return InvalidArgument(type_ + ": attribute '" + name + "' expects " +
                             AttrKindName(*it->kind()) + ", got " + AttrKindName(KindOf(value)));
    }
    out[name] = value;
  }
  for (const auto& a : attrs_) {
    if (out.count(a.name())) continue;
    if (a.requirement() == Option::REQUIRED) {
      return InvalidArgument(type_ + ": required attribute '" + a.name() + "' (" +
                             AttrKindName(*a.kind()) + ") is missing");
    }
    out[a.name()] = a.default_value();
  }
  return out;
}

std::optional<std::string> SimplifiedKeyValueText(const AttrValue& value) {
  switch (KindOf(value)) {
    case AttrKind::kInt:
      return std::to_string(std::get<int64_t>(value));
    case AttrKind::kBool:
      return std::string(std::get<bool>(value) ? "true" : "false");
    case AttrKind::kString:
      return std::get<std::string>(value);
    default:
      return std::nullopt;
  }
}

Result<std::string> CallSimplifiedKey(const OpDef& op, const TilingContext& ctx,
                                      bool deterministic) {
  const uint32_t mode = op.simplified_key_mode();
  if (mode == 2) {
    if (!op.gen_simplified_key()) {
      return FailedPrecondition(op.type() + ": SimplifiedKeyMode(2) without a callback");
    }
    Result<std::string> fragment = InvalidArgument("");
    try {
      fragment = op.gen_simplified_key()(ctx);
    } catch (const std::exception& e) {
      return InvalidArgument("Failed to generate the simplified key of " + op.type() +
                             ": the GenSimplifiedKey callback threw: " + e.what());
    } catch (...) {
      return InvalidArgument("Failed to generate the simplified key of " + op.type() +
                             ": the GenSimplifiedKey callback threw a non-std exception");
    }
    if (!fragment.ok()) {
      return InvalidArgument(
          "Failed to generate the simplified key of " + op.type() +
          ": the GenSimplifiedKey callback failed: " + fragment.status().ToString());
    }
    const Status st = CheckSimplifiedKeyFragment(*fragment, op.type());
    if (!st.ok()) {
      return InvalidArgument("Failed to generate the simplified key of " + op.type() +
                             ": the GenSimplifiedKey callback returned a bad " +
                             std::string(st.message()));
    }
    return BuildCustomSimplifiedKey(op.type(), deterministic, 0, *fragment);
  }
  std::vector<SimplifiedKeyTensor> ins, outs;
  for (size_t i = 0; i < ctx.GetInputNum(); ++i) {
    const TensorDesc* d = ctx.GetInputDesc(i);
    if (d == nullptr) continue;  // absent optional input
    const bool dynamic = i < op.inputs().size() && op.inputs()[i].type() == Option::DYNAMIC;
    // The runtime passes one tensor per parameter, so a present dynamic input counts 1.
    ins.push_back({d->dtype, d->format, dynamic ? 1 : -1});
  }
  for (size_t i = 0; i < ctx.GetOutputNum(); ++i) {
    const TensorDesc* d = ctx.GetOutputDesc(i);
    outs.push_back({d->dtype, d->format});
  }
  if (mode == 0) return BuildSimplifiedKey(op.type(), deterministic, 0, ins, outs);
  std::vector<SimplifiedKeyAttr> attrs;
  for (const OpAttrDef& a : op.attrs()) {
    if (a.binary_values().empty()) continue;
    Result<std::string> text = InvalidArgument("");
    switch (*a.kind()) {
      case AttrKind::kInt: {
        TESSERA_ASSIGN_OR_RETURN(int64_t v, ctx.GetIntAttr(a.name()));
        text = std::to_string(v);
        break;
      }
      case AttrKind::kBool: {
        TESSERA_ASSIGN_OR_RETURN(bool v, ctx.GetBoolAttr(a.name()));
        text = std::string(v ? "true" : "false");
        break;
      }
      default:
        text = ctx.GetStrAttr(a.name());
        break;
    }
    TESSERA_RETURN_IF_ERROR(text.status());
    attrs.push_back({a.name(), std::move(text).value()});
  }
  return BuildSimplifiedKey(op.type(), deterministic, 0, ins, outs, attrs);
}

}  // namespace tessera::runtime
