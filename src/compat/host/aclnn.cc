// aclnn/acl_meta.h and aclnn_base.h: tensors are tessera C API tensors (aclCreateTensor applies
// CANN's element offset and storage check), scalars and arrays are small owned copies tracked as
// live handles, and tsrAclnnStatus maps the op API's statuses onto aclnn codes.
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "acl_error.h"
#include "aclnn/aclnn_base.h"
#include "tessera/compat/host/aclnn_bridge.h"
#include "tessera/core/data_type.h"

struct aclScalar {
  aclDataType dtype;
  std::vector<uint8_t> bytes;
};
struct aclIntArray {
  std::vector<int64_t> values;
};
struct aclFloatArray {
  std::vector<float> values;
};
struct aclBoolArray {
  std::vector<bool> values;
};

namespace tessera::compat {
namespace {

enum class Kind : uint8_t { kScalar, kIntArray, kFloatArray, kBoolArray };

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kScalar:
      return "aclScalar";
    case Kind::kIntArray:
      return "aclIntArray";
    case Kind::kFloatArray:
      return "aclFloatArray";
    case Kind::kBoolArray:
      return "aclBoolArray";
    default:
      return "handle";
  }
}

// Live handles; destroyed ones are freed only after 1024 more destructions so a stale handle is
// not yet the address of a new one (its misuse stays detectable).
struct Handles {
  std::mutex mu;
  std::unordered_map<const void*, Kind> live;
  std::deque<std::pair<const void*, Kind>> retired;
};

Handles& Live() {
  static Handles* h = new Handles();  // immortal: handles may outlive main
  return *h;
}

void Delete(const void* p, Kind kind) {
  switch (kind) {
    case Kind::kScalar:
      delete static_cast<const aclScalar*>(p);
      break;
    case Kind::kIntArray:
      delete static_cast<const aclIntArray*>(p);
      break;
    case Kind::kFloatArray:
      delete static_cast<const aclFloatArray*>(p);
      break;
    case Kind::kBoolArray:
      delete static_cast<const aclBoolArray*>(p);
      break;
  }
}

template <class T>
T* Register(T* p, Kind kind) {
  Handles& h = Live();
  std::lock_guard lock(h.mu);
  h.live[p] = kind;
  return p;
}

std::string Address(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

aclnnStatus Check(const char* api, const char* what, const void* p, Kind kind) {
  if (p == nullptr) {
    return RecordError(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": " + what + " is NULL");
  }
  Handles& h = Live();
  std::lock_guard lock(h.mu);
  const auto it = h.live.find(p);
  if (it != h.live.end() && it->second == kind) return ACLNN_SUCCESS;
  return RecordError(ACLNN_ERR_PARAM_INVALID, std::string(api) + ": " + what + " " + Address(p) +
                                                  " is not a live " + KindName(kind) +
                                                  " (destroyed already, or not created by acl)");
}

aclnnStatus Destroy(const char* api, const void* p, Kind kind) {
  if (aclnnStatus st = Check(api, "handle", p, kind); st != ACLNN_SUCCESS) return st;
  std::pair<const void*, Kind> oldest{nullptr, kind};
  {
    Handles& h = Live();
    std::lock_guard lock(h.mu);
    h.live.erase(p);
    h.retired.emplace_back(p, kind);
    if (h.retired.size() > 1024) {
      oldest = h.retired.front();
      h.retired.pop_front();
    }
  }
  if (oldest.first != nullptr) Delete(oldest.first, oldest.second);
  return ACLNN_SUCCESS;
}

aclnnStatus FromTsr(const char* api, tsrStatus status) {
  switch (status) {
    case TSR_SUCCESS:
      return ACLNN_SUCCESS;
    case TSR_ERROR_INVALID_ARGUMENT:
    case TSR_ERROR_OUT_OF_RANGE:
    case TSR_ERROR_FAILED_PRECONDITION:
      return RecordError(ACLNN_ERR_PARAM_INVALID,
                         std::string(api) + ": " + tsrGetLastErrorMessage());
    case TSR_ERROR_NOT_FOUND:
      return RecordError(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                         std::string(api) + ": " + tsrGetLastErrorMessage());
    case TSR_ERROR_KERNEL:
    case TSR_ERROR_OUT_OF_MEMORY:
      return RecordError(ACLNN_ERR_RUNTIME_ERROR,
                         std::string(api) + ": " + tsrGetLastErrorMessage());
    default:
      return RecordError(ACLNN_ERR_INNER, std::string(api) + ": " + tsrGetLastErrorMessage());
  }
}

template <class Array, class T>
Array* CreateArray(const char* api, const T* value, uint64_t size, Kind kind) {
  if (value == nullptr && size != 0) {
    RecordError(ACLNN_ERR_PARAM_NULLPTR,
                std::string(api) + ": value is NULL with size " + std::to_string(size));
    return nullptr;
  }
  auto* a = new Array();
  a->values.assign(value, value + size);
  return Register(a, kind);
}

template <class Array>
aclnnStatus ArraySize(const char* api, const Array* array, uint64_t* size, Kind kind) {
  if (aclnnStatus st = Check(api, "array", array, kind); st != ACLNN_SUCCESS) return st;
  if (size == nullptr)
    return RecordError(ACLNN_ERR_PARAM_NULLPTR, std::string(api) + ": size is NULL");
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

bool aclnn_initialized_acl = false;
std::mutex aclnn_mu;

}  // namespace
}  // namespace tessera::compat

using tessera::compat::Kind;
using tessera::compat::RecordError;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  const char* api = "aclCreateTensor";
  const auto fail = [&](aclnnStatus code, const std::string& why) -> aclTensor* {
    RecordError(code, std::string(api) + ": " + why);
    return nullptr;
  };
  if (viewDims == nullptr && viewDimsNum != 0)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "viewDims is NULL");
  if (!tessera::IsValidDataType(static_cast<int>(dataType))) {
    return fail(ACLNN_ERR_PARAM_INVALID,
                "dataType " + std::to_string(static_cast<int>(dataType)) +
                    " is not one tessera supports (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, "
                    "ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL)");
  }
  if (format != ACL_FORMAT_ND) {
    return fail(ACLNN_ERR_PARAM_INVALID,
                "format " + std::to_string(static_cast<int>(format)) +
                    " is not supported; tessera tensors are ACL_FORMAT_ND");
  }
  if (offset < 0) return fail(ACLNN_ERR_PARAM_INVALID, "offset " + std::to_string(offset) + " < 0");
  if (storageDims == nullptr && storageDimsNum != 0)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "storageDims is NULL");
  // The last element the view reaches must lie inside the storage (overflow-checked: the dims
  // come from the caller).
  int64_t reach = offset, storage = 1;
  bool empty = false, overflow = false;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (viewDims[i] < 0) {
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "viewDims[" + std::to_string(i) + "] = " + std::to_string(viewDims[i]) + " < 0");
    }
    empty = empty || viewDims[i] == 0;
  }
  if (!empty) {
    int64_t contiguous = 1;
    for (uint64_t i = viewDimsNum; i-- > 0;) {
      const int64_t s = stride != nullptr ? stride[i] : contiguous;
      int64_t step = 0;
      overflow = overflow || __builtin_mul_overflow(viewDims[i] - 1, s, &step) ||
                 __builtin_add_overflow(reach, step, &reach) ||
                 __builtin_mul_overflow(contiguous, viewDims[i], &contiguous);
    }
  }
  for (uint64_t i = 0; i < storageDimsNum; ++i)
    overflow =
        overflow || storageDims[i] < 0 || __builtin_mul_overflow(storage, storageDims[i], &storage);
  if (overflow) return fail(ACLNN_ERR_PARAM_INVALID, "the view or storage size overflows int64");
  if (!empty && storageDims != nullptr && reach >= storage) {
    return fail(ACLNN_ERR_PARAM_INVALID, "the view reaches element " + std::to_string(reach) +
                                             " but the storage holds " + std::to_string(storage) +
                                             " elements");
  }
  auto* data = static_cast<uint8_t*>(tensorData);
  if (data != nullptr) data += offset * static_cast<int64_t>(aclDataTypeSize(dataType));
  tsrTensor* t = tsrCreateTensor(viewDims, viewDimsNum, stride, static_cast<tsrDataType>(dataType),
                                 TSR_FORMAT_ND, data);
  if (t == nullptr) return fail(ACLNN_ERR_PARAM_INVALID, tsrGetLastErrorMessage());
  return t;
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  if (tensor == nullptr)
    return RecordError(ACLNN_ERR_PARAM_NULLPTR, "aclDestroyTensor: tensor is NULL");
  return tessera::compat::FromTsr("aclDestroyTensor", tsrDestroyTensor(tensor));
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (viewDims == nullptr || viewDimsNum == nullptr)
    return RecordError(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape: viewDims or viewDimsNum is NULL");
  int64_t dims[8];
  uint64_t rank = 0;
  if (aclnnStatus st =
          tessera::compat::FromTsr("aclGetViewShape", tsrGetTensorShape(tensor, dims, 8, &rank));
      st != ACLNN_SUCCESS)
    return st;
  // As in CANN the caller releases the array with delete[].
  *viewDims = new int64_t[rank == 0 ? 1 : rank];
  std::memcpy(*viewDims, dims, rank * sizeof(int64_t));
  *viewDimsNum = rank;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (dataType == nullptr)
    return RecordError(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: dataType is NULL");
  tsrDataType dt = TSR_FLOAT;
  if (aclnnStatus st =
          tessera::compat::FromTsr("aclGetDataType", tsrGetTensorDataType(tensor, &dt));
      st != ACLNN_SUCCESS)
    return st;
  *dataType = static_cast<aclDataType>(dt);
  return ACLNN_SUCCESS;
}

aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
  const size_t size = aclDataTypeSize(dataType);
  if (value == nullptr) {
    RecordError(ACLNN_ERR_PARAM_NULLPTR, "aclCreateScalar: value is NULL");
    return nullptr;
  }
  if (size == 0) {
    RecordError(ACLNN_ERR_PARAM_INVALID, "aclCreateScalar: dataType " +
                                             std::to_string(static_cast<int>(dataType)) +
                                             " has no fixed element size");
    return nullptr;
  }
  auto* s = new aclScalar{dataType, {}};
  s->bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
  return tessera::compat::Register(s, Kind::kScalar);
}

aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
  return tessera::compat::Destroy("aclDestroyScalar", scalar, Kind::kScalar);
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  return tessera::compat::CreateArray<aclIntArray>("aclCreateIntArray", value, size,
                                                   Kind::kIntArray);
}
aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  return tessera::compat::Destroy("aclDestroyIntArray", array, Kind::kIntArray);
}
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  return tessera::compat::ArraySize("aclGetIntArraySize", array, size, Kind::kIntArray);
}
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size) {
  return tessera::compat::CreateArray<aclFloatArray>("aclCreateFloatArray", value, size,
                                                     Kind::kFloatArray);
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
  return tessera::compat::Destroy("aclDestroyFloatArray", array, Kind::kFloatArray);
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size) {
  return tessera::compat::ArraySize("aclGetFloatArraySize", array, size, Kind::kFloatArray);
}
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  return tessera::compat::CreateArray<aclBoolArray>("aclCreateBoolArray", value, size,
                                                    Kind::kBoolArray);
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  return tessera::compat::Destroy("aclDestroyBoolArray", array, Kind::kBoolArray);
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  return tessera::compat::ArraySize("aclGetBoolArraySize", array, size, Kind::kBoolArray);
}

aclnnStatus aclnnInit(const char* configPath) {
  std::lock_guard lock(tessera::compat::aclnn_mu);
  const aclError e = aclInit(configPath);
  if (e == ACL_SUCCESS) tessera::compat::aclnn_initialized_acl = true;
  return e == ACL_ERROR_REPEAT_INITIALIZE ? ACLNN_SUCCESS : e;
}

aclnnStatus aclnnFinalize(void) {
  std::lock_guard lock(tessera::compat::aclnn_mu);
  if (!tessera::compat::aclnn_initialized_acl) return ACLNN_SUCCESS;
  tessera::compat::aclnn_initialized_acl = false;
  return aclFinalize();
}

aclnnStatus tsrAclnnStatus(const char* api, tsrStatus status) {
  return tessera::compat::FromTsr(api, status);
}

aclnnStatus tsrAclnnIntArray(const char* api, const char* what, const aclIntArray* array,
                             const int64_t** data, uint64_t* size) {
  if (aclnnStatus st = tessera::compat::Check(api, what, array, Kind::kIntArray);
      st != ACLNN_SUCCESS)
    return st;
  *data = array->values.data();
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

aclnnStatus tsrAclnnFloatArray(const char* api, const char* what, const aclFloatArray* array,
                               const float** data, uint64_t* size) {
  if (aclnnStatus st = tessera::compat::Check(api, what, array, Kind::kFloatArray);
      st != ACLNN_SUCCESS)
    return st;
  *data = array->values.data();
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // extern "C"
