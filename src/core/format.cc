#include "tessera/core/format.h"

#include <cctype>
#include <string>

namespace tessera {

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kND:
      return "ND";
    default:
      return "invalid";
  }
}

Result<Format> ParseFormat(std::string_view text) {
  std::string key(text);
  for (char& c : key)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (key == "ND" || key == "FORMAT_ND") return Format::kND;
  return InvalidArgument("unknown format '" + std::string(text) + "'; expected ND");
}

bool IsValidFormat(int code) {
  return code == static_cast<int>(Format::kND);
}

}  // namespace tessera
