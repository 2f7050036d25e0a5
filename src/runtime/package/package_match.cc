#include "runtime/package/package_match.h"

#include <algorithm>
#include <array>

#include "tessera/device/arch_spec.h"

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

void AppendTensor(std::string& key, const SimplifiedKeyTensor& tensor, bool with_count) {
  key += '/';
  key += DataTypeCannName(tensor.dtype);
  key += ',';
  key += FormatName(tensor.format);
  if (with_count && tensor.dynamic_count >= 0) {
    key += ",n=";
    key += std::to_string(tensor.dynamic_count);
  }
}

void AppendFlags(std::string& key, bool deterministic, uint32_t precision_mode) {
  key += deterministic ? "/d=1" : "/d=0";
  key += ",p=";
  key += std::to_string(precision_mode);
}

bool IsIdentifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Checks one "/dtype,format[,n=count]" segment.
Status CheckTensorSegment(std::string_view segment, const std::string& prefix, bool allow_count) {
  const std::vector<std::string_view> fields = Split(segment, ',');
  bool dtype_ok = false;
  for (DataType dtype : AllDataTypes())
    dtype_ok = dtype_ok || (fields[0] == DataTypeCannName(dtype));
  const Result<Format> format = fields.size() >= 2 ? ParseFormat(fields[1]) : NotFound("");
  const bool format_ok = format.ok() && FormatName(*format) == fields[1];
  const bool count_ok =
      fields.size() == 2 || (allow_count && fields.size() == 3 && fields[2].substr(0, 2) == "n=" &&
                             IsDecimal(fields[2].substr(2)));
  if (!dtype_ok || !format_ok || !count_ok) {
    std::string message = prefix + "has tensor " + Quote(segment);
    message += "; expected \"<dtype>,<format>\"";
    if (allow_count) message += " (a dynamic input may add \",n=<count>\")";
    message += " with dtype one of " + CannDataTypeNames() + " and format ND";
    return InvalidArgument(message);
  }
  return OkStatus();
}

// Parses "<k>,<k>,..." into keys; nullopt when an item is not a decimal uint64.
std::optional<std::vector<uint64_t>> ParseKeyList(std::string_view text) {
  std::vector<uint64_t> keys;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) return std::nullopt;
    uint64_t v = 0;
    for (char c : item) {
      if (c < '0' || c > '9') return std::nullopt;
      const auto digit = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - digit) / 10) return std::nullopt;  // overflows uint64
      v = v * 10 + digit;
    }
    keys.push_back(v);
  }
  return keys;
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

bool IsKnownComputeUnit(std::string_view name) {
  return device::FindCpuModel(name) != nullptr;
}

bool IsKnownTarget(std::string_view name) {
  return IsKnownSoc(name) || IsKnownComputeUnit(name);
}

std::string_view SocLevelOf(std::string_view target) {
  if (const SocInfo* soc = FindSoc(target)) return soc->name;
  if (const device::CpuModel* model = device::FindCpuModel(target)) return model->soc;
  return {};
}

bool BinaryRunsOn(std::string_view binary_target, const DeviceTarget& device) {
  if (IsKnownComputeUnit(binary_target)) return binary_target == device.compute_unit;
  return SocRunsOn(binary_target, device.soc);
}

std::string DescribeDevice(const DeviceTarget& device) {
  if (device.compute_unit.empty()) {
    return std::string(device.soc) + " (CPU model not identified)";
  }
  std::string out(device.compute_unit);
  out.append(" (").append(device.soc).append(")");
  return out;
}

std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs) {
  std::string key(op_type);
  AppendFlags(key, deterministic, precision_mode);
  for (const SimplifiedKeyTensor& tensor : inputs)
    AppendTensor(key, tensor, false);
  for (const SimplifiedKeyTensor& tensor : outputs)
    AppendTensor(key, tensor, false);
  return key;
}

std::string BuildSimplifiedKey(std::string_view op_type, bool deterministic,
                               uint32_t precision_mode, std::span<const SimplifiedKeyTensor> inputs,
                               std::span<const SimplifiedKeyTensor> outputs,
                               std::span<const SimplifiedKeyAttr> attrs) {
  std::string key(op_type);
  AppendFlags(key, deterministic, precision_mode);
  for (const SimplifiedKeyTensor& tensor : inputs)
    AppendTensor(key, tensor, true);
  for (const SimplifiedKeyTensor& tensor : outputs)
    AppendTensor(key, tensor, true);
  for (const SimplifiedKeyAttr& attr : attrs) {
    key += '/';
    key += attr.name;
    key += '=';
    key += attr.value;
  }
  return key;
}

std::string BuildCustomSimplifiedKey(std::string_view op_type, bool deterministic,
                                     uint32_t precision_mode, std::string_view fragment) {
  std::string key(op_type);
  AppendFlags(key, deterministic, precision_mode);
  key += '/';
  key += fragment;
  return key;
}

bool IsSimplifiedKeyValue(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '+' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status CheckSimplifiedKeyFragment(std::string_view fragment, std::string_view op_type) {
  std::string prefix = "simplified key fragment ";
  prefix.append(Quote(fragment)).append(" of ").append(op_type).append(" ");
  std::string hint = "; expected only the op's custom fragment (the runtime adds \"";
  hint.append(op_type).append("/d=<0|1>,p=<precision>/\")");
  if (fragment.empty()) return InvalidArgument(prefix + "is empty" + hint);
  if (fragment.size() > kMaxSimplifiedKeyFragment) {
    return InvalidArgument(prefix + "is " + std::to_string(fragment.size()) +
                           " bytes long; expected at most " +
                           std::to_string(kMaxSimplifiedKeyFragment));
  }
  if (fragment.find('/') != std::string_view::npos) {
    return InvalidArgument(prefix + "holds '/'" + hint);
  }
  if (fragment.substr(0, 2) == "d=") return InvalidArgument(prefix + "starts with \"d=\"" + hint);
  for (char c : fragment) {
    if (c <= ' ' || c > '~') {
      return InvalidArgument(prefix +
                             "holds a space or a non-printable or non-ASCII byte; expected "
                             "printable ASCII");
    }
  }
  return OkStatus();
}

Status CheckSimplifiedKey(std::string_view key, std::string_view op_type, uint32_t mode) {
  const std::string prefix = "simplified key " + Quote(key) + " ";
  if (mode > kMaxSimplifiedKeyMode) {
    return InvalidArgument(prefix + "is checked for simplified-key mode " + std::to_string(mode) +
                           "; expected mode 0, 1 or 2");
  }
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
  if (mode == 2) {
    if (parts.size() != 3) {
      return InvalidArgument(prefix + "has " + std::to_string(parts.size() - 2) +
                             " segments after the flags; expected one custom fragment (mode 2)");
    }
    return CheckSimplifiedKeyFragment(parts[2], op_type);
  }
  // Tensor segments first ("dtype,format[,n=count]"), then attribute segments ("name=value": the
  // first field holds the '=').
  const auto is_attr = [](std::string_view part) {
    return part.substr(0, part.find(',')).find('=') != std::string_view::npos;
  };
  size_t i = 2;
  for (; i < parts.size() && !is_attr(parts[i]); ++i)
    TESSERA_RETURN_IF_ERROR(CheckTensorSegment(parts[i], prefix, mode == 1));
  if (i == 2) {
    return InvalidArgument(prefix + "lists no tensors; expected \"/<DT_xxx>,<format>\" per input " +
                           "and output");
  }
  if (i < parts.size() && mode == 0) {
    return InvalidArgument(prefix + "has attribute segment " + Quote(parts[i]) +
                           "; expected only \"/<dtype>,<format>\" segments in mode 0");
  }
  std::vector<std::string_view> names;
  for (; i < parts.size(); ++i) {
    if (!is_attr(parts[i])) {
      return InvalidArgument(prefix + "has tensor " + Quote(parts[i]) +
                             " after an attribute; expected tensors first, then attributes");
    }
    const size_t eq = parts[i].find('=');
    const std::string_view name = parts[i].substr(0, eq);
    const std::string_view value = parts[i].substr(eq + 1);
    if (!IsIdentifier(name) || !IsSimplifiedKeyValue(value)) {
      return InvalidArgument(prefix + "has attribute " + Quote(parts[i]) +
                             "; expected \"<attr>=<value>\" with an identifier and a value of " +
                             "letters, digits and \"_.+-\"");
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return InvalidArgument(prefix + "names attribute " + Quote(name) +
                             " twice; expected each attribute once");
    }
    names.push_back(name);
  }
  return OkStatus();
}

Status CheckTilingKeySelection(std::string_view selection) {
  const std::string prefix = "tiling-key selection " + Quote(selection) + " ";
  if (selection.empty()) return InvalidArgument(prefix + "is empty; expected at least one key");
  std::vector<std::string_view> ops;
  bool bare = false;
  for (std::string_view item : Split(selection, ';')) {
    const size_t colon = item.find(':');
    const bool named = colon != std::string_view::npos;
    const std::string_view op = named ? item.substr(0, colon) : std::string_view();
    const std::string_view keys = named ? item.substr(colon + 1) : item;
    if ((named && !IsIdentifier(op)) || !ParseKeyList(keys)) {
      return InvalidArgument(prefix + "has item " + Quote(item) +
                             "; expected \"<Op>:<key>,<key>\" or \"<key>,<key>\" with decimal " +
                             "keys");
    }
    if (named && std::find(ops.begin(), ops.end(), op) != ops.end()) {
      return InvalidArgument(prefix + "names op " + Quote(op) + " twice; expected one item per op");
    }
    if (!named && bare) {
      return InvalidArgument(prefix + "has two bare key lists; expected at most one");
    }
    bare = bare || !named;
    if (named) ops.push_back(op);
  }
  return OkStatus();
}

std::optional<std::vector<uint64_t>> SelectedTilingKeys(std::string_view selection,
                                                        std::string_view op_type) {
  std::optional<std::vector<uint64_t>> fallback;
  for (std::string_view item : Split(selection, ';')) {
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      fallback = ParseKeyList(item);
    } else if (item.substr(0, colon) == op_type) {
      return ParseKeyList(item.substr(colon + 1));
    }
  }
  return fallback;
}

Result<const ManifestBinary*> SelectBinary(const OpManifest& op, std::string_view device_soc,
                                           std::string_view simplified_key) {
  return SelectBinary(op, DeviceTarget{device_soc, {}}, simplified_key);
}

Result<const ManifestBinary*> SelectBinary(const OpManifest& op, const DeviceTarget& target,
                                           std::string_view simplified_key) {
  const std::string_view device_soc = target.soc;
  const SocInfo* device = FindSoc(device_soc);
  if (!device) {
    return InvalidArgument("device SoC " + Quote(device_soc) + " is unknown; expected one of " +
                           JoinViews(kSocNames));
  }
  std::vector<std::string_view> targets;  // every target the op has a binary for
  bool any_runs = false;
  for (const ManifestBinary& binary : op.binaries) {
    any_runs = any_runs || BinaryRunsOn(binary.soc, target);
    if (std::find(targets.begin(), targets.end(), binary.soc) == targets.end())
      targets.push_back(binary.soc);
  }
  if (!any_runs && !op.binaries.empty()) {
    return NotFound(
        "op " + op.op + " has binaries for " + JoinViews(targets) + "; this machine is " +
        DescribeDevice(target) + ", which runs none of them (a compute-unit binary runs only on " +
        "that CPU model, an ISA level on that level or higher); rebuild the package with " +
        "TESSERA_SOC_SERIES (or SOCS) including " + std::string(device_soc) + " or lower" +
        (target.compute_unit.empty() ? std::string()
                                     : ", or TESSERA_COMPUTE_UNIT (COMPUTE_UNITS) including " +
                                           std::string(target.compute_unit)));
  }
  const ManifestBinary* best = nullptr;
  int best_level = 0;
  std::vector<std::string_view> key_elsewhere;  // targets with the key that cannot run here
  for (const ManifestBinary& binary : op.binaries) {
    if (binary.simplified_key != simplified_key) continue;
    const SocInfo* soc = FindSoc(binary.soc);
    if (!target.compute_unit.empty() && binary.soc == target.compute_unit) return &binary;
    if (!BinaryRunsOn(binary.soc, target)) {
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
  if (keys.empty()) keys = "none";
  const std::string k = std::to_string(tiling_key);
  std::string message = "Cannot find tilingKey[" + k + "] in kernel json of " + binary.bin_path +
                        " (" + binary.simplified_key + ", SoC " + binary.soc + ")";
  if (!binary.selective_build) return NotFound(message + "; available tiling keys: " + keys);
  // A selective build: say what was built and the selection that also builds `tiling_key`.
  const ManifestSelectiveBuild& sel = *binary.selective_build;
  const std::string_view op =
      std::string_view(binary.simplified_key).substr(0, binary.simplified_key.find('/'));
  // A key the selection includes was built; this binary just does not hold it (e.g. a mode-1
  // binary listing a subset, or a tiling function returning a key the kernel lacks).
  const std::optional<std::vector<uint64_t>> selected = SelectedTilingKeys(sel.value, op);
  if (!selected || std::find(selected->begin(), selected->end(), tiling_key) != selected->end()) {
    return NotFound(message + "; available tiling keys: " + keys);
  }
  std::string extended;
  bool added = false;
  for (std::string_view item : Split(sel.value, ';')) {
    if (!extended.empty()) extended += ';';
    extended += item;
    const size_t colon = item.find(':');
    if (colon != std::string_view::npos && item.substr(0, colon) == op) {
      extended += ',' + k;
      added = true;
    }
  }
  if (!added) {
    // The op took the bare list: give it its own item with the bare keys plus the missing one.
    std::string own(op);
    own += ':';
    for (uint64_t key : *selected)
      own += std::to_string(key) + ",";
    own += k;
    extended = own + ";" + extended;
  }
  message += ": tilingKey[" + k + "] was not built: this package was built with " + sel.option +
             "=" + sel.value + " (built tiling keys: " + keys + "); ";
  if (sel.option == "TILING_KEYS") {
    std::replace(extended.begin(), extended.end(), ';', ' ');
    message += "set TILING_KEYS " + extended +
               " in its tessera_add_op_package() or remove TILING_KEYS to build every key";
  } else {
    message += "reconfigure with -D" + sel.option + "=" + extended +
               " or leave it empty to build every key";
  }
  return NotFound(std::move(message));
}

}  // namespace tessera::runtime
