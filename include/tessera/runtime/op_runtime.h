// Running operators from packages: the two stages of a call.
//
//   stage 1 PrepareOp: cache lookup by everything that affects the result; on a miss, find the op
//           in the packages by priority, check dtypes/formats against its OpDef, run its tiling
//           function, pick the kernel binary for this SoC and simplified key (sha256-verified) and
//           the entry for the tiling key. Returns an executor and the workspace size.
//   stage 2 ExecuteOp: checks the workspace and enqueues the kernel launch on a stream.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/stream.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/param_cache.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::device {
struct ArchSpec;
}  // namespace tessera::device

namespace tessera::runtime {

struct TensorArg {
  TensorDesc desc;
  void* address = nullptr;
};

struct OpCall {
  std::string op_type;
  std::vector<std::optional<TensorArg>> inputs;  // nullopt: an absent optional input
  std::vector<TensorArg> outputs;
  std::map<std::string, AttrValue> attrs;
  bool deterministic = false;
  // Non-empty: run the op from the package in this directory only (a generated op API pins its
  // own package this way); empty: search the packages by priority.
  std::string package_dir;
};

struct Plan;

// What a prepared call will launch: for tools (`tessera tiling`, `tessera run`) and diagnostics.
struct PlanInfo {
  std::string op_type;
  std::string package;
  std::string package_dir;
  std::string kernel_name;
  std::string binary;  // kernel library path inside the package
  std::string simplified_key;
  std::string soc;  // SoC of the chosen binary
  uint32_t block_dim = 1;
  uint64_t tiling_key = 0;
  uint64_t workspace = 0;
  std::vector<uint8_t> tiling_data;
  const tiling::TilingSchema* tiling_schema = nullptr;  // null when the op declared none
};

// Largest tiling struct of an op with run-time attributes: each call carries its own copy in
// the launch.
inline constexpr size_t kMaxRunTimeTilingBytes = 2048;

// A prepared call: the cached plan plus this call's addresses (and, for an op with run-time
// attributes, this call's tiling bytes). Single use unless repeatable.
class OpExecutor {
 public:
  // Tensors (inputs then outputs) an executor holds: the kernel's parameters less workspace and
  // tiling.
  static constexpr size_t kMaxTensors = 62;
  explicit OpExecutor(std::shared_ptr<const Plan> plan) : plan_(std::move(plan)) {}
  // Executors come from a pool: stage 1 on a cache hit allocates nothing.
  static void* operator new(size_t size);
  static void operator delete(void* p, size_t size);
  uint64_t workspace_size() const;
  void set_repeatable(bool on) { repeatable_ = on; }
  bool repeatable() const { return repeatable_; }
  // Repeatable executors only: point tensor `index` (inputs then outputs) at new memory. A null
  // address for a non-empty tensor is refused; in checked mode so is memory that is not a device
  // allocation holding the tensor's bytes.
  Status SetAddress(size_t index, void* address);
  const Plan& plan() const { return *plan_; }
  // The package whose kernel this executor runs.
  const std::string& package() const;
  // The op type the executor was prepared for.
  const std::string& op_type() const;
  PlanInfo info() const;
  // Writes the call's run-time attribute values (absent optional ones: their defaults) into this
  // executor's copy of the plan's tiling bytes. No-op for a plan without run-time attributes.
  Status SetRunTimeValues(const std::map<std::string, AttrValue>& attrs);
  // The plan, for a caller's own memo of its calls (PrepareFromPlan).
  const std::shared_ptr<const Plan>& shared_plan() const { return plan_; }
  // Storage bytes of tensor `index` (inputs then outputs), as stage 1 found them.
  uint64_t tensor_bytes(size_t index) const { return bytes_[index]; }

 private:
  friend Status ExecuteOp(OpExecutor&, void*, uint64_t, const device::Stream&);
  friend Result<std::unique_ptr<OpExecutor>> PrepareOp(const OpCall&, uint64_t*);
  friend Result<std::unique_ptr<OpExecutor>> PrepareFromPlan(std::shared_ptr<const Plan>,
                                                             void* const*, const uint64_t*, size_t,
                                                             const AttrValue* const*, uint64_t*);
  // Writes the run-time values: `find(i)` is the value of the plan's i-th run-time attribute, null
  // for its default.
  template <class Find>
  Status WriteRunTimeValues(Find find);
  std::shared_ptr<const Plan> plan_;
  size_t count_ = 0;
  std::array<uint8_t*, kMaxTensors> addresses_;         // the first count_ are set
  std::array<uint64_t, kMaxTensors> bytes_;             // storage bytes of each tensor
  std::array<uint8_t, kMaxRunTimeTilingBytes> tiling_;  // valid when tiling_size_ > 0
  size_t tiling_size_ = 0;
  bool repeatable_ = false;
  bool used_ = false;
};

// Stage 1. *workspace_size receives the bytes ExecuteOp needs.
Result<std::unique_ptr<OpExecutor>> PrepareOp(const OpCall& call, uint64_t* workspace_size);
// Stage 1 of a call PrepareOp prepared before (a caller's memo of its calls): the same op, package,
// tensor descriptions and compile-time attribute values under the same device profile and cache
// generation (ParamCacheGeneration), so only the addresses and run-time values are new.
// `addresses` and `bytes` (the storage bytes PrepareOp found, OpExecutor::tensor_bytes) hold
// `num_tensors` entries, inputs then outputs; `run_time[i]` is the value of the plan's i-th
// run-time attribute (RunTimeAttrNames), null for its default (`run_time` null: every default).
// Refuses a null address for a tensor with bytes and, in checked mode, memory that is not a device
// allocation of that size, with PrepareOp's messages. Counts as a cache hit.
Result<std::unique_ptr<OpExecutor>> PrepareFromPlan(std::shared_ptr<const Plan> plan,
                                                    void* const* addresses, const uint64_t* bytes,
                                                    size_t num_tensors,
                                                    const AttrValue* const* run_time,
                                                    uint64_t* workspace_size);
// The names of a plan's run-time attributes, in the order PrepareFromPlan takes their values.
std::vector<std::string_view> RunTimeAttrNames(const Plan& plan);
// The device profile a plan's tiling was made for (profiles are never freed: compare pointers).
const device::ArchSpec* PlanProfile(const Plan& plan);
// Bumped by ClearParamCache: a memo of plans must not use an entry made under an older value.
uint64_t ParamCacheGeneration();
// False when TESSERA_CACHE_LIMIT=0 disables the parameter cache (and so every memo of plans).
bool ParamCacheEnabled();

// Stage 2. Fails when the workspace is smaller than required (both sizes named), null while bytes
// are required, or (checked mode) not device memory of that size, or a single-use executor runs
// twice.
Status ExecuteOp(OpExecutor& executor, void* workspace, uint64_t workspace_size,
                 const device::Stream& stream);

struct RuntimeStats {
  CacheStats cache;
  uint64_t tiling_calls = 0;     // tiling functions run (cache misses that got that far)
  uint64_t package_lookups = 0;  // package searches
  uint64_t manifest_parses = 0;  // manifests parsed (once per package, again when its file changes)
};
RuntimeStats GetRuntimeStats();
// Empties the parameter cache (tests, or after installing a package).
void ClearParamCache();

// Where the built-in package is looked for: TESSERA_BUILTIN_PACKAGE_DIR, else next to the runtime
// library (<libdir>/tessera/packages/builtin), else the build tree's package.
std::string BuiltinPackageDir();

}  // namespace tessera::runtime
