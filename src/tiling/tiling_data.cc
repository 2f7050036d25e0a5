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
    return InvalidArgument("Tiling field '" + std::string(field.name) + "' expects " +
                           std::string(field.type == TilingFieldType::kBool
                                           ? "a bool (true/false/1/0)"
                                       : field.type == TilingFieldType::kInt64 ? "an int64"
                                                                               : "a float32") +
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

nlohmann::json ElementJson(const TilingField& field, const uint8_t* src) {
  switch (field.type) {
    case TilingFieldType::kInt64: {
      int64_t v;
      std::memcpy(&v, src, sizeof(v));
      return v;
    }
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

}  // namespace

std::string_view TilingFieldTypeName(TilingFieldType type) {
  switch (type) {
    case TilingFieldType::kInt64:
      return "int64";
    case TilingFieldType::kFloat32:
      return "float32";
    case TilingFieldType::kBool:
      return "bool";
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

std::vector<uint8_t> SerializeFields(const TilingSchema& schema, const void* data) {
  std::vector<uint8_t> bytes(schema.size, 0);
  const auto* src = static_cast<const uint8_t*>(data);
  for (const TilingField& f : schema.fields) {
    std::memcpy(bytes.data() + f.offset, src + f.offset, f.byte_size());
  }
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
    const TilingField* field = schema.Find(name);
    if (field == nullptr) {
      return InvalidArgument("Tiling struct '" + std::string(schema.name) + "' has no field '" +
                             name + "' (fields: " + FieldNames(schema) + ")");
    }
    TESSERA_RETURN_IF_ERROR(ParseField(*field, text, staged.data() + field->offset));
  }
  std::memcpy(bytes.data(), staged.data(), staged.size());
  return OkStatus();
}

Result<std::string> TilingToJson(const TilingSchema& schema, std::span<const uint8_t> bytes,
                                 int indent) {
  TESSERA_RETURN_IF_ERROR(detail::CheckBufferSize(schema, bytes.size()));
  nlohmann::json fields = nlohmann::json::array();
  for (const TilingField& f : schema.fields) {
    const uint8_t* src = bytes.data() + f.offset;
    nlohmann::json value;
    if (f.is_array) {
      value = nlohmann::json::array();
      for (uint32_t i = 0; i < f.length; ++i)
        value.push_back(ElementJson(f, src + i * f.element_size()));
    } else {
      value = ElementJson(f, src);
    }
    fields.push_back({{"name", f.name},
                      {"type", TilingFieldTypeName(f.type)},
                      {"offset", f.offset},
                      {"length", f.length},
                      {"is_array", f.is_array},
                      {"value", std::move(value)}});
  }
  const nlohmann::json doc = {{"struct", schema.name},
                              {"size", schema.size},
                              {"alignment", schema.alignment},
                              {"hash", Hex(schema.hash)},
                              {"fields", std::move(fields)}};
  return doc.dump(indent);
}

}  // namespace tessera::tiling
