// Writes tensors as numpy .npy files (format version 1.0) for `tessera run --save`.
//
// dtype codes (little-endian): float32 '<f4', float16 '<f2', bfloat16 '<u2' (numpy has no
// bfloat16: the raw bits; `(a.astype(np.uint32) << 16).view(np.float32)` widens them exactly),
// int8 '|i1', uint8 '|u1', int16 '<i2', int32 '<i4', int64 '<i8', bool '|b1'. The header is the
// dict "{'descr': ..., 'fortran_order': False, 'shape': (...), }" padded with spaces and ended by
// '\n' so that the data starts at a multiple of 64 bytes, as numpy writes it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"

namespace tessera::cli {

// The .npy dtype code of `dtype` (see above).
std::string_view NpyDescr(DataType dtype);

// The magic, version, header length and header of a C-order array of `desc`'s dtype and shape.
std::string NpyHeader(const TensorDesc& desc);

// Writes `data` (the contiguous elements of `desc`) to `path` with NpyHeader(desc). Fails naming
// the file when `data` does not hold exactly the tensor's bytes or the file cannot be written.
Status WriteNpy(const std::filesystem::path& path, const TensorDesc& desc,
                std::span<const uint8_t> data);

}  // namespace tessera::cli
