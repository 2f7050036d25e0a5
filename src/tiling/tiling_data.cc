#include "tessera/tiling/tiling_data.h"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tessera::tiling {
namespace {

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string_view Trim(std::string_view s) {
  const auto not_space = [](char c) { return c != ' ' && c != '\t' && c != '\n' && c != '\r'; };
  while (!s.empty() && !not_space(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && !not_space(s.back()))
    s.remove_suffix(1);
  return s;
}

std::string FieldNames(const TilingSchema& schema) {
  std::string out;
  for (const TilingField& f : schema.fields) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

// Parses one element of `field` from `text` and stores it at `dst`.
Status ParseElement(const TilingField& field, std::string_view text, uint8_t* dst) {
  text = Trim(text);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto wrong_type = [&] {
    const char* expected = "a float32";
    if (field.type == TilingFieldType::kBool) expected = "a bool (true/false/1/0)";
    if (field.type == TilingFieldType::kInt64) expected = "an int64";
    if (field.type == TilingFieldType::kInt32) expected = "an int32";
    return InvalidArgument("Tiling field '" + std::string(field.name) + "' expects " + expected +
                           " value, got '" + std::string(text) + "'");
  };
  switch (field.type) {
    case TilingFieldType::kInt64: {
      int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last || text.empty()) return wrong_type();
      std::memcpy(dst, &v, sizeof(v));
      return OkStatus();
    }
    case TilingFieldType::kInt32: {
      int32_t v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last || text.empty()) return wrong_type();
      std::memcpy(dst, &v, sizeof(v));
      return OkStatus();
    }
    case TilingFieldType::kFloat32: {
      float v = 0;
      const auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last || text.empty()) return wrong_type();
      std::memcpy(dst, &v, sizeof(v));
      return OkStatus();
    }
    case TilingFieldType::kBool: {
      bool v = false;
      if (text == "true" || text == "1") {
        v = true;
      } else if (text != "false" && text != "0") {
        return wrong_type();
      }
      std::memcpy(dst, &v, sizeof(v));
      return OkStatus();
    }
    default:
      return Internal("unknown TilingFieldType " + std::to_string(static_cast<int>(field.type)));
  }
}

Status ParseField(const TilingField& field, std::string_view text, uint8_t* dst) {
  if (field.type == TilingFieldType::kStruct) {
    return InvalidArgument("Tiling field '" + std::string(field.name) + "' is an embedded " +
                           std::string(field.nested->name) + "; set its fields one by one as '" +
                           std::string(field.name) + ".<field>'");
  }
  std::string_view body = Trim(text);
  const bool bracketed = body.size() >= 2 && body.front() == '[' && body.back() == ']';
  if (bracketed) body = Trim(body.substr(1, body.size() - 2));
  std::vector<std::string_view> items;
  if (!body.empty()) {
    size_t start = 0;
    while (true) {
      const size_t comma = body.find(',', start);
      items.push_back(
          body.substr(start, comma == std::string_view::npos ? body.npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  }
  if (!field.is_array) {
    if (bracketed || items.size() != 1) {
      return InvalidArgument("Tiling field '" + std::string(field.name) + "' is a scalar " +
                             std::string(TilingFieldTypeName(field.type)) + ", got a list '" +
                             std::string(Trim(text)) + "'");
    }
  } else if (items.size() != field.length) {
    return InvalidArgument("Tiling field '" + std::string(field.name) + "' expected " +
                           std::to_string(field.length) + " elements, got " +
                           std::to_string(items.size()));
  }
  for (size_t i = 0; i < items.size(); ++i) {
    TESSERA_RETURN_IF_ERROR(ParseElement(field, items[i], dst + i * field.element_size()));
  }
  return OkStatus();
}

nlohmann::json FieldsJson(const TilingSchema& schema, const uint8_t* base);

nlohmann::json ElementJson(const TilingField& field, const uint8_t* src) {
  switch (field.type) {
    case TilingFieldType::kInt64: {
      int64_t v;
      std::memcpy(&v, src, sizeof(v));
      return v;
    }
    case TilingFieldType::kInt32: {
      int32_t v;
      std::memcpy(&v, src, sizeof(v));
      return v;
    }
    case TilingFieldType::kStruct:
      return FieldsJson(*field.nested, src);
    case TilingFieldType::kFloat32: {
      float v;
      std::memcpy(&v, src, sizeof(v));
      return v;
    }
    case TilingFieldType::kBool: {
      // Read as a byte: bytes from a file or another process may hold values other than 0 and 1,
      // and loading those as bool is undefined (found by fuzzing); any non-zero byte is true.
      return *src != 0;
    }
    default:
      return nullptr;
  }
}

nlohmann::json FieldsJson(const TilingSchema& schema, const uint8_t* base) {
  nlohmann::json fields = nlohmann::json::array();
  for (const TilingField& f : schema.fields) {
    const uint8_t* src = base + f.offset;
    nlohmann::json value;
    if (f.is_array) {
      value = nlohmann::json::array();
      for (uint32_t i = 0; i < f.length; ++i)
        value.push_back(ElementJson(f, src + i * f.element_size()));
    } else {
      value = ElementJson(f, src);
    }
    nlohmann::json entry = {{"name", f.name},
                            {"type", TilingFieldTypeName(f.type)},
                            {"offset", f.offset},
                            {"length", f.length},
                            {"is_array", f.is_array}};
    if (f.type == TilingFieldType::kStruct) entry["struct"] = f.nested->name;
    entry["value"] = std::move(value);
    fields.push_back(std::move(entry));
  }
  return fields;
}

}  // namespace

Result<TilingFieldPath> FindTilingField(const TilingSchema& schema, std::string_view path) {
  const TilingSchema* current = &schema;
  TilingFieldPath out;
  std::string_view rest = path;
  while (true) {
    const size_t dot = rest.find('.');
    const std::string_view part = rest.substr(0, dot);
    const TilingField* field = current->Find(part);
    if (field == nullptr) {
      return InvalidArgument("Tiling struct '" + std::string(current->name) + "' has no field '" +
                             std::string(part) + "' (fields: " + FieldNames(*current) + ")");
    }
    out.field = field;
    out.offset += field->offset;
    if (dot == std::string_view::npos) return out;
    if (field->type != TilingFieldType::kStruct) {
      return InvalidArgument(
          "Tiling field '" + std::string(path.substr(0, path.size() - rest.size())) +
          std::string(part) + "' is a " + std::string(TilingFieldTypeName(field->type)) +
          ", not an embedded struct, so '" + std::string(path) + "' names nothing");
    }
    current = field->nested;
    rest = rest.substr(dot + 1);
  }
}

std::string_view TilingFieldTypeName(TilingFieldType type) {
  switch (type) {
    case TilingFieldType::kInt64:
      return "int64";
    case TilingFieldType::kFloat32:
      return "float32";
    case TilingFieldType::kBool:
      return "bool";
    case TilingFieldType::kInt32:
      return "int32";
    case TilingFieldType::kStruct:
      return "struct";
    default:
      return "unknown";
  }
}

namespace detail {

Status CheckSchemaHash(const TilingSchema& schema, uint64_t producer_hash) {
  if (producer_hash == schema.hash) return OkStatus();
  return InvalidArgument("Tiling schema hash mismatch for '" + std::string(schema.name) +
                         "': expected " + Hex(schema.hash) + ", tiling data was written with " +
                         Hex(producer_hash) + " (host and kernel disagree on the struct layout)");
}

Status CheckBufferSize(const TilingSchema& schema, size_t size) {
  if (size >= schema.size) return OkStatus();
  return InvalidArgument("Tiling buffer too short for '" + std::string(schema.name) + "': need " +
                         std::to_string(schema.size) + " bytes, got " + std::to_string(size));
}

// Copies every field of `schema` from `src` to `dst` (both at the struct's start), recursing into
// embedded structs so their padding stays zero too.
void CopyFields(const TilingSchema& schema, const uint8_t* src, uint8_t* dst) {
  for (const TilingField& f : schema.fields) {
    if (f.nested != nullptr) {
      for (uint32_t i = 0; i < f.length; ++i) {
        const size_t at = f.offset + size_t{i} * f.element_size();
        CopyFields(*f.nested, src + at, dst + at);
      }
    } else {
      std::memcpy(dst + f.offset, src + f.offset, f.byte_size());
    }
  }
}

std::vector<uint8_t> SerializeFields(const TilingSchema& schema, const void* data) {
  std::vector<uint8_t> bytes(schema.size, 0);
  CopyFields(schema, static_cast<const uint8_t*>(data), bytes.data());
  return bytes;
}

}  // namespace detail

Status CheckSchemaCompatible(const TilingSchema& producer, const TilingSchema& consumer) {
  if (producer.hash == consumer.hash) return OkStatus();
  return InvalidArgument("Tiling schema mismatch: kernel expects '" + std::string(consumer.name) +
                         "' (" + std::to_string(consumer.size) + " bytes, hash " +
                         Hex(consumer.hash) + "), tiling function produces '" +
                         std::string(producer.name) + "' (" + std::to_string(producer.size) +
                         " bytes, hash " + Hex(producer.hash) + ")");
}

Status SetTilingFields(const TilingSchema& schema, std::span<uint8_t> bytes,
                       const std::map<std::string, std::string, std::less<>>& values) {
  TESSERA_RETURN_IF_ERROR(detail::CheckBufferSize(schema, bytes.size()));
  // Parse into a copy so a failure halfway leaves the caller's struct untouched.
  std::vector<uint8_t> staged(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(schema.size));
  for (const auto& [name, text] : values) {
    TESSERA_ASSIGN_OR_RETURN(TilingFieldPath found, FindTilingField(schema, name));
    TESSERA_RETURN_IF_ERROR(ParseField(*found.field, text, staged.data() + found.offset));
  }
  std::memcpy(bytes.data(), staged.data(), staged.size());
  return OkStatus();
}

Result<std::string> TilingToJson(const TilingSchema& schema, std::span<const uint8_t> bytes,
                                 int indent) {
  TESSERA_RETURN_IF_ERROR(detail::CheckBufferSize(schema, bytes.size()));
  nlohmann::json fields = FieldsJson(schema, bytes.data());
  const nlohmann::json doc = {{"struct", schema.name},
                              {"size", schema.size},
                              {"alignment", schema.alignment},
                              {"hash", Hex(schema.hash)},
                              {"fields", std::move(fields)}};
  return doc.dump(indent);
}

}  // namespace tessera::tiling
