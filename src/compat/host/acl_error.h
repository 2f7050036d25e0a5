// The acl layer's error state: the per-thread message aclGetRecentErrMsg returns, and the mapping
// of tessera C API statuses onto CANN's codes.
#pragma once

#include <string>

#include "acl/acl_base.h"
#include "tessera/tessera_nn.h"

namespace tessera::compat {

// Records `message` for aclGetRecentErrMsg and returns `code`.
int RecordError(int code, std::string message);
// ACL_SUCCESS for TSR_SUCCESS; otherwise the runtime code CANN returns for that kind of failure,
// with tsrGetLastErrorMessage() recorded after "<api>: ".
aclError AclErrorOf(const char* api, tsrStatus status);

}  // namespace tessera::compat
