// The two-stage operator calls of the C API.
#include <exception>
#include <memory>
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

tessera::Result<AttrValue> ConvertAttr(const tsrAttr& a) {
  const std::string name(a.name);
  // One named variant filled in place (returning temporaries trips a GCC 12 false warning).
  AttrValue value;
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
        return tessera::InvalidArgument("attribute '" + name + "': stringValue is NULL");
      value.emplace<std::string>(a.stringValue);
      break;
    case TSR_ATTR_INT_LIST: {
      if (a.listCount > 0 && a.intList == nullptr)
        return tessera::InvalidArgument("attribute '" + name + "': intList is NULL");
      auto& list = value.emplace<std::vector<int64_t>>();
      if (a.listCount > 0) list.assign(a.intList, a.intList + a.listCount);
      break;
    }
    case TSR_ATTR_FLOAT_LIST: {
      if (a.listCount > 0 && a.floatList == nullptr)
        return tessera::InvalidArgument("attribute '" + name + "': floatList is NULL");
      auto& list = value.emplace<std::vector<float>>();
      if (a.listCount > 0) list.assign(a.floatList, a.floatList + a.listCount);
      break;
    }
    default:
      return tessera::InvalidArgument("attribute '" + name + "': type " +
                                      std::to_string(static_cast<int>(a.type)) +
                                      " is not a tsrAttrType");
  }
  return value;
}

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
  tessera::runtime::OpCall call;
  call.op_type = op_type;
  if (package_dir != nullptr) {
    if (package_dir[0] == '\0') {
      return tessera::InvalidArgument(std::string(op_type) +
                                      ": the op API could not determine its package directory");
    }
    call.package_dir = package_dir;
  }
  call.inputs.reserve(num_inputs);
  call.outputs.reserve(num_outputs);
  for (uint64_t i = 0; i < num_inputs; ++i) {
    if (inputs[i] == nullptr) {
      call.inputs.emplace_back(std::nullopt);
    } else {
      const std::string what = "input " + std::to_string(i);
      TESSERA_RETURN_IF_ERROR(CheckHandle(op_type, what.c_str(), HandleKind::kTensor, inputs[i]));
      call.inputs.emplace_back(
          TensorArg{tessera::c_api::DescOf(inputs[i]), tessera::c_api::AddressOf(inputs[i])});
    }
  }
  for (uint64_t i = 0; i < num_outputs; ++i) {
    if (outputs[i] == nullptr) {
      return tessera::InvalidArgument(std::string(op_type) + ": output " + std::to_string(i) +
                                      " is NULL");
    }
    const std::string what = "output " + std::to_string(i);
    TESSERA_RETURN_IF_ERROR(CheckHandle(op_type, what.c_str(), HandleKind::kTensor, outputs[i]));
    call.outputs.push_back(
        TensorArg{tessera::c_api::DescOf(outputs[i]), tessera::c_api::AddressOf(outputs[i])});
  }
  for (uint64_t i = 0; i < num_attrs; ++i) {
    if (attrs[i].name == nullptr)
      return tessera::InvalidArgument(std::string(op_type) + ": attribute " + std::to_string(i) +
                                      " has no name");
    TESSERA_ASSIGN_OR_RETURN(AttrValue v, ConvertAttr(attrs[i]));
    call.attrs[attrs[i].name] = std::move(v);
  }
  TESSERA_ASSIGN_OR_RETURN(auto exec, tessera::runtime::PrepareOp(call, workspace_size));
  *executor = new tsrOpExecutor{std::move(exec)};
  tessera::c_api::RegisterHandle(HandleKind::kExecutor, *executor);
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
