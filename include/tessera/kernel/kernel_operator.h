// Moved to the compat layer: "tessera/compat/vendor/kernel_operator.h" (or "kernel_operator.h" with
// -I include/tessera/compat/vendor). This path stays so includes written before the move build.
#pragma once

#include "tessera/compat/vendor/kernel_operator.h"
