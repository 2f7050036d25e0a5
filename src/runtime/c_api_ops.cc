// The two-stage operator calls of the C API.
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "c_api_internal.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/runtime/workspace_pool.h"
#include "tessera/tessera_nn.h"

struct tsrOpExecutor {
  std::unique_ptr<tessera::runtime::OpExecutor> impl;
};
struct tsrWorkspacePool {
  tessera::runtime::WorkspacePool impl;
};

namespace {

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

// Executors are made once per call: their memory comes back from the handle quarantine.
tsrOpExecutor* NewExecutor(std::unique_ptr<tessera::runtime::OpExecutor> impl) {
  return static_cast<tsrOpExecutor*>(tessera::c_api::NewHandle(
      HandleKind::kExecutor, sizeof(tsrOpExecutor),
      [](void* memory, void* arg) {
        auto& owned = *static_cast<std::unique_ptr<tessera::runtime::OpExecutor>*>(arg);
        new (memory) tsrOpExecutor{std::move(owned)};
      },
      &impl));
}

// The OpCall of this thread's current stage 1, reused call after call: its vectors, strings and
// attribute nodes keep their storage, so a repeated call builds it without allocating. A nested
// stage 1 (a tiling function calling the C API) gets a fresh one.
struct CallSlot {
  tessera::runtime::OpCall call;
  bool busy = false;
};
thread_local CallSlot tls_call;

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
  if (num_inputs + num_outputs > tessera::runtime::OpExecutor::kMaxTensors ||
      num_inputs > tessera::runtime::OpExecutor::kMaxTensors) {
    return tessera::InvalidArgument(
        std::string(op_type) + ": " + std::to_string(num_inputs) + " inputs and " +
        std::to_string(num_outputs) + " outputs; an op takes at most " +
        std::to_string(tessera::runtime::OpExecutor::kMaxTensors) + " tensors");
  }
  if (package_dir != nullptr && package_dir[0] == '\0') {
    return tessera::InvalidArgument(std::string(op_type) +
                                    ": the op API could not determine its package directory");
  }
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
  *executor = NewExecutor(std::move(exec));
  return tessera::OkStatus();
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

tsrStatus tsrOpExecute(void* workspace, uint64_t workspaceSize, tsrOpExecutor* executor,
                       tsrStream stream) {
  if (tessera::Status st = CheckHandle("tsrOpExecute", "executor", HandleKind::kExecutor, executor);
      !st.ok()) {
    return Report(st);
  }
  const tsrStatus status = Guard("tsrOpExecute", [&] {
    TESSERA_ASSIGN_OR_RETURN(const auto s, tessera::c_api::StreamOf("tsrOpExecute", stream));
    return tessera::runtime::ExecuteOp(*executor->impl, workspace, workspaceSize, s);
  });
  // A single-use executor is released by its run (whatever the outcome), so it cannot run twice.
  if (!executor->impl->repeatable() &&
      tessera::c_api::UnregisterHandle(HandleKind::kExecutor, executor)) {
    tessera::c_api::Retire(executor);
  }
  return status;
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
  return tsrOpExecute(workspace, workspaceSize, executor, stream);
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
  if (!tessera::c_api::UnregisterHandle(HandleKind::kExecutor, executor)) {
    return Report(CheckHandle("tsrDestroyExecutor", "executor", HandleKind::kExecutor, executor));
  }
  tessera::c_api::Retire(executor);
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
