// Shared by the C API sources: handle layouts and error reporting.
#pragma once

#include <exception>
#include <string>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/stream.h"
#include "tessera/tessera_nn.h"

struct tsrStreamHandle {
  tessera::device::Stream stream;
};
struct tsrEventHandle {
  tessera::device::Event event;
};
struct tsrTensor {
  tessera::TensorDesc desc;
  void* address = nullptr;
};

namespace tessera::c_api {

// Records a failure's message for tsrGetLastErrorMessage and maps its code.
tsrStatus Report(const Status& status);

// Runs fn, turning any exception into TSR_ERROR_INTERNAL: no exception crosses into C.
template <class Fn>
tsrStatus Guard(const char* api, Fn&& fn) {
  try {
    return Report(fn());
  } catch (const std::exception& e) {
    return Report(Status(StatusCode::kInternal, std::string(api) + ": " + e.what()));
  } catch (...) {
    return Report(Status(StatusCode::kInternal, std::string(api) + ": unknown exception"));
  }
}

inline device::Stream StreamOf(tsrStream s) {
  return s ? s->stream : device::Stream();
}
inline const TensorDesc& DescOf(const tsrTensor* t) {
  return t->desc;
}
inline void* AddressOf(const tsrTensor* t) {
  return t->address;
}

}  // namespace tessera::c_api
