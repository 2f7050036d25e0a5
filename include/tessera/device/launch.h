// Launch(kernel, blockDim, stream, args...): runs a plain C++ function as blockDim kernel blocks.
//
// Arguments are copied when the launch is enqueued; the kernel runs asynchronously on the stream.
// Each block runs as a fiber on the persistent worker pool and sees its own BlockContext
// (GetBlockIdx, arenas, ...). Enqueue-time errors are returned; errors inside the kernel
// (FailBlock, a thrown exception) fail the launch and become the stream's sticky error. In checked
// mode every pointer argument must be null or point into a live device allocation.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/device/block.h"
#include "tessera/device/stream.h"

namespace tessera::device {

// blockDim limit, as on the NPU.
inline constexpr uint32_t kMaxBlockDim = 65535;

// A range of device memory.
struct ByteRange {
  const void* ptr = nullptr;
  uint64_t bytes = 0;
};

struct LaunchConfig {
  uint32_t block_dim = 1;
  KernelType type = KernelType::kAiv;
  // Shown in errors and reports; when null, derived from the function's symbol if it has one.
  const char* name = nullptr;
  // An idle stream's launch of one block, or of <= 64 blocks moving <= 32 KiB (bytes_moved), may
  // run on the calling thread, its blocks as fibers (several times cheaper). Off: always async.
  bool allow_inline = true;
  // Bytes the launch reads and writes in global memory, when the caller knows them; the trace
  // (TESSERA_TRACE) records them (GB/s in `tessera trace summary`); they decide inlining. 0: none.
  uint64_t bytes_moved = 0;
  // Checked mode: ranges the blocks together must write (copied at launch). When the launch ends,
  // the first bytes of a range no block wrote are reported (outputs left unwritten).
  const ByteRange* must_write = nullptr;
  uint32_t must_write_count = 0;
};

namespace detail {

struct PointerArg {
  uint32_t index;  // parameter position, from 0
  const void* ptr;
};

struct LaunchRequest {
  LaunchConfig config;
  const void* kernel_address = nullptr;  // for naming
  void (*invoke)(void* payload) = nullptr;
  void (*destroy)(void* payload) = nullptr;
  void* payload = nullptr;
  std::vector<PointerArg> pointers;   // filled only in checked mode
  std::vector<ByteRange> must_write;  // checked mode: config.must_write, copied
};

// Takes ownership of req.payload (destroys it on every path).
Status EnqueueLaunch(LaunchRequest&& req, const Stream& stream);
bool CheckedModeForLaunch();

template <class Fn, class Tuple>
struct Payload {
  Fn fn;
  Tuple args;
};

template <class Tuple, size_t... I>
void CollectPointers(const Tuple& args, std::vector<PointerArg>& out, std::index_sequence<I...>) {
  (
      [&] {
        using Arg = std::tuple_element_t<I, Tuple>;
        if constexpr (std::is_pointer_v<Arg> && !std::is_function_v<std::remove_pointer_t<Arg>>) {
          out.push_back(
              PointerArg{static_cast<uint32_t>(I), static_cast<const void*>(std::get<I>(args))});
        }
      }(),
      ...);
}

}  // namespace detail

template <class... Params, class... Args>
Status Launch(const LaunchConfig& config, void (*kernel)(Params...), const Stream& stream,
              Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "Launch: the number of arguments differs from the kernel's parameter count");
  using Tuple = std::tuple<std::decay_t<Params>...>;
  using P = detail::Payload<void (*)(Params...), Tuple>;
  if (kernel == nullptr) return InvalidArgument("Launch: kernel is null");
  detail::LaunchRequest req;
  req.config = config;
  req.kernel_address = reinterpret_cast<const void*>(kernel);
  req.payload = new P{kernel, Tuple(std::forward<Args>(args)...)};
  req.invoke = [](void* p) {
    auto* payload = static_cast<P*>(p);
    std::apply(payload->fn, payload->args);
  };
  req.destroy = [](void* p) { delete static_cast<P*>(p); };
  if (detail::CheckedModeForLaunch()) {
    detail::CollectPointers(static_cast<P*>(req.payload)->args, req.pointers,
                            std::make_index_sequence<sizeof...(Params)>());
  }
  return detail::EnqueueLaunch(std::move(req), stream);
}

template <class... Params, class... Args>
Status Launch(void (*kernel)(Params...), uint32_t block_dim, const Stream& stream, Args&&... args) {
  return Launch(LaunchConfig{block_dim, KernelType::kAiv}, kernel, stream,
                std::forward<Args>(args)...);
}

}  // namespace tessera::device
