// exe_graph/runtime/tiling_data.h: gert::TilingData, the raw tiling buffer a vendor tiling
// function fills (GetData/GetCapacity, SetDataSize) and the kernel receives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {

class TilingData {
 public:
  explicit TilingData(size_t capacity) : bytes_(capacity) {}
  void* GetData() { return bytes_.data(); }
  const void* GetData() const { return bytes_.data(); }
  size_t GetCapacity() const { return bytes_.size(); }
  size_t GetDataSize() const { return size_; }
  // Sizes beyond the capacity are refused (the data would not fit).
  ge::graphStatus SetDataSize(size_t size) {
    if (size > bytes_.size()) return ge::GRAPH_FAILED;
    size_ = size;
    return ge::GRAPH_SUCCESS;
  }
  // Appends the bytes of `data` after the current data.
  template <class T>
  ge::graphStatus Append(const T& data) {
    if (size_ + sizeof(T) > bytes_.size()) return ge::GRAPH_FAILED;
    std::memcpy(bytes_.data() + size_, &data, sizeof(T));
    size_ += sizeof(T);
    return ge::GRAPH_SUCCESS;
  }

 private:
  std::vector<uint8_t> bytes_;
  size_t size_ = 0;
};

}  // namespace gert
