// Fuzz targets over the runtime's and the tiling layer's text parsers.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "runtime/package/package.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::fuzz {
namespace {

// A struct with every field kind tiling data allows: int64, float, bool scalars and arrays.
BEGIN_TILING_DATA_DEF(FuzzedTiling)
TILING_DATA_FIELD_DEF(int64_t, total)
TILING_DATA_FIELD_DEF(float, scale, 1.0f)
TILING_DATA_FIELD_DEF(bool, flag)
TILING_DATA_FIELD_DEF_ARR(int64_t, 4, dims, 1, 2)
TILING_DATA_FIELD_DEF_ARR(float, 3, weights)
TILING_DATA_FIELD_DEF_ARR(bool, 2, masks)
END_TILING_DATA_DEF;

std::string_view Text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

}  // namespace

void InvariantFailed(std::string_view target, std::string_view what) {
  std::fprintf(stderr, "fuzz target %.*s: invariant broken: %.*s\n",
               static_cast<int>(target.size()), target.data(), static_cast<int>(what.size()),
               what.data());
  std::abort();
}

Outcome FuzzManifest(const uint8_t* data, size_t size) {
  Result<runtime::PackageManifest> m = runtime::ParseManifestText(Text(data, size), "fuzz");
  if (!m.ok()) {
    if (m.status().message().empty()) InvariantFailed("manifest", "an error without a message");
    return Outcome::kRejected;
  }
  // A manifest that parsed is valid, and writing it gives text that parses back to it.
  if (Status st = runtime::ValidateManifest(*m, "fuzz"); !st.ok()) {
    InvariantFailed("manifest", "parsed but invalid: " + std::string(st.message()));
  }
  Result<runtime::PackageManifest> again =
      runtime::ParseManifestText(runtime::ManifestToJson(*m), "fuzz round trip");
  if (!again.ok()) {
    InvariantFailed("manifest", "written text does not parse: " + again.status().ToString());
  }
  if (!(*again == *m)) InvariantFailed("manifest", "round trip changed the manifest");
  return Outcome::kAccepted;
}

Outcome FuzzVendorConfig(const uint8_t* data, size_t size) {
  Result<runtime::VendorConfig> c = runtime::ParseVendorConfigText(Text(data, size), "fuzz.ini");
  if (!c.ok()) return Outcome::kRejected;
  for (const std::string& name : c->load_priority) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
      InvariantFailed("config", "accepted vendor name \"" + name + "\"");
    }
  }
  return Outcome::kAccepted;
}

// Input: up to sizeof(struct) bytes of tiling data, then "\n" and "name=value" lines.
Outcome FuzzTilingData(const uint8_t* data, size_t size) {
  const std::string_view text = Text(data, size);
  const size_t split = std::min(text.find('\n'), text.size());
  std::vector<uint8_t> bytes(data, data + split);
  std::map<std::string, std::string, std::less<>> values;
  size_t start = split + 1;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    const size_t eq = line.find('=');
    if (eq != std::string_view::npos) {
      values[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    }
    start = end + 1;
  }
  constexpr tiling::TilingSchema schema = tiling::TilingSchemaOf<FuzzedTiling>();
  const std::vector<uint8_t> before = bytes;
  const Status set = tiling::SetTilingFields(schema, std::span<uint8_t>(bytes), values);
  if (!set.ok() && bytes != before) InvariantFailed("tiling", "a failed set changed the bytes");
  const Result<std::string> json = tiling::TilingToJson(schema, bytes);
  const Result<FuzzedTiling> parsed = tiling::ParseTiling<FuzzedTiling>(bytes);
  if (json.ok() != parsed.ok() || parsed.ok() != (bytes.size() >= sizeof(FuzzedTiling))) {
    InvariantFailed("tiling", "ParseTiling and TilingToJson disagree on the buffer size");
  }
  (void)tiling::ParseTiling<FuzzedTiling>(bytes, schema.hash ^ (bytes.empty() ? 0 : bytes[0]));
  return set.ok() && parsed.ok() ? Outcome::kAccepted : Outcome::kRejected;
}

}  // namespace tessera::fuzz
