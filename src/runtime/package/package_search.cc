#include "runtime/package/package_search.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

#include "tessera/runtime/linked_package.h"
#include "runtime/package/package_checksum.h"

namespace tessera::runtime {
namespace fs = std::filesystem;
namespace {

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && space(s.back()))
    s.remove_suffix(1);
  return s;
}

bool IsVendorName(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Marks `c` used or records why not: the directory must exist, be a directory, hold a
// manifest.json and not repeat an earlier candidate's directory.
void Classify(PackageCandidate& c, const std::vector<PackageCandidate>& earlier) {
  std::error_code ec;
  const fs::file_status status = fs::status(c.dir, ec);
  if (c.origin == PackageOrigin::kVendor && !fs::exists(status)) {
    c.reason = "vendor listed in load_priority but missing";
    return;
  }
  if (!fs::exists(status)) {
    c.reason = "does not exist";
    return;
  }
  if (!fs::is_directory(status)) {
    c.reason = "not a directory";
    return;
  }
  const fs::file_status manifest = fs::status(c.dir / kManifestFileName, ec);
  if (!fs::exists(manifest)) {
    c.reason = "no " + std::string(kManifestFileName);
    return;
  }
  if (!fs::is_regular_file(manifest)) {
    // Never opened: a FIFO would block the search, a device would be read without end.
    const fs::file_type type = manifest.type();
    const char* kind = type == fs::file_type::fifo        ? "a FIFO"
                       : type == fs::file_type::character ? "a character device"
                       : type == fs::file_type::block     ? "a block device"
                       : type == fs::file_type::directory ? "a directory"
                       : type == fs::file_type::socket    ? "a socket"
                                                          : "not a regular file";
    c.reason = std::string(kManifestFileName) + " is " + kind + "; expected a regular file";
    return;
  }
  const fs::path canonical = fs::weakly_canonical(c.dir, ec);
  for (const PackageCandidate& e : earlier) {
    if (!e.used) continue;
    std::error_code ec2;
    if (fs::weakly_canonical(e.dir, ec2) == canonical) {
      c.reason = "same directory as " + e.Describe();
      return;
    }
  }
  c.used = true;
}

// Adds `c` to `search`, classified, with a warning when it is skipped.
void Add(PackageSearch& search, PackageCandidate c) {
  if (c.reason.empty()) Classify(c, search.candidates);
  if (!c.used) search.warnings.push_back(c.Describe() + " skipped: " + c.reason);
  search.candidates.push_back(std::move(c));
}

Status AddVendors(PackageSearch& search, const fs::path& opp_path) {
  const fs::path vendors = opp_path / "vendors";
  const fs::path config_file = vendors / "config.ini";
  std::error_code ec;
  if (!fs::is_regular_file(config_file, ec)) {
    search.warnings.push_back(std::string(kOppPathEnv) + "=" + opp_path.string() + " has no " +
                              config_file.string() + "; no vendor packages searched");
    return OkStatus();
  }
  TESSERA_ASSIGN_OR_RETURN(const VendorConfig config, ParseVendorConfigFile(config_file));
  for (const std::string& name : config.load_priority) {
    PackageCandidate c;
    c.dir = vendors / name;
    c.origin = PackageOrigin::kVendor;
    c.vendor = name;
    Add(search, std::move(c));
  }
  std::vector<std::string> unlisted;
  for (fs::directory_iterator it(vendors, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code dir_ec;
    if (!it->is_directory(dir_ec)) continue;
    if (std::find(config.load_priority.begin(), config.load_priority.end(), name) ==
        config.load_priority.end()) {
      unlisted.push_back(name);
    }
  }
  std::sort(unlisted.begin(), unlisted.end());
  for (const std::string& name : unlisted) {
    search.warnings.push_back("vendor directory " + (vendors / name).string() +
                              " is not listed in load_priority of " + config_file.string() +
                              "; not searched");
  }
  return OkStatus();
}

}  // namespace

Result<VendorConfig> ParseVendorConfigText(std::string_view text, std::string_view source) {
  VendorConfig config;
  size_t priority_line = 0;
  size_t line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = Trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = std::string(source) + ":" + std::to_string(line_number) + ": ";
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return InvalidArgument(where + "line \"" + std::string(line) +
                             "\" has no '='; expected load_priority=<vendor>[,<vendor>...]");
    }
    const std::string_view key = Trim(line.substr(0, eq));
    if (key != "load_priority") {
      return InvalidArgument(where + "unknown key \"" + std::string(key) +
                             "\"; expected load_priority");
    }
    if (priority_line != 0) {
      return InvalidArgument(where + "load_priority repeats line " + std::to_string(priority_line) +
                             "; expected it once");
    }
    priority_line = line_number;
    const std::string_view value = Trim(line.substr(eq + 1));
    if (value.empty()) continue;
    size_t item_start = 0;
    while (item_start <= value.size()) {
      const size_t comma = std::min(value.find(',', item_start), value.size());
      const std::string_view name = Trim(value.substr(item_start, comma - item_start));
      item_start = comma + 1;
      if (!IsVendorName(name)) {
        return InvalidArgument(where + "vendor name \"" + std::string(name) +
                               "\" is invalid; expected letters, digits, '_', '.' or '-' " +
                               "separated by commas");
      }
      if (std::find(config.load_priority.begin(), config.load_priority.end(), name) !=
          config.load_priority.end()) {
        return InvalidArgument(where + "vendor \"" + std::string(name) +
                               "\" is listed twice; expected each vendor once");
      }
      config.load_priority.emplace_back(name);
    }
  }
  if (priority_line == 0) {
    return InvalidArgument(std::string(source) +
                           ": has no load_priority line; expected load_priority=<vendor>,...");
  }
  return config;
}

Result<VendorConfig> ParseVendorConfigFile(const fs::path& file) {
  // A regular file of at most 1 MiB, opened without blocking (a FIFO must not hang the search).
  TESSERA_ASSIGN_OR_RETURN(const std::string text,
                           ReadRegularFile(file, uint64_t{1} << 20, "vendor config"));
  return ParseVendorConfigText(text, file.string());
}

EnvGetter ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

std::string PackageCandidate::Describe() const {
  const std::string where = dir.empty() ? "<empty>" : dir.string();
  switch (origin) {
    case PackageOrigin::kCustomPath:
      return std::string(kCustomOppPathEnv) + "[" + std::to_string(custom_index) + "] " + where;
    case PackageOrigin::kVendor:
      return "vendor '" + vendor + "' " + where;
    case PackageOrigin::kBuiltIn:
      return "built-in " + where;
    case PackageOrigin::kLinked:
      return "linked into the application: " + linked + " (" + where + ")";
    case PackageOrigin::kPinned:
      return "pinned by its op API " + where;
    default:
      return "unknown origin " + where;
  }
}

Result<PackageSearch> ResolvePackageSearch(const EnvGetter& env, const fs::path& builtin_dir) {
  PackageSearch search;
  if (const std::optional<std::string> custom = env(kCustomOppPathEnv);
      custom && !custom->empty()) {
    size_t index = 0;
    size_t start = 0;
    while (start <= custom->size()) {
      const size_t colon = std::min(custom->find(':', start), custom->size());
      PackageCandidate c;
      c.dir = custom->substr(start, colon - start);
      c.origin = PackageOrigin::kCustomPath;
      c.custom_index = index++;
      if (c.dir.empty()) c.reason = "empty entry";
      Add(search, std::move(c));
      start = colon + 1;
    }
  }
  if (const std::optional<std::string> opp = env(kOppPathEnv); opp && !opp->empty()) {
    TESSERA_RETURN_IF_ERROR(AddVendors(search, *opp));
  }
  PackageCandidate builtin;
  builtin.dir = builtin_dir;
  builtin.origin = PackageOrigin::kBuiltIn;
  if (builtin_dir.empty()) builtin.reason = "no built-in package directory given";
  Add(search, std::move(builtin));
  return search;
}

PackageSearch PinnedPackageSearch(const fs::path& dir) {
  PackageSearch search;
  PackageCandidate c;
  c.dir = dir;
  c.origin = PackageOrigin::kPinned;
  if (dir.empty()) c.reason = "empty directory";
  Add(search, std::move(c));
  return search;
}

Result<PackageSearch> ResolvePackageSearchWithLinked(const EnvGetter& env,
                                                     const fs::path& builtin_dir) {
  TESSERA_ASSIGN_OR_RETURN(PackageSearch rest, ResolvePackageSearch(env, builtin_dir));
  const LinkedPackages linked = ListLinkedPackages();
  PackageSearch search;
  search.warnings = linked.warnings;
  for (const LinkedPackage& p : linked.packages) {
    PackageCandidate c;
    c.dir = p.library;
    c.origin = PackageOrigin::kLinked;
    c.linked = p.name;
    c.reason = p.Problem();
    c.used = c.reason.empty();
    if (!c.used) search.warnings.push_back(c.Describe() + " skipped: " + c.reason);
    search.candidates.push_back(std::move(c));
  }
  for (PackageCandidate& c : rest.candidates)
    search.candidates.push_back(std::move(c));
  for (std::string& w : rest.warnings)
    search.warnings.push_back(std::move(w));
  return search;
}

namespace {

// The manifest embedded in linked package `name`, restricted to the binaries of its linked SoC.
Result<PackageManifest> LinkedManifest(const std::string& name) {
  const std::optional<LinkedPackage> linked = FindLinkedPackage(name);
  if (!linked) return NotFound("linked package " + name + " is not registered");
  TESSERA_ASSIGN_OR_RETURN(PackageManifest manifest,
                           ParseManifestText(linked->manifest_json, "of linked package " + name));
  if (manifest.package != name) {
    return FailedPrecondition("linked package " + name + " embeds the manifest of package " +
                              manifest.package + "; rebuild it");
  }
  for (OpManifest& op : manifest.ops) {
    std::erase_if(op.binaries, [&](const ManifestBinary& b) { return b.soc != linked->soc; });
  }
  return manifest;
}

// A package directory's manifest; with trusted keys configured, only when its signature verifies
// (the built-in package ships with the runtime and is trusted as the runtime is).
Result<PackageManifest> LoadManifest(const PackageCandidate& c) {
  const fs::path file = c.dir / kManifestFileName;
  const char* keys = std::getenv(std::string(kTrustedKeysEnv).c_str());
  if (keys == nullptr || keys[0] == '\0' || c.origin == PackageOrigin::kBuiltIn) {
    return ParseManifestFile(file);
  }
  TESSERA_ASSIGN_OR_RETURN(const std::string text,
                           ReadRegularFile(file, kMaxManifestBytes, "manifest"));
  TESSERA_RETURN_IF_ERROR(VerifyManifestSignature(text, c.dir / kSignatureFileName, keys));
  return ParseManifestText(text, file.string());
}

}  // namespace

PackageSet LoadPackages(const PackageSearch& search) {
  PackageSet set;
  set.warnings = search.warnings;
  for (PackageCandidate c : search.candidates) {
    if (c.used) {
      Result<PackageManifest> manifest =
          c.origin == PackageOrigin::kLinked ? LinkedManifest(c.linked) : LoadManifest(c);
      if (manifest.ok()) {
        set.packages.push_back({c, std::move(manifest).value()});
      } else {
        c.used = false;
        c.reason = "manifest rejected: " + std::string(manifest.status().message());
        set.warnings.push_back(c.Describe() + " skipped: " + c.reason);
      }
    }
    set.searched.push_back(std::move(c));
  }
  return set;
}

Result<OpMatch> FindOp(const PackageSet& set, std::string_view op_type) {
  for (const LoadedPackage& package : set.packages) {
    if (const OpManifest* op = FindOpInManifest(package.manifest, op_type)) {
      return OpMatch{&package, op};
    }
  }
  const std::string op(op_type);
  std::string message =
      "Operator " + op + " was not found in any operator package. Searched, in priority order:";
  std::string near_miss;
  size_t loaded = 0;
  for (size_t i = 0; i < set.searched.size(); ++i) {
    const PackageCandidate& c = set.searched[i];
    message += "\n  " + std::to_string(i + 1) + ". " + c.Describe() + ": ";
    if (!c.used) {
      message += "skipped, " + c.reason;
      continue;
    }
    const PackageManifest& manifest = set.packages[loaded++].manifest;
    message += "package '" + manifest.package + "' " + manifest.version + " defines ";
    for (size_t k = 0; k < manifest.ops.size(); ++k) {
      if (k < 8) message += (k == 0 ? "" : ", ") + manifest.ops[k].op;
      if (k == 8) message += ", ... (" + std::to_string(manifest.ops.size()) + " ops)";
      if (near_miss.empty() && Lower(manifest.ops[k].op) == Lower(op)) {
        near_miss = manifest.ops[k].op;
      }
    }
    message += ", not " + op;
  }
  message += "\nPossible causes: the package that defines " + op +
             " is not installed, or its directory is not on " + std::string(kCustomOppPathEnv) +
             " nor listed in load_priority of $" + std::string(kOppPathEnv) +
             "/vendors/config.ini; its manifest.json failed to load (see the skipped entries); " +
             "the op type is misspelled (op types are CamelCase, e.g. \"Add\").";
  if (!near_miss.empty()) message += " Did you mean \"" + near_miss + "\"?";
  return NotFound(std::move(message));
}

}  // namespace tessera::runtime
