#include "tessera/runtime/package_match.h"

#include <array>

namespace tessera::runtime {
namespace {

struct SocInfo {
  std::string_view name;
  std::string_view family;
  int level;  // higher runs everything a lower level of the same family runs
};

constexpr std::array<SocInfo, 5> kSocs = {{
    {"x86-64", "x86", 1},
    {"x86-64-v2", "x86", 2},
    {"x86-64-v3", "x86", 3},
    {"x86-64-v4", "x86", 4},
    {"armv8-a", "arm", 1},
}};

constexpr std::array<std::string_view, 5> kSocNames = {"x86-64", "x86-64-v2", "x86-64-v3",
                                                       "x86-64-v4", "armv8-a"};

const SocInfo* FindSoc(std::string_view name) {
  for (const SocInfo& soc : kSocs) {
    if (soc.name == name) return &soc;
  }
  return nullptr;
}

std::string JoinViews(std::span<const std::string_view> items) {
  std::string out;
  for (std::string_view item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string Quote(std::string_view text) {
  std::string quoted;  // built by append: GCC 12 warns falsely (-Wrestrict) on "\"" + string
  quoted.reserve(text.size() + 2);
  quoted.append(1, '"').append(text).append(1, '"');
  return quoted;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

bool IsDecimal(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string CannDataTypeNames() {
  std::string out;
  for (DataType dtype : AllDataTypes()) {
    if (!out.empty()) out += ", ";
    out += DataTypeCannName(dtype);
  }
  return out;
}

void AppendTensor(std::string& key, const SimplifiedKeyTensor& tensor) {
  key += '/';
  key += DataTypeCannName(tensor.dtype);
  key += ',';
  key += FormatName(tensor.format);
}

}  // namespace

std::span<const std::string_view> KnownSocs() {
  return kSocNames;
}

bool IsKnownSoc(std::string_view soc) {
  return FindSoc(soc) != nullptr;
}

bool SocRunsOn(std::string_view binary_soc, std::string_view device_soc) {
  const SocInfo* binary = FindSoc(binary_soc);
  const SocInfo* device = FindSoc(device_soc);
  return binary && device && binary->family == device->family && binary->level <= device->level;
}

std::vector<std::string_view> CompatibleSocs(std::string_view device_soc) {
  std::vector<std::string_view> out;
  for (auto it = kSocs.rbegin(); it != kSocs.rend(); ++it) {
    if (SocRunsOn(it->name, device_soc)) out.push_back(it->name);
  }
  return out;
}

std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs) {
  std::string key(op_type);
  key += deterministic ? "/d=1" : "/d=0";
  key += ",p=" + std::to_string(precision_mode);
  for (const SimplifiedKeyTensor& tensor : inputs)
    AppendTensor(key, tensor);
  for (const SimplifiedKeyTensor& tensor : outputs)
    AppendTensor(key, tensor);
  return key;
}

Status CheckSimplifiedKey(std::string_view key, std::string_view op_type) {
  const std::string prefix = "simplified key " + Quote(key) + " ";
  const std::vector<std::string_view> parts = Split(key, '/');
  if (parts[0] != op_type) {
    return InvalidArgument(prefix + "starts with " + Quote(parts[0]) + "; expected " +
                           Quote(std::string(op_type) + "/"));
  }
  const std::string_view flags = parts.size() > 1 ? parts[1] : std::string_view();
  const bool flags_ok = flags.size() >= 7 && flags.substr(0, 2) == "d=" &&
                        (flags[2] == '0' || flags[2] == '1') && flags.substr(3, 3) == ",p=" &&
                        IsDecimal(flags.substr(6));
  if (!flags_ok) {
    return InvalidArgument(prefix + "has flags " + Quote(flags) +
                           "; expected \"d=<0|1>,p=<precision mode>\" after the op type");
  }
  if (parts.size() < 3) {
    return InvalidArgument(prefix + "lists no tensors; expected \"/<DT_xxx>,<format>\" per input " +
                           "and output");
  }
  for (size_t i = 2; i < parts.size(); ++i) {
    const std::vector<std::string_view> fields = Split(parts[i], ',');
    bool dtype_ok = false;
    for (DataType dtype : AllDataTypes())
      dtype_ok = dtype_ok || (fields[0] == DataTypeCannName(dtype));
    const Result<Format> format = fields.size() == 2 ? ParseFormat(fields[1]) : NotFound("");
    const bool format_ok = format.ok() && FormatName(*format) == fields[1];
    if (!dtype_ok || !format_ok) {
      return InvalidArgument(prefix + "has tensor " + Quote(parts[i]) +
                             "; expected \"<dtype>,<format>\" with dtype one of " +
                             CannDataTypeNames() + " and format ND");
    }
  }
  return OkStatus();
}

Result<const ManifestBinary*> SelectBinary(const OpManifest& op, std::string_view device_soc,
                                           std::string_view simplified_key) {
  const SocInfo* device = FindSoc(device_soc);
  if (!device) {
    return InvalidArgument("device SoC " + Quote(device_soc) + " is unknown; expected one of " +
                           JoinViews(kSocNames));
  }
  const ManifestBinary* best = nullptr;
  int best_level = 0;
  std::vector<std::string_view> key_elsewhere;  // SoCs with the key that cannot run here
  for (const ManifestBinary& binary : op.binaries) {
    if (binary.simplified_key != simplified_key) continue;
    const SocInfo* soc = FindSoc(binary.soc);
    if (!SocRunsOn(binary.soc, device_soc)) {
      key_elsewhere.push_back(binary.soc);
    } else if (soc->level > best_level) {
      best = &binary;
      best_level = soc->level;
    }
  }
  if (best) return best;
  std::string message = "Cannot find kernel file for operator " + op.op +
                        ". The corresponding simplifiedKey " + std::string(simplified_key) +
                        " is missing for SoC " + std::string(device_soc) +
                        " (compatible: " + JoinViews(CompatibleSocs(device_soc)) + ")";
  if (!key_elsewhere.empty()) {
    message += "; that key exists only for SoCs that cannot run on " + std::string(device_soc) +
               ": " + JoinViews(key_elsewhere);
  }
  message += "; binaries exist for:";
  if (op.binaries.empty()) message += " none";
  for (size_t i = 0; i < op.binaries.size(); ++i) {
    message += (i == 0 ? " " : ", ") + op.binaries[i].soc + " " + op.binaries[i].simplified_key;
  }
  return NotFound(std::move(message));
}

Result<const ManifestKernel*> FindKernelEntry(const ManifestBinary& binary, uint64_t tiling_key) {
  std::string keys;
  for (const ManifestKernel& kernel : binary.kernels) {
    if (kernel.tiling_key == tiling_key) return &kernel;
    if (!keys.empty()) keys += ", ";
    keys += std::to_string(kernel.tiling_key);
  }
  return NotFound("Cannot find tilingKey[" + std::to_string(tiling_key) + "] in kernel json of " +
                  binary.bin_path + " (" + binary.simplified_key + ", SoC " + binary.soc +
                  "); available tiling keys: " + (keys.empty() ? "none" : keys));
}

}  // namespace tessera::runtime
