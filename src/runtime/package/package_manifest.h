// Operator package manifest: `manifest.json` at the root of a package directory, tessera's analogue
// of CANN's binary_info_config.json plus the kernel json files.
//
// A manifest names the package, its tiling library, and per op: the kernel name, the tiling struct
// schema hash, the parameters (inputs/outputs with their supported dtype/format columns, attrs) and
// the kernel binaries, one per (SoC, simplified key), each listing its entries by tiling key.
// docs/runtime_packages.md shows a complete file.
//
// Contract: the parser and the writer both run ValidateManifest, so a PackageManifest obtained from
// ParseManifestFile is always valid and a written file always parses back to an equal value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/format.h"
#include "tessera/core/status.h"

namespace tessera::runtime {

// The file name of a manifest inside a package directory.
inline constexpr std::string_view kManifestFileName = "manifest.json";

// Core type a kernel entry runs on. JSON spelling: "AIV", "AIC", "MIX".
enum class ManifestKernelType : uint8_t { kAiv, kAic, kMix };

// One entry of a kernel binary; the library exports it as `<kernel>_<tilingKey>`.
struct ManifestKernel {
  uint64_t tiling_key = 0;
  ManifestKernelType kernel_type = ManifestKernelType::kAiv;
  std::string task_ration = "1:2";  // "<AIC>:<AIV>" cores per group, digits on both sides

  bool operator==(const ManifestKernel&) const = default;
};

// A binary built for a subset of its tiling keys (docs/runtime_packages.md, "Selective builds").
// JSON "selectiveBuild": {"option": ..., "value": ...}.
struct ManifestSelectiveBuild {
  // "TESSERA_TILING_KEYS" (configure-time cache variable) or "TILING_KEYS" (argument of
  // tessera_add_op_package).
  std::string option;
  // The selection as given: items separated by ';', each "<Op>:<key>,<key>..." or a bare key list
  // applying to every op not named: "Add:0,1;Cast:3", "0,1".
  std::string value;

  bool operator==(const ManifestSelectiveBuild&) const = default;
};

// One kernel library, built for one SoC, as selected by one simplified key. Several binaries may
// share a library file; each lists exactly the entries its key selects.
struct ManifestBinary {
  std::string soc;             // ISA level or compute unit: IsKnownTarget() (package_match.h)
  std::string simplified_key;  // "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND"
  std::string bin_path;        // relative to the package directory, staying inside it
  std::string sha256;          // 64 hex digits of the file's SHA-256
  // The entries in the library; empty only in a selective build that selected none of them.
  std::vector<ManifestKernel> kernels;
  std::optional<ManifestSelectiveBuild> selective_build;

  bool operator==(const ManifestBinary&) const = default;
};

// How an input or output is passed. JSON spelling: "required", "optional", "dynamic".
enum class ManifestParamMode : uint8_t { kRequired, kOptional, kDynamic };

// An input or output. dtypes[i] and formats[i], taken across every input and output of the op, form
// supported combination i (columns), so all lists of one op have the same length.
struct ManifestParam {
  std::string name;
  ManifestParamMode mode = ManifestParamMode::kRequired;
  std::vector<DataType> dtypes;  // JSON: CANN names, "DT_FLOAT"
  std::vector<Format> formats;   // JSON: "ND"

  bool operator==(const ManifestParam&) const = default;
};

// Attribute type. JSON spelling: "int", "float", "bool", "string", "list_int", "list_float".
enum class ManifestAttrType : uint8_t { kInt, kFloat, kBool, kString, kListInt, kListFloat };

// An attribute value; the alternative's index equals the ManifestAttrType's value.
using ManifestAttrValue =
    std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>>;

struct ManifestAttr {
  std::string name;
  ManifestAttrType type = ManifestAttrType::kInt;
  bool required = true;  // JSON "paramType": "required" | "optional"
  // Set exactly for optional attrs: the value used when the caller passes none, holding the
  // alternative of `type`. JSON "default".
  std::optional<ManifestAttrValue> default_value;

  bool operator==(const ManifestAttr&) const = default;
};

struct OpManifest {
  std::string op;                   // op type, CamelCase identifier: "Add"
  std::string kernel;               // kernel name, snake_case identifier: "add"
  uint64_t tiling_schema_hash = 0;  // TilingSchema::hash of the op's tiling struct; JSON "0x..."
  // How binaries' simplified keys are built: 0, 1 or 2 (package_match.h). JSON
  // "simplifiedKeyMode", optional, default 0 (written only when not 0).
  uint32_t simplified_key_mode = 0;
  std::vector<ManifestParam> inputs;
  std::vector<ManifestParam> outputs;
  std::vector<ManifestAttr> attrs;
  std::vector<ManifestBinary> binaries;

  bool operator==(const OpManifest&) const = default;
};

struct PackageManifest {
  std::string package;         // [A-Za-z0-9_.-]+
  std::string version;         // free text, not empty
  std::string tiling_library;  // relative path of the tiling/op-definition library
  // 64 hex digits of the tiling library's SHA-256, checked before it is loaded.
  std::string tiling_library_sha256;
  std::vector<OpManifest> ops;  // unique op types

  bool operator==(const PackageManifest&) const = default;
};

std::string_view ManifestKernelTypeName(ManifestKernelType type);  // "AIV", "AIC", "MIX"
std::string_view ManifestParamModeName(ManifestParamMode mode);    // "required", ...
std::string_view ManifestAttrTypeName(ManifestAttrType type);      // "int", ..., "list_float"

// The op called `op` in `manifest`, or nullptr. The pointer lives as long as `manifest`.
const OpManifest* FindOpInManifest(const PackageManifest& manifest, std::string_view op);

// Checks everything a parsed manifest promises: identifiers, unique ops, known SoCs, simplified
// keys well formed for the op's simplifiedKeyMode (0..2), unique (soc, simplifiedKey) per op,
// unique tiling keys per binary, 64-hex-digit sha256, relative binPath/tiling_library that stay
// inside the package, equal dtype/format column counts, attr defaults present exactly for optional
// attrs and of the attr's type, a selectiveBuild with a known option and a well-formed value, at
// least one kernel per binary unless it is a selective build. Errors start "manifest <source>: "
// and name the JSON path of the bad value, e.g. "ops[0].binaries[1].kernels[0].tilingKey 3 repeats
// kernels[0]; expected unique tiling keys".
Status ValidateManifest(const PackageManifest& manifest, std::string_view source);

// Largest manifest.json read, and deepest JSON nesting accepted (a manifest needs 6 levels).
inline constexpr uint64_t kMaxManifestBytes = 64ull << 20;
inline constexpr size_t kMaxManifestDepth = 16;

// Parses and validates manifest text; `source` names it in errors (usually the file path).
// Malformed JSON is reported with line and column; a missing key, a value of the wrong JSON type or
// an unknown key is reported with its JSON path and what was expected. Refused before any value is
// used: a key repeated in one object (which of two binPaths would win is not obvious), nesting
// deeper than kMaxManifestDepth, numbers that do not fit their field (a float beyond double's
// range, a tilingKey beyond 64 bits), text larger than kMaxManifestBytes.
Result<PackageManifest> ParseManifestText(std::string_view text, std::string_view source);

// Reads and parses `file` (see ParseManifestText); errors name the file. The file is opened
// without blocking and must be a regular file (a FIFO, a device such as /dev/zero, a directory
// are refused at once) of at most kMaxManifestBytes.
Result<PackageManifest> ParseManifestFile(const std::filesystem::path& file);

// Reads a small configuration file the same careful way (regular file, opened without blocking,
// at most `max_bytes`): for manifests and config.ini. `what` names the file's role in errors.
Result<std::string> ReadRegularFile(const std::filesystem::path& file, uint64_t max_bytes,
                                    std::string_view what);

// The manifest as pretty-printed JSON (2-space indent, keys in schema order, trailing newline).
// Precondition: none; the text of an invalid manifest simply fails to parse back.
std::string ManifestToJson(const PackageManifest& manifest);

// Validates `manifest` and writes it to `file` atomically (temporary file + rename), creating no
// directories. Errors name the file.
Status WriteManifestFile(const std::filesystem::path& file, const PackageManifest& manifest);

// True when `path` is a plain relative path inside the directory it is relative to: non-empty, at
// most 4096 bytes, no NUL or backslash, not absolute, and no empty, "." or ".." component (so no
// normalisation is needed to see where it points; symlinks are checked when the file is opened).
bool IsContainedRelativePath(std::string_view path);

}  // namespace tessera::runtime
