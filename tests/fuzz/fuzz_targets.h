// Fuzz targets: each takes one input and must return normally whatever the bytes are (a clean
// error is fine); a crash, a hang, a sanitizer report or a broken invariant (the target aborts with
// a message) is a finding. The driver (fuzz_driver.cc) mutates a checked-in corpus for a bounded
// time; the same functions can be wrapped in LLVMFuzzerTestOneInput for libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessera::fuzz {

// What one input did, for the driver's summary.
enum class Outcome { kAccepted, kRejected };

Outcome FuzzManifest(const uint8_t* data, size_t size);      // runtime::ParseManifestText
Outcome FuzzVendorConfig(const uint8_t* data, size_t size);  // config.ini
Outcome FuzzTilingData(const uint8_t* data, size_t size);    // SetTilingFields / ParseTiling
Outcome FuzzCliArgs(const uint8_t* data, size_t size);       // tessera run/tiling options

// Aborts with `what` when an invariant does not hold (a finding, not a rejected input).
[[noreturn]] void InvariantFailed(std::string_view target, std::string_view what);

}  // namespace tessera::fuzz
