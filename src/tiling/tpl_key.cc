#include "tessera/tiling/tpl_key.h"

#include <algorithm>

namespace tessera::tiling::ascendc {
namespace {

Status CheckUnique(const std::string& name, const std::vector<int64_t>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::find(values.begin(), values.begin() + static_cast<ptrdiff_t>(i), values[i]) !=
        values.begin() + static_cast<ptrdiff_t>(i)) {
      return InvalidArgument("Template key parameter '" + name + "' declares value " +
                             std::to_string(values[i]) + " twice");
    }
  }
  return OkStatus();
}

Result<TplParam> EnumParam(std::string name, TplKind kind, std::vector<int64_t> values) {
  const char* what = kind == TplKind::kDtype ? "DTYPE" : "FORMAT";
  if (values.empty()) {
    return InvalidArgument("Template key " + std::string(what) + " parameter '" + name +
                           "' declares no values");
  }
  for (int64_t v : values) {
    if (v < 0 || v > 255) {
      return InvalidArgument("Template key " + std::string(what) + " parameter '" + name +
                             "' value " + std::to_string(v) + " does not fit its 8 bits [0, 255]");
    }
  }
  TESSERA_RETURN_IF_ERROR(CheckUnique(name, values));
  return TplParam{std::move(name), kind, 8, std::move(values)};
}

}  // namespace

Result<TplParam> DtypeParam(std::string name, std::vector<int64_t> values) {
  return EnumParam(std::move(name), TplKind::kDtype, std::move(values));
}

Result<TplParam> FormatParam(std::string name, std::vector<int64_t> values) {
  return EnumParam(std::move(name), TplKind::kFormat, std::move(values));
}

Result<TplParam> BoolParam(std::string name, std::vector<int64_t> values) {
  if (values.empty()) {
    return InvalidArgument("Template key BOOL parameter '" + name + "' declares no values");
  }
  for (int64_t v : values) {
    if (v != 0 && v != 1) {
      return InvalidArgument("Template key BOOL parameter '" + name + "' value " +
                             std::to_string(v) + " is not 0 or 1");
    }
  }
  TESSERA_RETURN_IF_ERROR(CheckUnique(name, values));
  return TplParam{std::move(name), TplKind::kBool, 1, std::move(values)};
}

Result<TplParam> UintParam(std::string name, int bit_width, std::span<const int64_t> spec) {
  const std::string what = "Template key UINT parameter '" + name + "'";
  if (bit_width != 1 && bit_width != 2 && bit_width != 4 && bit_width != 8) {
    return InvalidArgument(what + " has bit width " + std::to_string(bit_width) +
                           "; expected 1, 2, 4 or 8");
  }
  if (spec.empty() || spec[0] < 0 || spec[0] > 2) {
    return InvalidArgument(what + " spec must start with RANGE (0), LIST (1) or MIX (2)");
  }
  const auto list = static_cast<TplUintList>(spec[0]);
  std::vector<int64_t> values;
  size_t pos = 1;
  if (list != TplUintList::kList) {
    if (spec.size() < 2 || spec[1] < 1) {
      return InvalidArgument(what + " RANGE/MIX spec needs a range count >= 1 after the kind");
    }
    const auto ranges = static_cast<size_t>(spec[1]);
    if (spec.size() < 2 + 2 * ranges) {
      return InvalidArgument(what + " declares " + std::to_string(ranges) + " ranges but lists " +
                             std::to_string((spec.size() - 2) / 2) + " lo/hi pairs");
    }
    for (size_t r = 0; r < ranges; ++r) {
      const int64_t lo = spec[2 + 2 * r];
      const int64_t hi = spec[3 + 2 * r];
      if (lo > hi || hi - lo >= 256) {
        return InvalidArgument(what + " range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                               "] is empty or wider than 256 values");
      }
      for (int64_t v = lo; v <= hi; ++v)
        values.push_back(v);
    }
    pos = 2 + 2 * ranges;
    if (list == TplUintList::kRange && pos != spec.size()) {
      return InvalidArgument(what + " RANGE spec has " + std::to_string(spec.size() - pos) +
                             " trailing values; use MIX to add single values");
    }
  }
  values.insert(values.end(), spec.begin() + static_cast<ptrdiff_t>(pos), spec.end());
  if (values.empty()) return InvalidArgument(what + " declares no values");
  TESSERA_RETURN_IF_ERROR(CheckUnique(name, values));
  if (values.size() > (size_t{1} << bit_width)) {
    return InvalidArgument(what + " has " + std::to_string(values.size()) + " values; a width of " +
                           std::to_string(bit_width) + " bits indexes " +
                           std::to_string(size_t{1} << bit_width));
  }
  return TplParam{std::move(name), TplKind::kUint, bit_width, std::move(values)};
}

Result<uint64_t> EncodeTplKey(std::span<const TplParam> params, std::span<const int64_t> args) {
  if (args.size() != params.size()) {
    return InvalidArgument("Template key has " + std::to_string(params.size()) +
                           " parameters, got " + std::to_string(args.size()) + " arguments");
  }
  uint64_t key = 0;
  int offset = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const TplParam& p = params[i];
    if (offset + p.bits > 64) {
      return InvalidArgument("Template key parameter '" + p.name + "' ends at bit " +
                             std::to_string(offset + p.bits) + "; a key holds 64 bits");
    }
    const auto it = std::find(p.values.begin(), p.values.end(), args[i]);
    if (it == p.values.end()) {
      return InvalidArgument("Template key parameter '" + p.name + "' value " +
                             std::to_string(args[i]) + " is not declared");
    }
    // UINT stores the index into the expanded list; the other kinds store the value itself.
    const auto field =
        static_cast<uint64_t>(p.kind == TplKind::kUint ? it - p.values.begin() : *it);
    key |= field << offset;
    offset += p.bits;
  }
  return key;
}

uint64_t GetTplTilingKey(std::span<const TplParam> params, std::span<const int64_t> args) {
  return EncodeTplKey(params, args).value_or(kInvalidTplKey);
}

}  // namespace tessera::tiling::ascendc
