#include "tessera/runtime/op_runtime.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "runtime/package/package.h"
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
    return *this;
  }
  ~Plan() {
    if (tiling_device) (void)device::Free(tiling_device);
  }
};

namespace {

// Kernel parameters travel by value into the launch.
struct ArgPack {
  std::array<uint8_t*, kMaxKernelArgs> args{};
};

void RunEntry(KernelEntryFn entry, ArgPack pack) {
  entry(pack.args.data());
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
  std::atomic<uint64_t> tiling_calls{0};
  std::atomic<uint64_t> package_lookups{0};

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
};

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
  TESSERA_ASSIGN_OR_RETURN(plan.tiling_device, device::Malloc(bytes.size()));
  TESSERA_RETURN_IF_ERROR(device::Memcpy(plan.tiling_device, bytes.size(), bytes.data(),
                                         bytes.size(), device::MemcpyKind::kHostToDevice));
  return plan;
}

// Checks one tensor argument: valid description, and memory behind it when it is not empty. This
// runs on every call, so the error text is only built when there is an error.
Status CheckTensor(const std::string& op, const char* role, size_t index, const TensorArg& t) {
  const auto name = [&] { return op + " " + role + " " + std::to_string(index); };
  Status st = t.desc.Validate();
  if (!st.ok()) return Status(st.code(), name() + ": " + std::string(st.message()));
  TESSERA_ASSIGN_OR_RETURN(int64_t bytes, t.desc.StorageBytes());
  if (bytes > 0 && t.address == nullptr)
    return InvalidArgument(name() + ": device address is null");
  if (bytes > 0 && device::CheckedMode()) {
    const size_t available = device::DeviceBytesFrom(t.address);
    if (available < static_cast<size_t>(bytes)) {
      return InvalidArgument(name() + ": " + std::to_string(bytes) + " bytes of " +
                             t.desc.ToString() +
                             " do not fit the device allocation at its address (" +
                             std::to_string(available) + " bytes left)");
    }
  }
  return OkStatus();
}

// The call's cache key, built in a per-thread buffer (valid until the thread's next call).
const std::string& CacheKey(const OpCall& call) {
  thread_local CacheKeyBuilder builder("");
  CacheKeyBuilder& b = builder.Reset(call.op_type);
  for (const auto& in : call.inputs)
    b.Tensor(in ? &in->desc : nullptr);
  for (const auto& out : call.outputs)
    b.Tensor(&out.desc);
  for (const auto& [name, value] : call.attrs)
    b.Attr(name, value);
  const device::ArchSpec& arch = device::CurrentArch();
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

Status OpExecutor::SetAddress(size_t index, void* address) {
  if (!repeatable_) return FailedPrecondition("SetAddress: the executor is not repeatable");
  if (index >= addresses_.size()) {
    return InvalidArgument("SetAddress: tensor index " + std::to_string(index) +
                           " is out of range; the op has " + std::to_string(addresses_.size()) +
                           " tensors");
  }
  const uint64_t bytes = index < bytes_.size() ? bytes_[index] : 0;
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
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    if (call.inputs[i])
      TESSERA_RETURN_IF_ERROR(CheckTensor(call.op_type, "input", i, *call.inputs[i]));
  }
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    TESSERA_RETURN_IF_ERROR(CheckTensor(call.op_type, "output", i, call.outputs[i]));
  }
  PackageRuntime& rt = PackageRuntime::Get();
  TESSERA_ASSIGN_OR_RETURN(
      std::shared_ptr<const Plan> plan,
      rt.cache().GetOrBuild(CacheKey(call), [&] { return rt.BuildPlan(call); }));
  std::vector<uint8_t*> addresses;
  std::vector<uint64_t> bytes;
  addresses.reserve(call.inputs.size() + call.outputs.size());
  bytes.reserve(call.inputs.size() + call.outputs.size());
  const auto storage = [](const TensorDesc& d) {
    Result<int64_t> b = d.StorageBytes();
    return b.ok() && *b > 0 ? static_cast<uint64_t>(*b) : uint64_t{0};
  };
  for (const auto& in : call.inputs) {
    addresses.push_back(in ? static_cast<uint8_t*>(in->address) : nullptr);
    bytes.push_back(in ? storage(in->desc) : 0);
  }
  for (const auto& out : call.outputs) {
    addresses.push_back(static_cast<uint8_t*>(out.address));
    bytes.push_back(storage(out.desc));
  }
  *workspace_size = plan->workspace;
  return std::make_unique<OpExecutor>(std::move(plan), std::move(addresses), std::move(bytes));
}

Status ExecuteOp(OpExecutor& executor, void* workspace, uint64_t workspace_size,
                 const device::Stream& stream) {
  const Plan& plan = *executor.plan_;
  if (executor.used_ && !executor.repeatable_) {
    return FailedPrecondition(
        plan.op_type +
        ": the executor was already run; executors are single use unless made repeatable");
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
  ArgPack pack;
  size_t n = 0;
  for (uint8_t* a : executor.addresses_)
    pack.args[n++] = a;
  pack.args[n++] = static_cast<uint8_t*>(workspace);
  pack.args[n++] = static_cast<uint8_t*>(plan.tiling_device);
  executor.used_ = true;
  device::LaunchConfig config{plan.block_dim, plan.kernel_type, plan.kernel_name.c_str()};
  for (uint64_t b : executor.bytes_)
    config.bytes_moved += b;  // inputs and outputs: what the trace's GB/s counts
  // Checked mode: the blocks together must write every byte of every output.
  std::vector<device::ByteRange> outputs;
  if (device::CheckedMode()) {
    for (size_t i = plan.num_inputs; i < executor.addresses_.size(); ++i) {
      const uint64_t bytes = i < executor.bytes_.size() ? executor.bytes_[i] : 0;
      if (executor.addresses_[i] != nullptr && bytes > 0)
        outputs.push_back(device::ByteRange{executor.addresses_[i], bytes});
    }
    config.must_write = outputs.data();
    config.must_write_count = static_cast<uint32_t>(outputs.size());
  }
  return device::Launch(config, RunEntry, stream, plan.entry, pack);
}

RuntimeStats GetRuntimeStats() {
  PackageRuntime& rt = PackageRuntime::Get();
  RuntimeStats s;
  s.cache = rt.cache().stats();
  s.tiling_calls = rt.tiling_calls.load();
  s.package_lookups = rt.package_lookups.load();
  return s;
}

void ClearParamCache() {
  PackageRuntime::Get().cache().Clear();
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
