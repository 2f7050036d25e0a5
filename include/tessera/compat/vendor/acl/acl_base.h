/* acl/acl_base.h as CANN applications include it: aclError and its codes, aclDataType, aclFormat,
 * aclFloat16 and its conversions, aclGetRecentErrMsg. Codes and enum values equal CANN's, so an
 * application that prints or compares them behaves as on an NPU. Part of tessera's compat layer
 * (link tessera::acl). */
#ifndef TESSERA_COMPAT_ACL_ACL_BASE_H_
#define TESSERA_COMPAT_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef uint16_t aclFloat16;

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;

/* Runtime codes (acl/error_codes/rt_error_codes.h in CANN). */
static const int ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27
} aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_FRACTAL_NZ = 29
} aclFormat;

/* IEEE binary16 <-> float, rounding to nearest even (as CANN's). */
aclFloat16 aclFloatToFloat16(float value);
float aclFloat16ToFloat(aclFloat16 value);
/* Bytes of one element; 0 for ACL_STRING and unknown types. */
size_t aclDataTypeSize(aclDataType dataType);

/* The message of the most recent failed acl/aclnn call on this thread, or NULL when no call
 * failed since the last fetch; fetching clears it. The text stays valid until the next acl call
 * on this thread. */
const char* aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_ACL_ACL_BASE_H_ */
