// acl/acl.h and acl/acl_rt.h over tessera's device runtime and C API. One device (id 0); contexts
// are per-thread bookkeeping, as in CANN, so a thread that never set a device gets CANN's
// "context null" error instead of silently working.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>

#include "../../runtime/c_api_internal.h"
#include "acl/acl.h"
#include "acl_error.h"
#include "tessera/compat/asc_launch.h"
#include "tessera/core/float16.h"
#include "tessera/device/memory.h"
#include "tessera/tessera_nn.h"

namespace tessera::compat {
namespace {

thread_local std::string tls_message;
thread_local bool tls_has_message = false;
// The code of the most recent failed call on this thread, for aclrtGetLastError.
thread_local int tls_last_error = ACL_SUCCESS;

struct Context {
  int32_t device = 0;
  bool is_default = false;
};

struct AclState {
  std::mutex mu;
  std::unordered_set<const Context*> contexts;
  Context* default_context = nullptr;
  int device_refs = 0;
  bool initialized = false;
  std::unordered_set<const void*> host_allocations;
};

AclState& State() {
  static AclState* state = new AclState();  // immortal: handles may be used from atexit code
  return *state;
}

thread_local const Context* tls_current = nullptr;

std::string Address(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

aclError CheckDeviceId(const char* api, int32_t device) {
  if (device == 0) return ACL_SUCCESS;
  return RecordError(ACL_ERROR_RT_INVALID_DEVICEID,
                     std::string(api) + ": device id " + std::to_string(device) +
                         " is invalid; this machine has 1 device (id 0)");
}

// The calling thread's current context must be live (CANN reports a missing one as null);
// `device` receives its device, read under the lock (another thread may reset the device).
aclError RequireContext(const char* api, int32_t* device = nullptr) {
  AclState& s = State();
  std::lock_guard lock(s.mu);
  if (tls_current != nullptr && s.contexts.count(tls_current) != 0) {
    if (device != nullptr) *device = tls_current->device;
    return ACL_SUCCESS;
  }
  return RecordError(ACL_ERROR_RT_CONTEXT_NULL,
                     std::string(api) +
                         ": no current context on this thread; call aclrtSetDevice(0) or "
                         "aclrtSetCurrentContext first");
}

aclError NullParam(const char* api, const char* what) {
  return RecordError(ACL_ERROR_INVALID_PARAM, std::string(api) + ": " + what + " is NULL");
}

// CANN checks the copy direction against where the pointers live.
aclError CheckMemcpyKind(const char* api, void* dst, const void* src, aclrtMemcpyKind kind) {
  const bool dst_dev = device::IsDeviceAddress(dst);
  const bool src_dev = device::IsDeviceAddress(src);
  bool want_dst = false, want_src = false;
  const char* name = "";
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST:
      name = "ACL_MEMCPY_HOST_TO_HOST";
      break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
      name = "ACL_MEMCPY_HOST_TO_DEVICE";
      want_dst = true;
      break;
    case ACL_MEMCPY_DEVICE_TO_HOST:
      name = "ACL_MEMCPY_DEVICE_TO_HOST";
      want_src = true;
      break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE:
      name = "ACL_MEMCPY_DEVICE_TO_DEVICE";
      want_dst = want_src = true;
      break;
    case ACL_MEMCPY_DEFAULT:
      return ACL_SUCCESS;
    default:
      return RecordError(ACL_ERROR_INVALID_PARAM, std::string(api) + ": kind " +
                                                      std::to_string(static_cast<int>(kind)) +
                                                      " is not an aclrtMemcpyKind (0..4)");
  }
  const auto where = [](bool dev) { return dev ? "device memory" : "host memory"; };
  if (dst_dev != want_dst || src_dev != want_src) {
    return RecordError(ACL_ERROR_RT_PARAM_INVALID,
                       std::string(api) + ": kind " + name + " but dst " + Address(dst) + " is " +
                           where(dst_dev) + " and src " + Address(src) + " is " + where(src_dev));
  }
  return ACL_SUCCESS;
}

aclError CheckCopy(const char* api, void* dst, size_t dest_max, const void* src, size_t count,
                   aclrtMemcpyKind kind) {
  if (aclError e = RequireContext(api); e != ACL_SUCCESS) return e;
  if (dst == nullptr) return NullParam(api, "dst");
  if (src == nullptr) return NullParam(api, "src");
  if (count > dest_max) {
    return RecordError(ACL_ERROR_INVALID_PARAM, std::string(api) + ": count " +
                                                    std::to_string(count) + " exceeds destMax " +
                                                    std::to_string(dest_max));
  }
  return CheckMemcpyKind(api, dst, src, kind);
}

}  // namespace

int RecordError(int code, std::string message) {
  tls_message = std::move(message);
  tls_has_message = true;
  tls_last_error = code;
  return code;
}

aclError AclErrorOf(const char* api, tsrStatus status) {
  if (status == TSR_SUCCESS) return ACL_SUCCESS;
  aclError code = ACL_ERROR_RT_INTERNAL_ERROR;
  switch (status) {
    case TSR_ERROR_INVALID_ARGUMENT:
    case TSR_ERROR_NOT_FOUND:
    case TSR_ERROR_FAILED_PRECONDITION:
    case TSR_ERROR_OUT_OF_RANGE:
      code = ACL_ERROR_RT_PARAM_INVALID;
      break;
    case TSR_ERROR_OUT_OF_MEMORY:
      code = ACL_ERROR_RT_MEMORY_ALLOCATION;
      break;
    case TSR_ERROR_KERNEL:
      code = ACL_ERROR_RT_AICORE_EXCEPTION;
      break;
    case TSR_ERROR_UNIMPLEMENTED:
      code = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
      break;
    default:
      break;
  }
  return RecordError(code, std::string(api) + ": " + tsrGetLastErrorMessage());
}

}  // namespace tessera::compat

using tessera::compat::AclErrorOf;
using tessera::compat::CheckDeviceId;
using tessera::compat::Context;
using tessera::compat::NullParam;
using tessera::compat::RecordError;
using tessera::compat::RequireContext;
using tessera::compat::State;

extern "C" {

aclError aclrtGetLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL) {
    return tessera::compat::RecordError(ACL_ERROR_INVALID_PARAM,
                                        "aclrtGetLastError: level " +
                                            std::to_string(static_cast<int>(level)) +
                                            " is not ACL_RT_THREAD_LEVEL");
  }
  const int code = tessera::compat::tls_last_error;
  tessera::compat::tls_last_error = ACL_SUCCESS;
  return code;
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
  if (level != ACL_RT_THREAD_LEVEL) {
    return tessera::compat::RecordError(ACL_ERROR_INVALID_PARAM,
                                        "aclrtPeekAtLastError: level " +
                                            std::to_string(static_cast<int>(level)) +
                                            " is not ACL_RT_THREAD_LEVEL");
  }
  return tessera::compat::tls_last_error;
}

const char* aclGetRecentErrMsg(void) {
  if (!tessera::compat::tls_has_message) return nullptr;
  tessera::compat::tls_has_message = false;
  return tessera::compat::tls_message.c_str();
}

aclFloat16 aclFloatToFloat16(float value) {
  return tessera::half(value).bits;
}

float aclFloat16ToFloat(aclFloat16 value) {
  return static_cast<float>(tessera::half::FromBits(value));
}

size_t aclDataTypeSize(aclDataType dataType) {
  switch (dataType) {
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_BOOL:
      return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16:
      return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
      return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64:
      return 8;
    case ACL_COMPLEX128:
      return 16;
    default:
      return 0;
  }
}

namespace {
// `<<<>>>` launches name acl streams (tsrStream handles); a destroyed or garbage handle is refused.
tessera::Result<tessera::device::Stream> AclLaunchStream(void* handle) {
  return tessera::c_api::StreamOf("<<<>>> launch", static_cast<tsrStream>(handle));
}

// From the first call that can lead to an acl stream (aclInit, aclrtSetDevice,
// aclrtCreateContext), `<<<>>>` stream handles are acl streams. CANN's samples often start with
// aclrtSetDevice and never call aclInit; their streams must not be read as device::Stream*.
void UseAclStreams() {
  tessera::compat::SetAscStreamResolver(&AclLaunchStream);
}
}  // namespace

aclError aclInit(const char* configPath) {
  UseAclStreams();
  if (configPath != nullptr && configPath[0] != '\0') {
    std::FILE* f = std::fopen(configPath, "rb");
    if (f == nullptr) {
      return RecordError(ACL_ERROR_INVALID_FILE,
                         std::string("aclInit: config file ") + configPath + " cannot be read");
    }
    std::fclose(f);
  }
  auto& s = State();
  std::lock_guard lock(s.mu);
  if (s.initialized) {
    return RecordError(ACL_ERROR_REPEAT_INITIALIZE,
                       "aclInit: acl is already initialized (call aclFinalize first)");
  }
  s.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize(void) {
  auto& s = State();
  std::lock_guard lock(s.mu);
  if (!s.initialized) {
    return RecordError(ACL_ERROR_REPEAT_FINALIZE,
                       "aclFinalize: acl is not initialized (finalized already, or no aclInit)");
  }
  s.initialized = false;
  return ACL_SUCCESS;
}

aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  if (majorVersion == nullptr || minorVersion == nullptr || patchVersion == nullptr)
    return NullParam("aclrtGetVersion", "a version pointer");
  *majorVersion = 1;
  *minorVersion = 0;
  *patchVersion = 0;
  return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  if (count == nullptr) return NullParam("aclrtGetDeviceCount", "count");
  *count = 1;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId) {
  if (aclError e = CheckDeviceId("aclrtSetDevice", deviceId); e != ACL_SUCCESS) return e;
  UseAclStreams();
  auto& s = State();
  std::lock_guard lock(s.mu);
  if (s.default_context == nullptr) {
    s.default_context = new Context{deviceId, true};
    s.contexts.insert(s.default_context);
  }
  ++s.device_refs;
  tessera::compat::tls_current = s.default_context;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
  if (aclError e = CheckDeviceId("aclrtResetDevice", deviceId); e != ACL_SUCCESS) return e;
  Context* released = nullptr;
  {
    auto& s = State();
    std::lock_guard lock(s.mu);
    if (s.device_refs == 0) {
      return RecordError(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtResetDevice: device 0 was not set (aclrtSetDevice) or is reset "
                         "already");
    }
    if (--s.device_refs == 0) {
      released = s.default_context;
      s.contexts.erase(released);
      s.default_context = nullptr;
    }
  }
  if (released == nullptr) return ACL_SUCCESS;
  if (tessera::compat::tls_current == released) tessera::compat::tls_current = nullptr;
  delete released;
  return AclErrorOf("aclrtResetDevice", tsrSynchronizeDevice());
}

aclError aclrtGetDevice(int32_t* deviceId) {
  if (deviceId == nullptr) return NullParam("aclrtGetDevice", "deviceId");
  return RequireContext("aclrtGetDevice", deviceId);
}

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  if (runMode == nullptr) return NullParam("aclrtGetRunMode", "runMode");
  // Host and device share one process and memory, as in CANN's host-side mode.
  *runMode = ACL_HOST;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
  if (aclError e = RequireContext("aclrtSynchronizeDevice"); e != ACL_SUCCESS) return e;
  return AclErrorOf("aclrtSynchronizeDevice", tsrSynchronizeDevice());
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  if (context == nullptr) return NullParam("aclrtCreateContext", "context");
  if (aclError e = CheckDeviceId("aclrtCreateContext", deviceId); e != ACL_SUCCESS) return e;
  UseAclStreams();
  auto* ctx = new Context{deviceId, false};
  {
    auto& s = State();
    std::lock_guard lock(s.mu);
    s.contexts.insert(ctx);
  }
  tessera::compat::tls_current = ctx;  // as in CANN, the new context becomes current
  *context = ctx;
  return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
  if (context == nullptr) return NullParam("aclrtDestroyContext", "context");
  auto* ctx = static_cast<Context*>(context);
  {
    auto& s = State();
    std::lock_guard lock(s.mu);
    if (s.contexts.count(ctx) == 0 || ctx->is_default) {
      return RecordError(
          ACL_ERROR_RT_PARAM_INVALID,
          "aclrtDestroyContext: context " + tessera::compat::Address(context) +
              (s.contexts.count(ctx) != 0
                   ? " is the device's default context (aclrtResetDevice releases it)"
                   : " is not a live context (destroyed already, or not from "
                     "aclrtCreateContext)"));
    }
    s.contexts.erase(ctx);
  }
  if (tessera::compat::tls_current == ctx) tessera::compat::tls_current = nullptr;
  delete ctx;
  return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  if (context == nullptr) return NullParam("aclrtSetCurrentContext", "context");
  auto& s = State();
  std::lock_guard lock(s.mu);
  if (s.contexts.count(static_cast<const Context*>(context)) == 0) {
    return RecordError(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetCurrentContext: context " +
                                                       tessera::compat::Address(context) +
                                                       " is not a live context");
  }
  tessera::compat::tls_current = static_cast<const Context*>(context);
  return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  if (context == nullptr) return NullParam("aclrtGetCurrentContext", "context");
  if (aclError e = RequireContext("aclrtGetCurrentContext"); e != ACL_SUCCESS) return e;
  *context = const_cast<Context*>(tessera::compat::tls_current);
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  if (aclError e = RequireContext("aclrtMalloc"); e != ACL_SUCCESS) return e;
  if (devPtr == nullptr) return NullParam("aclrtMalloc", "devPtr");
  if (size == 0) return RecordError(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size is 0");
  if (policy < ACL_MEM_MALLOC_HUGE_FIRST || policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P) {
    return RecordError(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: policy " +
                                                    std::to_string(static_cast<int>(policy)) +
                                                    " is not an aclrtMemMallocPolicy (0..5)");
  }
  return AclErrorOf("aclrtMalloc", tsrMalloc(devPtr, size));
}

aclError aclrtFree(void* devPtr) {
  if (aclError e = RequireContext("aclrtFree"); e != ACL_SUCCESS) return e;
  if (devPtr == nullptr) return NullParam("aclrtFree", "devPtr");
  return AclErrorOf("aclrtFree", tsrFree(devPtr));
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (aclError e = RequireContext("aclrtMallocHost"); e != ACL_SUCCESS) return e;
  if (hostPtr == nullptr) return NullParam("aclrtMallocHost", "hostPtr");
  if (size == 0) return RecordError(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0");
  void* p = std::aligned_alloc(64, (size + 63) / 64 * 64);
  if (p == nullptr) {
    return RecordError(ACL_ERROR_RT_MEMORY_ALLOCATION,
                       "aclrtMallocHost: cannot allocate " + std::to_string(size) + " bytes");
  }
  auto& s = State();
  std::lock_guard lock(s.mu);
  s.host_allocations.insert(p);
  *hostPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFreeHost(void* hostPtr) {
  if (hostPtr == nullptr) return NullParam("aclrtFreeHost", "hostPtr");
  {
    auto& s = State();
    std::lock_guard lock(s.mu);
    if (s.host_allocations.erase(hostPtr) == 0) {
      return RecordError(ACL_ERROR_RT_PARAM_INVALID,
                         "aclrtFreeHost: " + tessera::compat::Address(hostPtr) +
                             " is not live host memory from aclrtMallocHost (freed already?)");
    }
  }
  std::free(hostPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  if (aclError e = tessera::compat::CheckCopy("aclrtMemcpy", dst, destMax, src, count, kind);
      e != ACL_SUCCESS)
    return e;
  return AclErrorOf("aclrtMemcpy",
                    tsrMemcpy(dst, destMax, src, count, static_cast<tsrMemcpyKind>(kind)));
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  if (aclError e = tessera::compat::CheckCopy("aclrtMemcpyAsync", dst, destMax, src, count, kind);
      e != ACL_SUCCESS)
    return e;
  return AclErrorOf("aclrtMemcpyAsync",
                    tsrMemcpyAsync(dst, destMax, src, count, static_cast<tsrMemcpyKind>(kind),
                                   static_cast<tsrStream>(stream)));
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (aclError e = RequireContext("aclrtMemset"); e != ACL_SUCCESS) return e;
  if (devPtr == nullptr) return NullParam("aclrtMemset", "devPtr");
  return AclErrorOf("aclrtMemset", tsrMemset(devPtr, maxCount, value, count));
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  if (aclError e = RequireContext("aclrtMemsetAsync"); e != ACL_SUCCESS) return e;
  if (devPtr == nullptr) return NullParam("aclrtMemsetAsync", "devPtr");
  return AclErrorOf("aclrtMemsetAsync",
                    tsrMemsetAsync(devPtr, maxCount, value, count, static_cast<tsrStream>(stream)));
}

aclError aclrtCreateStream(aclrtStream* stream) {
  if (aclError e = RequireContext("aclrtCreateStream"); e != ACL_SUCCESS) return e;
  if (stream == nullptr) return NullParam("aclrtCreateStream", "stream");
  tsrStream s = nullptr;
  const aclError e = AclErrorOf("aclrtCreateStream", tsrCreateStream(&s));
  *stream = s;
  return e;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  if (stream == nullptr) return NullParam("aclrtDestroyStream", "stream");
  return AclErrorOf("aclrtDestroyStream", tsrDestroyStream(static_cast<tsrStream>(stream)));
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (aclError e = RequireContext("aclrtSynchronizeStream"); e != ACL_SUCCESS) return e;
  // A `<<<>>>` launch returns nothing, as in CANN: its enqueue error surfaces here.
  if (const tessera::Status launch = tessera::compat::TakeAscLaunchError(); !launch.ok()) {
    return RecordError(
        ACL_ERROR_RT_PARAM_INVALID,
        "aclrtSynchronizeStream: a kernel launch failed: " + std::string(launch.message()));
  }
  return AclErrorOf("aclrtSynchronizeStream", tsrSynchronizeStream(static_cast<tsrStream>(stream)));
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  if (event == nullptr) return NullParam("aclrtStreamWaitEvent", "event");
  return AclErrorOf("aclrtStreamWaitEvent", tsrStreamWaitEvent(static_cast<tsrStream>(stream),
                                                               static_cast<tsrEvent>(event)));
}

aclError aclrtCreateEvent(aclrtEvent* event) {
  if (aclError e = RequireContext("aclrtCreateEvent"); e != ACL_SUCCESS) return e;
  if (event == nullptr) return NullParam("aclrtCreateEvent", "event");
  tsrEvent ev = nullptr;
  const aclError e = AclErrorOf("aclrtCreateEvent", tsrCreateEvent(&ev));
  *event = ev;
  return e;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  if (event == nullptr) return NullParam("aclrtDestroyEvent", "event");
  return AclErrorOf("aclrtDestroyEvent", tsrDestroyEvent(static_cast<tsrEvent>(event)));
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  if (event == nullptr) return NullParam("aclrtRecordEvent", "event");
  return AclErrorOf("aclrtRecordEvent",
                    tsrRecordEvent(static_cast<tsrEvent>(event), static_cast<tsrStream>(stream)));
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  if (event == nullptr) return NullParam("aclrtSynchronizeEvent", "event");
  return AclErrorOf("aclrtSynchronizeEvent", tsrSynchronizeEvent(static_cast<tsrEvent>(event)));
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  if (ms == nullptr) return NullParam("aclrtEventElapsedTime", "ms");
  if (startEvent == nullptr) return NullParam("aclrtEventElapsedTime", "startEvent");
  if (endEvent == nullptr) return NullParam("aclrtEventElapsedTime", "endEvent");
  return AclErrorOf(
      "aclrtEventElapsedTime",
      tsrEventElapsedTime(ms, static_cast<tsrEvent>(startEvent), static_cast<tsrEvent>(endEvent)));
}

}  // extern "C"
