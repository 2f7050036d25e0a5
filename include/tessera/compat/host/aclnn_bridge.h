/* What generated aclnn<Op> functions call (tessera compat, not a vendor API): the aclnn status
 * of a tessera op API status, recording its message for aclGetRecentErrMsg, and the values of
 * array handles. */
#ifndef TESSERA_COMPAT_HOST_ACLNN_BRIDGE_H_
#define TESSERA_COMPAT_HOST_ACLNN_BRIDGE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `api` names the aclnn function in the recorded message. */
aclnnStatus tsrAclnnStatus(const char* api, tsrStatus status);
/* OK with (*data, *size) of a live array; ACLNN_ERR_PARAM_NULLPTR / _INVALID otherwise (recorded
 * naming `api` and `what`). */
aclnnStatus tsrAclnnIntArray(const char* api, const char* what, const aclIntArray* array,
                             const int64_t** data, uint64_t* size);
aclnnStatus tsrAclnnFloatArray(const char* api, const char* what, const aclFloatArray* array,
                               const float** data, uint64_t* size);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_HOST_ACLNN_BRIDGE_H_ */
