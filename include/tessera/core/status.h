// Status and Result: how every tessera entry point reports success or failure.
//
// Contract: no exception crosses a public tessera API; failures are a Status whose message names
// the thing that was wrong and what was expected. An OK status carries no allocation.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace tessera {

// Scoped error codes. Values are stable: the C API exposes them as integers.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // a caller-supplied value is malformed or out of range
  kNotFound = 2,            // a named thing (op, profile, allocation) does not exist
  kAlreadyExists = 3,       // a name is registered twice
  kOutOfMemory = 4,         // an allocation could not be satisfied
  kOutOfRange = 5,          // an index or size exceeds a limit (shape overflow, buffer capacity)
  kFailedPrecondition = 6,  // the system is not in a state that allows the call
  kUnimplemented = 7,       // valid request that tessera does not support
  kKernelError = 8,         // a kernel failed on the device (message names kernel and block)
  kNotReady = 9,            // asynchronous work has not finished yet (stream/event query)
  kInternal = 10,           // a bug in tessera
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  // The message without the code; empty for OK.
  std::string_view message() const { return state_ ? std::string_view(state_->message) : ""; }
  // "InvalidArgument: <message>" or "OK".
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;
};

inline Status OkStatus() {
  return Status();
}
Status InvalidArgument(std::string message);
Status NotFound(std::string message);
Status AlreadyExists(std::string message);
Status OutOfMemory(std::string message);
Status OutOfRange(std::string message);
Status FailedPrecondition(std::string message);
Status Unimplemented(std::string message);
Status KernelError(std::string message);
Status NotReady(std::string message);
Status Internal(std::string message);

// A value or the Status explaining why there is none.
template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Status>, "Result<Status> is meaningless");

 public:
  Result(T value)
      : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::in_place_index<1>, std::move(status)) {  // NOLINT
    if (std::get<1>(data_).ok()) {
      data_.template emplace<1>(StatusCode::kInternal, "Result constructed from an OK status");
    }
  }

  bool ok() const { return data_.index() == 0; }
  // OK when a value is held.
  Status status() const { return ok() ? Status() : std::get<1>(data_); }

  // Precondition: ok().
  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace tessera

// Returns early from the enclosing function when `expr` (a Status) is not OK.
#define TESSERA_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::tessera::Status tessera_status_ = (expr);        \
    if (!tessera_status_.ok()) return tessera_status_; \
  } while (0)

#define TESSERA_CONCAT_INNER_(a, b) a##b
#define TESSERA_CONCAT_(a, b) TESSERA_CONCAT_INNER_(a, b)
// `TESSERA_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or returns its Status.
// It expands to several statements (it declares x in the enclosing scope): under an if or a loop,
// put it in braces.
#define TESSERA_ASSIGN_OR_RETURN(lhs, expr)                     \
  auto TESSERA_CONCAT_(tessera_result_, __LINE__) = (expr);     \
  if (!TESSERA_CONCAT_(tessera_result_, __LINE__).ok())         \
    return TESSERA_CONCAT_(tessera_result_, __LINE__).status(); \
  lhs = std::move(TESSERA_CONCAT_(tessera_result_, __LINE__)).value()
