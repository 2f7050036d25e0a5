/* aclnn/acl_meta.h: the tensor, scalar and array handles of CANN's op API (aclnn).
 * An aclTensor is a tessera tensor handle (tsrTensor), an aclOpExecutor a tessera executor, so
 * the generated aclnn<Op> functions hand them to the tessera op API unchanged. Handles are
 * checked against the live ones: a destroyed or doubly destroyed handle is ACLNN_ERR_PARAM_INVALID
 * naming it, never a crash. */
#ifndef TESSERA_COMPAT_ACLNN_ACL_META_H_
#define TESSERA_COMPAT_ACLNN_ACL_META_H_

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "tessera/tessera_nn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;
static const aclnnStatus ACLNN_SUCCESS = 0;
static const aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
static const aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
static const aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
static const aclnnStatus ACLNN_ERR_INNER = 561000;
static const aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
static const aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;
static const aclnnStatus ACLNN_ERR_INNER_NULLPTR = 561103;

typedef struct tsrTensor aclTensor;
typedef struct tsrOpExecutor aclOpExecutor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;

/* A view of device memory: `viewDims`/`stride` in elements (stride NULL: contiguous), `offset` in
 * elements from `tensorData`; `storageDims` must hold at least the elements the view reaches.
 * Only ACL_FORMAT_ND. NULL on invalid arguments (aclGetRecentErrMsg says why). */
aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData);
aclnnStatus aclDestroyTensor(const aclTensor* tensor);
aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum);
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);

/* `value` points to one element of `dataType` (copied). */
aclScalar* aclCreateScalar(void* value, aclDataType dataType);
aclnnStatus aclDestroyScalar(const aclScalar* scalar);
/* Arrays copy `size` values (value may be NULL when size is 0). */
aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
aclnnStatus aclDestroyIntArray(const aclIntArray* array);
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size);
aclFloatArray* aclCreateFloatArray(const float* value, uint64_t size);
aclnnStatus aclDestroyFloatArray(const aclFloatArray* array);
aclnnStatus aclGetFloatArraySize(const aclFloatArray* array, uint64_t* size);
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_ACLNN_ACL_META_H_ */
