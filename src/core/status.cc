#include "tessera/core/status.h"

namespace tessera {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kOutOfMemory:
      return "OutOfMemory";
    case StatusCode::kOutOfRange:
      return "OutOfRange";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kUnimplemented:
      return "Unimplemented";
    case StatusCode::kKernelError:
      return "KernelError";
    case StatusCode::kNotReady:
      return "NotReady";
    case StatusCode::kInternal:
      return "Internal";
    default:
      return "Unknown";
  }
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_shared<const State>(State{code, std::move(message)});
  }
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += message();
  return out;
}

Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
Status NotFound(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
Status AlreadyExists(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
Status OutOfMemory(std::string m) {
  return {StatusCode::kOutOfMemory, std::move(m)};
}
Status OutOfRange(std::string m) {
  return {StatusCode::kOutOfRange, std::move(m)};
}
Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
Status Unimplemented(std::string m) {
  return {StatusCode::kUnimplemented, std::move(m)};
}
Status KernelError(std::string m) {
  return {StatusCode::kKernelError, std::move(m)};
}
Status NotReady(std::string m) {
  return {StatusCode::kNotReady, std::move(m)};
}
Status Internal(std::string m) {
  return {StatusCode::kInternal, std::move(m)};
}

}  // namespace tessera
