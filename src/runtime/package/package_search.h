// Operator package discovery: where packages are searched, in which order, and which op wins.
//
// Order (first package that has an op wins):
//   0. packages linked into the application, in registration order (linked_package.h; only with
//      ResolvePackageSearchWithLinked);
//   1. each entry of TESSERA_CUSTOM_OPP_PATH (colon separated, left first);
//   2. $TESSERA_OPP_PATH/vendors/<name> for each name of `load_priority=` in
//      $TESSERA_OPP_PATH/vendors/config.ini (high -> low);
//   3. the built-in package directory.
// Every candidate is kept in the result with the reason it was or was not used, so tools and error
// messages can say what was searched. The environment is read at call time, never cached.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/package/package_manifest.h"
#include "tessera/core/status.h"

namespace tessera::runtime {

inline constexpr std::string_view kCustomOppPathEnv = "TESSERA_CUSTOM_OPP_PATH";
inline constexpr std::string_view kOppPathEnv = "TESSERA_OPP_PATH";

// $TESSERA_OPP_PATH/vendors/config.ini: `load_priority=vendorA,vendorB` (high -> low).
struct VendorConfig {
  std::vector<std::string> load_priority;
  bool operator==(const VendorConfig&) const = default;
};

// Parses config.ini text. Blank lines and lines whose first non-blank character is '#' are ignored;
// whitespace around keys, '=', values and commas is ignored. Exactly one `load_priority` line is
// required; its value may be empty. Vendor names are [A-Za-z0-9_.-]+ (not "." or ".."), unique.
// Errors: "<source>:<line>: <what is wrong>; expected <what>".
Result<VendorConfig> ParseVendorConfigText(std::string_view text, std::string_view source);
// Reads and parses `file`; errors name the file (and line).
Result<VendorConfig> ParseVendorConfigFile(const std::filesystem::path& file);

// Reads an environment variable; nullopt when unset. Tests pass a map-backed getter.
using EnvGetter = std::function<std::optional<std::string>(std::string_view name)>;
// The process environment (getenv at each call).
EnvGetter ProcessEnv();

// kPinned: the one package a generated op API names (its own package directory).
enum class PackageOrigin : uint8_t { kCustomPath, kVendor, kBuiltIn, kLinked, kPinned };

struct PackageCandidate {
  std::filesystem::path dir;
  PackageOrigin origin = PackageOrigin::kBuiltIn;
  size_t custom_index = 0;  // kCustomPath: index of the entry in TESSERA_CUSTOM_OPP_PATH
  std::string vendor;       // kVendor: the name from load_priority
  std::string linked;       // kLinked: the package name (`dir` is the file holding it)
  bool used = false;        // a directory with a manifest.json (and, after loading, a valid one)
  std::string reason;       // why it is not used; empty when used

  // "TESSERA_CUSTOM_OPP_PATH[0] /a", "vendor 'acme' /opp/vendors/acme", "built-in /usr/.../ops",
  // "linked into the application: my_pkg (/app/bin/app)"; an empty directory shows as "<empty>".
  std::string Describe() const;
};

struct PackageSearch {
  std::vector<PackageCandidate> candidates;  // priority order, used or not
  std::vector<std::string> warnings;         // skipped custom entries, vendor dirs not listed, ...
};

// Resolves the candidates from `env` (TESSERA_CUSTOM_OPP_PATH, TESSERA_OPP_PATH) and
// `builtin_dir`. Skip reasons: "empty entry", "does not exist", "not a directory",
// "no manifest.json", "vendor listed in load_priority but missing", "same directory as <earlier>".
// Skipped custom path entries and vendor directories absent from load_priority produce warnings.
// Fails only when config.ini exists but is malformed (its file and line in the message): a typo
// there would silently change which package wins.
Result<PackageSearch> ResolvePackageSearch(const EnvGetter& env,
                                           const std::filesystem::path& builtin_dir);

// ResolvePackageSearch preceded by one candidate per package linked into the application
// (ListLinkedPackages(), registration order). A linked package that is incomplete is kept unused
// with the reason; repeated registrations add warnings. This is the search the runtime uses.
Result<PackageSearch> ResolvePackageSearchWithLinked(const EnvGetter& env,
                                                     const std::filesystem::path& builtin_dir);

// Only the package in `dir`, as a generated op API pins it: no environment variable, no other
// package can shadow it.
PackageSearch PinnedPackageSearch(const std::filesystem::path& dir);

// A package whose manifest parsed and validated.
struct LoadedPackage {
  PackageCandidate candidate;
  PackageManifest manifest;
};

struct PackageSet {
  std::vector<PackageCandidate> searched;  // every candidate, reasons updated by loading
  std::vector<LoadedPackage> packages;     // used candidates, priority order
  std::vector<std::string> warnings;       // the search's warnings plus rejected manifests
};

// Parses the manifest of every used candidate; a linked package's manifest is the text embedded in
// it, keeping only the binaries of the SoC its kernels were compiled for. A manifest that fails is
// not fatal: its candidate becomes unused with reason "manifest rejected: <error>", a warning is
// added, and the search goes on (as CANN goes on when a binary_info_config.json fails to load).
PackageSet LoadPackages(const PackageSearch& search);

struct OpMatch {
  const LoadedPackage* package = nullptr;  // lives as long as the PackageSet
  const OpManifest* op = nullptr;
};

// The op from the first package (priority order) that defines it. NotFound otherwise, listing
// every candidate searched with what was found there and the possible causes.
Result<OpMatch> FindOp(const PackageSet& set, std::string_view op_type);

}  // namespace tessera::runtime
