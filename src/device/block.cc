#include <atomic>
#include <stdexcept>

#include "block_state.h"
#include "fiber_scheduler.h"
#include "launch_job.h"
#include "tessera/device/block.h"
#include "tessera/device/yield.h"

namespace tessera::device {
namespace detail {
namespace {
thread_local BlockContext* tls_block = nullptr;

BlockContext& RequireBlock(const char* api) {
  if (tls_block == nullptr) {
    throw std::logic_error(std::string(api) + " called outside a kernel");
  }
  return *tls_block;
}
}  // namespace

BlockContext* CurrentBlockContext() {
  return tls_block;
}
void SetCurrentBlockContext(BlockContext* ctx) {
  tls_block = ctx;
}

std::atomic<BlockExitHook>& BlockExitHookSlot() {
  static std::atomic<BlockExitHook> hook{nullptr};
  return hook;
}

}  // namespace detail

const char* CoreTypeName(CoreType type) {
  return type == CoreType::kAic ? "AIC" : "AIV";
}

const char* KernelTypeName(KernelType type) {
  switch (type) {
    case KernelType::kAiv:
      return "AIV";
    case KernelType::kAic:
      return "AIC";
    case KernelType::kMix:
      return "MIX";
    default:
      return "invalid";
  }
}

const BlockContext* CurrentBlock() {
  return detail::tls_block;
}

uint32_t GetBlockIdx() {
  return detail::tls_block ? detail::tls_block->block_idx : 0;
}
uint32_t GetBlockNum() {
  return detail::tls_block ? detail::tls_block->block_num : 1;
}
uint32_t GetSubBlockIdx() {
  return detail::tls_block ? detail::tls_block->sub_block_idx : 0;
}
uint32_t GetSubBlockNum() {
  return detail::tls_block ? detail::tls_block->sub_block_num : 1;
}
uint32_t GetTaskRation() {
  return detail::tls_block ? detail::tls_block->task_ration : 1;
}
CoreType GetCoreType() {
  return detail::tls_block ? detail::tls_block->core_type : CoreType::kAiv;
}

void SyncAll() {
  BlockContext& ctx = detail::RequireBlock("SyncAll");
  ctx.launch->SyncAll(ctx);
}

void YieldBlock() {
  BlockContext* ctx = detail::tls_block;
  if (ctx == nullptr) {
    detail::YieldCurrentFiber();
    return;
  }
  ctx->launch->Yield(*ctx);
}

void CrossCoreSetFlag(CrossCoreMode mode, uint32_t flag_id) {
  BlockContext& ctx = detail::RequireBlock("CrossCoreSetFlag");
  ctx.launch->SetFlag(ctx, mode, flag_id);
}

void CrossCoreWaitFlag(CrossCoreMode mode, uint32_t flag_id) {
  BlockContext& ctx = detail::RequireBlock("CrossCoreWaitFlag");
  ctx.launch->WaitFlag(ctx, mode, flag_id);
}

void FailBlock(StatusCode code, std::string message) {
  if (detail::tls_block == nullptr) {
    throw std::logic_error("FailBlock called outside a kernel: " + message);
  }
  throw detail::BlockFailure{
      Status(code == StatusCode::kOk ? StatusCode::kKernelError : code, std::move(message))};
}

void RecordBlockFailure(StatusCode code, std::string message) {
  BlockContext* ctx = detail::tls_block;
  if (ctx == nullptr) return;
  ctx->launch->Fail(
      *ctx, Status(code == StatusCode::kOk ? StatusCode::kKernelError : code, std::move(message)));
}

void SetBlockExitHook(BlockExitHook hook) {
  detail::BlockExitHookSlot().store(hook);
}

}  // namespace tessera::device
