/* acl/acl.h: aclInit/aclFinalize and the runtime (acl_rt.h). */
#ifndef TESSERA_COMPAT_ACL_ACL_H_
#define TESSERA_COMPAT_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `configPath` may be NULL; a path that names no readable file is ACL_ERROR_INVALID_FILE. A second
 * aclInit before aclFinalize is ACL_ERROR_REPEAT_INITIALIZE; aclFinalize without a matching
 * aclInit is ACL_ERROR_REPEAT_FINALIZE. */
aclError aclInit(const char* configPath);
aclError aclFinalize(void);
aclError aclrtGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_COMPAT_ACL_ACL_H_ */
