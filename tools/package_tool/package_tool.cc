// tessera_package_tool: writes an operator package's manifest.json from its built libraries.
//
//   tessera_package_tool --dir PKG --name builtin --version 0.1.0 --ops-lib lib/libbuiltin_ops.so
//       --kernels x86-64-v3=kernels/x86-64-v3/libbuiltin_kernels.so --kernels x86-64-v2=...
//
// It loads the op library (op definitions), lists the kernel entries of the lowest kernel library
// this machine can run (all kernel libraries are built from the same sources), and records per op
// and SoC one binary per simplified key of the op's mode (mode 0: per supported dtype/format
// combination; 1: also per declared binary value; 2: per declared fragment), each with the entries
// its key selects and the library's sha256. `--tiling-keys` marks a selective build.
// A target may be a compute unit (CPU model); when no library runs on this machine the entries are
// listed in a child process. `--embed-manifest --linked-soc T --output F` instead writes a C++
// source registering the package's manifest for its linked form (linked_package.h).
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/package/package.h"
#include "tessera/device/arch_spec.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/op_registration.h"

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

// One binary of an op on one SoC: its simplified key and the tiling keys it holds (nullopt: all
// of the op's entries).
struct KeyedBinary {
  std::string key;
  std::optional<std::vector<uint64_t>> tiling_keys;
};

// Keeps the entries of `narrowing` in `keys` (nullopt: no restriction yet).
void Narrow(std::optional<std::vector<uint64_t>>& keys, const std::vector<uint64_t>& narrowing) {
  if (narrowing.empty()) return;
  if (!keys) {
    keys = narrowing;
    return;
  }
  std::erase_if(*keys, [&](uint64_t k) {
    return std::find(narrowing.begin(), narrowing.end(), k) == narrowing.end();
  });
}

// The binaries of `def` for the supported `combos` of one SoC, by its simplified-key mode: mode 0
// one per combination; mode 1 one per combination and combination of declared binary values
// (dynamic inputs counted 1, as the runtime passes one tensor per parameter); mode 2 one per
// declared fragment.
std::vector<KeyedBinary> BinaryKeys(const OpDef& def, const std::vector<Combination>& combos) {
  std::vector<KeyedBinary> out;
  if (def.simplified_key_mode() == 2) {
    for (const auto& f : def.simplified_key_fragments()) {
      KeyedBinary b{BuildCustomSimplifiedKey(def.type(), false, 0, f.fragment), std::nullopt};
      Narrow(b.tiling_keys, f.tiling_keys);
      out.push_back(std::move(b));
    }
    return out;
  }
  std::vector<const OpAttrDef*> keyed_attrs;
  for (const OpAttrDef& a : def.attrs()) {
    if (!a.binary_values().empty()) keyed_attrs.push_back(&a);
  }
  for (const Combination& c : combos) {
    std::vector<SimplifiedKeyTensor> ins, outs;
    for (size_t i = 0; i < c.dtypes.size(); ++i) {
      const bool input = i < def.inputs().size();
      const bool dynamic = input && def.inputs()[i].type() == Option::DYNAMIC;
      (input ? ins : outs).push_back({c.dtypes[i], c.formats[i], dynamic ? 1 : -1});
    }
    if (def.simplified_key_mode() == 0) {
      out.push_back({BuildSimplifiedKey(def.type(), false, 0, ins, outs), std::nullopt});
      continue;
    }
    // Every combination of binary values: an odometer over the keyed attributes.
    std::vector<size_t> pick(keyed_attrs.size(), 0);
    while (true) {
      std::vector<SimplifiedKeyAttr> attrs;
      KeyedBinary b;
      for (size_t a = 0; a < keyed_attrs.size(); ++a) {
        const auto& v = keyed_attrs[a]->binary_values()[pick[a]];
        attrs.push_back({keyed_attrs[a]->name(), *SimplifiedKeyValueText(v.value)});
        Narrow(b.tiling_keys, v.tiling_keys);
      }
      b.key = BuildSimplifiedKey(def.type(), false, 0, ins, outs, attrs);
      out.push_back(std::move(b));
      size_t a = 0;
      for (; a < pick.size(); ++a) {
        if (++pick[a] < keyed_attrs[a]->binary_values().size()) break;
        pick[a] = 0;
      }
      if (a == pick.size()) break;
    }
  }
  return out;
}

// The entries a kernel library lists (it is loaded into this process and stays loaded).
Result<std::vector<KernelEntryInfo>> ListEntries(const fs::path& library) {
  void* klib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (klib == nullptr)
    return NotFound("cannot load kernel library " + library.string() + ": " + dlerror());
  auto list = reinterpret_cast<KernelEntriesFn>(dlsym(klib, kKernelEntriesSymbol));
  if (list == nullptr) {
    return NotFound("kernel library " + library.string() + " does not export " +
                    kKernelEntriesSymbol + " (add TESSERA_KERNEL_LIBRARY() to one source)");
  }
  size_t count = 0;
  const KernelEntryInfo* entries = list(&count);
  return std::vector<KernelEntryInfo>(entries, entries + count);
}

// ListEntries in a forked child that sends "kernel key type args" lines back; names are kept in
// `names`. The entries carry no function pointers.
Result<std::vector<KernelEntryInfo>> ListEntriesInChild(const fs::path& library,
                                                        const std::string& machine,
                                                        const std::string& unit,
                                                        std::deque<std::string>& names) {
  int fds[2];
  if (pipe(fds) != 0) return Internal("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) return Internal("fork failed");
  if (pid == 0) {
    close(fds[0]);
    Result<std::vector<KernelEntryInfo>> listed = ListEntries(library);
    std::string text;
    if (listed.ok()) {
      for (const KernelEntryInfo& e : *listed) {
        text += std::string(e.kernel) + " " + std::to_string(e.tiling_key) + " " + e.kernel_type +
                " " + std::to_string(e.num_args) + "\n";
      }
    } else {
      text = "! " + std::string(listed.status().message()) + "\n";
    }
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) _exit(1);
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
    text.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  const std::string here = unit.empty() ? machine : unit + " (" + machine + ")";
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    return FailedPrecondition("none of the kernel libraries is built for this machine (" + here +
                              ") and loading " + library.string() +
                              " failed here; build the package on a machine it targets, or add " +
                              "a SoC this machine runs");
  }
  std::vector<KernelEntryInfo> entries;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("! ", 0) == 0) return NotFound(line.substr(2));
    std::istringstream fields(line);
    std::string kernel, type;
    KernelEntryInfo e{};
    fields >> kernel >> e.tiling_key >> type >> e.num_args;
    names.push_back(kernel);
    e.kernel = names.back().c_str();
    names.push_back(type);
    e.kernel_type = names.back().c_str();
    entries.push_back(e);
  }
  return entries;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items)
    out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Why op `def` got no binary in package `package` built for `kernels` (target -> library), and
// what to change: the op's AddConfig SoCs and the package's targets have no ISA level in common,
// or a configured SoC was built but the op declares no dtype/format combination there.
std::string NoBinariesMessage(const std::string& package, const OpDef& def,
                              const std::vector<std::pair<std::string, std::string>>& kernels) {
  std::vector<std::string> built, units;
  bool any_unit = false;
  for (const auto& k : kernels) {
    const bool unit = IsKnownComputeUnit(k.first);
    any_unit = any_unit || unit;
    built.push_back(unit ? k.first + " (" + std::string(SocLevelOf(k.first)) + ")" : k.first);
  }
  const std::vector<std::string> configured = def.socs();
  const std::string head =
      "package " + package + ": op " + def.type() + " ends up with no binaries";
  for (const auto& k : kernels) {
    const auto combos = def.Combinations(std::string(SocLevelOf(k.first)));
    if (combos.ok()) {
      return head + ": it is configured for " + k.first +
             ", which is built, but declares no dtype/format combination there (its DataType "
             "lists, after the AddConfig(\"" +
             std::string(SocLevelOf(k.first)) +
             "\", ...) overrides, are empty); declare at least one dtype per parameter";
    }
  }
  const std::string var = any_unit ? "TESSERA_COMPUTE_UNIT" : "TESSERA_SOC_SERIES";
  const std::string arg = any_unit ? "COMPUTE_UNITS" : "SOCS";
  std::string msg = head + ": its OpDef configures the SoCs " + Join(configured) +
                    " (AddConfig), but the package is built for " + Join(built) + " (" + arg +
                    " of tessera_add_op_package, default " + var +
                    "), and a binary is recorded only for a built target whose ISA level the op "
                    "configures. Change one of: add AddConfig(\"" +
                    std::string(SocLevelOf(kernels.front().first)) + "\") to " + def.type() +
                    "'s OpDef (one call per built level: ";
  std::vector<std::string> levels;
  for (const auto& k : kernels) {
    const std::string level(SocLevelOf(k.first));
    if (std::find(levels.begin(), levels.end(), level) == levels.end()) levels.push_back(level);
  }
  // Configured SoCs this build can compile for: ISA levels of the built targets' architecture.
  const bool arm = SocLevelOf(kernels.front().first).rfind("armv8", 0) == 0;
  std::vector<std::string> buildable;
  for (const std::string& soc : configured) {
    if (IsKnownSoc(soc) && (soc.rfind("armv8", 0) == 0) == arm) buildable.push_back(soc);
  }
  msg += Join(levels) + ")";
  if (buildable.empty()) {
    msg +=
        "; building the package for the op's SoCs instead is not possible here (none is an "
        "ISA level of this build's architecture)";
  } else {
    msg += "; or build the package for a SoC the op configures: SOCS " + Join(buildable) +
           " in tessera_add_op_package(NAME " + package + " ...) or -DTESSERA_SOC_SERIES=\"" +
           buildable.front() + "\"" +
           (any_unit ? " (instead of COMPUTE_UNITS / TESSERA_COMPUTE_UNIT)" : "");
  }
  return msg;
}

Status Run(const fs::path& dir, const std::string& name, const std::string& version,
           const std::string& ops_lib, const std::vector<std::string>& kernel_specs,
           const std::optional<ManifestSelectiveBuild>& selection) {
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
  for (const auto& k : kernels) {
    if (!IsKnownTarget(k.first)) {
      return InvalidArgument("--kernels " + k.first + "=...: " + k.first +
                             " is neither an ISA level nor a compute unit tessera knows");
    }
  }
  const std::string machine = device::DetectSoc(), unit = device::DetectComputeUnit();
  const std::pair<std::string, std::string>* runnable = nullptr;
  for (const auto& k : kernels) {
    if (!BinaryRunsOn(k.first, DeviceTarget{machine, unit})) continue;
    if (runnable == nullptr || SocRunsOn(SocLevelOf(k.first), SocLevelOf(runnable->first)))
      runnable = &k;
  }
  // A package built only for CPUs other than this one is listed in a child process, so a kernel
  // library whose initialisers use instructions this CPU lacks cannot crash the build.
  std::deque<std::string> child_names;
  TESSERA_ASSIGN_OR_RETURN(
      const std::vector<KernelEntryInfo> entry_list,
      runnable ? ListEntries(dir / runnable->second)
               : ListEntriesInChild(dir / kernels.front().second, machine, unit, child_names));
  const size_t entry_count = entry_list.size();
  const KernelEntryInfo* entries = entry_list.data();

  PackageManifest manifest;
  manifest.package = name;
  manifest.version = version;
  manifest.tiling_library = ops_lib;
  TESSERA_ASSIGN_OR_RETURN(manifest.tiling_library_sha256, Sha256File(dir / ops_lib));
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
    op.simplified_key_mode = def->simplified_key_mode();
    // A selective build restricting this op is recorded on its binaries; the compile-time filter
    // (kernel_entry.h) must have left out every other entry.
    std::optional<ManifestSelectiveBuild> selective;
    if (selection) {
      if (const auto keys = SelectedTilingKeys(selection->value, op.op)) {
        selective = selection;
        for (const ManifestKernel& k : op_kernels) {
          if (std::find(keys->begin(), keys->end(), k.tiling_key) == keys->end()) {
            return FailedPrecondition(
                "op " + op.op + ": the kernel library has entry " + op.kernel + "_" +
                std::to_string(k.tiling_key) + ", which " + selection->option + "=" +
                selection->value + " leaves out; its kernel sources were not compiled with " +
                "TESSERA_SELECTED_TILING_KEYS (tessera_add_op_package defines it)");
          }
        }
      }
    }
    if (op_kernels.empty() && !selective) {
      return NotFound("op " + op.op + ": the kernel library has no entry named '" + op.kernel +
                      "' (TESSERA_KERNEL_ENTRY(" + op.kernel + ", key, AIV, fn))");
    }
    for (const auto& [soc, rel] : kernels) {
      auto combos = def->Combinations(std::string(SocLevelOf(soc)));  // a unit as its level
      if (!combos.ok()) continue;  // the op is not configured for this SoC
      TESSERA_ASSIGN_OR_RETURN(std::string digest, Sha256File(dir / rel));
      for (const KeyedBinary& keyed : BinaryKeys(*def, *combos)) {
        ManifestBinary b;
        b.soc = soc;
        b.simplified_key = keyed.key;
        b.bin_path = rel;
        b.sha256 = digest;
        b.selective_build = selective;
        // Exactly the entries the key selects (all of the op's without a declaration).
        for (const ManifestKernel& k : op_kernels) {
          if (!keyed.tiling_keys || std::find(keyed.tiling_keys->begin(), keyed.tiling_keys->end(),
                                              k.tiling_key) != keyed.tiling_keys->end()) {
            b.kernels.push_back(k);
          }
        }
        for (uint64_t wanted : keyed.tiling_keys.value_or(std::vector<uint64_t>{})) {
          const bool built = std::any_of(b.kernels.begin(), b.kernels.end(),
                                         [&](const auto& k) { return k.tiling_key == wanted; });
          if (!built && !selective) {
            return NotFound("op " + op.op + ": binary " + keyed.key + " declares tilingKey " +
                            std::to_string(wanted) + ", but the kernel library has no entry " +
                            op.kernel + "_" + std::to_string(wanted));
          }
        }
        if (b.kernels.empty() && !selective) {
          return InvalidArgument("op " + op.op + ": binary " + keyed.key +
                                 " selects no entry: the tiling-key lists of its binary values "
                                 "have no key in common");
        }
        bool duplicate = false;
        for (const auto& existing : op.binaries)
          duplicate =
              duplicate || (existing.soc == soc && existing.simplified_key == b.simplified_key);
        if (!duplicate) op.binaries.push_back(std::move(b));
      }
    }
    if (op.binaries.empty()) return FailedPrecondition(NoBinariesMessage(name, *def, kernels));
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

// The C parameter type of each attribute kind. One rule for every package: floating-point
// attributes are passed as double (as aclnn passes epsilon), integers as int64_t.
struct AttrParam {
  std::string params;  // the parameter declaration(s), each followed by ", "
  std::string fill;    // C statements setting attrs[i] from the parameter(s)
};

AttrParam AttrParamOf(const OpAttrDef& a, size_t index) {
  const std::string n = CName(a.name());
  const std::string at = "  attrs[" + std::to_string(index) + "].";
  AttrParam out;
  out.fill = at + "name = \"" + a.name() + "\";\n";
  switch (*a.kind()) {
    case AttrKind::kInt:
      out.params = "int64_t " + n + ", ";
      out.fill += at + "type = TSR_ATTR_INT;\n" + at + "intValue = " + n + ";\n";
      break;
    case AttrKind::kFloat:
      out.params = "double " + n + ", ";
      out.fill += at + "type = TSR_ATTR_FLOAT;\n" + at + "floatValue = ToFloat(" + n + ");\n";
      break;
    case AttrKind::kBool:
      out.params = "int " + n + ", ";
      out.fill += at + "type = TSR_ATTR_BOOL;\n" + at + "boolValue = " + n + ";\n";
      break;
    case AttrKind::kString:
      out.params = "const char* " + n + ", ";
      out.fill += at + "type = TSR_ATTR_STRING;\n" + at + "stringValue = " + n + ";\n";
      break;
    case AttrKind::kIntList:
      out.params = "const int64_t* " + n + ", uint64_t " + n + "Count, ";
      out.fill += at + "type = TSR_ATTR_INT_LIST;\n" + at + "intList = " + n + ";\n" + at +
                  "listCount = " + n + "Count;\n";
      break;
    case AttrKind::kFloatList:
      out.params = "const float* " + n + ", uint64_t " + n + "Count, ";
      out.fill += at + "type = TSR_ATTR_FLOAT_LIST;\n" + at + "floatList = " + n + ";\n" + at +
                  "listCount = " + n + "Count;\n";
      break;
  }
  return out;
}

// The generated source's preamble: finds the package directory from the library's own path
// (<package>/lib/lib<name>_op_api.so), so every call is pinned to this package.
constexpr const char* kOpApiPreamble = R"(#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

static char g_package_dir[4096];
static pthread_once_t g_package_dir_once = PTHREAD_ONCE_INIT;

static void FindPackageDir(void) {
  Dl_info info;
  if (dladdr((const void*)&FindPackageDir, &info) == 0 || info.dli_fname == NULL) return;
  const size_t n = strlen(info.dli_fname);
  if (n >= sizeof(g_package_dir)) return;
  memcpy(g_package_dir, info.dli_fname, n + 1);
  for (int up = 0; up < 2; ++up) {
    char* slash = strrchr(g_package_dir, '/');
    if (slash == NULL) {
      g_package_dir[0] = '\0';
      return;
    }
    *slash = '\0';
  }
}

/* The package directory, or "" when the library cannot name its own file. */
static const char* PackageDir(void) {
  pthread_once(&g_package_dir_once, FindPackageDir);
  return g_package_dir;
}

/* A double beyond float's range becomes an infinity (the conversion would be undefined), which the
 * op's attribute check rejects by name. */
static float ToFloat(double v) {
  if (isfinite(v) && fabs(v) > FLT_MAX) return v > 0 ? HUGE_VALF : -HUGE_VALF;
  return (float)v;
}

)";

Status WriteAclnnApi(const std::vector<std::unique_ptr<OpDef>>& defs, const std::string& package,
                     const std::string& prefix, const fs::path& api_header,
                     const fs::path& header_dir, const fs::path& source);

// Writes <pkg>_nn.h (declarations) and its C source: one GetWorkspaceSize/run pair per op, typed
// from the OpDef, each call pinned to this package (tsrOpGetWorkspaceSizeInPackage).
Status WriteOpApi(const fs::path& library, const std::string& package, const std::string& prefix,
                  const fs::path& header, const fs::path& source, const fs::path& aclnn_dir,
                  const fs::path& aclnn_source) {
  TESSERA_ASSIGN_OR_RETURN(auto defs, LoadDefs(library));
  const std::string pkg = CName(package);
  const std::string guard = "TESSERA_PACKAGE_" + pkg + "_NN_H_";
  std::string h =
      "/* Generated by tessera_package_tool: the typed two-stage C API of operator "
      "package " +
      package +
      ". Every call runs the op from this package (the library finds its package "
      "directory itself), whatever else is on the search path. */\n#ifndef " +
      guard + "\n#define " + guard +
      "\n\n#include \"tessera/tessera_nn.h\"\n\n#ifdef __cplusplus\nextern "
      "\"C\" {\n#endif\n\n";
  std::string c = "/* Generated by tessera_package_tool. */\n" + std::string(kOpApiPreamble) +
                  "#include \"" + header.filename().string() + "\"\n\n";
  for (const auto& def : defs) {
    const std::string fn = prefix + CName(def->type());
    std::string params, in_array, out_array, attr_fill;
    for (const auto& p : def->inputs()) {
      if (p.type() == Option::DYNAMIC) {
        return Unimplemented("op " + def->type() + ": dynamic input '" + p.name() +
                             "' is not supported by the typed C API generator yet");
      }
      params += "const tsrTensor* " + CName(p.name()) + ", ";
      in_array += CName(p.name()) + ", ";
    }
    for (size_t i = 0; i < def->attrs().size(); ++i) {
      const AttrParam a = AttrParamOf(def->attrs()[i], i);
      params += a.params;
      attr_fill += a.fill;
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
    c += "  tsrAttr attrs[" + std::to_string(n_attr ? n_attr : 1) + "];\n";
    c += "  memset(attrs, 0, sizeof(attrs));\n" + attr_fill;
    c += "  return tsrOpGetWorkspaceSizeInPackage(PackageDir(), \"" + def->type() + "\", inputs, " +
         std::to_string(n_in) + ", outputs, " + std::to_string(n_out) + ", attrs, " +
         std::to_string(n_attr) + ", workspaceSize, executor);\n}\n\n";
    c += stage2 + " {\n  return tsrOpExecuteAs(\"" + def->type() +
         "\", workspace, workspaceSize, executor, stream);\n}\n\n";
  }
  h += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  std::error_code ec;
  fs::create_directories(header.parent_path(), ec);
  fs::create_directories(source.parent_path(), ec);
  std::ofstream(header) << h;
  std::ofstream(source) << c;
  if (!fs::exists(header) || !fs::exists(source))
    return Internal("could not write " + header.string() + " / " + source.string());
  if (aclnn_source.empty()) return OkStatus();
  return WriteAclnnApi(defs, package, prefix, header, aclnn_dir, aclnn_source);
}

// The aclnn parameter(s) of an attribute (CANN's generated op API types) and the arguments they
// become in the package's typed call; list attributes are unpacked from their array handles first.
struct AclnnAttr {
  std::string params;  // declaration(s), each followed by ", "
  std::string unpack;  // C statements before the call
  std::string args;    // argument(s) of the typed call, each followed by ", "
};

AclnnAttr AclnnAttrOf(const OpAttrDef& a, const std::string& api) {
  const std::string n = CName(a.name());
  switch (*a.kind()) {
    case AttrKind::kInt:
      return {"int64_t " + n + ", ", "", n + ", "};
    case AttrKind::kFloat:
      return {"double " + n + ", ", "", n + ", "};
    case AttrKind::kBool:
      return {"bool " + n + ", ", "", "(int)" + n + ", "};
    case AttrKind::kString:
      return {"const char* " + n + ", ", "", n + ", "};
    case AttrKind::kIntList:
    case AttrKind::kFloatList: {
      const bool ints = *a.kind() == AttrKind::kIntList;
      const std::string elem = ints ? "int64_t" : "float";
      const std::string handle = ints ? "aclIntArray" : "aclFloatArray";
      const std::string get = ints ? "tsrAclnnIntArray" : "tsrAclnnFloatArray";
      std::string unpack = "  const " + elem + "* " + n + "Data = 0;\n  uint64_t " + n +
                           "Count = 0;\n  st = " + get + "(\"" + api + "\", \"" + a.name() +
                           "\", " + n + ", &" + n + "Data, &" + n + "Count);\n" +
                           "  if (st != ACLNN_SUCCESS) return st;\n";
      return {"const " + handle + "* " + n + ", ", unpack, n + "Data, " + n + "Count, "};
    }
  }
  return {};
}

// Writes CANN's op API for each op of the package: a header aclnn_<kernel name>.h per op in
// `header_dir` (as CANN generates them) and one C source whose aclnn<Op>GetWorkspaceSize /
// aclnn<Op> call the package's typed C API (`prefix`, header `api_header`) and map its statuses
// onto aclnn codes (tessera::acl).
Status WriteAclnnApi(const std::vector<std::unique_ptr<OpDef>>& defs, const std::string& package,
                     const std::string& prefix, const fs::path& api_header,
                     const fs::path& header_dir, const fs::path& source) {
  std::error_code ec;
  fs::create_directories(header_dir, ec);
  fs::create_directories(source.parent_path(), ec);
  std::string c =
      "/* Generated by tessera_package_tool: CANN's op API (aclnn) of operator package " + package +
      ", over its typed C API. */\n#include \"" + api_header.filename().string() +
      "\"\n#include \"tessera/compat/host/aclnn_bridge.h\"\n";
  for (const auto& def : defs) {
    const std::string op = CName(def->type());
    const std::string header_name = "aclnn_" + def->KernelName() + ".h";
    const std::string stage1_name = "aclnn" + op + "GetWorkspaceSize";
    std::string params, unpack, args;
    for (const auto& p : def->inputs()) {
      params += "const aclTensor* " + CName(p.name()) + ", ";
      args += CName(p.name()) + ", ";
    }
    for (const auto& a : def->attrs()) {
      const AclnnAttr attr = AclnnAttrOf(a, stage1_name);
      params += attr.params;
      unpack += attr.unpack;
      args += attr.args;
    }
    for (const auto& p : def->outputs()) {
      params += "const aclTensor* " + CName(p.name()) + ", ";
      args += "(aclTensor*)" + CName(p.name()) + ", ";
    }
    const std::string stage1 = "aclnnStatus " + stage1_name + "(" + params +
                               "uint64_t* workspaceSize, aclOpExecutor** executor)";
    const std::string stage2 = "aclnnStatus aclnn" + op +
                               "(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, "
                               "aclrtStream stream)";
    std::string guard = "TESSERA_ACLNN_" + CName(package) + "_" + def->KernelName() + "_H_";
    for (char& ch : guard)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string h =
        "/* Generated by tessera_package_tool: CANN's op API of " + def->type() +
        " (operator package " + package +
        ").\n * Stage 1 checks the call and returns the workspace "
        "size and an executor; stage 2 launches it on the stream. */\n#ifndef " +
        guard + "\n#define " + guard +
        "\n\n#include \"acl/acl_rt.h\"\n#include \"aclnn/aclnn_base.h\"\n\n#ifdef __cplusplus\n"
        "extern \"C\" {\n#endif\n\n" +
        stage1 + ";\n" + stage2 + ";\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    std::ofstream(header_dir / header_name) << h;
    if (!fs::exists(header_dir / header_name))
      return Internal("could not write " + (header_dir / header_name).string());
    c += "#include \"" + header_name + "\"\n";
    std::string body = stage1 + " {\n";
    if (!unpack.empty()) body += "  aclnnStatus st = ACLNN_SUCCESS;\n" + unpack;
    body += "  return tsrAclnnStatus(\"" + stage1_name + "\", " + prefix + op +
            "GetWorkspaceSize(" + args + "workspaceSize, executor));\n}\n\n";
    body += stage2 + " {\n  return tsrAclnnStatus(\"aclnn" + op + "\", " + prefix + op +
            "(workspace, workspaceSize, executor, (tsrStream)stream));\n}\n\n";
    c += "\n" + body;
  }
  std::ofstream(source) << c;
  if (!fs::exists(source)) return Internal("could not write " + source.string());
  return OkStatus();
}

// Writes a C++ source that registers the package's manifest.json text for its linked form, whose
// kernels are compiled for `linked_soc` (linked_package.h).
Status EmbedManifest(const fs::path& dir, const std::string& name, const std::string& linked_soc,
                     const fs::path& output) {
  const fs::path file = dir / kManifestFileName;
  TESSERA_ASSIGN_OR_RETURN(const PackageManifest manifest, ParseManifestFile(file));
  if (manifest.package != name) {
    return InvalidArgument(file.string() + " is the manifest of package " + manifest.package +
                           ", not " + name);
  }
  if (!IsKnownTarget(linked_soc)) {
    return InvalidArgument("--linked-soc " + linked_soc +
                           " is neither an ISA level nor a compute unit tessera knows");
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string delimiter = "tessera_manifest";
  if (text.str().find(")" + delimiter + "\"") != std::string::npos)
    return InvalidArgument(file.string() + " contains the raw-string delimiter )" + delimiter);
  std::string cc =
      "// Generated by tessera_package_tool --embed-manifest from " + file.string() +
      ": registers the manifest of operator package " + name + " in its linked form (kernels for " +
      linked_soc + ").\n" + "#include \"tessera/runtime/linked_package.h\"\n\nnamespace {\n\n" +
      "constexpr char kManifest[] = R\"" + delimiter + "(" + text.str() + ")" + delimiter +
      "\";\n\n" + "void Anchor() {}\n\n" + "struct ManifestRegistrar {\n  ManifestRegistrar() {\n" +
      "    tessera::runtime::RegisterLinkedManifest(\"" + name + "\", \"" + linked_soc +
      "\", kManifest,\n" +
      "                                             reinterpret_cast<const void*>(&Anchor));\n" +
      "  }\n};\nconst ManifestRegistrar registrar;\n\n}  // namespace\n";
  std::error_code ec;
  fs::create_directories(output.parent_path(), ec);
  const fs::path tmp = output.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary) << cc;
  fs::rename(tmp, output, ec);
  if (ec) return Internal("could not write " + output.string() + ": " + ec.message());
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
  std::vector<std::string> tiling_key_items;
  std::string tiling_keys_option = "TESSERA_TILING_KEYS";
  app.add_option("--tiling-keys", tiling_key_items,
                 "Selective build: one item of the tiling-key selection the kernels were compiled "
                 "with (\"Add:0,1\" or \"0,1\"); repeat per item");
  app.add_option("--tiling-keys-option", tiling_keys_option,
                 "Where the selection came from: TESSERA_TILING_KEYS or TILING_KEYS")
      ->check(CLI::IsMember({"TESSERA_TILING_KEYS", "TILING_KEYS"}));
  std::string api_header, api_source, api_prefix;
  app.add_option("--api-header", api_header,
                 "Write the typed C API header here (and skip the manifest)");
  app.add_option("--api-source", api_source, "Write the typed C API source here");
  app.add_option(
      "--api-prefix", api_prefix,
      "Prefix of the typed C functions (default tsr_<name>_; the built-in package: tsr)");
  std::string aclnn_dir, aclnn_source;
  app.add_option("--aclnn-header-dir", aclnn_dir,
                 "With --api-header: also write CANN's op API headers (aclnn_<op>.h) here");
  app.add_option("--aclnn-source", aclnn_source,
                 "With --api-header: the C source of the aclnn<Op> functions");
  bool embed = false;
  std::string linked_soc, output;
  app.add_flag("--embed-manifest", embed,
               "Write a C++ source registering --dir's manifest.json for the linked form "
               "(and skip the manifest)");
  app.add_option("--linked-soc", linked_soc, "With --embed-manifest: the linked kernels' target");
  app.add_option("--output", output, "With --embed-manifest: the source to write");
  CLI11_PARSE(app, argc, argv);
  Status st;
  if (embed) {
    st = linked_soc.empty() || output.empty()
             ? InvalidArgument("--embed-manifest needs --linked-soc and --output")
             : EmbedManifest(dir, name, linked_soc, output);
  } else if (!api_header.empty() || !api_source.empty()) {
    st = api_header.empty() || api_source.empty()
             ? InvalidArgument("--api-header and --api-source go together")
         : aclnn_dir.empty() != aclnn_source.empty()
             ? InvalidArgument("--aclnn-header-dir and --aclnn-source go together")
             : WriteOpApi(fs::path(dir) / ops_lib, name,
                          api_prefix.empty() ? "tsr_" + CName(name) + "_" : api_prefix, api_header,
                          api_source, aclnn_dir, aclnn_source);
  } else if (kernels.empty()) {
    st = InvalidArgument("--kernels SOC=PATH is required to write a manifest");
  } else {
    std::optional<ManifestSelectiveBuild> selection;
    std::string tiling_keys;
    for (const std::string& item : tiling_key_items) {
      if (!tiling_keys.empty()) tiling_keys += ';';
      tiling_keys += item;
    }
    if (!tiling_key_items.empty())
      selection = ManifestSelectiveBuild{tiling_keys_option, tiling_keys};
    st = selection ? CheckTilingKeySelection(tiling_keys) : OkStatus();
    if (st.ok()) st = Run(dir, name, version, ops_lib, kernels, selection);
  }
  if (!st.ok()) {
    std::fprintf(stderr, "tessera_package_tool: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
