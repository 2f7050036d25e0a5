// The call an Ascend C launch `kernel<<<blockDim, l2ctrl, stream>>>(args...)` becomes.
//
// tessera-asc (tools/asc) rewrites every such launch in a .asc source into
//   ::tessera::compat::AscLaunch(kind, kernel, blockDim, l2ctrl, stream)(args...)
// with `kind` taken from the kernel's declaration (__vector__ / __cube__ / __mix__(a, b)). The
// arguments then convert to the kernel's parameter types exactly as in a direct call, and the
// launch runs through tessera::device::Launch on the stream the handle names. The host runtime
// (acl) maps its stream handles with SetAscStreamResolver; without one, a null handle is the
// default stream and any other handle is a `tessera::device::Stream*`. As in CANN the launch
// itself returns nothing: an enqueue error is logged on stderr and kept for TakeAscLaunchError.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "tessera/core/status.h"
#include "tessera/device/block.h"
#include "tessera/device/launch.h"
#include "tessera/device/stream.h"

namespace tessera::compat {

// Maps a launch's stream handle (the third `<<<>>>` argument) to a device stream.
using AscStreamResolver = Result<device::Stream> (*)(void* handle);
// Installs `resolver` for all later launches (null restores the default); thread-safe.
void SetAscStreamResolver(AscStreamResolver resolver);
// The stream `handle` names under the installed resolver.
Result<device::Stream> ResolveAscStream(void* handle);

// Records a failed launch: logged on stderr with the kernel's name, kept for TakeAscLaunchError.
void ReportAscLaunchError(const char* kernel_name, const Status& status);
// The first launch error recorded on this thread since the last call (OK if none); clears it.
Status TakeAscLaunchError();

namespace detail {
template <class T>
void* StreamHandle(T* handle) {
  return const_cast<void*>(static_cast<const void*>(handle));
}
inline void* StreamHandle(std::nullptr_t) {
  return nullptr;
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void* StreamHandle(T handle) {  // `0` as the stream, as some samples write it
  return reinterpret_cast<void*>(static_cast<uintptr_t>(handle));
}
}  // namespace detail

// One pending launch; calling it with the kernel's arguments enqueues it.
template <class... Params>
class AscLaunchCall {
 public:
  AscLaunchCall(device::KernelType kind, void (*kernel)(Params...), const char* name,
                uint32_t block_dim, void* stream)
      : kind_(kind), kernel_(kernel), name_(name), block_dim_(block_dim), stream_(stream) {}

  void operator()(Params... args) const {
    Result<device::Stream> stream = ResolveAscStream(stream_);
    if (!stream.ok()) {
      ReportAscLaunchError(name_, stream.status());
      return;
    }
    device::LaunchConfig config;
    config.block_dim = block_dim_;
    config.type = kind_;
    config.name = name_;
    const Status status = device::Launch(config, kernel_, *stream, std::forward<Params>(args)...);
    if (!status.ok()) ReportAscLaunchError(name_, status);
  }

 private:
  device::KernelType kind_;
  void (*kernel_)(Params...);
  const char* name_;
  uint32_t block_dim_;
  void* stream_;
};

// `kernel<<<blockDim, l2ctrl, stream>>>`: l2ctrl (L2 cache control) has no effect on a CPU.
template <class... Params, class L2Ctrl, class StreamHandle>
AscLaunchCall<Params...> AscLaunch(device::KernelType kind, void (*kernel)(Params...),
                                   const char* name, uint32_t block_dim, L2Ctrl&& /*l2ctrl*/,
                                   StreamHandle&& stream) {
  return AscLaunchCall<Params...>(kind, kernel, name, block_dim,
                                  detail::StreamHandle(std::forward<StreamHandle>(stream)));
}
template <class... Params, class L2Ctrl>
AscLaunchCall<Params...> AscLaunch(device::KernelType kind, void (*kernel)(Params...),
                                   const char* name, uint32_t block_dim, L2Ctrl&& l2ctrl) {
  return AscLaunch(kind, kernel, name, block_dim, std::forward<L2Ctrl>(l2ctrl), nullptr);
}

}  // namespace tessera::compat
