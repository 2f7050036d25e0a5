// Format: the memory layout of a tensor. Values equal CANN's aclFormat codes.
#pragma once

#include <cstdint>
#include <string_view>

#include "tessera/core/status.h"

namespace tessera {

enum class Format : uint8_t {
  kND = 2,  // plain row-major N-dimensional layout
};

std::string_view FormatName(Format format);  // "ND"
// Case-insensitive; accepts "ND" and CANN's "FORMAT_ND".
Result<Format> ParseFormat(std::string_view text);
bool IsValidFormat(int code);

}  // namespace tessera
