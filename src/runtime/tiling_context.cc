#include "tessera/runtime/tiling_context.h"

#include <exception>

namespace tessera::runtime {

TilingContext::TilingContext(std::string op_type, std::vector<std::optional<TensorDesc>> inputs,
                             std::vector<TensorDesc> outputs,
                             std::map<std::string, AttrValue> attrs, PlatformInfo platform)
    : op_type_(std::move(op_type)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      attrs_(std::move(attrs)),
      platform_(std::move(platform)) {}

const TensorDesc* TilingContext::GetInputDesc(size_t index) const {
  return index < inputs_.size() && inputs_[index] ? &*inputs_[index] : nullptr;
}

const TensorDesc* TilingContext::GetOutputDesc(size_t index) const {
  return index < outputs_.size() ? &outputs_[index] : nullptr;
}

Result<const AttrValue*> TilingContext::Attr(const std::string& name, AttrKind kind) const {
  const auto it = attrs_.find(name);
  if (it == attrs_.end()) return NotFound(op_type_ + " has no attribute '" + name + "'");
  if (KindOf(it->second) != kind) {
    return InvalidArgument(op_type_ + ": attribute '" + name + "' is " +
                           AttrKindName(KindOf(it->second)) + ", not " + AttrKindName(kind));
  }
  return &it->second;
}

Result<int64_t> TilingContext::GetIntAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kInt));
  return std::get<int64_t>(*v);
}
Result<float> TilingContext::GetFloatAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kFloat));
  return std::get<float>(*v);
}
Result<bool> TilingContext::GetBoolAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kBool));
  return std::get<bool>(*v);
}
Result<std::string> TilingContext::GetStrAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kString));
  return std::get<std::string>(*v);
}
Result<std::vector<int64_t>> TilingContext::GetListIntAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kIntList));
  return std::get<std::vector<int64_t>>(*v);
}
Result<std::vector<float>> TilingContext::GetListFloatAttr(const std::string& name) const {
  TESSERA_ASSIGN_OR_RETURN(const AttrValue* v, Attr(name, AttrKind::kFloatList));
  return std::get<std::vector<float>>(*v);
}

uint64_t TilingContext::TotalWorkspace() const {
  uint64_t total = 0;
  for (uint64_t s : workspace_sizes_)
    total += (s + 31) / 32 * 32;
  return total;
}

Status TilingContext::CheckResult() const {
  if (block_dim_ == 0 || block_dim_ > 65535) {
    return InvalidArgument("tiling function of " + op_type_ + " set block dim " +
                           std::to_string(block_dim_) + "; expected 1..65535");
  }
  if (tiling_data_.empty()) {
    return InvalidArgument("tiling function of " + op_type_ +
                           " set no tiling data (SetTilingData)");
  }
  return OkStatus();
}

Status RunTiling(const OpDef& op, TilingContext& ctx) {
  if (!op.tiling()) return NotFound("The tiling function does not exist for op " + op.type());
  Status st;
  try {
    st = op.tiling()(ctx);
  } catch (const std::exception& e) {
    st = Internal(std::string("threw: ") + e.what());
  } catch (...) {
    st = Internal("threw a non-standard exception");
  }
  if (!st.ok()) {
    return Status(
        st.code() == StatusCode::kInternal ? StatusCode::kInternal : st.code(),
        "Failed to execute tiling function of " + op.type() + ": " + std::string(st.message()));
  }
  return ctx.CheckResult();
}

}  // namespace tessera::runtime
