// tessera_package_tool: writes an operator package's manifest.json from its built libraries.
//
//   tessera_package_tool --dir PKG --name builtin --version 0.1.0 --ops-lib lib/libbuiltin_ops.so
//       --kernels x86-64-v3=kernels/x86-64-v3/libbuiltin_kernels.so --kernels x86-64-v2=...
//
// It loads the op library (op definitions), lists the kernel entries of the lowest kernel library
// this machine can run (all kernel libraries are built from the same sources), and records per op
// and SoC one binary per supported dtype/format combination, with the library's sha256.
#include <dlfcn.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/device/arch_spec.h"
#include "tessera/runtime/kernel_entry.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/package.h"

namespace fs = std::filesystem;
using namespace tessera;
using namespace tessera::runtime;

namespace {

ManifestParamMode ModeOf(Option option) {
  switch (option) {
    case Option::OPTIONAL:
      return ManifestParamMode::kOptional;
    case Option::DYNAMIC:
      return ManifestParamMode::kDynamic;
    default:
      return ManifestParamMode::kRequired;
  }
}

ManifestAttr AttrOf(const OpAttrDef& a) {
  ManifestAttr out;
  out.name = a.name();
  out.required = a.requirement() == Option::REQUIRED;
  const AttrValue& v = a.default_value();
  switch (*a.kind()) {
    case AttrKind::kInt:
      out.type = ManifestAttrType::kInt;
      out.default_value = std::get<int64_t>(v);
      break;
    case AttrKind::kFloat:
      out.type = ManifestAttrType::kFloat;
      out.default_value = static_cast<double>(std::get<float>(v));
      break;
    case AttrKind::kBool:
      out.type = ManifestAttrType::kBool;
      out.default_value = std::get<bool>(v);
      break;
    case AttrKind::kString:
      out.type = ManifestAttrType::kString;
      out.default_value = std::get<std::string>(v);
      break;
    case AttrKind::kIntList:
      out.type = ManifestAttrType::kListInt;
      out.default_value = std::get<std::vector<int64_t>>(v);
      break;
    case AttrKind::kFloatList: {
      out.type = ManifestAttrType::kListFloat;
      const auto& f = std::get<std::vector<float>>(v);
      out.default_value = std::vector<double>(f.begin(), f.end());
      break;
    }
  }
  if (out.required) out.default_value.reset();
  return out;
}

std::vector<ManifestParam> ParamsOf(const OpDef& op, const std::vector<OpParamDef>& params) {
  std::vector<ManifestParam> out;
  for (const OpParamDef& p : params) {
    ManifestParam m;
    m.name = p.name();
    m.mode = ModeOf(p.type());
    const OpParamDef* source = &p;
    // Followed parameters record the dtypes/formats they copy.
    for (int guard = 0; source->follow() && guard < 16; ++guard) {
      for (const auto* list : {&op.inputs(), &op.outputs()}) {
        for (const auto& q : *list) {
          if (q.name() == *source->follow()) source = &q;
        }
      }
    }
    m.dtypes = source->dtypes();
    m.formats = source->formats().empty() ? std::vector<Format>(m.dtypes.size(), Format::kND)
                                          : source->formats();
    out.push_back(std::move(m));
  }
  return out;
}

Status Run(const fs::path& dir, const std::string& name, const std::string& version,
           const std::string& ops_lib, const std::vector<std::string>& kernel_specs) {
  void* ops = dlopen((dir / ops_lib).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (ops == nullptr)
    return NotFound("cannot load op library " + (dir / ops_lib).string() + ": " + dlerror());
  auto list_ops = reinterpret_cast<OpDefinitionsFn>(dlsym(ops, kOpDefinitionsSymbol));
  if (list_ops == nullptr) {
    return NotFound("op library " + ops_lib + " does not export " + kOpDefinitionsSymbol +
                    " (add TESSERA_OP_LIBRARY() to one source)");
  }
  size_t op_count = 0;
  const OpFactory* factories = list_ops(&op_count);
  std::vector<std::unique_ptr<OpDef>> defs;
  for (size_t i = 0; i < op_count; ++i) {
    defs.emplace_back(factories[i]());
    TESSERA_RETURN_IF_ERROR(defs.back()->Validate());
  }

  // SoC -> relative library path; entries come from the lowest level this machine runs.
  std::vector<std::pair<std::string, std::string>> kernels;
  for (const std::string& spec : kernel_specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos)
      return InvalidArgument("--kernels '" + spec + "': expected SOC=PATH");
    kernels.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  }
  const std::string machine = device::DetectSoc();
  const std::pair<std::string, std::string>* runnable = nullptr;
  for (const auto& k : kernels) {
    if (!SocRunsOn(k.first, machine)) continue;
    if (runnable == nullptr || SocRunsOn(k.first, runnable->first)) runnable = &k;
  }
  if (runnable == nullptr) {
    return FailedPrecondition("none of the kernel libraries runs on this machine (" + machine +
                              "); build at least one for a SoC it supports");
  }
  void* klib = dlopen((dir / runnable->second).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (klib == nullptr)
    return NotFound("cannot load kernel library " + runnable->second + ": " + dlerror());
  auto list_entries = reinterpret_cast<KernelEntriesFn>(dlsym(klib, kKernelEntriesSymbol));
  if (list_entries == nullptr) {
    return NotFound("kernel library " + runnable->second + " does not export " +
                    kKernelEntriesSymbol + " (add TESSERA_KERNEL_LIBRARY() to one source)");
  }
  size_t entry_count = 0;
  const KernelEntryInfo* entries = list_entries(&entry_count);

  PackageManifest manifest;
  manifest.package = name;
  manifest.version = version;
  manifest.tiling_library = ops_lib;
  for (const auto& def : defs) {
    OpManifest op;
    op.op = def->type();
    op.kernel = def->KernelName();
    op.tiling_schema_hash = def->tiling_schema_hash();
    op.inputs = ParamsOf(*def, def->inputs());
    op.outputs = ParamsOf(*def, def->outputs());
    for (const auto& a : def->attrs())
      op.attrs.push_back(AttrOf(a));
    std::vector<ManifestKernel> op_kernels;
    for (size_t e = 0; e < entry_count; ++e) {
      if (op.kernel != entries[e].kernel) continue;
      ManifestKernel k;
      k.tiling_key = entries[e].tiling_key;
      const std::string type = entries[e].kernel_type;
      k.kernel_type = type == "AIC"   ? ManifestKernelType::kAic
                      : type == "MIX" ? ManifestKernelType::kMix
                                      : ManifestKernelType::kAiv;
      op_kernels.push_back(k);
    }
    if (op_kernels.empty()) {
      return NotFound("op " + op.op + ": the kernel library has no entry named '" + op.kernel +
                      "' (TESSERA_KERNEL_ENTRY(" + op.kernel + ", key, AIV, fn))");
    }
    for (const auto& [soc, rel] : kernels) {
      auto combos = def->Combinations(soc);
      if (!combos.ok()) continue;  // the op is not configured for this SoC
      TESSERA_ASSIGN_OR_RETURN(std::string digest, Sha256File(dir / rel));
      for (const Combination& c : *combos) {
        std::vector<SimplifiedKeyTensor> ins, outs;
        for (size_t i = 0; i < c.dtypes.size(); ++i) {
          (i < def->inputs().size() ? ins : outs).push_back({c.dtypes[i], c.formats[i]});
        }
        ManifestBinary b;
        b.soc = soc;
        b.simplified_key = BuildSimplifiedKey(op.op, false, 0, ins, outs);
        b.bin_path = rel;
        b.sha256 = digest;
        b.kernels = op_kernels;
        bool duplicate = false;
        for (const auto& existing : op.binaries)
          duplicate =
              duplicate || (existing.soc == soc && existing.simplified_key == b.simplified_key);
        if (!duplicate) op.binaries.push_back(std::move(b));
      }
    }
    manifest.ops.push_back(std::move(op));
  }
  return WriteManifestFile(dir / kManifestFileName, manifest);
}

// ---- Typed two-stage C API of a package (the analogue of CANN's op_api) ----

std::string CName(const std::string& s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

Result<std::vector<std::unique_ptr<OpDef>>> LoadDefs(const fs::path& library) {
  void* ops = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (ops == nullptr)
    return NotFound("cannot load op library " + library.string() + ": " + dlerror());
  auto list_ops = reinterpret_cast<OpDefinitionsFn>(dlsym(ops, kOpDefinitionsSymbol));
  if (list_ops == nullptr)
    return NotFound("op library " + library.string() + " does not export " + kOpDefinitionsSymbol);
  size_t count = 0;
  const OpFactory* factories = list_ops(&count);
  std::vector<std::unique_ptr<OpDef>> defs;
  for (size_t i = 0; i < count; ++i) {
    defs.emplace_back(factories[i]());
    TESSERA_RETURN_IF_ERROR(defs.back()->Validate());
  }
  return defs;
}

// Writes <pkg>_nn.h (declarations) and its C source: one GetWorkspaceSize/run pair per op, typed
// from the OpDef, calling the op by name through tsrOpGetWorkspaceSize.
Status WriteOpApi(const fs::path& library, const std::string& package, const fs::path& header,
                  const fs::path& source) {
  TESSERA_ASSIGN_OR_RETURN(auto defs, LoadDefs(library));
  const std::string pkg = CName(package);
  std::string h =
      "/* Generated by tessera_package_tool: typed two-stage C API of operator package " + package +
      ". The functions call each op by name, so the usual package priority applies. */\n"
      "#ifndef TESSERA_PACKAGE_" +
      pkg + "_NN_H_\n#define TESSERA_PACKAGE_" + pkg +
      "_NN_H_\n\n"
      "#include \"tessera/tessera_nn.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  std::string c = "/* Generated by tessera_package_tool. */\n#include \"" +
                  header.filename().string() + "\"\n\n";
  for (const auto& def : defs) {
    const std::string fn = "tsr_" + pkg + "_" + CName(def->type());
    std::string params, in_array, out_array, attr_fill;
    for (const auto& p : def->inputs()) {
      if (p.type() == Option::DYNAMIC) {
        return Unimplemented("op " + def->type() + ": dynamic input '" + p.name() +
                             "' is not supported by the typed C API generator yet");
      }
      params += "const tsrTensor* " + CName(p.name()) + ", ";
      in_array += CName(p.name()) + ", ";
    }
    for (const auto& a : def->attrs()) {
      const std::string n = CName(a.name());
      std::string set = "  attrs[" + std::to_string(&a - def->attrs().data()) + "].name = \"" +
                        a.name() + "\";\n";
      const std::string at = "  attrs[" + std::to_string(&a - def->attrs().data()) + "].";
      switch (*a.kind()) {
        case AttrKind::kInt:
          params += "int64_t " + n + ", ";
          set += at + "type = TSR_ATTR_INT;\n" + at + "intValue = " + n + ";\n";
          break;
        case AttrKind::kFloat:
          params += "float " + n + ", ";
          set += at + "type = TSR_ATTR_FLOAT;\n" + at + "floatValue = " + n + ";\n";
          break;
        case AttrKind::kBool:
          params += "int " + n + ", ";
          set += at + "type = TSR_ATTR_BOOL;\n" + at + "boolValue = " + n + ";\n";
          break;
        case AttrKind::kString:
          params += "const char* " + n + ", ";
          set += at + "type = TSR_ATTR_STRING;\n" + at + "stringValue = " + n + ";\n";
          break;
        case AttrKind::kIntList:
          params += "const int64_t* " + n + ", uint64_t " + n + "Count, ";
          set += at + "type = TSR_ATTR_INT_LIST;\n" + at + "intList = " + n + ";\n" + at +
                 "listCount = " + n + "Count;\n";
          break;
        case AttrKind::kFloatList:
          params += "const float* " + n + ", uint64_t " + n + "Count, ";
          set += at + "type = TSR_ATTR_FLOAT_LIST;\n" + at + "floatList = " + n + ";\n" + at +
                 "listCount = " + n + "Count;\n";
          break;
      }
      attr_fill += set;
    }
    for (const auto& p : def->outputs()) {
      params += "tsrTensor* " + CName(p.name()) + ", ";
      out_array += CName(p.name()) + ", ";
    }
    const std::string stage1 = "tsrStatus " + fn + "GetWorkspaceSize(" + params +
                               "uint64_t* workspaceSize, tsrOpExecutor** executor)";
    const std::string stage2 =
        "tsrStatus " + fn +
        "(void* workspace, uint64_t workspaceSize, tsrOpExecutor* executor, tsrStream stream)";
    h += "/* " + def->type() + ": stage 1. Optional inputs may be NULL. */\n" + stage1 + ";\n/* " +
         def->type() + ": stage 2. */\n" + stage2 + ";\n\n";
    const size_t n_in = def->inputs().size(), n_out = def->outputs().size(),
                 n_attr = def->attrs().size();
    c += stage1 + " {\n";
    c += "  const tsrTensor* inputs[" + std::to_string(n_in ? n_in : 1) + "] = {" +
         (n_in ? in_array.substr(0, in_array.size() - 2) : "0") + "};\n";
    c += "  const tsrTensor* outputs[" + std::to_string(n_out) + "] = {" +
         out_array.substr(0, out_array.size() - 2) + "};\n";
    c += "  tsrAttr attrs[" + std::to_string(n_attr ? n_attr : 1) + "] = {{0}};\n" + attr_fill;
    c += "  return tsrOpGetWorkspaceSize(\"" + def->type() + "\", inputs, " + std::to_string(n_in) +
         ", outputs, " + std::to_string(n_out) + ", attrs, " + std::to_string(n_attr) +
         ", workspaceSize, executor);\n}\n\n";
    c += stage2 + " {\n  return tsrOpExecute(workspace, workspaceSize, executor, stream);\n}\n\n";
  }
  h += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  std::error_code ec;
  fs::create_directories(header.parent_path(), ec);
  fs::create_directories(source.parent_path(), ec);
  std::ofstream(header) << h;
  std::ofstream(source) << c;
  if (!fs::exists(header) || !fs::exists(source))
    return Internal("could not write " + header.string() + " / " + source.string());
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes an operator package's manifest.json from its built libraries"};
  std::string dir, name, version = "0.1.0", ops_lib;
  std::vector<std::string> kernels;
  app.add_option("--dir", dir, "Package directory")->required();
  app.add_option("--name", name, "Package name")->required();
  app.add_option("--version", version, "Package version");
  app.add_option("--ops-lib", ops_lib, "Op library, relative to --dir")->required();
  app.add_option("--kernels", kernels, "SOC=PATH of a kernel library, relative to --dir");
  std::string api_header, api_source;
  app.add_option("--api-header", api_header,
                 "Write the typed C API header here (and skip the manifest)");
  app.add_option("--api-source", api_source, "Write the typed C API source here");
  CLI11_PARSE(app, argc, argv);
  Status st;
  if (!api_header.empty() || !api_source.empty()) {
    st = api_header.empty() || api_source.empty()
             ? InvalidArgument("--api-header and --api-source go together")
             : WriteOpApi(fs::path(dir) / ops_lib, name, api_header, api_source);
  } else if (kernels.empty()) {
    st = InvalidArgument("--kernels SOC=PATH is required to write a manifest");
  } else {
    st = Run(dir, name, version, ops_lib, kernels);
  }
  if (!st.ok()) {
    std::fprintf(stderr, "tessera_package_tool: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
