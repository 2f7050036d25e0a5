#include "tessera/runtime/op_runtime.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <shared_mutex>

#include "runtime/package/package.h"
#include "tessera/device/detail/block_pool.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"
#include "tessera/tiling/tiling_data.h"

namespace fs = std::filesystem;

namespace tessera::runtime {

inline constexpr size_t kMaxKernelArgs = 64;

// A run-time attribute of a plan's op and where its default writer stores it.
struct RunTimeAttr {
  const OpAttrDef* def = nullptr;  // lives as long as the process (op definitions are kept)
  const tiling::TilingField* field = nullptr;  // the default writer's field; null with a writer
};

// Everything a cache hit reuses.
struct Plan {
  std::string op_type;
  std::string kernel_name;
  std::string package;
  KernelEntryFn entry = nullptr;
  device::KernelType kernel_type = device::KernelType::kAiv;
  uint32_t block_dim = 1;
  uint64_t tiling_key = 0;
  uint64_t workspace = 0;
  void* tiling_device = nullptr;  // the tiling data in device memory
  PlanInfo info;                  // what tools show
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  std::vector<RunTimeAttr> run_time;  // by name, as in the op definition
  std::vector<std::optional<DataType>> input_dtypes;
  std::vector<DataType> output_dtypes;
  std::string profile;  // the device profile the tiling was made for
  // Its activation (profiles are never freed): the same pointer is the same profile, cheaply.
  const device::ArchSpec* arch = nullptr;

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  Plan(Plan&& other) noexcept { *this = std::move(other); }
  Plan& operator=(Plan&& other) noexcept {
    op_type = std::move(other.op_type);
    kernel_name = std::move(other.kernel_name);
    package = std::move(other.package);
    entry = other.entry;
    kernel_type = other.kernel_type;
    block_dim = other.block_dim;
    tiling_key = other.tiling_key;
    workspace = other.workspace;
    tiling_device = std::exchange(other.tiling_device, nullptr);
    num_inputs = other.num_inputs;
    num_outputs = other.num_outputs;
    info = std::move(other.info);
    run_time = std::move(other.run_time);
    input_dtypes = std::move(other.input_dtypes);
    output_dtypes = std::move(other.output_dtypes);
    profile = std::move(other.profile);
    arch = other.arch;
    return *this;
  }
  ~Plan() {
    if (tiling_device) (void)device::Free(tiling_device);
  }
};

namespace {

using device::detail::BlockPool;

// Kernel parameters travel by value into the launch, with the call's own tiling bytes when its op
// has run-time attributes (the last parameter then points at them).
struct ArgPack {
  std::array<uint8_t*, kMaxKernelArgs> args;
  uint32_t count = 0;
  uint32_t tiling_size = 0;  // 0: the tiling parameter is the plan's device copy
  std::array<uint8_t, kMaxRunTimeTilingBytes> tiling;
};

// What a launch carries: the entry and its parameters, from a pool.
struct LaunchPayload {
  KernelEntryFn entry = nullptr;
  ArgPack pack;

  static void* operator new(size_t size);
  static void operator delete(void* p, size_t size);
};

void* LaunchPayload::operator new(size_t size) {
  return BlockPool<LaunchPayload>::Take(size);
}

void LaunchPayload::operator delete(void* p, size_t size) {
  BlockPool<LaunchPayload>::Give(p, size);
}

void RunEntry(void* payload) {
  const LaunchPayload& l = *static_cast<const LaunchPayload*>(payload);
  const ArgPack& pack = l.pack;
  if (pack.tiling_size == 0) {
    l.entry(const_cast<uint8_t**>(pack.args.data()));
    return;
  }
  std::array<uint8_t*, kMaxKernelArgs> args;
  std::copy_n(pack.args.begin(), pack.count, args.begin());
  args[pack.count - 1] = const_cast<uint8_t*>(pack.tiling.data());  // kernels only read tiling
  l.entry(args.data());
}

class PackageRuntime {
 public:
  static PackageRuntime& Get() {
    static PackageRuntime* runtime = new PackageRuntime();  // immortal: plans outlive main
    return *runtime;
  }

  Result<Plan> BuildPlan(const OpCall& call);
  // The packages of the current search; manifests are parsed once per process and again only
  // when their file changes (device, inode, size or modification time).
  // The parsed packages of the search (pinned_dir empty) or of one pinned package directory.
  Result<std::shared_ptr<const PackageSet>> Packages(const std::string& pinned_dir);
  LruCache<Plan>& cache() { return cache_; }
  // The run-time attribute names (sorted) of `op_type` as last built from `package_dir` ("" =
  // the search): which attribute values the cache key leaves out. A hint - the key records which
  // it left out, so a stale hint costs a miss, never a wrong plan. Null when none are known.
  const std::vector<std::string>* RunTimeNames(const std::string& op_type,
                                               const std::string& package_dir);
  void SetRunTimeNames(const std::string& op_type, const std::string& package_dir,
                       std::vector<std::string> names);
  std::atomic<uint64_t> tiling_calls{0};
  std::atomic<uint64_t> package_lookups{0};
  std::atomic<uint64_t> manifest_parses{0};

 private:
  PackageRuntime() : cache_(CacheLimitFromEnv()) {}
  // The library `relative` of `package`, verified against `sha256` and loaded once: a library
  // already loaded with that digest is not hashed again (what runs is what was verified).
  Result<void*> Open(const LoadedPackage& package, const std::string& relative,
                     const std::string& sha256, std::string_view what, std::string_view subject);
  Result<const OpDef*> LoadOpDef(const LoadedPackage& package, const std::string& op_type);
  Result<KernelEntryInfo> LoadEntry(const LoadedPackage& package, const ManifestBinary& binary,
                                    const std::string& kernel, uint64_t key);

  LruCache<Plan> cache_;
  std::mutex mu_;
  // By "<path>\n<sha256>"; never closed (cached plans point into them), and their files stay
  // open so no later library can take over their /proc/self/fd name.
  std::map<std::string, void*> handles_;
  std::mutex packages_mu_;
  struct LoadedSet {
    std::string signature;  // the search and each manifest's file identity
    std::shared_ptr<const PackageSet> set;
  };
  std::map<std::string, LoadedSet> packages_;  // by pinned directory ("" = the search)
  std::map<std::string, std::vector<std::unique_ptr<OpDef>>> op_defs_;
  std::shared_mutex names_mu_;
  // By "<op>\n<package_dir>". Replaced lists are kept: a caller may still read one.
  std::map<std::string, std::unique_ptr<const std::vector<std::string>>, std::less<>> names_;
  std::vector<std::unique_ptr<const std::vector<std::string>>> replaced_names_;
};

std::string NamesKey(const std::string& op_type, const std::string& package_dir) {
  return op_type + "\n" + package_dir;
}

const std::vector<std::string>* PackageRuntime::RunTimeNames(const std::string& op_type,
                                                             const std::string& package_dir) {
  thread_local std::string key;
  key.assign(op_type).append(1, '\n').append(package_dir);
  std::shared_lock lock(names_mu_);
  const auto it = names_.find(key);
  return it == names_.end() ? nullptr : it->second.get();
}

void PackageRuntime::SetRunTimeNames(const std::string& op_type, const std::string& package_dir,
                                     std::vector<std::string> names) {
  std::unique_lock lock(names_mu_);
  auto& slot = names_[NamesKey(op_type, package_dir)];
  if (slot) replaced_names_.push_back(std::move(slot));
  slot = std::make_unique<const std::vector<std::string>>(std::move(names));
}

Result<void*> PackageRuntime::Open(const LoadedPackage& package, const std::string& relative,
                                   const std::string& sha256, std::string_view what,
                                   std::string_view subject) {
  const fs::path dir = package.candidate.dir;
  const std::string key = (dir / relative).string() + "\n" + sha256;
  if (auto it = handles_.find(key); it != handles_.end()) return it->second;
  TESSERA_ASSIGN_OR_RETURN(PackageFile file,
                           OpenVerifiedPackageFile(dir, relative, sha256, what, subject));
  TESSERA_ASSIGN_OR_RETURN(void* handle, DlopenPackageFile(file));
  (void)file.Release();
  handles_[key] = handle;
  return handle;
}

// Identity of a file's current content, as far as stat tells: "" when it cannot be stat'ed.
std::string FileIdentity(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

// A linked package's registered parts, by name.
Result<LinkedPackage> FindLinked(const std::string& name) {
  std::optional<LinkedPackage> linked = FindLinkedPackage(name);
  if (!linked) return NotFound("linked package " + name + " is not registered");
  return std::move(*linked);
}

bool IsLinked(const LoadedPackage& package) {
  return package.candidate.origin == PackageOrigin::kLinked;
}

Result<const OpDef*> PackageRuntime::LoadOpDef(const LoadedPackage& package,
                                               const std::string& op_type) {
  std::lock_guard<std::mutex> lock(mu_);
  // Linked packages are keyed by name: their "library" may be the program holding several.
  const std::string library =
      IsLinked(package) ? "linked package " + package.manifest.package
                        : (package.candidate.dir / package.manifest.tiling_library).string();
  // The digest is part of the key: a rebuilt op library is a different library.
  auto& defs = op_defs_[library + "\n" + package.manifest.tiling_library_sha256];
  if (defs.empty()) {
    OpDefinitionsFn list = nullptr;
    if (IsLinked(package)) {
      TESSERA_ASSIGN_OR_RETURN(const LinkedPackage linked, FindLinked(package.manifest.package));
      list = linked.ops;
    } else {
      TESSERA_ASSIGN_OR_RETURN(
          void* handle,
          Open(package, package.manifest.tiling_library, package.manifest.tiling_library_sha256,
               "op library", "package " + package.manifest.package));
      list = reinterpret_cast<OpDefinitionsFn>(dlsym(handle, kOpDefinitionsSymbol));
    }
    if (list == nullptr) {
      return NotFound("The tiling function does not exist: " + library + " exports no " +
                      kOpDefinitionsSymbol);
    }
    size_t count = 0;
    const OpFactory* factories = list(&count);
    for (size_t i = 0; i < count; ++i)
      defs.emplace_back(factories[i]());
  }
  for (const auto& def : defs) {
    if (def->type() == op_type) return def.get();
  }
  return NotFound("The tiling function does not exist: op library " + library + " defines no op " +
                  op_type);
}

Result<KernelEntryInfo> PackageRuntime::LoadEntry(const LoadedPackage& package,
                                                  const ManifestBinary& binary,
                                                  const std::string& kernel, uint64_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string library;
  KernelEntriesFn list = nullptr;
  if (IsLinked(package)) {
    TESSERA_ASSIGN_OR_RETURN(const LinkedPackage linked, FindLinked(package.manifest.package));
    library = "linked package " + linked.name + " (" + linked.library + ")";
    list = linked.kernels;
  } else {
    library = (package.candidate.dir / binary.bin_path).string();
    TESSERA_ASSIGN_OR_RETURN(void* handle, Open(package, binary.bin_path, binary.sha256, "binary",
                                                binary.simplified_key));
    list = reinterpret_cast<KernelEntriesFn>(dlsym(handle, kKernelEntriesSymbol));
    if (list == nullptr) {
      return NotFound("kernel library " + library + " exports no " + kKernelEntriesSymbol);
    }
  }
  size_t count = 0;
  const KernelEntryInfo* entries = list(&count);
  for (size_t i = 0; i < count; ++i) {
    if (kernel == entries[i].kernel && entries[i].tiling_key == key) return entries[i];
  }
  return NotFound("Cannot find tilingKey[" + std::to_string(key) + "] of kernel " + kernel +
                  " in " + library);
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

Result<std::shared_ptr<const PackageSet>> PackageRuntime::Packages(const std::string& pinned_dir) {
  PackageSearch search;
  if (pinned_dir.empty()) {
    TESSERA_ASSIGN_OR_RETURN(search,
                             ResolvePackageSearchWithLinked(ProcessEnv(), BuiltinPackageDir()));
  } else {
    search = PinnedPackageSearch(pinned_dir);
  }
  std::string signature;
  for (const PackageCandidate& c : search.candidates) {
    signature += c.Describe() + "\n" + (c.used ? "1" : "0") + c.reason + "\n";
    if (c.used && c.origin != PackageOrigin::kLinked) {
      signature += FileIdentity(c.dir / kManifestFileName) + "\n" +
                   FileIdentity(c.dir / kSignatureFileName) + "\n";
    }
  }
  if (const char* keys = std::getenv(std::string(kTrustedKeysEnv).c_str())) signature += keys;
  for (const std::string& w : search.warnings)
    signature += w + "\n";
  std::lock_guard<std::mutex> lock(packages_mu_);
  LoadedSet& cached = packages_[pinned_dir];
  if (cached.set && signature == cached.signature) return cached.set;
  for (const PackageCandidate& c : search.candidates)
    manifest_parses.fetch_add(c.used ? 1 : 0);
  cached.set = std::make_shared<const PackageSet>(LoadPackages(search));
  cached.signature = std::move(signature);
  return cached.set;
}

Result<Plan> PackageRuntime::BuildPlan(const OpCall& call) {
  package_lookups.fetch_add(1);
  TESSERA_ASSIGN_OR_RETURN(const std::shared_ptr<const PackageSet> set, Packages(call.package_dir));
  TESSERA_ASSIGN_OR_RETURN(OpMatch match, FindOp(*set, call.op_type));
  const fs::path dir = match.package->candidate.dir;
  TESSERA_ASSIGN_OR_RETURN(const OpDef* def, LoadOpDef(*match.package, call.op_type));
  if (def->KernelName() != match.op->kernel) {
    return FailedPrecondition(
        "package " + match.package->manifest.package + ": the manifest maps " + call.op_type +
        " to kernel " + match.op->kernel + ", but the op library registers " + call.op_type +
        " with kernel " + def->KernelName() + "; refusing to run another op's kernel");
  }
  if (def->tiling_schema_hash() != match.op->tiling_schema_hash) {
    return FailedPrecondition("package " + match.package->manifest.package +
                              ": the manifest records tiling struct hash " +
                              Hex(match.op->tiling_schema_hash) + " for " + call.op_type +
                              ", but the loaded tiling function's is " +
                              Hex(def->tiling_schema_hash()) + "; rebuild the package");
  }

  // The op must be configured for a SoC this device runs; the best one is used.
  const device::ArchSpec& arch = device::CurrentArch();
  std::string soc;
  for (std::string_view candidate : CompatibleSocs(arch.soc)) {
    for (const auto& s : def->socs()) {
      if (soc.empty() && s == candidate) soc = s;
    }
  }
  if (soc.empty()) {
    std::string configured;
    for (const auto& s : def->socs())
      configured += (configured.empty() ? "" : ", ") + s;
    return NotFound(
        "SoC version " + arch.soc +
        " verification failed. This SoC is not configured through the AddConfig API (op " +
        call.op_type + " is configured for: " + configured + ")");
  }
  std::vector<ArgSpec> in_specs, out_specs;
  std::vector<std::optional<TensorDesc>> in_descs;
  std::vector<TensorDesc> out_descs;
  for (const auto& in : call.inputs) {
    in_specs.push_back(in ? ArgSpec{true, in->desc.dtype, in->desc.format} : ArgSpec{false});
    in_descs.push_back(in ? std::optional<TensorDesc>(in->desc) : std::nullopt);
  }
  for (const auto& out : call.outputs) {
    out_specs.push_back(ArgSpec{true, out.desc.dtype, out.desc.format});
    out_descs.push_back(out.desc);
  }
  TESSERA_RETURN_IF_ERROR(def->CheckCall(soc, in_specs, out_specs));
  TESSERA_ASSIGN_OR_RETURN(auto attrs, def->ResolveAttrs(call.attrs));
  // The tiling function never sees a run-time value, so the plan holds for every value.
  std::vector<RunTimeAttr> run_time;
  for (const OpAttrDef& a : def->attrs()) {
    if (!a.run_time()) continue;
    AttrValue neutral = a.default_value();
    if (a.requirement() == Option::REQUIRED) {
      if (*a.kind() == AttrKind::kFloat) neutral = 0.0f;
      if (*a.kind() == AttrKind::kInt) neutral = int64_t{0};
      if (*a.kind() == AttrKind::kBool) neutral = false;
    }
    attrs[a.name()] = std::move(neutral);
    const tiling::TilingField* field = nullptr;
    if (def->tiling_schema() == nullptr) {
      return FailedPrecondition(call.op_type + ": run-time attribute '" + a.name() +
                                "' needs the op's TilingDataType<T>() to be declared");
    }
    if (!a.run_time_writer()) {
      field = def->tiling_schema()->Find(a.name());
      if (field == nullptr || field->is_array) {
        return FailedPrecondition(call.op_type + ": run-time attribute '" + a.name() +
                                  "' has no writer and tiling struct " +
                                  std::string(def->tiling_schema()->name) +
                                  " no scalar field of that name");
      }
    }
    run_time.push_back(RunTimeAttr{&a, field});
  }

  TilingContext ctx(call.op_type, std::move(in_descs), std::move(out_descs), std::move(attrs),
                    PlatformInfo::FromArch(arch));
  tiling_calls.fetch_add(1);
  TESSERA_RETURN_IF_ERROR(RunTiling(*def, ctx));

  // The key per the op's simplified-key mode (mode 2 asks the op's callback).
  if (def->simplified_key_mode() != match.op->simplified_key_mode) {
    return FailedPrecondition("package " + match.package->manifest.package +
                              ": the manifest records simplifiedKeyMode " +
                              std::to_string(match.op->simplified_key_mode) + " for " +
                              call.op_type + ", but the loaded op definition uses mode " +
                              std::to_string(def->simplified_key_mode()) + "; rebuild the package");
  }
  TESSERA_ASSIGN_OR_RETURN(const std::string key, CallSimplifiedKey(*def, ctx, call.deterministic));
  Result<const ManifestBinary*> selected =
      SelectBinary(*match.op, DeviceTarget{arch.soc, arch.compute_unit}, key);
  if (!selected.ok()) {
    return Status(selected.status().code(), "package " + match.package->manifest.package + ": " +
                                                std::string(selected.status().message()));
  }
  const ManifestBinary* binary = *selected;
  TESSERA_RETURN_IF_ERROR(FindKernelEntry(*binary, ctx.tiling_key()).status());
  // LoadEntry verifies a kernel library's file before loading it (a linked package's kernels are
  // in the process already).
  TESSERA_ASSIGN_OR_RETURN(KernelEntryInfo entry,
                           LoadEntry(*match.package, *binary, match.op->kernel, ctx.tiling_key()));
  const size_t wanted = call.inputs.size() + call.outputs.size() + 2;
  if (entry.num_args != wanted || wanted > kMaxKernelArgs) {
    return FailedPrecondition(
        "kernel " + match.op->kernel + "_" + std::to_string(ctx.tiling_key()) + " takes " +
        std::to_string(entry.num_args) + " parameters, but " + call.op_type + " passes " +
        std::to_string(wanted) + " (inputs, outputs, workspace, tiling)");
  }

  Plan plan;
  plan.op_type = call.op_type;
  plan.profile = arch.name;
  plan.arch = &arch;
  plan.kernel_name = match.op->kernel;
  plan.package = match.package->manifest.package;
  plan.entry = entry.fn;
  const std::string type = entry.kernel_type;
  plan.kernel_type = type == "AIC"   ? device::KernelType::kAic
                     : type == "MIX" ? device::KernelType::kMix
                                     : device::KernelType::kAiv;
  plan.block_dim = ctx.block_dim();
  plan.tiling_key = ctx.tiling_key();
  plan.workspace = ctx.TotalWorkspace();
  plan.num_inputs = call.inputs.size();
  plan.num_outputs = call.outputs.size();
  plan.info.op_type = call.op_type;
  plan.info.package = plan.package;
  plan.info.package_dir = dir.string();
  plan.info.kernel_name = plan.kernel_name;
  plan.info.binary = IsLinked(*match.package) ? "linked into " + dir.string() : binary->bin_path;
  plan.info.simplified_key = key;
  plan.info.soc = binary->soc;
  plan.info.block_dim = plan.block_dim;
  plan.info.tiling_key = plan.tiling_key;
  plan.info.workspace = plan.workspace;
  plan.info.tiling_data = ctx.tiling_data();
  plan.info.tiling_schema = def->tiling_schema();
  const std::vector<uint8_t>& bytes = ctx.tiling_data();
  if (!run_time.empty()) {
    if (ctx.tiling_hash() != def->tiling_schema_hash() ||
        bytes.size() != def->tiling_schema()->size) {
      return FailedPrecondition(call.op_type + ": the tiling function set tiling data other than " +
                                "its declared TilingDataType " +
                                std::string(def->tiling_schema()->name) +
                                ", which its run-time attributes are written into");
    }
    if (bytes.size() > kMaxRunTimeTilingBytes) {
      return FailedPrecondition(
          call.op_type + ": tiling struct " + std::string(def->tiling_schema()->name) + " has " +
          std::to_string(bytes.size()) + " bytes; an op with run-time attributes is limited to " +
          std::to_string(kMaxRunTimeTilingBytes));
    }
  }
  plan.run_time = std::move(run_time);
  for (const auto& in : call.inputs)
    plan.input_dtypes.push_back(in ? std::optional<DataType>(in->desc.dtype) : std::nullopt);
  for (const auto& out : call.outputs)
    plan.output_dtypes.push_back(out.desc.dtype);
  TESSERA_ASSIGN_OR_RETURN(plan.tiling_device, device::Malloc(bytes.size()));
  TESSERA_RETURN_IF_ERROR(device::Memcpy(plan.tiling_device, bytes.size(), bytes.data(),
                                         bytes.size(), device::MemcpyKind::kHostToDevice));
  return plan;
}

// Checks one tensor argument: valid description, and memory behind it when it is not empty. This
// runs on every call, so the error text is only built when there is an error.
// The tensor's address: not null when it holds bytes, and in checked mode a device allocation
// with room for them.
Status CheckAddress(const std::string& op, const char* role, size_t index, const TensorArg& t,
                    uint64_t bytes) {
  if (bytes == 0) return OkStatus();
  const auto name = [&] { return op + " " + role + " " + std::to_string(index); };
  if (t.address == nullptr) return InvalidArgument(name() + ": device address is null");
  if (device::CheckedMode()) {
    const size_t available = device::DeviceBytesFrom(t.address);
    if (available < bytes) {
      return InvalidArgument(name() + ": " + std::to_string(bytes) + " bytes of " +
                             t.desc.ToString() +
                             " do not fit the device allocation at its address (" +
                             std::to_string(available) + " bytes left)");
    }
  }
  return OkStatus();
}

// Checks one tensor argument: valid description, and memory behind it when it is not empty;
// `*storage` receives its storage bytes. The error text is only built when there is an error.
Status CheckTensor(const std::string& op, const char* role, size_t index, const TensorArg& t,
                   uint64_t* storage) {
  Status st = t.desc.Validate();
  if (!st.ok()) {
    return Status(st.code(),
                  op + " " + role + " " + std::to_string(index) + ": " + std::string(st.message()));
  }
  TESSERA_ASSIGN_OR_RETURN(int64_t bytes, t.desc.StorageBytes());
  *storage = bytes > 0 ? static_cast<uint64_t>(bytes) : 0;
  return CheckAddress(op, role, index, t, *storage);
}

// The plans of this thread's last calls, in front of the shared cache: a repeated call finds its
// plan by its exact key without taking the cache's lock. Entries of an older generation (the
// cache was cleared since) are never used. Memo hits count as cache hits.
std::atomic<uint64_t> g_cache_generation{1};
std::atomic<uint64_t> g_memo_hits{0};

class PlanMemo {
 public:
  // A call whose key is an entry's was checked already: its tensors' descriptions are valid and
  // their storage bytes are the entry's (only the addresses are new).
  struct Entry {
    std::string key;
    // Weak: the memo never keeps a plan alive, so a plan the cache dropped is freed (its device
    // memory, which syncs the device) by its last executor, never inside a later stage 1.
    std::weak_ptr<const Plan> plan;
    uint64_t generation = 0;
    std::array<uint64_t, OpExecutor::kMaxTensors> storage;  // of each tensor, inputs then outputs
  };
  const Entry* Find(const std::string& key) {
    const uint64_t generation = g_cache_generation.load(std::memory_order_acquire);
    for (const Entry& e : entries_) {
      if (e.generation == generation && e.key.size() == key.size() &&
          std::memcmp(e.key.data(), key.data(), key.size()) == 0) {
        return &e;
      }
    }
    return nullptr;
  }
  // `generation`: read before the plan was looked up in the cache, so a plan from before a
  // concurrent Clear is not kept as current.
  void Keep(const std::string& key, const std::shared_ptr<const Plan>& plan, uint64_t generation,
            const std::array<uint64_t, OpExecutor::kMaxTensors>& storage, size_t tensors) {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    e.key.assign(key);
    e.plan = plan;
    e.generation = generation;
    std::copy_n(storage.begin(), tensors, e.storage.begin());
  }

 private:
  std::array<Entry, 8> entries_;
  size_t next_ = 0;
};

bool MemoEnabled() {
  static const bool enabled = CacheLimitFromEnv() > 0;  // TESSERA_CACHE_LIMIT=0 disables both
  return enabled;
}

PlanMemo& ThreadMemo() {
  thread_local PlanMemo memo;
  return memo;
}

bool Contains(const std::vector<std::string>* names, const std::string& name) {
  return names != nullptr && std::binary_search(names->begin(), names->end(), name);
}

// The call's cache key, built in a per-thread buffer (valid until the thread's next call). The
// attributes named in `run_time` enter by name and kind only.
const std::string& CacheKey(const OpCall& call, const std::vector<std::string>* run_time,
                            const device::ArchSpec& arch) {
  thread_local CacheKeyBuilder builder("");
  CacheKeyBuilder& b = builder.Reset(call.op_type);
  for (const auto& in : call.inputs)
    b.Tensor(in ? &in->desc : nullptr);
  for (const auto& out : call.outputs)
    b.Tensor(&out.desc);
  for (const auto& [name, value] : call.attrs) {
    if (Contains(run_time, name)) {
      b.RunTimeAttr(name, KindOf(value));
    } else {
      b.Attr(name, value);
    }
  }
  b.Platform(arch.aiv_cores, arch.aic_cores, arch.soc, arch.name).Deterministic(call.deterministic);
  if (!call.package_dir.empty()) b.Package(call.package_dir);
  return b.key();
}

}  // namespace

uint64_t OpExecutor::workspace_size() const {
  return plan_->workspace;
}

const std::string& OpExecutor::package() const {
  return plan_->package;
}

const std::string& OpExecutor::op_type() const {
  return plan_->info.op_type;
}

PlanInfo OpExecutor::info() const {
  return plan_->info;
}

namespace {

// The default writer: the value stored into the attribute's tiling field.
Status StoreRunTimeValue(const Plan& plan, const OpAttrDef& def, const tiling::TilingField& field,
                         const AttrValue& value, uint8_t* tiling) {
  uint8_t* at = tiling + field.offset;
  const float* f = std::get_if<float>(&value);
  const int64_t* i = std::get_if<int64_t>(&value);
  const bool* b = std::get_if<bool>(&value);
  if (field.type == tiling::TilingFieldType::kFloat32 && f) {
    std::memcpy(at, f, sizeof(*f));
  } else if (field.type == tiling::TilingFieldType::kInt64 && i) {
    std::memcpy(at, i, sizeof(*i));
  } else if (field.type == tiling::TilingFieldType::kInt32 && i) {
    if (*i < INT32_MIN || *i > INT32_MAX) {
      return InvalidArgument(plan.op_type + ": attribute '" + def.name() + "' is " +
                             std::to_string(*i) + ", which its int32 tiling field cannot hold");
    }
    const auto v32 = static_cast<int32_t>(*i);
    std::memcpy(at, &v32, sizeof(v32));
  } else if (field.type == tiling::TilingFieldType::kBool && b) {
    std::memcpy(at, b, sizeof(*b));
  } else {
    return FailedPrecondition(plan.op_type + ": run-time attribute '" + def.name() + "' (" +
                              AttrKindName(KindOf(value)) + ") cannot be stored into its " +
                              std::string(tiling::TilingFieldTypeName(field.type)) +
                              " tiling field");
  }
  return OkStatus();
}

}  // namespace

template <class Find>
Status OpExecutor::WriteRunTimeValues(Find find) {
  const Plan& plan = *plan_;
  if (plan.run_time.empty()) return OkStatus();
  const std::vector<uint8_t>& bytes = plan.info.tiling_data;
  std::copy(bytes.begin(), bytes.end(), tiling_.begin());
  tiling_size_ = bytes.size();
  for (size_t i = 0; i < plan.run_time.size(); ++i) {
    const RunTimeAttr& rt = plan.run_time[i];
    const OpAttrDef& def = *rt.def;
    const AttrValue* given = find(i);
    const AttrValue& value = given != nullptr ? *given : def.default_value();
    if (KindOf(value) != *def.kind()) {
      return InvalidArgument(plan.op_type + ": attribute '" + def.name() + "' expects " +
                             AttrKindName(*def.kind()) + ", got " + AttrKindName(KindOf(value)));
    }
    if (rt.field != nullptr) {
      TESSERA_RETURN_IF_ERROR(StoreRunTimeValue(plan, def, *rt.field, value, tiling_.data()));
      continue;
    }
    Status st = OkStatus();
    try {
      st = def.run_time_writer()(RunTimeValueContext{plan.op_type, def.name(), value,
                                                     plan.input_dtypes, plan.output_dtypes,
                                                     tiling_.data(), tiling_size_});
    } catch (const std::exception& e) {
      st = Internal(plan.op_type + ": the writer of run-time attribute '" + def.name() +
                    "' threw: " + e.what());
    }
    TESSERA_RETURN_IF_ERROR(st);
  }
  return OkStatus();
}

Status OpExecutor::SetRunTimeValues(const std::map<std::string, AttrValue>& attrs) {
  const Plan& plan = *plan_;
  return WriteRunTimeValues([&](size_t i) -> const AttrValue* {
    const auto it = attrs.find(plan.run_time[i].def->name());
    return it != attrs.end() ? &it->second : nullptr;
  });
}

void* OpExecutor::operator new(size_t size) {
  return BlockPool<OpExecutor>::Take(size);
}

void OpExecutor::operator delete(void* p, size_t size) {
  BlockPool<OpExecutor>::Give(p, size);
}

Status OpExecutor::SetAddress(size_t index, void* address) {
  if (!repeatable_) return FailedPrecondition("SetAddress: the executor is not repeatable");
  if (index >= count_) {
    return InvalidArgument("SetAddress: tensor index " + std::to_string(index) +
                           " is out of range; the op has " + std::to_string(count_) + " tensors");
  }
  const uint64_t bytes = bytes_[index];
  if (bytes > 0 && address == nullptr) {
    return InvalidArgument("SetAddress: the address of tensor " + std::to_string(index) +
                           " is null, but the tensor holds " + std::to_string(bytes) + " bytes");
  }
  if (bytes > 0 && device::CheckedMode() && device::DeviceBytesFrom(address) < bytes) {
    return InvalidArgument("SetAddress: tensor " + std::to_string(index) + " needs " +
                           std::to_string(bytes) + " bytes of device memory, but the address has " +
                           std::to_string(device::DeviceBytesFrom(address)) +
                           " (not a device allocation, or too small)");
  }
  addresses_[index] = static_cast<uint8_t*>(address);
  return OkStatus();
}

Result<std::unique_ptr<OpExecutor>> PrepareOp(const OpCall& call, uint64_t* workspace_size) {
  if (workspace_size == nullptr) return InvalidArgument("PrepareOp: workspace_size is null");
  if (call.op_type.empty()) return InvalidArgument("PrepareOp: the op type is empty");
  if (call.outputs.empty()) return InvalidArgument(call.op_type + ": no output tensor given");
  if (call.inputs.size() + call.outputs.size() > OpExecutor::kMaxTensors) {
    return InvalidArgument(
        call.op_type + ": " + std::to_string(call.inputs.size() + call.outputs.size()) +
        " tensors; a call takes at most " + std::to_string(OpExecutor::kMaxTensors));
  }
  PackageRuntime& rt = PackageRuntime::Get();
  std::shared_ptr<const Plan> plan;
  std::array<uint64_t, OpExecutor::kMaxTensors> storage;  // inputs, then outputs
  const size_t num_inputs = call.inputs.size();
  const size_t num_tensors = num_inputs + call.outputs.size();
  const PlanMemo::Entry* memo =
      MemoEnabled()
          ? ThreadMemo().Find(CacheKey(
                call,
                call.attrs.empty() ? nullptr : rt.RunTimeNames(call.op_type, call.package_dir),
                device::CurrentArch()))
          : nullptr;
  if (memo != nullptr) plan = memo->plan.lock();
  if (plan == nullptr) memo = nullptr;  // the cache dropped the plan and no executor holds it
  if (memo != nullptr) {
    g_memo_hits.fetch_add(1, std::memory_order_relaxed);
    std::copy_n(memo->storage.begin(), num_tensors, storage.begin());
    for (size_t i = 0; i < num_inputs; ++i) {
      if (call.inputs[i])
        TESSERA_RETURN_IF_ERROR(
            CheckAddress(call.op_type, "input", i, *call.inputs[i], storage[i]));
    }
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      TESSERA_RETURN_IF_ERROR(
          CheckAddress(call.op_type, "output", i, call.outputs[i], storage[num_inputs + i]));
    }
  } else {
    std::fill_n(storage.begin(), num_tensors, 0);
    for (size_t i = 0; i < num_inputs; ++i) {
      if (call.inputs[i])
        TESSERA_RETURN_IF_ERROR(
            CheckTensor(call.op_type, "input", i, *call.inputs[i], &storage[i]));
    }
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      TESSERA_RETURN_IF_ERROR(
          CheckTensor(call.op_type, "output", i, call.outputs[i], &storage[num_inputs + i]));
    }
  }
  // The key leaves out the values of the attributes the op takes at run time. Which those are is
  // known once a plan was built; a plan built for a key that guessed wrong is not cached under it
  // (the next attempt uses the names just learnt).
  for (int attempt = 0; memo == nullptr; ++attempt) {
    const std::vector<std::string>* names =
        call.attrs.empty() ? nullptr : rt.RunTimeNames(call.op_type, call.package_dir);
    // The profile is read once: the key and the plan must be of the same one, though another
    // thread may call SetProfile meanwhile.
    const device::ArchSpec& arch = device::CurrentArch();
    const std::string& key = CacheKey(call, names, arch);
    const uint64_t generation = g_cache_generation.load(std::memory_order_acquire);
    bool guessed_wrong = false;
    bool profile_changed = false;
    // One pointer captured, so the builder fits std::function's inline storage (a hit allocates
    // nothing).
    struct Build {
      PackageRuntime& rt;
      const OpCall& call;
      const std::vector<std::string>* names;
      bool& guessed_wrong;
      bool& profile_changed;
      const device::ArchSpec& arch;
    } args{rt, call, names, guessed_wrong, profile_changed, arch};
    bool hit = false;
    Result<std::shared_ptr<const Plan>> got = rt.cache().GetOrBuild(
        key,
        [a = &args]() -> Result<Plan> {
          PackageRuntime& rt = a->rt;
          const OpCall& call = a->call;
          const std::vector<std::string>* names = a->names;
          bool& guessed_wrong = a->guessed_wrong;
          TESSERA_ASSIGN_OR_RETURN(Plan built, rt.BuildPlan(call));
          if (built.arch != &a->arch) {  // not cached under the other profile's key
            a->profile_changed = true;
            return FailedPrecondition(call.op_type +
                                      ": the device profile changed while the call was prepared "
                                      "(SetProfile on another thread); call again");
          }
          std::vector<std::string> actual;
          for (const RunTimeAttr& a : built.run_time)
            actual.push_back(a.def->name());
          std::sort(actual.begin(), actual.end());
          for (const auto& [name, value] : call.attrs) {
            const bool is_run_time = std::binary_search(actual.begin(), actual.end(), name);
            if (is_run_time != Contains(names, name)) guessed_wrong = true;
          }
          if (guessed_wrong) {
            rt.SetRunTimeNames(call.op_type, call.package_dir, std::move(actual));
            return FailedPrecondition(call.op_type +
                                      ": its run-time attributes changed while the call was "
                                      "prepared; call again");
          }
          return built;
        },
        &hit);
    // A call that waited on another thread's build shares its verdict: retry when that build
    // learnt the names (its failure says "call again").
    const bool learnt = !got.ok() && !call.attrs.empty() &&
                        rt.RunTimeNames(call.op_type, call.package_dir) != names;
    if ((guessed_wrong || learnt || profile_changed) && attempt == 0) continue;
    if (!got.ok()) return got.status();
    plan = std::move(got).value();
    // A build may have run a nested stage 1 that reused this thread's key buffer: rebuild it.
    if (MemoEnabled()) {
      ThreadMemo().Keep(hit ? key : CacheKey(call, names, arch), plan, generation, storage,
                        num_tensors);
    }
    break;
  }
  *workspace_size = plan->workspace;
  // BuildPlan checked the tensor count against the kernel's parameters (at most kMaxKernelArgs).
  auto executor = std::make_unique<OpExecutor>(std::move(plan));
  OpExecutor& e = *executor;
  for (const auto& in : call.inputs) {
    e.addresses_[e.count_] = in ? static_cast<uint8_t*>(in->address) : nullptr;
    e.bytes_[e.count_] = storage[e.count_];
    ++e.count_;
  }
  for (const auto& out : call.outputs) {
    e.addresses_[e.count_] = static_cast<uint8_t*>(out.address);
    e.bytes_[e.count_] = storage[e.count_];
    ++e.count_;
  }
  TESSERA_RETURN_IF_ERROR(executor->SetRunTimeValues(call.attrs));
  return executor;
}

Result<std::unique_ptr<OpExecutor>> PrepareFromPlan(std::shared_ptr<const Plan> plan,
                                                    void* const* addresses, const uint64_t* bytes,
                                                    size_t num_tensors,
                                                    const AttrValue* const* run_time,
                                                    uint64_t* workspace_size) {
  if (plan == nullptr || workspace_size == nullptr)
    return InvalidArgument("PrepareFromPlan: plan and workspace_size must not be null");
  if (num_tensors != plan->num_inputs + plan->num_outputs) {
    return InvalidArgument(plan->op_type + ": " + std::to_string(num_tensors) +
                           " tensors given to a plan of " +
                           std::to_string(plan->num_inputs + plan->num_outputs));
  }
  const bool checked = device::CheckedMode();
  for (size_t i = 0; i < num_tensors; ++i) {
    if (bytes[i] == 0 || (addresses[i] != nullptr && !checked)) continue;
    const bool input = i < plan->num_inputs;
    const std::string name = plan->op_type + (input ? " input " : " output ") +
                             std::to_string(input ? i : i - plan->num_inputs);
    if (addresses[i] == nullptr) return InvalidArgument(name + ": device address is null");
    if (const size_t available = device::DeviceBytesFrom(addresses[i]); available < bytes[i]) {
      return InvalidArgument(name + ": " + std::to_string(bytes[i]) +
                             " bytes do not fit the device allocation at its address (" +
                             std::to_string(available) + " bytes left)");
    }
  }
  g_memo_hits.fetch_add(1, std::memory_order_relaxed);
  *workspace_size = plan->workspace;
  auto executor = std::make_unique<OpExecutor>(std::move(plan));
  OpExecutor& e = *executor;
  for (size_t i = 0; i < num_tensors; ++i)
    e.addresses_[i] = static_cast<uint8_t*>(addresses[i]);
  std::copy_n(bytes, num_tensors, e.bytes_.begin());
  e.count_ = num_tensors;
  TESSERA_RETURN_IF_ERROR(e.WriteRunTimeValues(
      [run_time](size_t i) { return run_time != nullptr ? run_time[i] : nullptr; }));
  return executor;
}

const device::ArchSpec* PlanProfile(const Plan& plan) {
  return plan.arch;
}

std::vector<std::string_view> RunTimeAttrNames(const Plan& plan) {
  std::vector<std::string_view> names;
  for (const RunTimeAttr& rt : plan.run_time)
    names.emplace_back(rt.def->name());
  return names;
}

uint64_t ParamCacheGeneration() {
  return g_cache_generation.load(std::memory_order_acquire);
}

bool ParamCacheEnabled() {
  return MemoEnabled();
}

Status ExecuteOp(OpExecutor& executor, void* workspace, uint64_t workspace_size,
                 const device::Stream& stream) {
  const Plan& plan = *executor.plan_;
  if (executor.used_ && !executor.repeatable_) {
    return FailedPrecondition(
        plan.op_type +
        ": the executor was already run; executors are single use unless made repeatable");
  }
  // The tiling was made for the buffers and cores of the profile current at stage 1.
  if (const device::ArchSpec& now_arch = device::CurrentArch();
      &now_arch != plan.arch && now_arch.name != plan.profile) {
    const std::string& now = now_arch.name;
    return FailedPrecondition(plan.op_type + ": the executor was prepared for device profile '" +
                              plan.profile + "' but the current profile is '" + now +
                              "'; call the first stage again after SetProfile");
  }
  if (workspace_size < plan.workspace) {
    return InvalidArgument("The passed workspace size " + std::to_string(workspace_size) +
                           " does not meet the minimum workspace size " +
                           std::to_string(plan.workspace));
  }
  if (plan.workspace > 0 && workspace == nullptr) {
    return InvalidArgument(plan.op_type + ": workspace is null but " +
                           std::to_string(plan.workspace) + " bytes are required");
  }
  if (plan.workspace > 0 && device::CheckedMode() &&
      device::DeviceBytesFrom(workspace) < plan.workspace) {
    return InvalidArgument(plan.op_type + ": the workspace needs " +
                           std::to_string(plan.workspace) + " bytes of device memory, but " +
                           std::to_string(device::DeviceBytesFrom(workspace)) +
                           " bytes of a device allocation start at its address (host memory, " +
                           "freed memory or too small an allocation)");
  }
  // Default-initialised: the 2.6 KB of argument and tiling arrays are written only as far as used.
  std::unique_ptr<LaunchPayload> payload(new LaunchPayload);
  payload->entry = plan.entry;
  ArgPack& pack = payload->pack;
  uint32_t n = 0;
  for (size_t i = 0; i < executor.count_; ++i)
    pack.args[n++] = executor.addresses_[i];
  pack.args[n++] = static_cast<uint8_t*>(workspace);
  pack.args[n++] = static_cast<uint8_t*>(plan.tiling_device);
  pack.count = n;
  if (executor.tiling_size_ > 0) {
    pack.tiling_size = static_cast<uint32_t>(executor.tiling_size_);
    std::copy_n(executor.tiling_.begin(), executor.tiling_size_, pack.tiling.begin());
  }
  executor.used_ = true;
  device::LaunchConfig config{plan.block_dim, plan.kernel_type, plan.kernel_name.c_str()};
  for (size_t i = 0; i < executor.count_; ++i)
    config.bytes_moved += executor.bytes_[i];  // inputs and outputs: what the trace's GB/s counts
  // Checked mode: the blocks together must write every byte of every output.
  std::vector<device::ByteRange> outputs;
  if (device::CheckedMode()) {
    for (size_t i = plan.num_inputs; i < executor.count_; ++i) {
      const uint64_t bytes = executor.bytes_[i];
      if (executor.addresses_[i] != nullptr && bytes > 0)
        outputs.push_back(device::ByteRange{executor.addresses_[i], bytes});
    }
    config.must_write = outputs.data();
    config.must_write_count = static_cast<uint32_t>(outputs.size());
  }
  device::detail::LaunchRequest req;
  req.config = config;
  req.kernel_address = reinterpret_cast<const void*>(plan.entry);
  req.invoke = RunEntry;
  req.destroy = [](void* p) { delete static_cast<LaunchPayload*>(p); };
  req.payload = payload.release();
  return device::detail::EnqueueLaunch(std::move(req), stream);
}

RuntimeStats GetRuntimeStats() {
  PackageRuntime& rt = PackageRuntime::Get();
  RuntimeStats s;
  s.cache = rt.cache().stats();
  s.cache.hits += g_memo_hits.load(std::memory_order_relaxed);
  s.tiling_calls = rt.tiling_calls.load();
  s.package_lookups = rt.package_lookups.load();
  s.manifest_parses = rt.manifest_parses.load();
  return s;
}

void ClearParamCache() {
  // Clear first, then bump: a caller that reads the new generation can only find plans built
  // after the clear, so no pre-clear plan is kept as current.
  PackageRuntime::Get().cache().Clear();
  g_cache_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::string BuiltinPackageDir() {
  if (const char* env = std::getenv("TESSERA_BUILTIN_PACKAGE_DIR"); env && env[0]) return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&BuiltinPackageDir), &info) != 0 && info.dli_fname) {
    const fs::path installed =
        fs::path(info.dli_fname).parent_path() / "tessera" / "packages" / "builtin";
    std::error_code ec;
    if (fs::is_directory(installed, ec)) return installed.string();
  }
#ifdef TESSERA_BUILD_TREE_BUILTIN_PACKAGE
  return TESSERA_BUILD_TREE_BUILTIN_PACKAGE;
#else
  return "";
#endif
}

}  // namespace tessera::runtime
