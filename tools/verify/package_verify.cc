#include "verify/package_verify.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "tessera/device/device.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_registration.h"
#include "runtime/package/package.h"

namespace tessera::runtime {
namespace fs = std::filesystem;
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "a, b, c", at most `limit` items then ", ... (N in all)".
std::string JoinNames(const std::vector<std::string>& names, size_t limit = 6) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < limit; ++i)
    s += (i ? ", " : "") + names[i];
  if (names.size() > limit) s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s;
}

// A library loaded through its verified descriptor; closing it closes the descriptor only when the
// library really left the process (ClosePackageLibrary).
class LibraryHandle {
 public:
  LibraryHandle(void* handle, PackageFile* file) : handle_(handle), file_(file) {}
  LibraryHandle(LibraryHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), file_(other.file_) {}
  LibraryHandle(const LibraryHandle&) = delete;
  LibraryHandle& operator=(const LibraryHandle&) = delete;
  LibraryHandle& operator=(LibraryHandle&&) = delete;
  ~LibraryHandle() {
    if (handle_ != nullptr) ClosePackageLibrary(handle_, *file_);
  }
  void* get() const { return handle_; }

 private:
  void* handle_;
  PackageFile* file_;
};

// Loads an opened, verified file through its descriptor.
Result<LibraryHandle> OpenLibrary(PackageFile& file) {
  TESSERA_ASSIGN_OR_RETURN(void* handle, DlopenPackageFile(file));
  return LibraryHandle(handle, &file);
}

// A kernel entry copied out of its library, so it outlives dlclose.
struct Entry {
  std::string kernel;
  uint64_t tiling_key = 0;
  std::string kernel_type;
  uint32_t num_args = 0;
};

struct BinaryRef {
  const OpManifest* op = nullptr;
  const ManifestBinary* binary = nullptr;
};

// One kernel library file and every manifest binary that points at it.
struct KernelFile {
  std::vector<BinaryRef> refs;
  bool present = false;
  PackageFile file;       // opened once: hashed and loaded through this descriptor
  bool verified = false;  // its sha256 is the one every binary using it records
  std::string digest;
  bool loaded = false;
  std::vector<Entry> entries;
};

// What the verifier needs of an OpDef, copied out before its library is unloaded.
struct DefinedOp {
  std::string type;
  std::string kernel;
  uint64_t tiling_schema_hash = 0;
  std::vector<std::string> socs;
  uint32_t simplified_key_mode = 0;
};

std::string BinarySubject(const BinaryRef& ref) {
  return "op " + ref.op->op + " binary " + ref.binary->soc + " " + ref.binary->simplified_key +
         " (" + ref.binary->bin_path + ")";
}

std::string OpsOf(const std::vector<BinaryRef>& refs) {
  std::vector<std::string> ops;
  for (const BinaryRef& r : refs) {
    if (std::find(ops.begin(), ops.end(), r.op->op) == ops.end()) ops.push_back(r.op->op);
  }
  return JoinNames(ops);
}

// The index after `tag` ("ops[", "binaries[") in a validator message, if any.
std::optional<size_t> IndexAfter(std::string_view message, std::string_view tag, size_t from) {
  const size_t at = message.find(tag, from);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + tag.size(), value = 0;
  if (i >= message.size() || !std::isdigit(static_cast<unsigned char>(message[i]))) {
    return std::nullopt;
  }
  for (; i < message.size() && std::isdigit(static_cast<unsigned char>(message[i])); ++i)
    value = value * 10 + static_cast<size_t>(message[i] - '0');
  return value;
}

// The validator names the bad value by JSON path ("ops[3].binaries[1].soc"); when the JSON itself
// parses, say which op and binary that is.
std::string ManifestErrorSubject(const fs::path& file, std::string_view message) {
  const std::string fallback = std::string(kManifestFileName);
  const size_t ops_at = message.find("ops[");
  const std::optional<size_t> op_index = IndexAfter(message, "ops[", 0);
  if (!op_index) return fallback;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ops") || !j["ops"].is_array() ||
      *op_index >= j["ops"].size()) {
    return fallback;
  }
  const nlohmann::json& op = j["ops"][*op_index];
  if (!op.is_object() || !op.contains("op") || !op["op"].is_string()) return fallback;
  std::string subject = "op " + op["op"].get<std::string>();
  const std::optional<size_t> bin_index = IndexAfter(message, "binaries[", ops_at);
  if (!bin_index || !op.contains("binaries") || !op["binaries"].is_array() ||
      *bin_index >= op["binaries"].size()) {
    return subject;
  }
  const nlohmann::json& b = op["binaries"][*bin_index];
  const auto text_of = [&](const char* key) {
    return b.is_object() && b.contains(key) && b[key].is_string() ? b[key].get<std::string>()
                                                                  : std::string("?");
  };
  return subject + " binary " + text_of("soc") + " " + text_of("simplifiedKey") + " (" +
         text_of("binPath") + ")";
}

class Verifier {
 public:
  Verifier(PackageReport& report, fs::path dir) : report_(report), dir_(std::move(dir)) {}

  void Run() {
    if (!CheckManifest()) return;
    CollectFiles();
    CheckPresent();
    CheckSha256();
    CheckLoad();
    CheckEntries();
    const std::optional<std::vector<DefinedOp>> defs = CheckOpLibrary();
    if (defs) {
      CheckOps(*defs);
      CheckTilingHash(*defs);
      CheckKeyMode(*defs);
      CheckSocCoverage(*defs);
    }
    CheckRunnable();
  }

 private:
  DeviceTarget Device() const { return {report_.device_soc, report_.device_compute_unit}; }
  void Add(FindingSeverity severity, std::string_view check, std::string subject,
           std::string message) {
    report_.findings.push_back(
        PackageFinding{severity, std::string(check), std::move(subject), std::move(message)});
  }
  void Fail(std::string_view check, std::string subject, std::string message) {
    Add(FindingSeverity::kFail, check, std::move(subject), std::move(message));
  }
  bool HasProblem(std::string_view check) const {
    return std::any_of(report_.findings.begin(), report_.findings.end(), [&](const auto& f) {
      return f.check == check &&
             (f.severity == FindingSeverity::kFail || f.severity == FindingSeverity::kWarn);
    });
  }
  // One PASS line saying what was checked, unless the check found a problem or checked nothing
  // (skipped items alone do not stop it).
  void PassIfClean(std::string_view check, size_t checked, std::string message) {
    if (checked > 0 && !HasProblem(check)) {
      Add(FindingSeverity::kPass, check, "package", std::move(message));
    }
  }

  bool CheckManifest() {
    const fs::path file = dir_ / kManifestFileName;
    // One read: the bytes parsed are the bytes whose signature is checked.
    Result<std::string> text = ReadRegularFile(file, kMaxManifestBytes, "manifest");
    Result<PackageManifest> parsed = text.ok() ? ParseManifestText(*text, file.string())
                                               : Result<PackageManifest>(text.status());
    if (!parsed.ok()) {
      const std::string message(parsed.status().message());
      Fail("manifest", ManifestErrorSubject(file, message), message + "; nothing else was checked");
      return false;
    }
    manifest_ = std::move(parsed).value();
    report_.package = manifest_.package;
    report_.version = manifest_.version;
    size_t binaries = 0;
    for (const OpManifest& op : manifest_.ops)
      binaries += op.binaries.size();
    Add(FindingSeverity::kPass, "manifest", "package",
        "package " + manifest_.package + " " + manifest_.version + ": " +
            std::to_string(manifest_.ops.size()) + " op(s), " + std::to_string(binaries) +
            " binaries; schema valid");
    Add(FindingSeverity::kPass, "soc.names", "package",
        "every binary names a known SoC, one binary per (SoC, simplified key) of each op");
    CheckSignature(*text);
    return true;
  }

  // With TESSERA_TRUSTED_KEYS set the signature must verify (the runtime skips the package
  // otherwise); without, a signature present is only noted.
  void CheckSignature(const std::string& text) {
    const fs::path sig = dir_ / kSignatureFileName;
    const char* keys = std::getenv(std::string(kTrustedKeysEnv).c_str());
    std::error_code ec;
    if (keys == nullptr || keys[0] == '\0') {
      if (fs::exists(sig, ec)) {
        Add(FindingSeverity::kSkip, "signature", "package",
            std::string(kSignatureFileName) + " present, but " + std::string(kTrustedKeysEnv) +
                " is not set: not checked");
      }
      return;
    }
    const Status st = VerifyManifestSignature(text, sig, keys);
    if (st.ok()) {
      Add(FindingSeverity::kPass, "signature", "package",
          std::string(kSignatureFileName) + " verifies manifest.json with a trusted key");
    } else {
      Fail("signature", "package",
           std::string(st.message()) + "; the runtime skips this package while " +
               std::string(kTrustedKeysEnv) + " is set");
    }
  }

  void CollectFiles() {
    for (const OpManifest& op : manifest_.ops) {
      for (const ManifestBinary& b : op.binaries)
        files_[b.bin_path].refs.push_back({&op, &b});
    }
  }

  void CheckPresent() {
    size_t present = 0;
    for (auto& [rel, file] : files_) {
      const std::string subject = "kernel library " + rel;
      const std::string users = "; used by " + std::to_string(file.refs.size()) +
                                " binaries of op(s) " + OpsOf(file.refs);
      Result<PackageFile> opened = OpenPackageFile(dir_, rel, "kernel library");
      if (!opened.ok()) {
        Fail("binary.present", subject, std::string(opened.status().message()) + users);
        continue;
      }
      file.file = std::move(opened).value();
      file.present = true;
      ++present;
    }
    PassIfClean("binary.present", present,
                "all " + std::to_string(files_.size()) + " kernel libraries are present");
  }

  void CheckSha256() {
    size_t matched = 0, checked = 0;
    for (auto& [rel, file] : files_) {
      if (!file.present) continue;
      file.digest = file.file.sha256();
      ++checked;
      std::vector<const BinaryRef*> bad;
      std::set<std::string> recorded;
      for (const BinaryRef& r : file.refs) {
        if (Lower(r.binary->sha256) != file.digest) {
          bad.push_back(&r);
          recorded.insert(Lower(r.binary->sha256));
        }
      }
      matched += file.refs.size() - bad.size();
      file.verified = bad.empty();
      if (bad.empty()) continue;
      if (bad.size() == file.refs.size() && recorded.size() == 1) {
        // The file changed, not one record: say it once.
        Fail("binary.sha256", "kernel library " + rel,
             "file sha256 " + file.digest + ", but the manifest records " + *recorded.begin() +
                 " for all " + std::to_string(bad.size()) + " binaries using it (op(s) " +
                 OpsOf(file.refs) +
                 "); the runtime refuses to load it: rebuild the package or restore the file");
        continue;
      }
      for (const BinaryRef* r : bad) {
        Fail("binary.sha256", BinarySubject(*r),
             "manifest sha256 " + r->binary->sha256 + ", file sha256 " + file.digest +
                 "; the runtime refuses to load this binary");
      }
    }
    PassIfClean("binary.sha256", checked,
                std::to_string(checked) + " kernel libraries match the sha256 of all " +
                    std::to_string(matched) + " binaries");
  }

  void CheckLoad() {
    size_t loaded = 0, entries = 0;
    for (auto& [rel, file] : files_) {
      if (!file.present) continue;
      const std::string subject = "kernel library " + rel;
      if (!file.verified) {
        Add(FindingSeverity::kSkip, "binary.load", subject,
            "not loaded: its sha256 does not match the manifest, and a file that fails its "
            "checksum is never loaded");
        continue;
      }
      std::vector<std::string> foreign;
      for (const BinaryRef& r : file.refs) {
        if (!BinaryRunsOn(r.binary->soc, Device()) &&
            std::find(foreign.begin(), foreign.end(), r.binary->soc) == foreign.end()) {
          foreign.push_back(r.binary->soc);
        }
      }
      if (!foreign.empty()) {
        Add(FindingSeverity::kSkip, "binary.load", subject,
            "built for " + JoinNames(foreign) + "; not loadable here (this machine is " +
                DescribeDevice(Device()) + "), skipped: its entries are not checked");
        continue;
      }
      Result<LibraryHandle> lib = OpenLibrary(file.file);
      if (!lib.ok()) {
        Fail("binary.load", subject, std::string(lib.status().message()));
        continue;
      }
      auto list = reinterpret_cast<KernelEntriesFn>(dlsym(lib->get(), kKernelEntriesSymbol));
      if (list == nullptr) {
        Fail("binary.load", subject,
             std::string("exports no ") + kKernelEntriesSymbol +
                 "; a kernel library needs TESSERA_KERNEL_LIBRARY() in one of its sources");
        continue;
      }
      size_t count = 0;
      const KernelEntryInfo* info = list(&count);
      for (size_t i = 0; i < count; ++i) {
        file.entries.push_back(Entry{info[i].kernel ? info[i].kernel : "", info[i].tiling_key,
                                     info[i].kernel_type ? info[i].kernel_type : "",
                                     info[i].num_args});
      }
      file.loaded = true;
      ++loaded;
      entries += count;
    }
    PassIfClean("binary.load", loaded,
                std::to_string(loaded) + " kernel libraries load here and export " +
                    kKernelEntriesSymbol + " (" + std::to_string(entries) + " entries)");
  }

  void CheckEntries() {
    size_t binaries = 0, keys = 0, typed = 0, args_checked = 0;
    for (const auto& [rel, file] : files_) {
      if (!file.loaded) continue;
      // kernel -> tiling key -> entry
      std::map<std::string, std::map<uint64_t, const Entry*>> by_kernel;
      for (const Entry& e : file.entries) {
        if (!by_kernel[e.kernel].emplace(e.tiling_key, &e).second) {
          Fail("binary.entries", "kernel library " + rel,
               "exports entry " + e.kernel + "_" + std::to_string(e.tiling_key) +
                   " twice; expected one entry per (kernel, tiling key)");
        }
      }
      // Entries an op's binaries list, per op: several binaries may share the library, each
      // listing the entries its simplified key selects, so an entry is missing only when no
      // binary of the op lists it.
      std::map<const OpManifest*, std::set<uint64_t>> listed_by_op;
      std::set<std::string> used_kernels;
      for (const BinaryRef& r : file.refs) {
        ++binaries;
        const std::string& kernel = r.op->kernel;
        used_kernels.insert(kernel);
        const auto& entries = by_kernel[kernel];
        std::set<uint64_t>& listed = listed_by_op[r.op];
        for (const ManifestKernel& k : r.binary->kernels) {
          listed.insert(k.tiling_key);
          const std::string name = kernel + "_" + std::to_string(k.tiling_key);
          const auto it = entries.find(k.tiling_key);
          if (it == entries.end()) {
            Fail("binary.entries", BinarySubject(r),
                 "tiling key " + std::to_string(k.tiling_key) + " is listed in the manifest, but " +
                     rel + " exports no entry " + name +
                     "; calls that tile to this key fail with \"Cannot find tilingKey[" +
                     std::to_string(k.tiling_key) + "]\"");
            continue;
          }
          ++keys;
          CheckEntrySignature(r, k, name, *it->second, typed, args_checked);
        }
      }
      for (const auto& [op, listed] : listed_by_op) {
        for (const auto& [key, entry] : by_kernel[op->kernel]) {
          if (listed.count(key) != 0) continue;
          Fail("binary.entries", "op " + op->op + " kernel library " + rel,
               "entry " + op->kernel + "_" + std::to_string(key) + " exported by " + rel +
                   " is listed by no binary of op " + op->op + " in the manifest; calls that " +
                   "tile to key " + std::to_string(key) +
                   " fail although the kernel exists: regenerate the manifest");
        }
      }
      for (const auto& [kernel, entries] : by_kernel) {
        if (used_kernels.count(kernel) != 0) continue;
        std::vector<std::string> names;
        for (const auto& [key, entry] : entries)
          names.push_back(kernel + "_" + std::to_string(key));
        Add(FindingSeverity::kWarn, "binary.entries", "kernel library " + rel,
            "exports " + std::to_string(entries.size()) + " entries of kernel " + kernel + " (" +
                JoinNames(names) + ") that no binary of the manifest uses");
      }
    }
    PassIfClean("binary.entries", binaries,
                std::to_string(binaries) + " binaries: their " + std::to_string(keys) +
                    " tiling keys are exactly the entries of their libraries");
    PassIfClean("kernel.type", typed,
                std::to_string(typed) + " entries have the manifest's kernel type");
    PassIfClean("kernel.args", args_checked,
                std::to_string(args_checked) +
                    " entries take inputs + outputs + workspace + tiling parameters");
  }

  void CheckEntrySignature(const BinaryRef& r, const ManifestKernel& k, const std::string& name,
                           const Entry& e, size_t& typed, size_t& args_checked) {
    ++typed;
    const std::string_view type = ManifestKernelTypeName(k.kernel_type);
    if (e.kernel_type != type) {
      Fail("kernel.type", BinarySubject(r),
           "tiling key " + std::to_string(k.tiling_key) + ": the manifest says kernelType " +
               std::string(type) + ", entry " + name + " is " + e.kernel_type);
    }
    // Optional and dynamic parameters make the count depend on the call.
    const auto fixed = [](const std::vector<ManifestParam>& params) {
      return std::all_of(params.begin(), params.end(), [](const ManifestParam& p) {
        return p.mode == ManifestParamMode::kRequired;
      });
    };
    if (!fixed(r.op->inputs) || !fixed(r.op->outputs)) return;
    ++args_checked;
    const size_t wanted = r.op->inputs.size() + r.op->outputs.size() + 2;
    if (e.num_args != wanted) {
      Fail("kernel.args", BinarySubject(r),
           "entry " + name + " takes " + std::to_string(e.num_args) + " parameters, but " +
               r.op->op + " passes " + std::to_string(wanted) +
               " (inputs, outputs, workspace, tiling)");
    }
  }

  std::optional<std::vector<DefinedOp>> CheckOpLibrary() {
    const std::string subject = "op library " + manifest_.tiling_library;
    // Opened, hashed and loaded through one descriptor; it outlives the handle.
    Result<PackageFile> opened =
        OpenVerifiedPackageFile(dir_, manifest_.tiling_library, manifest_.tiling_library_sha256,
                                "op library", "tiling_library_sha256");
    if (!opened.ok()) {
      Fail("op_library", subject,
           std::string(opened.status().message()) + "; not loaded, nothing in it was checked");
      return std::nullopt;
    }
    PackageFile op_file = std::move(opened).value();
    Result<LibraryHandle> lib = OpenLibrary(op_file);
    if (!lib.ok()) {
      Fail("op_library", subject, std::string(lib.status().message()));
      return std::nullopt;
    }
    auto list = reinterpret_cast<OpDefinitionsFn>(dlsym(lib->get(), kOpDefinitionsSymbol));
    if (list == nullptr) {
      Fail("op_library", subject,
           std::string("exports no ") + kOpDefinitionsSymbol +
               "; an op library needs TESSERA_OP_LIBRARY() in one of its sources");
      return std::nullopt;
    }
    size_t count = 0;
    const OpFactory* factories = list(&count);
    std::vector<DefinedOp> defs;
    for (size_t i = 0; i < count; ++i) {
      // Destroyed before the library is closed: its code is the OpDef's vtable.
      const std::unique_ptr<OpDef> def(factories[i]());
      if (Status st = def->Validate(); !st.ok()) {
        Fail("op_library", "op " + def->type(),
             "the definition in " + manifest_.tiling_library +
                 " is invalid: " + std::string(st.message()));
      }
      defs.push_back(DefinedOp{def->type(), def->KernelName(), def->tiling_schema_hash(),
                               def->socs(), def->simplified_key_mode()});
    }
    PassIfClean(
        "op_library", 1,
        manifest_.tiling_library + " loads and defines " + std::to_string(count) + " valid op(s)");
    return defs;
  }

  void CheckOps(const std::vector<DefinedOp>& defs) {
    const std::string& lib = manifest_.tiling_library;
    std::set<std::string> seen;
    for (const DefinedOp& d : defs) {
      if (!seen.insert(d.type).second) {
        Fail("op_library.ops", "op " + d.type, lib + " defines op " + d.type + " twice");
      } else if (FindOpInManifest(manifest_, d.type) == nullptr) {
        Fail("op_library.ops", "op " + d.type,
             lib + " defines op " + d.type +
                 ", but the manifest does not list it: the runtime cannot find it; regenerate "
                 "the manifest");
      }
    }
    size_t mapped = 0;
    for (const DefinedOp& d : defs) {
      const OpManifest* op = FindOpInManifest(manifest_, d.type);
      if (op == nullptr) continue;
      ++mapped;
      if (op->kernel != d.kernel) {
        Fail("op_library.kernel", "op " + d.type,
             "the manifest maps op " + d.type + " to kernel " + op->kernel + ", but " + lib +
                 " registers it with kernel " + d.kernel +
                 "; the runtime refuses to run another op's kernel: regenerate the manifest");
      }
    }
    PassIfClean("op_library.kernel", mapped,
                std::to_string(mapped) + " op(s) map to the kernel their op library registers");
    for (const OpManifest& op : manifest_.ops) {
      if (seen.count(op.op) == 0) {
        Fail("op_library.ops", "op " + op.op,
             "listed in the manifest, but " + lib + " defines no op " + op.op +
                 "; calls fail with \"The tiling function does not exist\"");
      }
    }
    PassIfClean("op_library.ops", manifest_.ops.size(),
                "the " + std::to_string(manifest_.ops.size()) +
                    " manifest ops are exactly the ops " + lib + " defines");
  }

  void CheckTilingHash(const std::vector<DefinedOp>& defs) {
    size_t checked = 0;
    for (const DefinedOp& d : defs) {
      const OpManifest* op = FindOpInManifest(manifest_, d.type);
      if (op == nullptr) continue;
      ++checked;
      if (op->tiling_schema_hash != d.tiling_schema_hash) {
        Fail("tiling_hash", "op " + d.type,
             "the manifest records tiling struct hash " + Hex(op->tiling_schema_hash) + ", but " +
                 manifest_.tiling_library + " declares " + Hex(d.tiling_schema_hash) +
                 " (TilingDataType); the runtime refuses this op: rebuild the package");
      }
    }
    PassIfClean("tiling_hash", checked,
                std::to_string(checked) +
                    " op(s): the manifest's tiling struct hash equals the op library's");
  }

  void CheckKeyMode(const std::vector<DefinedOp>& defs) {
    size_t checked = 0;
    for (const DefinedOp& d : defs) {
      const OpManifest* op = FindOpInManifest(manifest_, d.type);
      if (op == nullptr) continue;
      ++checked;
      if (op->simplified_key_mode != d.simplified_key_mode) {
        Fail("key_mode", "op " + d.type,
             "the manifest records simplifiedKeyMode " + std::to_string(op->simplified_key_mode) +
                 ", but " + manifest_.tiling_library + " declares mode " +
                 std::to_string(d.simplified_key_mode) +
                 "; the runtime refuses this op: rebuild the package");
      }
    }
    PassIfClean("key_mode", checked,
                std::to_string(checked) +
                    " op(s): the manifest's simplified-key mode equals the op library's");
  }

  // Reported per SoC: a package built without some configured SoC usually misses it for every op.
  void CheckSocCoverage(const std::vector<DefinedOp>& defs) {
    size_t checked = 0;
    std::map<std::string, std::vector<std::string>> unknown, uncovered;  // SoC -> ops
    std::map<std::string, std::set<std::string>> models;  // SoC -> compute units with binaries
    for (const DefinedOp& d : defs) {
      const OpManifest* op = FindOpInManifest(manifest_, d.type);
      if (op == nullptr) continue;
      ++checked;
      for (const std::string& soc : d.socs) {
        if (!IsKnownSoc(soc)) {
          unknown[soc].push_back(d.type);
          continue;
        }
        bool covered = false;
        for (const ManifestBinary& b : op->binaries) {
          covered = covered || SocRunsOn(b.soc, soc);
          if (IsKnownComputeUnit(b.soc) && SocLevelOf(b.soc) == soc) models[soc].insert(b.soc);
        }
        if (!covered) uncovered[soc].push_back(d.type);
      }
    }
    for (const auto& [soc, ops] : unknown) {
      std::vector<std::string> known(KnownSocs().begin(), KnownSocs().end());
      Add(FindingSeverity::kWarn, "soc.coverage", "SoC " + soc,
          "AddConfig(\"" + soc + "\") of op(s) " + JoinNames(ops) +
              " names no known SoC (known: " + JoinNames(known, known.size()) + ")");
    }
    for (const auto& [soc, ops] : uncovered) {
      const std::vector<std::string> units(models[soc].begin(), models[soc].end());
      const std::string runs =
          units.empty() ? "no binary runs there"
                        : "only CPU model(s) " + JoinNames(units) + " have binaries for it";
      Add(FindingSeverity::kWarn, "soc.coverage", "SoC " + soc,
          "configured with AddConfig by " + std::to_string(ops.size()) + " op(s) (" +
              JoinNames(ops) + "), but " + runs + "; calls there fail with \"Cannot find " +
              "kernel file\": build the package for " + soc + " or drop the AddConfig");
    }
    PassIfClean("soc.coverage", checked,
                "every SoC the " + std::to_string(checked) +
                    " op(s) configure with AddConfig has a binary that runs there");
  }

  void CheckRunnable() {
    std::vector<const OpManifest*> stranded;
    std::set<std::string> socs;
    for (const OpManifest& op : manifest_.ops) {
      bool runs = false;
      for (const ManifestBinary& b : op.binaries) {
        socs.insert(b.soc);
        runs = runs || BinaryRunsOn(b.soc, Device());
      }
      if (!runs) stranded.push_back(&op);
    }
    const std::string built_for =
        "binaries are for " + JoinNames(std::vector<std::string>(socs.begin(), socs.end()));
    if (!manifest_.ops.empty() && stranded.size() == manifest_.ops.size()) {
      Add(FindingSeverity::kWarn, "soc.runnable", "package",
          "no binary runs on this machine (" + DescribeDevice(Device()) + "); " + built_for);
      return;
    }
    for (const OpManifest* op : stranded) {
      Add(FindingSeverity::kWarn, "soc.runnable", "op " + op->op,
          "no binary runs on this machine (" + DescribeDevice(Device()) + ")");
    }
    if (stranded.empty()) {
      PassIfClean(
          "soc.runnable", manifest_.ops.size(),
          "every op has a binary that runs on this machine (" + DescribeDevice(Device()) + ")");
    }
  }

  PackageReport& report_;
  fs::path dir_;
  PackageManifest manifest_;
  std::map<std::string, KernelFile> files_;  // by binPath
};

}  // namespace

std::string_view FindingSeverityName(FindingSeverity severity) {
  switch (severity) {
    case FindingSeverity::kPass:
      return "PASS";
    case FindingSeverity::kSkip:
      return "SKIP";
    case FindingSeverity::kWarn:
      return "WARN";
    case FindingSeverity::kFail:
      return "FAIL";
    default:
      return "UNKNOWN";
  }
}

size_t PackageReport::Count(FindingSeverity severity) const {
  return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                           [&](const auto& f) { return f.severity == severity; }));
}

Result<PackageReport> VerifyPackage(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) {
    return NotFound("package directory " + dir.string() + " does not exist");
  }
  if (!fs::is_directory(status)) {
    return InvalidArgument(dir.string() +
                           " is not a directory; expected an operator package directory "
                           "(the one holding manifest.json)");
  }
  PackageReport report;
  report.dir = dir;
  report.device_soc = device::CurrentArch().soc;
  report.device_compute_unit = device::CurrentArch().compute_unit;
  Verifier(report, dir).Run();
  return report;
}

}  // namespace tessera::runtime
