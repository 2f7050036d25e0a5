#include "tessera/tiling/tiling_key.h"

#include <algorithm>

namespace tessera::tiling {
namespace {

std::string JoinValues(std::span<const int64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string JoinNames(std::span<const KeyFieldDef> fields) {
  std::string out = "[";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i].name;
  }
  return out + "]";
}

}  // namespace

Result<KeySchema> KeySchema::Create(std::vector<KeyFieldDef> fields, Predicate is_valid) {
  const detail::KeyRuleResult r = detail::CheckKeyRules(fields);
  const std::string where =
      r.field < fields.size() ? "TilingKey field '" + fields[r.field].name + "'" : "";
  switch (r.rule) {
    case detail::KeyRule::kOk:
      break;
    case detail::KeyRule::kEmptyName:
      return InvalidArgument("TilingKey field #" + std::to_string(r.field) + " has an empty name");
    case detail::KeyRule::kDuplicateName:
      return InvalidArgument(where + " is declared twice; field names must be unique");
    case detail::KeyRule::kBitsNotPositive:
      return InvalidArgument(where + " has bits " + std::to_string(r.value) +
                             "; expected bits > 0");
    case detail::KeyRule::kNoValues:
      return InvalidArgument(where + " has no values; expected a non-empty list");
    case detail::KeyRule::kDuplicateValue:
      return InvalidArgument(where + " lists value " + std::to_string(r.value) +
                             " more than once; values must be unique");
    case detail::KeyRule::kTooManyValues:
      return InvalidArgument(where + " has " + std::to_string(r.value) + " values, more than 2^" +
                             std::to_string(fields[r.field].bits) + " = " +
                             std::to_string(uint64_t{1} << fields[r.field].bits) +
                             " that its bits can index");
    case detail::KeyRule::kTooManyBits:
      return InvalidArgument(where + " brings the key to " + std::to_string(r.value) +
                             " bits; expected at most 64 in total");
    default:
      return Internal("unknown TilingKey rule " + std::to_string(static_cast<int>(r.rule)));
  }
  KeySchema schema;
  for (const KeyFieldDef& f : fields) {
    schema.offsets_.push_back(schema.total_bits_);
    schema.total_bits_ += f.bits;
  }
  schema.fields_ = std::move(fields);
  schema.is_valid_ = std::move(is_valid);
  return schema;
}

std::string KeySchema::Describe(std::span<const int64_t> values) const {
  std::string out = "{";
  for (size_t i = 0; i < fields_.size() && i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields_[i].name + ": " + std::to_string(values[i]);
  }
  return out + "}";
}

Status KeySchema::CheckValues(std::span<const int64_t> values) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (detail::IndexOfValue(fields_[i].values, values[i]) < 0) {
      return InvalidArgument("TilingKey field '" + fields_[i].name +
                             "' = " + std::to_string(values[i]) + " is not one of its values " +
                             JoinValues(fields_[i].values));
    }
  }
  if (is_valid_ && !is_valid_(values)) {
    return InvalidArgument("TilingKey " + Describe(values) +
                           " is rejected by is_valid (unsupported combination)");
  }
  return OkStatus();
}

Status KeySchema::Validate(const KeyMap& key) const {
  std::vector<int64_t> values;
  for (const KeyFieldDef& f : fields_) {
    const auto it = key.find(f.name);
    if (it == key.end()) {
      return InvalidArgument("TilingKey field '" + f.name + "' is missing; the schema has fields " +
                             JoinNames(fields_));
    }
    values.push_back(it->second);
  }
  for (const auto& [name, value] : key) {
    const bool known = std::any_of(fields_.begin(), fields_.end(),
                                   [&](const KeyFieldDef& f) { return f.name == name; });
    if (!known) {
      return InvalidArgument("TilingKey field '" + name + "' = " + std::to_string(value) +
                             " is not in the schema; the schema has fields " + JoinNames(fields_));
    }
  }
  return CheckValues(values);
}

Result<uint64_t> KeySchema::Pack(const KeyMap& key) const {
  TESSERA_RETURN_IF_ERROR(Validate(key));
  std::vector<int64_t> values;
  for (const KeyFieldDef& f : fields_)
    values.push_back(key.find(f.name)->second);
  return PackValues(values);
}

Result<uint64_t> KeySchema::PackValues(std::span<const int64_t> values) const {
  if (values.size() != fields_.size()) {
    return InvalidArgument("TilingKey needs " + std::to_string(fields_.size()) + " values " +
                           JoinNames(fields_) + ", got " + std::to_string(values.size()));
  }
  TESSERA_RETURN_IF_ERROR(CheckValues(values));
  uint64_t key = 0;
  for (size_t i = 0; i < fields_.size(); ++i) {
    key |= static_cast<uint64_t>(detail::IndexOfValue(fields_[i].values, values[i])) << offsets_[i];
  }
  return key;
}

Result<std::vector<int64_t>> KeySchema::Unpack(uint64_t key) const {
  if (total_bits_ < 64 && (key >> total_bits_) != 0) {
    return InvalidArgument("TilingKey " + std::to_string(key) +
                           " has bits set above the schema's " + std::to_string(total_bits_) +
                           " bits");
  }
  std::vector<int64_t> values;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const int bits = fields_[i].bits;
    const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint64_t index = (key >> offsets_[i]) & mask;
    if (index >= fields_[i].values.size()) {
      return InvalidArgument("TilingKey " + std::to_string(key) + ": field '" + fields_[i].name +
                             "' holds index " + std::to_string(index) + " but has only " +
                             std::to_string(fields_[i].values.size()) + " values");
    }
    values.push_back(fields_[i].values[index]);
  }
  return values;
}

Result<KeyMap> KeySchema::Decode(uint64_t key) const {
  TESSERA_ASSIGN_OR_RETURN(std::vector<int64_t> values, Unpack(key));
  KeyMap map;
  for (size_t i = 0; i < fields_.size(); ++i)
    map.emplace(fields_[i].name, values[i]);
  return map;
}

std::vector<std::vector<int64_t>> KeySchema::EnumerateValid() const {
  std::vector<std::vector<int64_t>> out;
  std::vector<size_t> idx(fields_.size(), 0);
  while (true) {
    std::vector<int64_t> values(fields_.size());
    for (size_t i = 0; i < fields_.size(); ++i)
      values[i] = fields_[i].values[idx[i]];
    if (!is_valid_ || is_valid_(values)) out.push_back(std::move(values));
    size_t i = fields_.size();
    while (i > 0 && ++idx[i - 1] == fields_[i - 1].values.size())
      idx[--i] = 0;
    if (i == 0) return out;
  }
}

}  // namespace tessera::tiling
