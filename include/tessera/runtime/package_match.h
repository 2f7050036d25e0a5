// Binary matching: SoC compatibility, simplified keys, and choosing a binary and its kernel entry.
//
// On a CPU the "SoC" is the instruction-set level a binary is compiled for. Levels form families:
// x86-64 < x86-64-v2 < x86-64-v3 < x86-64-v4, and armv8-a on its own. A binary runs on a device of
// the same family whose level is at least the binary's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/format.h"
#include "tessera/core/status.h"
#include "tessera/runtime/package_manifest.h"

namespace tessera::runtime {

// Every SoC name tessera knows, lowest level first within each family: "x86-64", "x86-64-v2",
// "x86-64-v3", "x86-64-v4", "armv8-a".
std::span<const std::string_view> KnownSocs();
bool IsKnownSoc(std::string_view soc);
// True when a binary built for `binary_soc` runs on a device reporting `device_soc`: both known,
// same family, binary level <= device level. Unknown names are compatible with nothing.
bool SocRunsOn(std::string_view binary_soc, std::string_view device_soc);
// The SoCs whose binaries run on `device_soc`, best (highest level) first; empty when unknown.
std::vector<std::string_view> CompatibleSocs(std::string_view device_soc);

// One input or output as it appears in a simplified key.
struct SimplifiedKeyTensor {
  DataType dtype = DataType::kFloat32;
  Format format = Format::kND;
};

// "OpType/d=<0|1>,p=<precision_mode>/<DT_xxx>,<format>/..." with one "/dtype,format" per input,
// then one per output, dtypes spelled as DataTypeCannName ("DT_FLOAT", "DT_BF16").
std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs);

// Checks that `key` has the shape BuildSimplifiedKey produces for op `op_type` (d is 0 or 1, p a
// decimal number, at least one tensor, every dtype a CANN name, every format known). The error
// says which part is wrong and what was expected.
Status CheckSimplifiedKey(std::string_view key, std::string_view op_type);

// The binary of `op` to run on `device_soc` for `simplified_key`: among binaries with exactly that
// key, the one built for `device_soc`, else the one with the highest compatible lower level of the
// same family. NotFound, in CANN's words, when none fits: "Cannot find kernel file for operator
// Add. The corresponding simplifiedKey <key> is missing for SoC x86-64-v2 (compatible: ...);
// binaries exist for: x86-64-v3 <key>, ..."; InvalidArgument when `device_soc` is unknown. The
// pointer lives as long as `op`.
Result<const ManifestBinary*> SelectBinary(const OpManifest& op, std::string_view device_soc,
                                           std::string_view simplified_key);

// The entry of `binary` for `tiling_key`. NotFound: "Cannot find tilingKey[K] in kernel json of
// <binPath> (<simplifiedKey>); available tiling keys: 0, 1". The pointer lives as long as `binary`.
Result<const ManifestKernel*> FindKernelEntry(const ManifestBinary& binary, uint64_t tiling_key);

}  // namespace tessera::runtime
