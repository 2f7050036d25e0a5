// libFuzzer entry point for one fuzz target, chosen at compile time (TESSERA_FUZZ_TARGET, e.g.
// FuzzManifest), for coverage-guided runs with Debian's clang outside the CMake build (the project
// builds with GCC; CI runs the deterministic driver, fuzz_driver.cc). The command that builds the
// manifest target with the parser sources instrumented is in docs/runtime_packages.md, "Security".
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tessera::fuzz::TESSERA_FUZZ_TARGET(data, size);
  return 0;
}
