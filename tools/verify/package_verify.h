// Checking an operator package directory before deployment (`tessera verify`).
//
// VerifyPackage runs every check below and reports each problem as a finding; a check with no
// problem gets one PASS finding that says what was checked. Checks, in order:
//   manifest          manifest.json parses and validates (schema, known SoCs, unique
//                     (SoC, simplified key) per op, ...); when it fails nothing else is checked
//   soc.names         (a PASS line: the validated manifest names known SoCs, no duplicates)
//   binary.present    every kernel library the manifest lists exists inside the package
//   binary.sha256     every file hashes to the sha256 its binaries record
//   binary.load       every kernel library whose SoC runs on this machine dlopens and exports
//                     tessera_kernel_entries; libraries for other SoCs are skipped (SKIP): running
//                     their initialisers could fault on an older CPU
//   binary.entries    per binary, every tiling key the manifest lists is an entry
//                     `<kernel>_<tilingKey>` of its library and every entry of the op's kernel in
//                     the library is listed; entries of kernels no op uses are warned about
//   kernel.type       the manifest's kernelType equals the entry's
//   kernel.args       the entry takes inputs + outputs + workspace + tiling parameters
//   op_library        the tiling library dlopens and exports tessera_op_definitions, whose OpDefs
//                     validate
//   op_library.ops    every manifest op is defined there and every definition is in the manifest
//   tiling_hash       the manifest's tiling struct hash equals OpDef::tiling_schema_hash()
//   soc.coverage      every SoC an op configures with AddConfig has a binary that runs there (WARN)
//   soc.runnable      some binary of each op runs on this machine (WARN)
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::runtime {

// kFail makes a package unfit to deploy; kWarn and kSkip do not.
enum class FindingSeverity : uint8_t { kPass, kSkip, kWarn, kFail };
std::string_view FindingSeverityName(FindingSeverity severity);  // "PASS", "SKIP", "WARN", "FAIL"

struct PackageFinding {
  FindingSeverity severity = FindingSeverity::kPass;
  std::string check;  // "binary.sha256", ... (see above)
  // What it is about: "package", "manifest.json", "op Add", "op Add binary <soc> <simplified
  // key> (<binPath>)", "op Add kernel library <binPath>", "kernel library <binPath>", "op library
  // <path>", "SoC armv8-a".
  std::string subject;
  std::string message;
};

struct PackageReport {
  std::filesystem::path dir;
  std::string package;                   // empty when the manifest did not parse
  std::string version;                   // likewise
  std::string device_soc;                // the ISA level this machine reports
  std::string device_compute_unit;       // its CPU model; empty when unknown
  std::vector<PackageFinding> findings;  // in check order

  size_t Count(FindingSeverity severity) const;
  bool ok() const { return Count(FindingSeverity::kFail) == 0; }
};

// Runs every check on the package in `dir`. Problems are findings, not errors: the Result fails
// only when `dir` is not a directory (NotFound / InvalidArgument naming it). Loads the package's
// libraries into this process (and unloads them) to inspect their exports.
Result<PackageReport> VerifyPackage(const std::filesystem::path& dir);

}  // namespace tessera::runtime
