// Binary matching: SoC compatibility, simplified keys, and choosing a binary and its kernel entry.
//
// On a CPU the "SoC" is the instruction-set level a binary is compiled for. Levels form families:
// x86-64 < x86-64-v2 < x86-64-v3 < x86-64-v4, and armv8-a on its own. A binary runs on a device of
// the same family whose level is at least the binary's. A binary may instead be built for one CPU
// model (a compute unit), and then runs only on that model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/format.h"
#include "tessera/core/status.h"
#include "runtime/package/package_manifest.h"

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

// Compute units: a binary may also be built for an exact CPU model (device::KnownCpuModels(),
// e.g. "znver3", "icelake-server"); it then runs only on that model, as in CANN.
bool IsKnownComputeUnit(std::string_view name);
// A binary's target: an ISA level or a compute unit.
bool IsKnownTarget(std::string_view name);
// The ISA level of a target: a compute unit's level, an ISA level itself; "" when unknown. OpDef
// configurations (AddConfig) name ISA levels; a compute-unit binary is checked against its level.
std::string_view SocLevelOf(std::string_view target);

// What a device runs: its ISA level and, when known, its CPU model.
struct DeviceTarget {
  std::string_view soc;           // "x86-64-v3"
  std::string_view compute_unit;  // "znver3", or empty when the model is unknown
};
// True when a binary built for `binary_target` runs on `device`: a compute unit only on exactly
// that model, an ISA level by SocRunsOn.
bool BinaryRunsOn(std::string_view binary_target, const DeviceTarget& device);
// "znver3 (x86-64-v3)", or "x86-64-v3 (CPU model not identified)".
std::string DescribeDevice(const DeviceTarget& device);

// One input or output as it appears in a simplified key.
struct SimplifiedKeyTensor {
  DataType dtype = DataType::kFloat32;
  Format format = Format::kND;
  // Mode 1, DYNAMIC parameters only: how many tensors the call passes; -1 for other parameters.
  int32_t dynamic_count = -1;
};

// An attribute that selects a binary (mode 1), its value already spelled (SimplifiedKeyValueText).
struct SimplifiedKeyAttr {
  std::string name;
  std::string value;
};

// Simplified keys, per the op's mode (docs/runtime_packages.md, "Simplified keys"):
//   mode 0  "Op/d=<0|1>,p=<precision>/<DT_xxx>,<format>/..."  one "/dtype,format" per input
//           then per output, dtypes spelled as DataTypeCannName ("DT_FLOAT", "DT_BF16");
//   mode 1  as mode 0, a dynamic parameter's segment ending ",n=<count>", then one
//           "/<attr>=<value>" per binary-selecting attribute: "Op/d=0,p=0/DT_FLOAT,ND/mode=1";
//   mode 2  "Op/d=<0|1>,p=<precision>/<fragment>" with the op's custom fragment.
inline constexpr uint32_t kMaxSimplifiedKeyMode = 2;
// Longest custom fragment in bytes (as CANN: shorter than 256).
inline constexpr size_t kMaxSimplifiedKeyFragment = 255;

// Mode 0 (a tensor's dynamic_count is ignored).
std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs);
// Mode 1.
std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs,
                               std::span<const SimplifiedKeyAttr> attrs);
// Mode 2. Precondition: CheckSimplifiedKeyFragment(fragment) passed.
std::string BuildCustomSimplifiedKey(std::string_view op_type, bool deterministic,
                                     uint32_t precision_mode, std::string_view fragment);

// Checks that `key` has the shape the builder of `mode` produces for op `op_type` (d is 0 or 1, p
// a decimal number; modes 0/1: at least one tensor, every dtype a CANN name, every format known,
// counts and attr segments only in mode 1 - a count is accepted on any tensor segment, as the
// key alone does not say which parameters are dynamic - attr names unique identifiers, values of
// letters, digits and "_.+-"; mode 2: one valid fragment). The error says which part is wrong and
// what was expected.
Status CheckSimplifiedKey(std::string_view key, std::string_view op_type, uint32_t mode = 0);

// Checks a mode-2 fragment: 1..255 bytes of printable ASCII without '/', spaces or a leading "d=",
// so it cannot smuggle in the "<OpType>/d=..,p=../" prefix the runtime adds.
Status CheckSimplifiedKeyFragment(std::string_view fragment, std::string_view op_type);

// True when `text` may be a mode-1 attribute value: non-empty letters, digits and "_.+-".
bool IsSimplifiedKeyValue(std::string_view text);

// A tiling-key selection for selective builds (TESSERA_TILING_KEYS, or TILING_KEYS of
// tessera_add_op_package): items separated by ';', each "<Op>:<key>,<key>,..." for one op or a
// bare "<key>,<key>,..." for every op no item names; keys are decimal. "Add:0,1;Cast:3", "0".
Status CheckTilingKeySelection(std::string_view selection);
// The keys `selection` (valid) builds for `op_type`; nullopt when it does not restrict that op.
std::optional<std::vector<uint64_t>> SelectedTilingKeys(std::string_view selection,
                                                        std::string_view op_type);

// The binary of `op` to run on `device_soc` for `simplified_key`: among binaries with exactly that
// key, the one built for `device_soc`, else the one with the highest compatible lower level of the
// same family. NotFound, in CANN's words, when none fits: "Cannot find kernel file for operator
// Add. The corresponding simplifiedKey <key> is missing for SoC x86-64-v2 (compatible: ...);
// binaries exist for: x86-64-v3 <key>, ..."; InvalidArgument when `device_soc` is unknown. The
// pointer lives as long as `op`.
Result<const ManifestBinary*> SelectBinary(const OpManifest& op, std::string_view device_soc,
                                           std::string_view simplified_key);
// The same for a device with a known CPU model: a binary for exactly `device.compute_unit` comes
// first, then the ISA-level rule above. When no binary of the op (for any key) runs on the device,
// NotFound names both sides: "op Add has binaries for icelake-server, znver4; this
// machine is znver3 (x86-64-v3)", and how to rebuild.
Result<const ManifestBinary*> SelectBinary(const OpManifest& op, const DeviceTarget& device,
                                           std::string_view simplified_key);

// The entry of `binary` for `tiling_key`. NotFound: "Cannot find tilingKey[K] in kernel json of
// <binPath> (<simplifiedKey>); available tiling keys: 0, 1". For a selective build the message
// says the key was not built, lists the built keys and the setting that adds it ("reconfigure with
// -DTESSERA_TILING_KEYS=Add:0,1,5 or leave it empty to build every key"). The pointer lives as
// long as `binary`.
Result<const ManifestKernel*> FindKernelEntry(const ManifestBinary& binary, uint64_t tiling_key);

}  // namespace tessera::runtime
