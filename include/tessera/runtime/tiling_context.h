// TilingContext: what a tiling function reads (shapes, dtypes, formats, attributes, platform) and
// what it decides (block dim, tiling key, tiling data, workspace sizes), as in CANN.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/arch_spec.h"
#include "tessera/runtime/op_def.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::runtime {

struct PlatformInfo {
  uint32_t aiv_cores = 1;
  uint32_t aic_cores = 1;
  uint64_t ub_bytes = 0;
  std::string soc;

  static PlatformInfo FromArch(const device::ArchSpec& arch) {
    return PlatformInfo{arch.aiv_cores, arch.aic_cores, arch.ub_bytes, arch.soc};
  }
};

class TilingContext {
 public:
  // Absent optional inputs are std::nullopt.
  TilingContext(std::string op_type, std::vector<std::optional<TensorDesc>> inputs,
                std::vector<TensorDesc> outputs, std::map<std::string, AttrValue> attrs,
                PlatformInfo platform);

  const std::string& GetOpType() const { return op_type_; }
  size_t GetInputNum() const { return inputs_.size(); }
  size_t GetOutputNum() const { return outputs_.size(); }
  // nullptr for an absent optional input or an index out of range.
  const TensorDesc* GetInputDesc(size_t index) const;
  const TensorDesc* GetOutputDesc(size_t index) const;
  const PlatformInfo& GetPlatformInfo() const { return platform_; }
  // Every attribute of the call, optional ones with their defaults filled in.
  const std::map<std::string, AttrValue>& attrs() const { return attrs_; }

  // Typed attribute access; errors name the attribute and the expected kind.
  Result<int64_t> GetIntAttr(const std::string& name) const;
  Result<float> GetFloatAttr(const std::string& name) const;
  Result<bool> GetBoolAttr(const std::string& name) const;
  Result<std::string> GetStrAttr(const std::string& name) const;
  Result<std::vector<int64_t>> GetListIntAttr(const std::string& name) const;
  Result<std::vector<float>> GetListFloatAttr(const std::string& name) const;

  void SetBlockDim(uint32_t block_dim) { block_dim_ = block_dim; }
  void SetTilingKey(uint64_t key) { tiling_key_ = key; }
  // Typed tiling data (a TilingData struct): its bytes and schema hash travel to the kernel.
  template <class T>
  void SetTilingData(const T& data) {
    tiling_data_ = tiling::SerializeTiling(data);
    tiling_hash_ = tiling::TilingSchemaOf<T>().hash;
  }
  // Untyped tiling data (a vendor op's plain struct or buffer): no schema hash travels with it.
  void SetRawTilingData(std::vector<uint8_t> bytes) {
    tiling_data_ = std::move(bytes);
    tiling_hash_ = 0;
  }
  void SetWorkspaceSizes(std::vector<uint64_t> sizes) { workspace_sizes_ = std::move(sizes); }

  uint32_t block_dim() const { return block_dim_; }
  uint64_t tiling_key() const { return tiling_key_; }
  const std::vector<uint8_t>& tiling_data() const { return tiling_data_; }
  uint64_t tiling_hash() const { return tiling_hash_; }
  const std::vector<uint64_t>& workspace_sizes() const { return workspace_sizes_; }
  // Sum of the workspace sizes, each rounded up to 32 bytes.
  uint64_t TotalWorkspace() const;

  // After the tiling function: block dim in 1..65535 and tiling data set.
  Status CheckResult() const;

 private:
  Result<const AttrValue*> Attr(const std::string& name, AttrKind kind) const;

  std::string op_type_;
  std::vector<std::optional<TensorDesc>> inputs_;
  std::vector<TensorDesc> outputs_;
  std::map<std::string, AttrValue> attrs_;
  PlatformInfo platform_;
  uint32_t block_dim_ = 0;
  uint64_t tiling_key_ = 0;
  std::vector<uint8_t> tiling_data_;
  uint64_t tiling_hash_ = 0;
  std::vector<uint64_t> workspace_sizes_;
};

// Runs `op`'s tiling function on `ctx`, turning an exception or a failed Status into CANN's
// "Failed to execute tiling function" error (never a crash), then checks the result.
Status RunTiling(const OpDef& op, TilingContext& ctx);

}  // namespace tessera::runtime
