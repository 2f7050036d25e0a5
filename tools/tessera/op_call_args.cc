#include "op_call_args.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ops/builtin_ops.h"
#include "runtime/package/package_search.h"
#include "tessera/core/float16.h"
#include "tessera/device/memory.h"

namespace tessera::cli {
namespace {

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> SplitList(std::string_view text) {
  std::string s = Trim(text);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  std::vector<std::string> items;
  if (Trim(s).empty()) return items;
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    items.push_back(Trim(std::string_view(s).substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

Result<int64_t> ParseInt(const std::string& text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgument("'" + text + "' is not an integer in the int64 range");
  }
  return v;
}

Result<float> ParseFloat(const std::string& text) {
  char* end = nullptr;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    return InvalidArgument("'" + text + "' is not a number");
  }
  if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
    return InvalidArgument("'" + text + "' is outside the float32 range");
  }
  return static_cast<float>(v);
}

Result<bool> ParseBool(const std::string& text) {
  if (text == "true" || text == "1") return true;
  if (text == "false" || text == "0") return false;
  return InvalidArgument("'" + text + "' is not a bool (true, false, 1 or 0)");
}

// Dtypes of the inputs from --dtype: one for all, or one per input.
Result<std::vector<DataType>> ParseInputDtypes(const std::string& text, size_t inputs) {
  if (Trim(text).empty()) {
    return InvalidArgument(
        "--dtype is required; expected a dtype such as float32, float16, "
        "bfloat16 or int32 (or a comma list, one per input)");
  }
  std::vector<std::string> names = SplitList(text);
  if (names.size() != 1 && names.size() != inputs) {
    return InvalidArgument("--dtype '" + text + "' names " + std::to_string(names.size()) +
                           " dtypes; expected 1 (for every input) or " + std::to_string(inputs) +
                           " (one per input)");
  }
  std::vector<DataType> dtypes;
  for (const std::string& name : names) {
    Result<DataType> d = ParseDataType(name);
    if (!d.ok())
      return InvalidArgument("--dtype '" + name + "': " + std::string(d.status().message()));
    dtypes.push_back(*d);
  }
  if (dtypes.size() == 1) dtypes.resize(inputs, dtypes.front());
  return dtypes;
}

Result<Shape> ParseShapeOption(const char* option, const std::string& text) {
  Result<Shape> s = Shape::Parse(text);
  if (!s.ok()) {
    return InvalidArgument(std::string(option) + " '" + text +
                           "': " + std::string(s.status().message()) +
                           "; expected comma-separated dims such as 1024,1024");
  }
  return s;
}

std::string DeclaredAttrs(const runtime::OpManifest& op) {
  if (op.attrs.empty()) return "the op declares no attributes";
  std::string s = "declared: ";
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    s += (i ? ", " : "") + op.attrs[i].name + " (" +
         std::string(runtime::ManifestAttrTypeName(op.attrs[i].type)) +
         (op.attrs[i].required ? ", required)" : ", optional)");
  }
  return s;
}

Result<std::map<std::string, runtime::AttrValue>> ParseAttrs(const std::vector<std::string>& given,
                                                             const runtime::OpManifest& op) {
  std::map<std::string, runtime::AttrValue> attrs;
  for (const std::string& item : given) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--attr '" + item + "': expected name=value");
    }
    const std::string name = Trim(std::string_view(item).substr(0, eq));
    const auto decl = std::find_if(op.attrs.begin(), op.attrs.end(),
                                   [&](const runtime::ManifestAttr& a) { return a.name == name; });
    if (decl == op.attrs.end()) {
      return InvalidArgument("--attr '" + item + "': " + op.op + " has no attribute '" + name +
                             "'; " + DeclaredAttrs(op));
    }
    if (attrs.count(name) != 0) {
      return InvalidArgument("--attr '" + item + "': attribute '" + name + "' given twice");
    }
    Result<runtime::AttrValue> v = ParseAttrValue(decl->type, Trim(item.substr(eq + 1)));
    if (!v.ok()) {
      return InvalidArgument("--attr '" + item + "': " + std::string(v.status().message()) +
                             "; expected " +
                             std::string(runtime::ManifestAttrTypeName(decl->type)));
    }
    attrs.emplace(name, std::move(*v));
  }
  for (const runtime::ManifestAttr& a : op.attrs) {
    if (a.required && attrs.count(a.name) == 0) {
      return InvalidArgument(op.op + " requires attribute '" + a.name + "' (" +
                             std::string(runtime::ManifestAttrTypeName(a.type)) +
                             "); pass --attr " + a.name + "=<value>");
    }
  }
  return attrs;
}

// The output dtype: --out-dtype, else int attribute dst_type, else the first input's.
Result<DataType> OutputDtype(const OpCallOptions& options,
                             const std::map<std::string, runtime::AttrValue>& attrs,
                             const std::vector<DataType>& inputs) {
  if (!options.out_dtype.empty()) {
    Result<DataType> d = ParseDataType(options.out_dtype);
    if (!d.ok()) {
      return InvalidArgument("--out-dtype '" + options.out_dtype +
                             "': " + std::string(d.status().message()));
    }
    return *d;
  }
  if (const auto it = attrs.find("dst_type"); it != attrs.end()) {
    if (const auto* code = std::get_if<int64_t>(&it->second)) {
      if (*code < 0 || *code > 255 || !IsValidDataType(static_cast<int>(*code))) {
        return InvalidArgument("--attr dst_type=" + std::to_string(*code) +
                               ": not a DataType code; expected e.g. 0 (float32), 1 (float16), "
                               "27 (bfloat16), 3 (int32)");
      }
      return static_cast<DataType>(*code);
    }
  }
  return inputs.empty() ? DataType::kFloat32 : inputs.front();
}

// Row ops take one --shape (x, or x1 for AddRmsNorm): a missing gamma or beta gets [last dim of
// x], any other missing input x's shape.
#define TESSERA_CLI_OP_NAME(Op) #Op,
constexpr std::string_view kRowOps[] = {TESSERA_BUILTIN_ROW_OPS(TESSERA_CLI_OP_NAME)};
#undef TESSERA_CLI_OP_NAME

// The built-in row ops (RmsNorm, AddRmsNorm, LayerNorm, Softmax, SwiGlu) take one --shape.
bool IsRowOp(std::string_view op) {
  return std::find(std::begin(kRowOps), std::end(kRowOps), op) != std::end(kRowOps);
}

Status DeriveRowOpShapes(const runtime::OpManifest& op, std::vector<std::string>& shapes) {
  if (shapes.empty() || shapes.size() >= op.inputs.size()) return OkStatus();
  TESSERA_ASSIGN_OR_RETURN(const Shape first, ParseShapeOption("--shape", shapes.front()));
  const std::string row = first.rank() > 0 ? std::to_string(first.dim(first.rank() - 1)) : "";
  for (size_t i = shapes.size(); i < op.inputs.size(); ++i) {
    const std::string& name = op.inputs[i].name;
    shapes.push_back((name == "gamma" || name == "beta") && !row.empty() ? row : shapes.front());
  }
  return OkStatus();
}

// SwiGlu halves the last dim of x (an odd one is left for the op to reject).
Shape SwiGluOutputShape(const Shape& x) {
  if (x.rank() == 0 || x.dim(x.rank() - 1) % 2 != 0) return x;
  std::vector<int64_t> dims(x.dims().begin(), x.dims().end());
  dims.back() /= 2;
  return *Shape::Make(dims);
}

}  // namespace

void AddOpCallOptions(CLI::App* cmd, OpCallOptions& options) {
  cmd->add_option("op", options.op, "Op type, e.g. Add")->required();
  AddCallDescriptionOptions(cmd, options);
  cmd->add_flag("--json", options.json, "Print JSON");
}

void AddCallDescriptionOptions(CLI::App* cmd, OpCallOptions& options) {
  cmd->add_option("--shape", options.shapes, "Shape of one input, e.g. 1024,1024 (once per input)");
  cmd->add_option("--dtype", options.dtype,
                  "Input dtype (float32, float16, bfloat16, int32, ...), or one per input");
  cmd->add_option("--attr", options.attrs, "Attribute name=value (lists as 1,2,3)");
  cmd->add_option("--out-shape", options.out_shape, "Output shape (default: broadcast of inputs)");
  cmd->add_option("--out-dtype", options.out_dtype,
                  "Output dtype (default: attr dst_type, else the input dtype)");
}

Result<runtime::AttrValue> ParseAttrValue(runtime::ManifestAttrType type, const std::string& text) {
  using T = runtime::ManifestAttrType;
  switch (type) {
    case T::kInt: {
      TESSERA_ASSIGN_OR_RETURN(const int64_t v, ParseInt(text));
      return runtime::AttrValue(v);
    }
    case T::kFloat: {
      TESSERA_ASSIGN_OR_RETURN(const float v, ParseFloat(text));
      return runtime::AttrValue(v);
    }
    case T::kBool: {
      TESSERA_ASSIGN_OR_RETURN(const bool v, ParseBool(text));
      return runtime::AttrValue(v);
    }
    case T::kString:
      return runtime::AttrValue(text);
    case T::kListInt: {
      std::vector<int64_t> v;
      for (const std::string& item : SplitList(text)) {
        TESSERA_ASSIGN_OR_RETURN(const int64_t x, ParseInt(item));
        v.push_back(x);
      }
      return runtime::AttrValue(std::move(v));
    }
    case T::kListFloat: {
      std::vector<float> v;
      for (const std::string& item : SplitList(text)) {
        TESSERA_ASSIGN_OR_RETURN(const float x, ParseFloat(item));
        v.push_back(x);
      }
      return runtime::AttrValue(std::move(v));
    }
  }
  return InvalidArgument("unknown attribute type");
}

Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes) {
  int rank = 0;
  for (const Shape& s : shapes)
    rank = std::max(rank, s.rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  for (const Shape& s : shapes) {
    for (int i = 0; i < s.rank(); ++i) {
      int64_t& d = dims[static_cast<size_t>(rank - s.rank() + i)];
      const int64_t v = s.dim(i);
      if (d != v && d != 1 && v != 1) {
        std::string all;
        for (const Shape& t : shapes)
          all += (all.empty() ? "" : " and ") + t.ToString();
        return InvalidArgument("input shapes " + all + " cannot be broadcast: dimension " +
                               std::to_string(i - s.rank()) + " is " + std::to_string(d) + " vs " +
                               std::to_string(v) +
                               " (numpy rule: equal, or one of them 1); pass --out-shape to "
                               "choose the output shape yourself");
      }
      if (d == 1) d = v;
    }
  }
  return Shape::Make(std::span<const int64_t>(dims.data(), dims.size()));
}

Result<runtime::PackageSet> LoadPackageSet() {
  TESSERA_ASSIGN_OR_RETURN(
      const runtime::PackageSearch search,
      runtime::ResolvePackageSearchWithLinked(runtime::ProcessEnv(), runtime::BuiltinPackageDir()));
  return runtime::LoadPackages(search);
}

Result<ResolvedCall> BuildOpCall(const OpCallOptions& options) {
  TESSERA_ASSIGN_OR_RETURN(const runtime::PackageSet set, LoadPackageSet());
  TESSERA_ASSIGN_OR_RETURN(const runtime::OpMatch match, runtime::FindOp(set, options.op));
  const runtime::OpManifest& op = *match.op;
  for (const auto& p : op.inputs) {
    if (p.mode == runtime::ManifestParamMode::kDynamic) {
      return Unimplemented(op.op + ": input " + p.name +
                           " is dynamic (a list of tensors); the CLI passes one tensor per input");
    }
  }
  size_t required = 0;
  for (const auto& p : op.inputs)
    required += p.mode == runtime::ManifestParamMode::kRequired;
  std::vector<std::string> shapes_given = options.shapes;
  if (IsRowOp(op.op)) TESSERA_RETURN_IF_ERROR(DeriveRowOpShapes(op, shapes_given));
  if (shapes_given.size() < required || shapes_given.size() > op.inputs.size()) {
    std::string names;
    for (const auto& p : op.inputs)
      names += (names.empty() ? "" : ", ") + p.name + " (" +
               std::string(runtime::ManifestParamModeName(p.mode)) + ")";
    return InvalidArgument(op.op + " got " + std::to_string(shapes_given.size()) +
                           " --shape options; expected one per input: " + names);
  }
  TESSERA_ASSIGN_OR_RETURN(const std::vector<DataType> dtypes,
                           ParseInputDtypes(options.dtype, shapes_given.size()));
  ResolvedCall rc;
  rc.op = op;
  rc.package_dir = match.package->candidate.dir.string();
  rc.call.op_type = op.op;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < shapes_given.size(); ++i) {
    TESSERA_ASSIGN_OR_RETURN(Shape s, ParseShapeOption("--shape", shapes_given[i]));
    shapes.push_back(s);
    rc.call.inputs.push_back(runtime::TensorArg{TensorDesc{dtypes[i], s, Format::kND, {}}});
  }
  TESSERA_ASSIGN_OR_RETURN(rc.call.attrs, ParseAttrs(options.attrs, op));
  Shape out_shape;
  if (!options.out_shape.empty()) {
    TESSERA_ASSIGN_OR_RETURN(out_shape, ParseShapeOption("--out-shape", options.out_shape));
  } else {
    TESSERA_ASSIGN_OR_RETURN(out_shape, BroadcastShapes(shapes));
    if (op.op == "SwiGlu") out_shape = SwiGluOutputShape(out_shape);
  }
  TESSERA_ASSIGN_OR_RETURN(const DataType out_dtype, OutputDtype(options, rc.call.attrs, dtypes));
  for (size_t i = 0; i < op.outputs.size(); ++i)
    rc.call.outputs.push_back(
        runtime::TensorArg{TensorDesc{out_dtype, out_shape, Format::kND, {}}});
  for (size_t i = 0; i < rc.call.inputs.size(); ++i) {
    if (Status st = rc.call.inputs[i]->desc.StorageBytes().status(); !st.ok()) {
      return InvalidArgument("--shape '" + shapes_given[i] + "': " + std::string(st.message()));
    }
  }
  for (const auto& out : rc.call.outputs) {
    if (Status st = out.desc.StorageBytes().status(); !st.ok()) {
      return InvalidArgument("output " + out.desc.ToString() + ": " + std::string(st.message()));
    }
  }
  return rc;
}

DeviceBuffers::~DeviceBuffers() {
  for (void* p : ptrs_) {
    if (Status st = device::Free(p); !st.ok())
      std::fprintf(stderr, "tessera: freeing device memory: %s\n", st.ToString().c_str());
  }
}

Result<void*> DeviceBuffers::Alloc(uint64_t bytes) {
  TESSERA_ASSIGN_OR_RETURN(void* p, device::Malloc(std::max<uint64_t>(bytes, 1)));
  ptrs_.push_back(p);
  return p;
}

Status DeviceBuffers::Bind(runtime::OpCall& call) {
  for (auto& in : call.inputs) {
    if (!in) continue;
    TESSERA_ASSIGN_OR_RETURN(const int64_t bytes, in->desc.StorageBytes());
    TESSERA_ASSIGN_OR_RETURN(in->address, Alloc(static_cast<uint64_t>(bytes)));
  }
  for (auto& out : call.outputs) {
    TESSERA_ASSIGN_OR_RETURN(const int64_t bytes, out.desc.StorageBytes());
    TESSERA_ASSIGN_OR_RETURN(out.address, Alloc(static_cast<uint64_t>(bytes)));
  }
  return OkStatus();
}

Result<void*> DeviceBuffers::Workspace(uint64_t bytes) {
  if (bytes <= workspace_bytes_) return workspace_;
  TESSERA_ASSIGN_OR_RETURN(workspace_, Alloc(bytes));
  workspace_bytes_ = bytes;
  return workspace_;
}

int64_t NumElements(const TensorDesc& desc) {
  return desc.shape.NumElements().value_or(0);
}

HostTensor::HostTensor(TensorDesc desc)
    : desc_(std::move(desc)),
      numel_(NumElements(desc_)),
      bytes_(static_cast<size_t>(numel_) * DataTypeSize(desc_.dtype)) {}

double HostTensor::Get(int64_t i) const {
  return runtime::ReadElement(desc_.dtype, bytes_.data(), i);
}

void HostTensor::Set(int64_t i, double v) {
  runtime::WriteElement(desc_.dtype, bytes_.data(), i, v);
}

nlohmann::json AttrJson(const runtime::AttrValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

nlohmann::json CallJson(const runtime::OpCall& call) {
  nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array(),
                 attrs = nlohmann::json::object();
  for (const auto& in : call.inputs)
    inputs.push_back(in ? nlohmann::json(in->desc.ToString()) : nlohmann::json());
  for (const auto& out : call.outputs)
    outputs.push_back(out.desc.ToString());
  for (const auto& [name, value] : call.attrs)
    attrs[name] = AttrJson(value);
  return {{"inputs", inputs}, {"outputs", outputs}, {"attrs", attrs}};
}

std::string AttrsText(const std::map<std::string, runtime::AttrValue>& attrs) {
  std::string s;
  for (const auto& [name, value] : attrs)
    s += (s.empty() ? "" : " ") + name + "=" + AttrJson(value).dump();
  return s;
}

int Fail(const char* command, const std::string& message) {
  std::fprintf(stderr, "tessera %s: %s\n", command, message.c_str());
  return 1;
}

}  // namespace tessera::cli
