// exe_graph/runtime/tiling_context.h: gert::TilingContext as a vendor tiling function sees it,
// over tessera's runtime::TilingContext. The vendor function reads shapes, dtypes and attributes
// by index and writes block dim, tiling key, raw tiling data and workspace sizes here; Commit()
// hands the results to tessera's context.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tiling_data.h"
#include "graph/types.h"
#include "tessera/runtime/tiling_context.h"

namespace gert {

// A tensor's dtype and formats as tiling sees them.
class CompileTimeTensorDesc {
 public:
  CompileTimeTensorDesc() = default;
  explicit CompileTimeTensorDesc(const tessera::TensorDesc& d)
      : dtype_(ge::FromTessera(d.dtype)), format_(ge::FromTessera(d.format)) {}
  ge::DataType GetDataType() const { return dtype_; }
  ge::Format GetOriginFormat() const { return format_; }
  ge::Format GetStorageFormat() const { return format_; }

 private:
  ge::DataType dtype_ = ge::DT_UNDEFINED;
  ge::Format format_ = ge::FORMAT_ND;
};

class TilingContext {
 public:
  // Room for the raw tiling data a vendor tiling function may write.
  static constexpr size_t kTilingDataCapacity = 64 * 1024;

  // `attr_names`: the op's attributes in declaration order (GetAttrs() indexes them).
  TilingContext(tessera::runtime::TilingContext& ctx, const std::vector<std::string>& attr_names)
      : ctx_(ctx), attrs_(OrderedAttrs(ctx.attrs(), attr_names)), tiling_(kTilingDataCapacity) {
    for (size_t i = 0; i < ctx.GetInputNum(); ++i)
      AddTensor(ctx.GetInputDesc(i), inputs_);
    for (size_t i = 0; i < ctx.GetOutputNum(); ++i)
      AddTensor(ctx.GetOutputDesc(i), outputs_);
  }
  TilingContext(const TilingContext&) = delete;
  TilingContext& operator=(const TilingContext&) = delete;

  const char* GetNodeType() const { return ctx_.GetOpType().c_str(); }
  const char* GetNodeName() const { return ctx_.GetOpType().c_str(); }
  size_t GetComputeNodeInputNum() const { return inputs_.size(); }

  // nullptr for an absent optional input or an index out of range.
  const StorageShape* GetInputShape(size_t i) const { return Get(inputs_, i, &Tensor::shape); }
  const StorageShape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
  const StorageShape* GetOutputShape(size_t i) const { return Get(outputs_, i, &Tensor::shape); }
  const CompileTimeTensorDesc* GetInputDesc(size_t i) const {
    return Get(inputs_, i, &Tensor::desc);
  }
  const CompileTimeTensorDesc* GetOptionalInputDesc(size_t i) const { return GetInputDesc(i); }
  const CompileTimeTensorDesc* GetOutputDesc(size_t i) const {
    return Get(outputs_, i, &Tensor::desc);
  }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }

  // The tiling buffer as a T (value-initialized on first use); the data size becomes sizeof(T).
  // nullptr when T does not fit.
  template <class T>
  T* GetTilingData() {
    if (sizeof(T) > tiling_.GetCapacity()) return nullptr;
    if (typed_ == nullptr) typed_ = ::new (tiling_.GetData()) T();
    tiling_.SetDataSize(sizeof(T));
    return static_cast<T*>(typed_);
  }
  TilingData* GetRawTilingData() { return &tiling_; }

  ge::graphStatus SetBlockDim(uint32_t block_dim) {
    block_dim_ = block_dim;
    return ge::GRAPH_SUCCESS;
  }
  // The newer kits' name for SetBlockDim.
  ge::graphStatus SetSimdNumBlocks(uint32_t block_dim) { return SetBlockDim(block_dim); }
  uint32_t GetBlockDim() const { return block_dim_; }
  ge::graphStatus SetTilingKey(uint64_t key) {
    tiling_key_ = key;
    return ge::GRAPH_SUCCESS;
  }
  uint64_t GetTilingKey() const { return tiling_key_; }
  // `num` workspace sizes (bytes) for the function to fill; the pointer stays valid for this
  // tiling call. A second call with another count keeps the values that fit.
  size_t* GetWorkspaceSizes(size_t num) {
    workspace_.resize(num, 0);
    return workspace_.data();
  }
  size_t GetWorkspaceNum() const { return workspace_.size(); }

  // Hands block dim, tiling key, tiling data and workspace sizes to tessera's context.
  void Commit() const {
    ctx_.SetBlockDim(block_dim_);
    ctx_.SetTilingKey(tiling_key_);
    const auto* data = static_cast<const uint8_t*>(tiling_.GetData());
    ctx_.SetRawTilingData(std::vector<uint8_t>(data, data + tiling_.GetDataSize()));
    ctx_.SetWorkspaceSizes(std::vector<uint64_t>(workspace_.begin(), workspace_.end()));
  }

 private:
  struct Tensor {
    StorageShape shape;
    CompileTimeTensorDesc desc;
  };
  static void AddTensor(const tessera::TensorDesc* d, std::vector<std::optional<Tensor>>& out) {
    if (d == nullptr) {
      out.emplace_back();
      return;
    }
    const Shape s(d->shape);
    out.push_back(Tensor{StorageShape(s, s), CompileTimeTensorDesc(*d)});
  }
  template <class M>
  static const M* Get(const std::vector<std::optional<Tensor>>& v, size_t i, M Tensor::*member) {
    return i < v.size() && v[i] ? &((*v[i]).*member) : nullptr;
  }

  tessera::runtime::TilingContext& ctx_;
  RuntimeAttrs attrs_;
  std::vector<std::optional<Tensor>> inputs_;
  std::vector<std::optional<Tensor>> outputs_;
  TilingData tiling_;
  void* typed_ = nullptr;
  uint32_t block_dim_ = 0;
  uint64_t tiling_key_ = 0;
  std::vector<size_t> workspace_;
};

}  // namespace gert
