#include "runtime/package/package_manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <sstream>
#include <system_error>

#include "runtime/package/package_match.h"

namespace tessera::runtime {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 3> kKernelTypeNames = {"AIV", "AIC", "MIX"};
constexpr std::array<std::string_view, 3> kParamModeNames = {"required", "optional", "dynamic"};
constexpr std::array<std::string_view, 6> kAttrTypeNames = {"int",    "float",    "bool",
                                                            "string", "list_int", "list_float"};

std::string Join(std::span<const std::string_view> names, std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last_sep : std::string_view(", ");
    out += names[i];
  }
  return out;
}

std::string Key(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string At(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string Quote(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// A JSON value as shown in an error: its text, cut to a readable length.
std::string Show(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

bool IsIdentifier(std::string_view s, bool letter_first) {
  if (s.empty()) return false;
  const auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!(alpha(s[0]) || (!letter_first && s[0] == '_'))) return false;
  for (char c : s) {
    if (!alpha(c) && !digit(c) && c != '_') return false;
  }
  return true;
}

bool IsPackageName(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool IsSha256Hex(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!IsHexDigit(c)) return false;
  }
  return true;
}

bool IsTaskRation(std::string_view s) {
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != colon && !(s[i] >= '0' && s[i] <= '9')) return false;
  }
  return true;
}

std::string HashText(uint64_t hash) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

std::string DataTypeChoices() {
  std::string out;
  for (DataType dtype : AllDataTypes()) {
    if (!out.empty()) out += ", ";
    out += DataTypeCannName(dtype);
  }
  return out;
}

// Reads JSON values with checked types; every error names the source, the JSON path and what was
// expected.
class JsonReader {
 public:
  explicit JsonReader(std::string_view source)
      : prefix_("manifest " + std::string(source) + ": ") {}

  Status Fail(const std::string& path, const std::string& what) const {
    return InvalidArgument(prefix_ + (path.empty() ? "top level" : path) + " " + what);
  }

  Status ExpectObject(const Json& value, const std::string& path) const {
    if (value.is_object()) return OkStatus();
    return Fail(path, "is " + Show(value) + "; expected a JSON object");
  }

  // Rejects keys outside `allowed` (typos would otherwise be ignored silently).
  Status CheckKeys(const Json& object, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
    for (const auto& item : object.items()) {
      bool known = false;
      for (std::string_view key : allowed)
        known = known || item.key() == key;
      if (!known) {
        const std::vector<std::string_view> names(allowed);
        return Fail(path, "has unknown key " + Quote(item.key()) + "; expected only " +
                              Join(names, " and "));
      }
    }
    return OkStatus();
  }

  // The member `key` of `object`, or an error naming `expected` when it is missing.
  Result<const Json*> Member(const Json& object, const std::string& path, std::string_view key,
                             std::string_view expected) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      return Fail(path, "has no " + Quote(key) + "; expected " + std::string(expected));
    }
    return &*it;
  }

  Result<std::string> String(const Json& object, const std::string& path,
                             std::string_view key) const {
    TESSERA_ASSIGN_OR_RETURN(const Json* value, Member(object, path, key, "a string"));
    if (!value->is_string()) {
      return Fail(Key(path, key), "is " + Show(*value) + "; expected a string");
    }
    return value->get<std::string>();
  }

  Result<const Json*> Array(const Json& object, const std::string& path, std::string_view key,
                            std::string_view what) const {
    TESSERA_ASSIGN_OR_RETURN(const Json* value,
                             Member(object, path, key, "an array of " + std::string(what)));
    if (!value->is_array()) {
      return Fail(Key(path, key),
                  "is " + Show(*value) + "; expected an array of " + std::string(what));
    }
    return value;
  }

  // `value` (at `path`) must be one of `names`; returns its index.
  template <size_t N>
  Result<size_t> Enum(const Json& value, const std::string& path,
                      const std::array<std::string_view, N>& names,
                      std::string_view last_sep) const {
    if (value.is_string()) {
      for (size_t i = 0; i < N; ++i) {
        if (value.get_ref<const std::string&>() == names[i]) return i;
      }
    }
    return Fail(path, "is " + Show(value) + "; expected " + Join(names, last_sep));
  }

 private:
  std::string prefix_;
};

Result<ManifestKernel> ParseKernel(const JsonReader& r, const Json& j, const std::string& path) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(j, path, {"tilingKey", "kernelType", "taskRation"}));
  ManifestKernel kernel;
  TESSERA_ASSIGN_OR_RETURN(const Json* key,
                           r.Member(j, path, "tilingKey", "an unsigned integer tiling key"));
  if (!key->is_number_unsigned()) {
    return r.Fail(Key(path, "tilingKey"), "is " + Show(*key) + "; expected an unsigned integer");
  }
  kernel.tiling_key = key->get<uint64_t>();
  TESSERA_ASSIGN_OR_RETURN(const Json* type,
                           r.Member(j, path, "kernelType", "one of AIV, AIC or MIX"));
  TESSERA_ASSIGN_OR_RETURN(size_t type_index,
                           r.Enum(*type, Key(path, "kernelType"), kKernelTypeNames, " or "));
  kernel.kernel_type = static_cast<ManifestKernelType>(type_index);
  TESSERA_ASSIGN_OR_RETURN(kernel.task_ration, r.String(j, path, "taskRation"));
  return kernel;
}

template <class T, class ParseFn>
Status ParseList(const JsonReader& r, const Json& object, const std::string& path,
                 std::string_view key, std::string_view what, ParseFn parse, std::vector<T>& out) {
  TESSERA_ASSIGN_OR_RETURN(const Json* list, r.Array(object, path, key, what));
  for (size_t i = 0; i < list->size(); ++i) {
    TESSERA_ASSIGN_OR_RETURN(T item, parse(r, (*list)[i], At(Key(path, key), i)));
    out.push_back(std::move(item));
  }
  return OkStatus();
}

Result<ManifestBinary> ParseBinary(const JsonReader& r, const Json& j, const std::string& path) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(
      j, path, {"soc", "simplifiedKey", "binPath", "sha256", "kernels", "selectiveBuild"}));
  ManifestBinary binary;
  TESSERA_ASSIGN_OR_RETURN(binary.soc, r.String(j, path, "soc"));
  TESSERA_ASSIGN_OR_RETURN(binary.simplified_key, r.String(j, path, "simplifiedKey"));
  TESSERA_ASSIGN_OR_RETURN(binary.bin_path, r.String(j, path, "binPath"));
  TESSERA_ASSIGN_OR_RETURN(binary.sha256, r.String(j, path, "sha256"));
  TESSERA_RETURN_IF_ERROR(
      ParseList(r, j, path, "kernels", "kernel entries", ParseKernel, binary.kernels));
  if (const auto it = j.find("selectiveBuild"); it != j.end()) {
    const std::string s_path = Key(path, "selectiveBuild");
    TESSERA_RETURN_IF_ERROR(r.ExpectObject(*it, s_path));
    TESSERA_RETURN_IF_ERROR(r.CheckKeys(*it, s_path, {"option", "value"}));
    ManifestSelectiveBuild selective;
    TESSERA_ASSIGN_OR_RETURN(selective.option, r.String(*it, s_path, "option"));
    TESSERA_ASSIGN_OR_RETURN(selective.value, r.String(*it, s_path, "value"));
    binary.selective_build = std::move(selective);
  }
  return binary;
}

Result<ManifestParam> ParseParam(const JsonReader& r, const Json& j, const std::string& path) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(j, path, {"name", "paramType", "dtype", "format"}));
  ManifestParam param;
  TESSERA_ASSIGN_OR_RETURN(param.name, r.String(j, path, "name"));
  TESSERA_ASSIGN_OR_RETURN(const Json* mode,
                           r.Member(j, path, "paramType", "one of required, optional or dynamic"));
  TESSERA_ASSIGN_OR_RETURN(size_t mode_index,
                           r.Enum(*mode, Key(path, "paramType"), kParamModeNames, " or "));
  param.mode = static_cast<ManifestParamMode>(mode_index);
  TESSERA_ASSIGN_OR_RETURN(const Json* dtypes, r.Array(j, path, "dtype", "dtype names"));
  for (size_t i = 0; i < dtypes->size(); ++i) {
    const Json& item = (*dtypes)[i];
    Result<DataType> dtype =
        item.is_string() ? ParseDataType(item.get<std::string>()) : Result<DataType>(NotFound(""));
    if (!dtype.ok()) {
      return r.Fail(At(Key(path, "dtype"), i),
                    "is " + Show(item) + "; expected one of " + DataTypeChoices());
    }
    param.dtypes.push_back(*dtype);
  }
  TESSERA_ASSIGN_OR_RETURN(const Json* formats, r.Array(j, path, "format", "format names"));
  for (size_t i = 0; i < formats->size(); ++i) {
    const Json& item = (*formats)[i];
    Result<Format> format =
        item.is_string() ? ParseFormat(item.get<std::string>()) : Result<Format>(NotFound(""));
    if (!format.ok()) {
      return r.Fail(At(Key(path, "format"), i), "is " + Show(item) + "; expected ND");
    }
    param.formats.push_back(*format);
  }
  return param;
}

// Converts `value` to the alternative of `type`.
Result<ManifestAttrValue> ParseAttrValue(const JsonReader& r, const Json& value,
                                         ManifestAttrType type, const std::string& path) {
  const auto integer = [](const Json& v) {
    return v.is_number_integer() &&
           (!v.is_number_unsigned() ||
            v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  };
  const auto wrong = [&](std::string_view expected) {
    return r.Fail(path, "is " + Show(value) + "; expected " + std::string(expected) + " for a " +
                            std::string(ManifestAttrTypeName(type)) + " attr");
  };
  switch (type) {
    case ManifestAttrType::kInt:
      if (!integer(value)) return wrong("an int64");
      return ManifestAttrValue(value.get<int64_t>());
    case ManifestAttrType::kFloat:
      if (!value.is_number()) return wrong("a number");
      return ManifestAttrValue(value.get<double>());
    case ManifestAttrType::kBool:
      if (!value.is_boolean()) return wrong("true or false");
      return ManifestAttrValue(value.get<bool>());
    case ManifestAttrType::kString:
      if (!value.is_string()) return wrong("a string");
      return ManifestAttrValue(value.get<std::string>());
    case ManifestAttrType::kListInt: {
      std::vector<int64_t> list;
      if (!value.is_array()) return wrong("an array of int64");
      for (const Json& item : value) {
        if (!integer(item)) return wrong("an array of int64");
        list.push_back(item.get<int64_t>());
      }
      return ManifestAttrValue(std::move(list));
    }
    case ManifestAttrType::kListFloat: {
      std::vector<double> list;
      if (!value.is_array()) return wrong("an array of numbers");
      for (const Json& item : value) {
        if (!item.is_number()) return wrong("an array of numbers");
        list.push_back(item.get<double>());
      }
      return ManifestAttrValue(std::move(list));
    }
    default:
      return Internal("unknown ManifestAttrType " + std::to_string(static_cast<int>(type)));
  }
}

Result<ManifestAttr> ParseAttr(const JsonReader& r, const Json& j, const std::string& path) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(j, path, {"name", "type", "paramType", "default"}));
  ManifestAttr attr;
  TESSERA_ASSIGN_OR_RETURN(attr.name, r.String(j, path, "name"));
  TESSERA_ASSIGN_OR_RETURN(const Json* type, r.Member(j, path, "type", "an attr type"));
  TESSERA_ASSIGN_OR_RETURN(size_t type_index,
                           r.Enum(*type, Key(path, "type"), kAttrTypeNames, " or "));
  attr.type = static_cast<ManifestAttrType>(type_index);
  TESSERA_ASSIGN_OR_RETURN(const Json* mode,
                           r.Member(j, path, "paramType", "required or optional"));
  constexpr std::array<std::string_view, 2> kAttrModes = {"required", "optional"};
  TESSERA_ASSIGN_OR_RETURN(size_t mode_index,
                           r.Enum(*mode, Key(path, "paramType"), kAttrModes, " or "));
  attr.required = mode_index == 0;
  if (const auto it = j.find("default"); it != j.end()) {
    TESSERA_ASSIGN_OR_RETURN(ManifestAttrValue value,
                             ParseAttrValue(r, *it, attr.type, Key(path, "default")));
    attr.default_value = std::move(value);
  }
  return attr;
}

Result<OpManifest> ParseOp(const JsonReader& r, const Json& j, const std::string& path) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(
      j, path, {"op", "kernel", "tiling_schema_hash", "simplifiedKeyMode", "params", "binaries"}));
  OpManifest op;
  TESSERA_ASSIGN_OR_RETURN(op.op, r.String(j, path, "op"));
  TESSERA_ASSIGN_OR_RETURN(op.kernel, r.String(j, path, "kernel"));
  TESSERA_ASSIGN_OR_RETURN(std::string hash, r.String(j, path, "tiling_schema_hash"));
  const bool hex = hash.size() > 2 && hash.size() <= 18 && hash[0] == '0' &&
                   (hash[1] == 'x' || hash[1] == 'X') &&
                   std::all_of(hash.begin() + 2, hash.end(), IsHexDigit);
  if (!hex) {
    return r.Fail(Key(path, "tiling_schema_hash"),
                  "is " + Quote(hash) + "; expected \"0x\" and 1 to 16 hex digits");
  }
  op.tiling_schema_hash = std::stoull(hash.substr(2), nullptr, 16);
  if (const auto it = j.find("simplifiedKeyMode"); it != j.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() > kMaxSimplifiedKeyMode) {
      return r.Fail(Key(path, "simplifiedKeyMode"), "is " + Show(*it) + "; expected 0, 1 or 2");
    }
    op.simplified_key_mode = it->get<uint32_t>();
  }
  TESSERA_ASSIGN_OR_RETURN(const Json* params,
                           r.Member(j, path, "params", "an object with inputs, outputs, attrs"));
  const std::string params_path = Key(path, "params");
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(*params, params_path));
  TESSERA_RETURN_IF_ERROR(r.CheckKeys(*params, params_path, {"inputs", "outputs", "attrs"}));
  TESSERA_RETURN_IF_ERROR(
      ParseList(r, *params, params_path, "inputs", "inputs", ParseParam, op.inputs));
  TESSERA_RETURN_IF_ERROR(
      ParseList(r, *params, params_path, "outputs", "outputs", ParseParam, op.outputs));
  if (params->contains("attrs")) {
    TESSERA_RETURN_IF_ERROR(
        ParseList(r, *params, params_path, "attrs", "attrs", ParseAttr, op.attrs));
  }
  TESSERA_RETURN_IF_ERROR(ParseList(r, j, path, "binaries", "binaries", ParseBinary, op.binaries));
  return op;
}

Result<PackageManifest> ParseRoot(const JsonReader& r, const Json& j) {
  TESSERA_RETURN_IF_ERROR(r.ExpectObject(j, ""));
  TESSERA_RETURN_IF_ERROR(
      r.CheckKeys(j, "", {"package", "version", "tiling_library", "tiling_library_sha256", "ops"}));
  PackageManifest manifest;
  TESSERA_ASSIGN_OR_RETURN(manifest.package, r.String(j, "", "package"));
  TESSERA_ASSIGN_OR_RETURN(manifest.version, r.String(j, "", "version"));
  TESSERA_ASSIGN_OR_RETURN(manifest.tiling_library, r.String(j, "", "tiling_library"));
  TESSERA_ASSIGN_OR_RETURN(manifest.tiling_library_sha256,
                           r.String(j, "", "tiling_library_sha256"));
  TESSERA_RETURN_IF_ERROR(ParseList(r, j, "", "ops", "ops", ParseOp, manifest.ops));
  return manifest;
}

// Line and column (1-based) of the byte at 1-based offset `byte` of `text`.
std::pair<size_t, size_t> LineColumn(std::string_view text, size_t byte) {
  size_t line = 1;
  size_t column = 1;
  const size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

Json ParamToJson(const ManifestParam& param) {
  Json j;
  j["name"] = param.name;
  j["paramType"] = ManifestParamModeName(param.mode);
  j["dtype"] = Json::array();
  for (DataType dtype : param.dtypes)
    j["dtype"].push_back(DataTypeCannName(dtype));
  j["format"] = Json::array();
  for (Format format : param.formats)
    j["format"].push_back(FormatName(format));
  return j;
}

Json AttrToJson(const ManifestAttr& attr) {
  Json j;
  j["name"] = attr.name;
  j["type"] = ManifestAttrTypeName(attr.type);
  j["paramType"] = attr.required ? "required" : "optional";
  if (attr.default_value) {
    std::visit([&](const auto& value) { j["default"] = value; }, *attr.default_value);
  }
  return j;
}

Status ValidateParams(const OpManifest& op, const std::string& path,
                      const std::function<Status(const std::string&, const std::string&)>& fail) {
  size_t columns = 0;
  std::string first_path;
  std::set<std::string> names;
  const auto check_list = [&](const std::vector<ManifestParam>& list,
                              const std::string& list_path) -> Status {
    for (size_t i = 0; i < list.size(); ++i) {
      const ManifestParam& p = list[i];
      const std::string p_path = At(list_path, i);
      if (!IsIdentifier(p.name, false)) {
        return fail(Key(p_path, "name"), "is " + Quote(p.name) + "; expected an identifier");
      }
      if (!names.insert(p.name).second) {
        return fail(Key(p_path, "name"), "is " + Quote(p.name) +
                                             ", already used by another parameter of " + op.op +
                                             "; expected unique parameter names");
      }
      if (p.dtypes.empty()) {
        return fail(Key(p_path, "dtype"), "is empty; expected at least one dtype");
      }
      if (p.formats.size() != p.dtypes.size()) {
        return fail(Key(p_path, "format"), "has " + std::to_string(p.formats.size()) +
                                               " entries; expected " +
                                               std::to_string(p.dtypes.size()) + ", one per dtype");
      }
      if (first_path.empty()) {
        columns = p.dtypes.size();
        first_path = Key(p_path, "dtype");
      } else if (p.dtypes.size() != columns) {
        return fail(Key(p_path, "dtype"), "has " + std::to_string(p.dtypes.size()) +
                                              " entries; expected " + std::to_string(columns) +
                                              " like " + first_path +
                                              " (one column per supported combination)");
      }
    }
    return OkStatus();
  };
  TESSERA_RETURN_IF_ERROR(check_list(op.inputs, Key(path, "params.inputs")));
  TESSERA_RETURN_IF_ERROR(check_list(op.outputs, Key(path, "params.outputs")));
  if (op.outputs.empty()) {
    return fail(Key(path, "params.outputs"), "is empty; expected at least one output");
  }
  const std::string attrs_path = Key(path, "params.attrs");
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const ManifestAttr& a = op.attrs[i];
    const std::string a_path = At(attrs_path, i);
    if (!IsIdentifier(a.name, false)) {
      return fail(Key(a_path, "name"), "is " + Quote(a.name) + "; expected an identifier");
    }
    if (!names.insert(a.name).second) {
      return fail(Key(a_path, "name"), "is " + Quote(a.name) + ", already used by another " +
                                           "parameter of " + op.op + "; expected unique names");
    }
    if (a.required && a.default_value) {
      return fail(Key(a_path, "default"),
                  "is given for a required attr; expected no default (or paramType optional)");
    }
    if (!a.required && !a.default_value) {
      return fail(a_path, "has no \"default\"; expected one for an optional attr");
    }
    if (a.default_value) {
      if (a.default_value->index() != static_cast<size_t>(a.type)) {
        return fail(Key(a_path, "default"), "does not hold a " +
                                                std::string(ManifestAttrTypeName(a.type)) +
                                                "; expected a value of the attr's type");
      }
      const auto finite = [](double v) { return std::isfinite(v); };
      const bool ok = std::visit(
          [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, double>) return finite(v);
            if constexpr (std::is_same_v<V, std::vector<double>>) {
              return std::all_of(v.begin(), v.end(), finite);
            }
            return true;
          },
          *a.default_value);
      if (!ok) return fail(Key(a_path, "default"), "is not finite; expected finite numbers");
    }
  }
  return OkStatus();
}

Status ValidateBinary(const OpManifest& op, const ManifestBinary& b, const std::string& path,
                      const std::function<Status(const std::string&, const std::string&)>& fail) {
  if (!IsKnownTarget(b.soc)) {
    return fail(Key(path, "soc"), "is " + Quote(b.soc) + "; expected one of " +
                                      Join(KnownSocs(), ", ") +
                                      ", or a compute unit (CPU model) such as znver3");
  }
  if (Status s = CheckSimplifiedKey(b.simplified_key, op.op, op.simplified_key_mode); !s.ok()) {
    return fail(Key(path, "simplifiedKey"), "is invalid: " + std::string(s.message()));
  }
  if (!IsContainedRelativePath(b.bin_path)) {
    return fail(Key(path, "binPath"),
                "is " + Quote(b.bin_path) +
                    "; expected a relative path that stays inside the package directory");
  }
  if (!IsSha256Hex(b.sha256)) {
    return fail(Key(path, "sha256"),
                "is " + Quote(b.sha256) + "; expected 64 hex digits (the file's SHA-256)");
  }
  if (b.selective_build) {
    const ManifestSelectiveBuild& sel = *b.selective_build;
    if (sel.option != "TESSERA_TILING_KEYS" && sel.option != "TILING_KEYS") {
      return fail(Key(path, "selectiveBuild.option"),
                  "is " + Quote(sel.option) + "; expected TESSERA_TILING_KEYS or TILING_KEYS");
    }
    if (Status s = CheckTilingKeySelection(sel.value); !s.ok()) {
      return fail(Key(path, "selectiveBuild.value"), "is invalid: " + std::string(s.message()));
    }
  } else if (b.kernels.empty()) {
    return fail(Key(path, "kernels"),
                "is empty; expected at least one kernel entry (none only in a selective build)");
  }
  std::map<uint64_t, size_t> seen;
  for (size_t k = 0; k < b.kernels.size(); ++k) {
    const ManifestKernel& kernel = b.kernels[k];
    const std::string k_path = At(Key(path, "kernels"), k);
    const auto [it, inserted] = seen.emplace(kernel.tiling_key, k);
    if (!inserted) {
      return fail(Key(k_path, "tilingKey"), std::to_string(kernel.tiling_key) +
                                                " repeats kernels[" + std::to_string(it->second) +
                                                "]; expected unique tiling keys per binary");
    }
    if (static_cast<size_t>(kernel.kernel_type) >= kKernelTypeNames.size()) {
      return fail(Key(k_path, "kernelType"), "is out of range; expected AIV, AIC or MIX");
    }
    if (!IsTaskRation(kernel.task_ration)) {
      return fail(Key(k_path, "taskRation"),
                  "is " + Quote(kernel.task_ration) + "; expected \"<AIC>:<AIV>\" like \"1:2\"");
    }
  }
  return OkStatus();
}

}  // namespace

std::string_view ManifestKernelTypeName(ManifestKernelType type) {
  const auto i = static_cast<size_t>(type);
  return i < kKernelTypeNames.size() ? kKernelTypeNames[i] : "UNKNOWN";
}

std::string_view ManifestParamModeName(ManifestParamMode mode) {
  const auto i = static_cast<size_t>(mode);
  return i < kParamModeNames.size() ? kParamModeNames[i] : "unknown";
}

std::string_view ManifestAttrTypeName(ManifestAttrType type) {
  const auto i = static_cast<size_t>(type);
  return i < kAttrTypeNames.size() ? kAttrTypeNames[i] : "unknown";
}

const OpManifest* FindOpInManifest(const PackageManifest& manifest, std::string_view op) {
  for (const OpManifest& candidate : manifest.ops) {
    if (candidate.op == op) return &candidate;
  }
  return nullptr;
}

bool IsContainedRelativePath(std::string_view path) {
  if (path.empty() || path.size() > 4096 || path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part) {
      if (c == '\0' || c == '\\') return false;
    }
    start = slash + 1;
  }
  return true;
}

Status ValidateManifest(const PackageManifest& manifest, std::string_view source) {
  const std::string prefix = "manifest " + std::string(source) + ": ";
  const std::function<Status(const std::string&, const std::string&)> fail =
      [&](const std::string& path, const std::string& what) {
        return InvalidArgument(prefix + path + " " + what);
      };
  if (!IsPackageName(manifest.package)) {
    return fail("package", "is " + Quote(manifest.package) +
                               "; expected a name of letters, digits, '_', '.' and '-'");
  }
  if (manifest.version.empty()) return fail("version", "is empty; expected a version string");
  if (!IsContainedRelativePath(manifest.tiling_library)) {
    return fail("tiling_library",
                "is " + Quote(manifest.tiling_library) +
                    "; expected a relative path that stays inside the package directory");
  }
  if (!IsSha256Hex(manifest.tiling_library_sha256)) {
    return fail("tiling_library_sha256", "is " + Quote(manifest.tiling_library_sha256) +
                                             "; expected 64 hex digits (the library's SHA-256)");
  }
  if (manifest.ops.empty()) return fail("ops", "is empty; expected at least one op");
  std::map<std::string, size_t, std::less<>> op_index;
  for (size_t i = 0; i < manifest.ops.size(); ++i) {
    const OpManifest& op = manifest.ops[i];
    const std::string path = At("ops", i);
    if (!IsIdentifier(op.op, true)) {
      return fail(Key(path, "op"),
                  "is " + Quote(op.op) + "; expected a CamelCase identifier such as \"Add\"");
    }
    const auto [it, inserted] = op_index.emplace(op.op, i);
    if (!inserted) {
      return fail(Key(path, "op"), "is " + Quote(op.op) + ", already defined by ops[" +
                                       std::to_string(it->second) + "]; expected unique ops");
    }
    if (!IsIdentifier(op.kernel, false)) {
      return fail(Key(path, "kernel"),
                  "is " + Quote(op.kernel) + "; expected a C identifier such as \"add\"");
    }
    TESSERA_RETURN_IF_ERROR(ValidateParams(op, path, fail));
    if (op.simplified_key_mode > kMaxSimplifiedKeyMode) {
      return fail(Key(path, "simplifiedKeyMode"),
                  "is " + std::to_string(op.simplified_key_mode) + "; expected 0, 1 or 2");
    }
    if (op.binaries.empty()) {
      return fail(Key(path, "binaries"), "is empty; expected at least one binary");
    }
    for (size_t b = 0; b < op.binaries.size(); ++b) {
      const std::string b_path = At(Key(path, "binaries"), b);
      TESSERA_RETURN_IF_ERROR(ValidateBinary(op, op.binaries[b], b_path, fail));
      for (size_t e = 0; e < b; ++e) {
        if (op.binaries[e].soc == op.binaries[b].soc &&
            op.binaries[e].simplified_key == op.binaries[b].simplified_key) {
          return fail(b_path, "repeats soc " + op.binaries[b].soc + " and simplifiedKey " +
                                  op.binaries[b].simplified_key + " of binaries[" +
                                  std::to_string(e) + "]; expected one binary per pair");
        }
      }
    }
  }
  return OkStatus();
}

namespace {

// Thrown by the parse callback to stop at the first structural problem.
struct StructureError {
  std::string what;
};

// Parses JSON refusing what nlohmann would accept silently: a key repeated in one object (the
// last would win) and nesting deeper than kMaxManifestDepth (deep values are built and destroyed
// recursively elsewhere).
Json ParseStrict(std::string_view text) {
  std::vector<std::set<std::string>> keys;  // one set per open object; arrays push an empty set
  std::vector<std::string> path;            // the current key per level, for messages
  const auto where = [&] {
    std::string out;
    for (const std::string& p : path) {
      if (p.empty()) continue;
      out += (out.empty() || p.front() == '[' ? "" : ".") + p;
    }
    return out.empty() ? std::string("top level") : out;
  };
  const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (keys.size() >= kMaxManifestDepth) {
          throw StructureError{where() + " nests deeper than " + std::to_string(kMaxManifestDepth) +
                               " levels; expected a manifest (6 levels)"};
        }
        keys.emplace_back();
        path.emplace_back(event == Json::parse_event_t::array_start ? "[]" : "");
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!keys.empty()) keys.pop_back();
        if (!path.empty()) path.pop_back();
        break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!keys.empty() && !keys.back().insert(key).second) {
          path.back() = key;
          throw StructureError{where() + " appears twice in one object; expected each key once"};
        }
        if (!path.empty()) path.back() = key;
        break;
      }
      default:
        break;
    }
    return true;
  };
  return Json::parse(text, check);
}

}  // namespace

Result<PackageManifest> ParseManifestText(std::string_view text, std::string_view source) {
  if (text.size() > kMaxManifestBytes) {
    return InvalidArgument("manifest " + std::string(source) + ": " + std::to_string(text.size()) +
                           " bytes; expected at most " + std::to_string(kMaxManifestBytes));
  }
  Json root;
  try {
    root = ParseStrict(text);
  } catch (const StructureError& e) {
    return InvalidArgument("manifest " + std::string(source) + ": " + e.what);
  } catch (const Json::parse_error& e) {
    const auto [line, column] = LineColumn(text, e.byte);
    std::string detail = e.what();
    const size_t col = detail.find("column ");
    const size_t colon = col == std::string::npos ? col : detail.find(": ", col);
    if (colon != std::string::npos) detail = detail.substr(colon + 2);
    return InvalidArgument("manifest " + std::string(source) + ": malformed JSON at line " +
                           std::to_string(line) + ", column " + std::to_string(column) + ": " +
                           detail);
  } catch (const Json::exception& e) {
    // out_of_range.406: a number beyond double's range ("1e999").
    std::string detail = e.what();
    if (const size_t bracket = detail.find("] "); bracket != std::string::npos) {
      detail = detail.substr(bracket + 2);
    }
    return InvalidArgument("manifest " + std::string(source) + ": " + detail +
                           "; expected numbers that fit their field");
  }
  const JsonReader reader(source);
  TESSERA_ASSIGN_OR_RETURN(PackageManifest manifest, ParseRoot(reader, root));
  TESSERA_RETURN_IF_ERROR(ValidateManifest(manifest, source));
  return manifest;
}

Result<std::string> ReadRegularFile(const std::filesystem::path& file, uint64_t max_bytes,
                                    std::string_view what) {
  const std::string name = std::string(what) + " " + file.string();
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    return NotFound(name + ": cannot be opened for reading (" + std::strerror(errno) + ")");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return Internal(name + ": fstat failed (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return InvalidArgument(name + " is " + kind + "; expected a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return InvalidArgument(name + " has " + std::to_string(st.st_size) +
                           " bytes; expected at most " + std::to_string(max_bytes));
  }
  std::string text;
  text.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t got =
        ::pread(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Internal(name + ": read failed (" + std::strerror(errno) + ")");
    if (got == 0) break;  // shrank while being read: parse what is there
    done += static_cast<size_t>(got);
  }
  text.resize(done);
  return text;
}

Result<PackageManifest> ParseManifestFile(const std::filesystem::path& file) {
  Result<std::string> text = ReadRegularFile(file, kMaxManifestBytes, "manifest");
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) {
      return NotFound(std::string(text.status().message()) + "; expected a readable manifest.json");
    }
    return text.status();
  }
  return ParseManifestText(*text, file.string());
}

std::string ManifestToJson(const PackageManifest& manifest) {
  Json root;
  root["package"] = manifest.package;
  root["version"] = manifest.version;
  root["tiling_library"] = manifest.tiling_library;
  root["tiling_library_sha256"] = manifest.tiling_library_sha256;
  root["ops"] = Json::array();
  for (const OpManifest& op : manifest.ops) {
    Json j;
    j["op"] = op.op;
    j["kernel"] = op.kernel;
    j["tiling_schema_hash"] = HashText(op.tiling_schema_hash);
    if (op.simplified_key_mode != 0) j["simplifiedKeyMode"] = op.simplified_key_mode;
    Json params;
    params["inputs"] = Json::array();
    for (const ManifestParam& p : op.inputs)
      params["inputs"].push_back(ParamToJson(p));
    params["outputs"] = Json::array();
    for (const ManifestParam& p : op.outputs)
      params["outputs"].push_back(ParamToJson(p));
    params["attrs"] = Json::array();
    for (const ManifestAttr& a : op.attrs)
      params["attrs"].push_back(AttrToJson(a));
    j["params"] = std::move(params);
    j["binaries"] = Json::array();
    for (const ManifestBinary& b : op.binaries) {
      Json bj;
      bj["soc"] = b.soc;
      bj["simplifiedKey"] = b.simplified_key;
      bj["binPath"] = b.bin_path;
      bj["sha256"] = b.sha256;
      bj["kernels"] = Json::array();
      for (const ManifestKernel& k : b.kernels) {
        Json kj;
        kj["tilingKey"] = k.tiling_key;
        kj["kernelType"] = ManifestKernelTypeName(k.kernel_type);
        kj["taskRation"] = k.task_ration;
        bj["kernels"].push_back(std::move(kj));
      }
      if (b.selective_build) {
        bj["selectiveBuild"]["option"] = b.selective_build->option;
        bj["selectiveBuild"]["value"] = b.selective_build->value;
      }
      j["binaries"].push_back(std::move(bj));
    }
    root["ops"].push_back(std::move(j));
  }
  return root.dump(2) + "\n";
}

Status WriteManifestFile(const std::filesystem::path& file, const PackageManifest& manifest) {
  TESSERA_RETURN_IF_ERROR(ValidateManifest(manifest, file.string()));
  std::filesystem::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return NotFound("manifest " + file.string() + ": cannot create " + tmp.string() +
                      "; expected an existing, writable directory");
    }
    out << ManifestToJson(manifest);
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return Internal("manifest " + file.string() + ": writing " + tmp.string() + " failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return Internal("manifest " + file.string() + ": rename from " + tmp.string() +
                    " failed: " + ec.message());
  }
  return OkStatus();
}

}  // namespace tessera::runtime
