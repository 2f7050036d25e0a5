/* aclnn/aclnn_base.h: aclnnInit/aclnnFinalize and the handle types (acl_meta.h). The operator
 * functions aclnn<Op>GetWorkspaceSize / aclnn<Op> are generated per operator package:
 * "aclnnop/aclnn_<op>.h" for the built-in ops, "aclnn_<op>.h" for a custom package's. */
#ifndef TESSERA_COMPAT_ACLNN_ACLNN_BASE_H_
#define TESSERA_COMPAT_ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initializes acl when the application has not (configPath as aclInit's); repeated calls are
 * accepted. */
aclnnStatus aclnnInit(const char* configPath);
/* Finalizes what aclnnInit initialized. */
aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_ACLNN_ACLNN_BASE_H_ */
