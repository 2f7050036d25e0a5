// The C API over the device layer and tensor descriptions. Every entry point catches everything:
// no exception crosses into C.
#include <exception>
#include <string>

#include "c_api_internal.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/tessera_nn.h"

namespace tessera::c_api {
namespace {
thread_local std::string tls_last_error;
}  // namespace

tsrStatus Report(const Status& status) {
  if (status.ok()) return TSR_SUCCESS;
  tls_last_error = std::string(status.message());
  return static_cast<tsrStatus>(status.code());
}

}  // namespace tessera::c_api

namespace {

using tessera::c_api::Guard;
using tessera::c_api::Report;
using tessera::c_api::StreamOf;

tsrStatus Fail(tessera::StatusCode code, std::string message) {
  return Report(tessera::Status(code, std::move(message)));
}

}  // namespace

extern "C" {

const char* tsrGetLastErrorMessage(void) {
  return tessera::c_api::tls_last_error.c_str();
}

tsrStatus tsrSetProfile(const char* name) {
  return Guard("tsrSetProfile", [&] {
    if (name == nullptr) return tessera::InvalidArgument("tsrSetProfile: name is NULL");
    return tessera::device::SetProfile(name);
  });
}

tsrStatus tsrSetCheckedMode(int enabled) {
  tessera::device::SetCheckedMode(enabled != 0);
  return TSR_SUCCESS;
}

tsrStatus tsrSynchronizeDevice(void) {
  return Guard("tsrSynchronizeDevice", [] { return tessera::device::DeviceSynchronize(); });
}

tsrStatus tsrMalloc(void** devPtr, size_t size) {
  return Guard("tsrMalloc", [&] {
    if (devPtr == nullptr) return tessera::InvalidArgument("tsrMalloc: devPtr is NULL");
    *devPtr = nullptr;
    auto p = tessera::device::Malloc(size);
    if (!p.ok()) return p.status();
    *devPtr = *p;
    return tessera::OkStatus();
  });
}

tsrStatus tsrFree(void* devPtr) {
  return Guard("tsrFree", [&] { return tessera::device::Free(devPtr); });
}

tsrStatus tsrMemcpy(void* dst, size_t destMax, const void* src, size_t count, tsrMemcpyKind kind) {
  return Guard("tsrMemcpy", [&] {
    return tessera::device::Memcpy(dst, destMax, src, count,
                                   static_cast<tessera::device::MemcpyKind>(kind));
  });
}

tsrStatus tsrMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                         tsrMemcpyKind kind, tsrStream stream) {
  return Guard("tsrMemcpyAsync", [&] {
    return tessera::device::MemcpyAsync(
        dst, destMax, src, count, static_cast<tessera::device::MemcpyKind>(kind), StreamOf(stream));
  });
}

tsrStatus tsrMemset(void* dst, size_t destMax, int value, size_t count) {
  return Guard("tsrMemset", [&] { return tessera::device::Memset(dst, destMax, value, count); });
}

tsrStatus tsrMemsetAsync(void* dst, size_t destMax, int value, size_t count, tsrStream stream) {
  return Guard("tsrMemsetAsync", [&] {
    return tessera::device::MemsetAsync(dst, destMax, value, count, StreamOf(stream));
  });
}

tsrStatus tsrCreateStream(tsrStream* stream) {
  return Guard("tsrCreateStream", [&] {
    if (stream == nullptr) return tessera::InvalidArgument("tsrCreateStream: stream is NULL");
    auto s = tessera::device::Stream::Create();
    if (!s.ok()) return s.status();
    *stream = new tsrStreamHandle{*s};
    return tessera::OkStatus();
  });
}

tsrStatus tsrDestroyStream(tsrStream stream) {
  return Guard("tsrDestroyStream", [&] {
    if (stream == nullptr)
      return tessera::InvalidArgument("tsrDestroyStream: the default stream cannot be destroyed");
    tessera::Status st = stream->stream.Synchronize();
    delete stream;
    return st;
  });
}

tsrStatus tsrSynchronizeStream(tsrStream stream) {
  return Guard("tsrSynchronizeStream", [&] { return StreamOf(stream).Synchronize(); });
}

tsrStatus tsrQueryStream(tsrStream stream) {
  return Guard("tsrQueryStream", [&] { return StreamOf(stream).Query(); });
}

tsrStatus tsrResetStreamError(tsrStream stream) {
  StreamOf(stream).ResetError();
  return TSR_SUCCESS;
}

tsrStatus tsrCreateEvent(tsrEvent* event) {
  return Guard("tsrCreateEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrCreateEvent: event is NULL");
    auto e = tessera::device::Event::Create();
    if (!e.ok()) return e.status();
    *event = new tsrEventHandle{*e};
    return tessera::OkStatus();
  });
}

tsrStatus tsrDestroyEvent(tsrEvent event) {
  return Guard("tsrDestroyEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrDestroyEvent: event is NULL");
    delete event;
    return tessera::OkStatus();
  });
}

tsrStatus tsrRecordEvent(tsrEvent event, tsrStream stream) {
  return Guard("tsrRecordEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrRecordEvent: event is NULL");
    return event->event.Record(StreamOf(stream));
  });
}

tsrStatus tsrStreamWaitEvent(tsrStream stream, tsrEvent event) {
  return Guard("tsrStreamWaitEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrStreamWaitEvent: event is NULL");
    return tessera::device::StreamWaitEvent(StreamOf(stream), event->event);
  });
}

tsrStatus tsrSynchronizeEvent(tsrEvent event) {
  return Guard("tsrSynchronizeEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrSynchronizeEvent: event is NULL");
    return event->event.Synchronize();
  });
}

tsrStatus tsrEventElapsedTime(float* ms, tsrEvent start, tsrEvent end) {
  return Guard("tsrEventElapsedTime", [&] {
    if (ms == nullptr || start == nullptr || end == nullptr) {
      return tessera::InvalidArgument("tsrEventElapsedTime: ms, start and end must not be NULL");
    }
    auto r = tessera::device::Event::ElapsedMs(start->event, end->event);
    if (!r.ok()) return r.status();
    *ms = *r;
    return tessera::OkStatus();
  });
}

tsrTensor* tsrCreateTensor(const int64_t* shape, uint64_t rank, const int64_t* strides,
                           tsrDataType dtype, tsrFormat format, void* deviceAddr) {
  tsrTensor* out = nullptr;
  Guard("tsrCreateTensor", [&] {
    if (rank > 0 && shape == nullptr) {
      return tessera::InvalidArgument("tsrCreateTensor: shape is NULL for rank " +
                                      std::to_string(rank));
    }
    if (!tessera::IsValidDataType(static_cast<int>(dtype))) {
      return tessera::InvalidArgument("tsrCreateTensor: dtype code " +
                                      std::to_string(static_cast<int>(dtype)) +
                                      " is not a tsrDataType");
    }
    if (!tessera::IsValidFormat(static_cast<int>(format))) {
      return tessera::InvalidArgument("tsrCreateTensor: format code " +
                                      std::to_string(static_cast<int>(format)) +
                                      " is not a tsrFormat");
    }
    if (rank > static_cast<uint64_t>(tessera::Shape::kMaxRank)) {
      return tessera::InvalidArgument("tsrCreateTensor: rank " + std::to_string(rank) +
                                      " exceeds the maximum 8");
    }
    auto s = tessera::Shape::Make(std::span<const int64_t>(shape, rank));
    if (!s.ok())
      return tessera::Status(s.status().code(),
                             "tsrCreateTensor: " + std::string(s.status().message()));
    tessera::TensorDesc desc{
        static_cast<tessera::DataType>(dtype), *s, static_cast<tessera::Format>(format), {}};
    if (strides != nullptr) desc.strides.assign(strides, strides + rank);
    if (tessera::Status st = desc.Validate(); !st.ok()) {
      return tessera::Status(st.code(), "tsrCreateTensor: " + std::string(st.message()));
    }
    if (deviceAddr == nullptr && *desc.StorageBytes() > 0) {
      return tessera::InvalidArgument("tsrCreateTensor: deviceAddr is NULL for a non-empty tensor");
    }
    out = new tsrTensor{std::move(desc), deviceAddr};
    return tessera::OkStatus();
  });
  return out;
}

tsrStatus tsrDestroyTensor(const tsrTensor* tensor) {
  if (tensor == nullptr)
    return Fail(tessera::StatusCode::kInvalidArgument, "tsrDestroyTensor: tensor is NULL");
  delete tensor;
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorShape(const tsrTensor* tensor, int64_t* dims, uint64_t capacity,
                            uint64_t* rank) {
  if (tensor == nullptr || rank == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument,
                "tsrGetTensorShape: tensor and rank must not be NULL");
  }
  const auto r = static_cast<uint64_t>(tensor->desc.shape.rank());
  *rank = r;
  if (capacity > 0 && dims == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument,
                "tsrGetTensorShape: dims is NULL with capacity > 0");
  }
  for (uint64_t i = 0; i < r && i < capacity; ++i)
    dims[i] = tensor->desc.shape.dim(static_cast<int>(i));
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorDataType(const tsrTensor* tensor, tsrDataType* dtype) {
  if (tensor == nullptr || dtype == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument,
                "tsrGetTensorDataType: tensor and dtype must not be NULL");
  }
  *dtype = static_cast<tsrDataType>(tensor->desc.dtype);
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorAddress(const tsrTensor* tensor, void** deviceAddr) {
  if (tensor == nullptr || deviceAddr == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument,
                "tsrGetTensorAddress: tensor and deviceAddr must not be NULL");
  }
  *deviceAddr = tensor->address;
  return TSR_SUCCESS;
}

}  // extern "C"
