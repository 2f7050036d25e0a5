/* The C API header compiles as strict C99. */
#include <tessera/tessera_nn.h>

int tessera_c_api_header_compiles(void) {
  return TSR_SUCCESS;
}
