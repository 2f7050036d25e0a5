#include "tessera/compat/asc_launch.h"

#include <atomic>
#include <cstdio>

namespace tessera::compat {
namespace {

std::atomic<AscStreamResolver> g_resolver{nullptr};
thread_local Status t_launch_error;

Result<device::Stream> DefaultResolver(void* handle) {
  if (handle == nullptr) return device::Stream();
  return *static_cast<device::Stream*>(handle);
}

}  // namespace

void SetAscStreamResolver(AscStreamResolver resolver) {
  g_resolver.store(resolver, std::memory_order_release);
}

Result<device::Stream> ResolveAscStream(void* handle) {
  const AscStreamResolver resolver = g_resolver.load(std::memory_order_acquire);
  return resolver != nullptr ? resolver(handle) : DefaultResolver(handle);
}

void ReportAscLaunchError(const char* kernel_name, const Status& status) {
  std::fprintf(stderr, "tessera: launch of kernel '%s' failed: %s\n",
               kernel_name != nullptr ? kernel_name : "?", status.ToString().c_str());
  if (t_launch_error.ok()) t_launch_error = status;
}

Status TakeAscLaunchError() {
  Status status = t_launch_error;
  t_launch_error = Status();
  return status;
}

}  // namespace tessera::compat
