// The two-stage operator calls of the C API.
#include <array>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/device/device.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/runtime/workspace_pool.h"
#include "tessera/tessera_nn.h"

struct tsrOpExecutor {
  std::unique_ptr<tessera::runtime::OpExecutor> impl;
};
static_assert(sizeof(tsrOpExecutor) <= tessera::c_api::kExecutorHandleBytes &&
              alignof(tsrOpExecutor) <= 8);
struct tsrWorkspacePool {
  tessera::runtime::WorkspacePool impl;
};

namespace {

using tessera::Result;
using tessera::Status;
using tessera::c_api::CheckHandle;
using tessera::c_api::Guard;
using tessera::c_api::HandleKind;
using tessera::c_api::Report;
using tessera::runtime::AttrValue;
using tessera::runtime::TensorArg;

// Fills `value` from `a` in place: a scalar into a variant that already holds one allocates
// nothing, which keeps a cache hit free of heap allocations.
tessera::Status ConvertAttr(const tsrAttr& a, AttrValue& value) {
  const auto name = [&] { return std::string(a.name); };
  switch (a.type) {
    case TSR_ATTR_INT:
      value.emplace<int64_t>(a.intValue);
      break;
    case TSR_ATTR_FLOAT:
      value.emplace<float>(a.floatValue);
      break;
    case TSR_ATTR_BOOL:
      value.emplace<bool>(a.boolValue != 0);
      break;
    case TSR_ATTR_STRING:
      if (a.stringValue == nullptr)
        return tessera::InvalidArgument("attribute '" + name() + "': stringValue is NULL");
      value.emplace<std::string>(a.stringValue);
      break;
    case TSR_ATTR_INT_LIST: {
      if (a.listCount > 0 && a.intList == nullptr)
        return tessera::InvalidArgument("attribute '" + name() + "': intList is NULL");
      auto& list = value.emplace<std::vector<int64_t>>();
      if (a.listCount > 0) list.assign(a.intList, a.intList + a.listCount);
      break;
    }
    case TSR_ATTR_FLOAT_LIST: {
      if (a.listCount > 0 && a.floatList == nullptr)
        return tessera::InvalidArgument("attribute '" + name() + "': floatList is NULL");
      auto& list = value.emplace<std::vector<float>>();
      if (a.listCount > 0) list.assign(a.floatList, a.floatList + a.listCount);
      break;
    }
    default:
      return tessera::InvalidArgument("attribute '" + name() + "': type " +
                                      std::to_string(static_cast<int>(a.type)) +
                                      " is not a tsrAttrType");
  }
  return tessera::OkStatus();
}

// Executors are made once per call, in the executor arena (no lock of the handle registry).
tsrOpExecutor* NewExecutor(std::unique_ptr<tessera::runtime::OpExecutor> impl) {
  void* memory = tessera::c_api::NewExecutorHandle();
  if (memory == nullptr) return nullptr;
  auto* executor = new (memory) tsrOpExecutor{std::move(impl)};
  tessera::c_api::PublishExecutorHandle(executor);
  return executor;
}

bool EndExecutor(tsrOpExecutor* executor) {
  return tessera::c_api::EndExecutorHandle(
      executor, [](void* handle) { static_cast<tsrOpExecutor*>(handle)->~tsrOpExecutor(); });
}

Status Publish(std::unique_ptr<tessera::runtime::OpExecutor> impl, const char* op_type,
               tsrOpExecutor** executor) {
  *executor = NewExecutor(std::move(impl));
  if (*executor != nullptr) return tessera::OkStatus();
  return tessera::Status(tessera::StatusCode::kOutOfMemory,
                         std::string(op_type) + ": too many live executors (destroy or run them)");
}

// This thread's last calls and their plans, in front of PrepareOp: a repeated call - the same op,
// package, tensor descriptions, attribute names, kinds and compile-time values, under the same
// device profile and cache generation - becomes an executor without building an OpCall or a cache
// key. Its tensors match an entry either as the same handles while no tensor was destroyed
// (tensors are immutable, so the same descriptions), or by their descriptions. Scalar attributes
// only; checked mode always takes the full path (its checks name the tensor descriptions).
constexpr size_t kMemoTensors = 16;
constexpr size_t kMemoAttrs = 8;
// Per tensor: a header word (absent: -1) then dims, then strides when given.
constexpr size_t kMemoDescWords = kMemoTensors * (1 + 2 * tessera::Shape::kMaxRank);

struct CallMemo {
  struct Attr {
    std::string name;
    tsrAttrType type = TSR_ATTR_INT;
    bool run_time = false;
    int64_t bits = 0;  // the value (compile-time attributes only)
  };
  struct Entry {
    std::weak_ptr<const tessera::runtime::Plan> plan;  // weak: the cache owns plans
    uint64_t generation = 0;                           // 0: empty
    const tessera::device::ArchSpec* arch = nullptr;   // profiles are never freed or reused
    std::string op_type;
    std::string package_dir;
    size_t num_inputs = 0;
    size_t num_outputs = 0;
    size_t num_attrs = 0;
    std::array<Attr, kMemoAttrs> attrs;
    size_t num_run_time = 0;
    std::array<int8_t, kMemoAttrs> run_time_attr;  // per run-time attribute: its attrs index, or -1
    std::array<const tsrTensor*, kMemoTensors> handles;
    uint64_t tensor_epoch = ~uint64_t{0};  // the handles match while TensorEpoch() is this
    std::vector<int64_t> descs;
    std::array<uint64_t, kMemoTensors> bytes;
  };
  std::array<Entry, 8> entries;
  size_t next = 0;
};
thread_local CallMemo tls_memo;

int64_t AttrBits(const tsrAttr& a) {
  switch (a.type) {
    case TSR_ATTR_FLOAT: {
      uint32_t bits = 0;
      std::memcpy(&bits, &a.floatValue, sizeof(bits));
      return bits;
    }
    case TSR_ATTR_BOOL:
      return a.boolValue != 0;
    default:
      return a.intValue;
  }
}

AttrValue AttrValueOf(const tsrAttr& a) {
  switch (a.type) {
    case TSR_ATTR_FLOAT:
      return a.floatValue;
    case TSR_ATTR_BOOL:
      return a.boolValue != 0;
    default:
      return a.intValue;
  }
}

// The shape of a call the memo can hold.
bool Memoizable(uint64_t num_inputs, uint64_t num_outputs, const tsrAttr* attrs,
                uint64_t num_attrs) {
  if (num_inputs + num_outputs > kMemoTensors || num_attrs > kMemoAttrs ||
      !tessera::runtime::ParamCacheEnabled() || tessera::device::CheckedMode()) {
    return false;
  }
  for (uint64_t i = 0; i < num_attrs; ++i) {
    const tsrAttrType t = attrs[i].type;
    if (attrs[i].name == nullptr ||
        (t != TSR_ATTR_INT && t != TSR_ATTR_FLOAT && t != TSR_ATTR_BOOL))
      return false;
  }
  return true;
}

// The descriptions of live tensors as memo words; false when one does not fit.
bool DescWords(const tsrTensor* const* tensors, size_t count,
               std::array<int64_t, kMemoDescWords>& w, size_t* n) {
  for (size_t i = 0; i < count; ++i) {
    if (tensors[i] == nullptr) {
      w[(*n)++] = -1;
      continue;
    }
    const tessera::TensorDesc& d = tessera::c_api::DescOf(tensors[i]);
    const size_t rank = static_cast<size_t>(d.shape.rank());
    if (rank > tessera::Shape::kMaxRank || (!d.strides.empty() && d.strides.size() != rank))
      return false;
    w[(*n)++] = static_cast<int64_t>(d.dtype) | static_cast<int64_t>(d.format) << 16 |
                static_cast<int64_t>(rank) << 32 | int64_t{d.strides.empty() ? 0 : 1} << 40;
    for (size_t k = 0; k < rank; ++k)
      w[(*n)++] = d.shape.dim(static_cast<int>(k));
    for (int64_t st : d.strides)
      w[(*n)++] = st;
  }
  return true;
}

// Whether `e` holds the call's op, package, counts, profile and attributes (not its tensors).
bool SameCall(const CallMemo::Entry& e, uint64_t generation, const tessera::device::ArchSpec* arch,
              const char* package_dir, const char* op_type, uint64_t num_inputs,
              uint64_t num_outputs, const tsrAttr* attrs, uint64_t num_attrs) {
  if (e.generation != generation || e.arch != arch || e.num_inputs != num_inputs ||
      e.num_outputs != num_outputs || e.num_attrs != num_attrs ||
      std::strcmp(e.op_type.c_str(), op_type) != 0 ||
      std::strcmp(e.package_dir.c_str(), package_dir) != 0) {
    return false;
  }
  for (size_t i = 0; i < num_attrs; ++i) {
    const CallMemo::Attr& a = e.attrs[i];
    if (a.type != attrs[i].type || (!a.run_time && a.bits != AttrBits(attrs[i])) ||
        std::strcmp(a.name.c_str(), attrs[i].name) != 0) {
      return false;
    }
  }
  return true;
}

// PrepareFromPlan with the call's values of the plan's run-time attributes.
Result<std::unique_ptr<tessera::runtime::OpExecutor>> PrepareWithRunTimeValues(
    const CallMemo::Entry& e, std::shared_ptr<const tessera::runtime::Plan> plan,
    void* const* addresses, const tsrAttr* attrs, uint64_t* workspace_size) {
  std::array<AttrValue, kMemoAttrs> values;
  std::array<const AttrValue*, kMemoAttrs> run_time{};
  for (size_t i = 0; i < e.num_run_time; ++i) {
    const int index = e.run_time_attr[i];
    if (index < 0) continue;
    values[i] = AttrValueOf(attrs[index]);
    run_time[i] = &values[i];
  }
  return tessera::runtime::PrepareFromPlan(std::move(plan), addresses, e.bytes.data(),
                                           e.num_inputs + e.num_outputs, run_time.data(),
                                           workspace_size);
}

// Stage 1 from the memo: true when `*executor` was made (or making it failed: `*status`).
bool PrepareFromMemo(const char* package_dir, const char* op_type, const tsrTensor* const* inputs,
                     uint64_t num_inputs, const tsrTensor* const* outputs, uint64_t num_outputs,
                     const tsrAttr* attrs, uint64_t num_attrs, uint64_t* workspace_size,
                     tsrOpExecutor** executor, Status* status) {
  CallMemo& memo = tls_memo;
  const uint64_t generation = tessera::runtime::ParamCacheGeneration();
  const tessera::device::ArchSpec* arch = &tessera::device::CurrentArch();
  const uint64_t epoch = tessera::c_api::TensorEpoch();
  const size_t count = num_inputs + num_outputs;
  std::array<const tsrTensor*, kMemoTensors> handles;
  std::copy_n(inputs, num_inputs, handles.begin());
  std::copy_n(outputs, num_outputs, handles.begin() + static_cast<ptrdiff_t>(num_inputs));
  CallMemo::Entry* hit = nullptr;
  for (CallMemo::Entry& e : memo.entries) {
    if (e.tensor_epoch == epoch &&
        std::memcmp(e.handles.data(), handles.data(), count * sizeof(handles[0])) == 0 &&
        SameCall(e, generation, arch, package_dir, op_type, num_inputs, num_outputs, attrs,
                 num_attrs)) {
      hit = &e;
      break;
    }
  }
  if (hit == nullptr) {
    // Other handles, or a tensor was destroyed since: check them, then compare descriptions.
    const auto* const* all = reinterpret_cast<const void* const*>(handles.data());
    if (!tessera::c_api::AllLive(HandleKind::kTensor, all, count)) return false;
    for (size_t i = 0; i < num_outputs; ++i) {
      if (outputs[i] == nullptr) return false;
    }
    std::array<int64_t, kMemoDescWords> words;
    size_t n = 0;
    if (!DescWords(handles.data(), count, words, &n)) return false;
    for (CallMemo::Entry& e : memo.entries) {
      if (e.descs.size() == n && std::memcmp(e.descs.data(), words.data(), n * 8) == 0 &&
          SameCall(e, generation, arch, package_dir, op_type, num_inputs, num_outputs, attrs,
                   num_attrs)) {
        hit = &e;
        std::copy_n(handles.begin(), count, e.handles.begin());
        e.tensor_epoch = epoch;  // read before AllLive: a later destruction misses
        break;
      }
    }
    if (hit == nullptr) return false;
  }
  std::shared_ptr<const tessera::runtime::Plan> plan = hit->plan.lock();
  if (plan == nullptr) return false;  // the cache dropped it and no executor holds it
  std::array<void*, kMemoTensors> addresses;
  for (size_t i = 0; i < count; ++i)
    addresses[i] = handles[i] != nullptr ? tessera::c_api::AddressOf(handles[i]) : nullptr;
  auto made =
      hit->num_run_time == 0
          ? tessera::runtime::PrepareFromPlan(std::move(plan), addresses.data(), hit->bytes.data(),
                                              count, nullptr, workspace_size)
          : PrepareWithRunTimeValues(*hit, std::move(plan), addresses.data(), attrs,
                                     workspace_size);
  *status = made.ok() ? Publish(std::move(*made), op_type, executor) : made.status();
  return true;
}

// Records a call PrepareOp just prepared (`generation` and `epoch` read before it ran).
void Memoize(const char* package_dir, const char* op_type, const tsrTensor* const* inputs,
             uint64_t num_inputs, const tsrTensor* const* outputs, uint64_t num_outputs,
             const tsrAttr* attrs, uint64_t num_attrs, uint64_t generation, uint64_t epoch,
             const tessera::runtime::OpExecutor& executor) {
  const std::vector<std::string_view> run_time =
      tessera::runtime::RunTimeAttrNames(executor.plan());
  if (run_time.size() > kMemoAttrs) return;
  const size_t count = num_inputs + num_outputs;
  std::array<const tsrTensor*, kMemoTensors> handles;
  std::copy_n(inputs, num_inputs, handles.begin());
  std::copy_n(outputs, num_outputs, handles.begin() + static_cast<ptrdiff_t>(num_inputs));
  std::array<int64_t, kMemoDescWords> words;
  size_t n = 0;
  if (!DescWords(handles.data(), count, words, &n)) return;
  CallMemo& memo = tls_memo;
  CallMemo::Entry& e = memo.entries[memo.next];
  memo.next = (memo.next + 1) % memo.entries.size();
  // No plan until the entry is whole: if an assignment below throws, the entry never matches.
  e.plan.reset();
  e.generation = generation;
  e.arch = tessera::runtime::PlanProfile(executor.plan());
  e.op_type.assign(op_type);
  e.package_dir.assign(package_dir);
  e.num_inputs = num_inputs;
  e.num_outputs = num_outputs;
  e.num_attrs = num_attrs;
  for (size_t i = 0; i < num_attrs; ++i) {
    CallMemo::Attr& a = e.attrs[i];
    a.name.assign(attrs[i].name);
    a.type = attrs[i].type;
    a.bits = AttrBits(attrs[i]);
    a.run_time = false;
    for (std::string_view name : run_time)
      a.run_time = a.run_time || a.name == name;
  }
  e.num_run_time = run_time.size();
  for (size_t r = 0; r < run_time.size(); ++r) {
    e.run_time_attr[r] = -1;
    for (size_t i = 0; i < num_attrs; ++i) {
      if (e.attrs[i].name == run_time[r]) e.run_time_attr[r] = static_cast<int8_t>(i);
    }
  }
  std::copy_n(handles.begin(), count, e.handles.begin());
  e.tensor_epoch = epoch;
  e.descs.assign(words.begin(), words.begin() + static_cast<ptrdiff_t>(n));
  for (size_t i = 0; i < count; ++i)
    e.bytes[i] = executor.tensor_bytes(i);
  e.plan = executor.shared_plan();
}

// The OpCall of this thread's current stage 1, reused call after call: its vectors, strings and
// attribute nodes keep their storage, so a repeated call builds it without allocating. A nested
// stage 1 (a tiling function calling the C API) gets a fresh one.
struct CallSlot {
  tessera::runtime::OpCall call;
  bool busy = false;
};
thread_local CallSlot tls_call;

Status PrepareFull(const char* package_dir, const char* op_type, const tsrTensor* const* inputs,
                   uint64_t num_inputs, const tsrTensor* const* outputs, uint64_t num_outputs,
                   const tsrAttr* attrs, uint64_t num_attrs, uint64_t* workspace_size,
                   tsrOpExecutor** executor, bool memoizable);

Status Prepare(const char* package_dir, const char* op_type, const tsrTensor* const* inputs,
               uint64_t num_inputs, const tsrTensor* const* outputs, uint64_t num_outputs,
               const tsrAttr* attrs, uint64_t num_attrs, uint64_t* workspace_size,
               tsrOpExecutor** executor) {
  if (op_type == nullptr) return tessera::InvalidArgument("tsrOpGetWorkspaceSize: opType is NULL");
  if (workspace_size == nullptr || executor == nullptr) {
    return tessera::InvalidArgument(std::string(op_type) +
                                    ": workspaceSize and executor must not be NULL");
  }
  *executor = nullptr;
  if ((num_inputs > 0 && inputs == nullptr) || (num_outputs > 0 && outputs == nullptr) ||
      (num_attrs > 0 && attrs == nullptr)) {
    return tessera::InvalidArgument(std::string(op_type) +
                                    ": a non-empty inputs/outputs/attrs array is NULL");
  }
  if (num_inputs > tessera::runtime::OpExecutor::kMaxTensors ||
      num_outputs > tessera::runtime::OpExecutor::kMaxTensors ||
      num_inputs + num_outputs > tessera::runtime::OpExecutor::kMaxTensors) {
    return tessera::InvalidArgument(
        std::string(op_type) + ": " + std::to_string(num_inputs) + " inputs and " +
        std::to_string(num_outputs) + " outputs; an op takes at most " +
        std::to_string(tessera::runtime::OpExecutor::kMaxTensors) + " tensors");
  }
  if (package_dir != nullptr && package_dir[0] == '\0') {
    return tessera::InvalidArgument(std::string(op_type) +
                                    ": the op API could not determine its package directory");
  }
  const char* const memo_dir = package_dir != nullptr ? package_dir : "";
  const bool memoizable = !tls_call.busy && Memoizable(num_inputs, num_outputs, attrs, num_attrs);
  if (memoizable) {
    Status status;
    if (PrepareFromMemo(memo_dir, op_type, inputs, num_inputs, outputs, num_outputs, attrs,
                        num_attrs, workspace_size, executor, &status)) {
      return status;
    }
  }
  return PrepareFull(package_dir, op_type, inputs, num_inputs, outputs, num_outputs, attrs,
                     num_attrs, workspace_size, executor, memoizable);
}

// Stage 1 through an OpCall and PrepareOp (the memo missed, or cannot hold the call), remembered
// when `memoizable`.
Status PrepareFull(const char* package_dir, const char* op_type, const tsrTensor* const* inputs,
                   uint64_t num_inputs, const tsrTensor* const* outputs, uint64_t num_outputs,
                   const tsrAttr* attrs, uint64_t num_attrs, uint64_t* workspace_size,
                   tsrOpExecutor** executor, bool memoizable) {
  const char* const memo_dir = package_dir != nullptr ? package_dir : "";
  const uint64_t generation = tessera::runtime::ParamCacheGeneration();
  const uint64_t epoch = tessera::c_api::TensorEpoch();
  tessera::runtime::OpCall fresh;
  const bool reuse = !tls_call.busy;
  tessera::runtime::OpCall& call = reuse ? tls_call.call : fresh;
  struct Busy {
    bool* flag;
    ~Busy() {
      if (flag) *flag = false;
    }
  } busy{reuse ? &tls_call.busy : nullptr};
  if (reuse) tls_call.busy = true;
  call.op_type.assign(op_type);
  call.package_dir.assign(package_dir != nullptr ? package_dir : "");
  call.inputs.resize(num_inputs);
  call.outputs.resize(num_outputs);
  // One look at the handle registry for every tensor; the messages are made only on failure.
  const auto* const* in_handles = reinterpret_cast<const void* const*>(inputs);
  const auto* const* out_handles = reinterpret_cast<const void* const*>(outputs);
  const bool all_live = tessera::c_api::AllLive(HandleKind::kTensor, in_handles, num_inputs) &&
                        tessera::c_api::AllLive(HandleKind::kTensor, out_handles, num_outputs);
  char what[32];
  for (uint64_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      call.inputs[i].reset();
      continue;
    }
    if (!all_live) {
      std::snprintf(what, sizeof(what), "input %llu", static_cast<unsigned long long>(i));
      TESSERA_RETURN_IF_ERROR(CheckHandle(op_type, what, HandleKind::kTensor, inputs[i]));
    }
    if (!call.inputs[i]) call.inputs[i].emplace();
    call.inputs[i]->desc = tessera::c_api::DescOf(inputs[i]);
    call.inputs[i]->address = tessera::c_api::AddressOf(inputs[i]);
  }
  for (uint64_t i = 0; i < num_outputs; ++i) {
    if (outputs[i] == nullptr) {
      return tessera::InvalidArgument(std::string(op_type) + ": output " + std::to_string(i) +
                                      " is NULL");
    }
    if (!all_live) {
      std::snprintf(what, sizeof(what), "output %llu", static_cast<unsigned long long>(i));
      TESSERA_RETURN_IF_ERROR(CheckHandle(op_type, what, HandleKind::kTensor, outputs[i]));
    }
    call.outputs[i].desc = tessera::c_api::DescOf(outputs[i]);
    call.outputs[i].address = tessera::c_api::AddressOf(outputs[i]);
  }
  // Attributes: names this call does not pass are dropped, the others assigned in place.
  for (auto it = call.attrs.begin(); it != call.attrs.end();) {
    bool given = false;
    for (uint64_t i = 0; i < num_attrs && !given; ++i)
      given = attrs[i].name != nullptr && it->first == attrs[i].name;
    it = given ? std::next(it) : call.attrs.erase(it);
  }
  for (uint64_t i = 0; i < num_attrs; ++i) {
    if (attrs[i].name == nullptr)
      return tessera::InvalidArgument(std::string(op_type) + ": attribute " + std::to_string(i) +
                                      " has no name");
    thread_local std::string name;
    name.assign(attrs[i].name);
    auto it = call.attrs.find(name);
    if (it == call.attrs.end()) it = call.attrs.emplace(name, AttrValue()).first;
    TESSERA_RETURN_IF_ERROR(ConvertAttr(attrs[i], it->second));
  }
  TESSERA_ASSIGN_OR_RETURN(auto exec, tessera::runtime::PrepareOp(call, workspace_size));
  if (memoizable) {
    Memoize(memo_dir, op_type, inputs, num_inputs, outputs, num_outputs, attrs, num_attrs,
            generation, epoch, *exec);
  }
  return Publish(std::move(exec), op_type, executor);
}

}  // namespace

extern "C" {

tsrStatus tsrOpGetWorkspaceSize(const char* opType, const tsrTensor* const* inputs,
                                uint64_t numInputs, const tsrTensor* const* outputs,
                                uint64_t numOutputs, const tsrAttr* attrs, uint64_t numAttrs,
                                uint64_t* workspaceSize, tsrOpExecutor** executor) {
  return Guard("tsrOpGetWorkspaceSize", [&] {
    return Prepare(nullptr, opType, inputs, numInputs, outputs, numOutputs, attrs, numAttrs,
                   workspaceSize, executor);
  });
}

tsrStatus tsrOpGetWorkspaceSizeInPackage(const char* packageDir, const char* opType,
                                         const tsrTensor* const* inputs, uint64_t numInputs,
                                         const tsrTensor* const* outputs, uint64_t numOutputs,
                                         const tsrAttr* attrs, uint64_t numAttrs,
                                         uint64_t* workspaceSize, tsrOpExecutor** executor) {
  if (packageDir == nullptr)
    return Report(tessera::InvalidArgument("tsrOpGetWorkspaceSizeInPackage: packageDir is NULL"));
  return Guard("tsrOpGetWorkspaceSizeInPackage", [&] {
    return Prepare(packageDir, opType, inputs, numInputs, outputs, numOutputs, attrs, numAttrs,
                   workspaceSize, executor);
  });
}

}  // extern "C"

namespace {

// Stage 2 of a live executor (the caller checked the handle).
tsrStatus Execute(void* workspace, uint64_t workspace_size, tsrOpExecutor* executor,
                  tsrStream stream) {
  const tsrStatus status = Guard("tsrOpExecute", [&] {
    if (stream == nullptr) {
      return tessera::runtime::ExecuteOp(*executor->impl, workspace, workspace_size,
                                         tessera::c_api::DefaultStream());
    }
    TESSERA_ASSIGN_OR_RETURN(const auto s, tessera::c_api::StreamOf("tsrOpExecute", stream));
    return tessera::runtime::ExecuteOp(*executor->impl, workspace, workspace_size, s);
  });
  // A single-use executor is released by its run (whatever the outcome), so it cannot run twice.
  if (!executor->impl->repeatable()) EndExecutor(executor);
  return status;
}

}  // namespace

extern "C" {

tsrStatus tsrOpExecute(void* workspace, uint64_t workspaceSize, tsrOpExecutor* executor,
                       tsrStream stream) {
  if (tessera::Status st = CheckHandle("tsrOpExecute", "executor", HandleKind::kExecutor, executor);
      !st.ok()) {
    return Report(st);
  }
  return Execute(workspace, workspaceSize, executor, stream);
}

tsrStatus tsrOpExecuteAs(const char* opType, void* workspace, uint64_t workspaceSize,
                         tsrOpExecutor* executor, tsrStream stream) {
  if (tessera::Status st =
          CheckHandle("tsrOpExecuteAs", "executor", HandleKind::kExecutor, executor);
      !st.ok()) {
    return Report(st);
  }
  if (opType == nullptr) {
    return Report(tessera::InvalidArgument("tsrOpExecuteAs: opType is NULL"));
  }
  const std::string& made_for = executor->impl->op_type();
  if (made_for != opType) {
    return Report(tessera::InvalidArgument(
        "tsrOpExecuteAs: the executor was made for op '" + made_for + "', not '" + opType +
        "' (call " + "the stage-2 function of the op whose stage 1 made it)"));
  }
  return Execute(workspace, workspaceSize, executor, stream);
}

tsrStatus tsrSetExecutorRepeatable(tsrOpExecutor* executor) {
  if (tessera::Status st =
          CheckHandle("tsrSetExecutorRepeatable", "executor", HandleKind::kExecutor, executor);
      !st.ok()) {
    return Report(st);
  }
  executor->impl->set_repeatable(true);
  return TSR_SUCCESS;
}

tsrStatus tsrSetExecutorTensorAddress(tsrOpExecutor* executor, uint64_t index, void* deviceAddr) {
  if (tessera::Status st =
          CheckHandle("tsrSetExecutorTensorAddress", "executor", HandleKind::kExecutor, executor);
      !st.ok()) {
    return Report(st);
  }
  return Guard("tsrSetExecutorTensorAddress", [&] {
    tessera::Status st = executor->impl->SetAddress(index, deviceAddr);
    if (st.ok()) return st;
    return tessera::Status(st.code(), "tsrSetExecutorTensorAddress: " + std::string(st.message()));
  });
}

tsrStatus tsrDestroyExecutor(tsrOpExecutor* executor) {
  if (!EndExecutor(executor)) {
    return Report(CheckHandle("tsrDestroyExecutor", "executor", HandleKind::kExecutor, executor));
  }
  return TSR_SUCCESS;
}

tsrStatus tsrCreateWorkspacePool(tsrWorkspacePool** pool) {
  if (pool == nullptr)
    return Report(tessera::InvalidArgument("tsrCreateWorkspacePool: pool is NULL"));
  *pool = new tsrWorkspacePool();
  tessera::c_api::RegisterHandle(HandleKind::kWorkspacePool, *pool);
  return TSR_SUCCESS;
}

tsrStatus tsrWorkspacePoolGet(tsrWorkspacePool* pool, uint64_t size, void** workspace) {
  if (workspace == nullptr) {
    return Report(tessera::InvalidArgument("tsrWorkspacePoolGet: workspace is NULL"));
  }
  if (tessera::Status st =
          CheckHandle("tsrWorkspacePoolGet", "pool", HandleKind::kWorkspacePool, pool);
      !st.ok()) {
    return Report(st);
  }
  return Guard("tsrWorkspacePoolGet", [&] {
    auto p = pool->impl.Get(size);
    if (!p.ok()) return p.status();
    *workspace = *p;
    return tessera::OkStatus();
  });
}

tsrStatus tsrDestroyWorkspacePool(tsrWorkspacePool* pool) {
  if (!tessera::c_api::UnregisterHandle(HandleKind::kWorkspacePool, pool)) {
    return Report(CheckHandle("tsrDestroyWorkspacePool", "pool", HandleKind::kWorkspacePool, pool));
  }
  const tessera::Status st = pool->impl.Release();
  tessera::c_api::Retire(pool);
  return Report(st);
}

tsrStatus tsrGetRuntimeStats(tsrRuntimeStats* stats) {
  if (stats == nullptr)
    return Report(tessera::InvalidArgument("tsrGetRuntimeStats: stats is NULL"));
  const auto s = tessera::runtime::GetRuntimeStats();
  *stats = tsrRuntimeStats{s.cache.hits, s.cache.misses, s.cache.size, s.tiling_calls,
                           s.package_lookups};
  return TSR_SUCCESS;
}

}  // extern "C"
