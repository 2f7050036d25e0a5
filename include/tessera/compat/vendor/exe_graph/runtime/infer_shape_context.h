// exe_graph/runtime/infer_shape_context.h and infer_datatype_context.h: gert::InferShapeContext
// and gert::InferDataTypeContext as vendor shape and dtype functions see them, filled from and
// written back to tessera's runtime::InferShapeContext.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/shape.h"
#include "graph/types.h"
#include "tessera/runtime/op_def.h"

namespace gert {

class InferShapeContext {
 public:
  InferShapeContext(tessera::runtime::InferShapeContext& ctx,
                    const std::vector<std::string>& attr_names)
      : attrs_(OrderedAttrs(ctx.attrs(), attr_names)), outputs_(ctx.outputs().size()) {
    for (const auto& d : ctx.inputs())
      inputs_.emplace_back(d.shape);
  }
  // nullptr for an index out of range.
  const Shape* GetInputShape(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }
  const Shape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
  Shape* GetOutputShape(size_t i) { return i < outputs_.size() ? &outputs_[i] : nullptr; }
  const RuntimeAttrs* GetAttrs() const { return &attrs_; }
  size_t GetComputeNodeInputNum() const { return inputs_.size(); }
  const std::vector<Shape>& outputs() const { return outputs_; }

 private:
  RuntimeAttrs attrs_;
  std::vector<Shape> inputs_;
  std::vector<Shape> outputs_;
};

class InferDataTypeContext {
 public:
  explicit InferDataTypeContext(tessera::runtime::InferShapeContext& ctx)
      : outputs_(ctx.outputs().size(), ge::DT_UNDEFINED) {
    for (const auto& d : ctx.inputs())
      inputs_.push_back(ge::FromTessera(d.dtype));
  }
  // DT_UNDEFINED for an index out of range.
  ge::DataType GetInputDataType(size_t i) const {
    return i < inputs_.size() ? inputs_[i] : ge::DT_UNDEFINED;
  }
  ge::DataType GetOutputDataType(size_t i) const {
    return i < outputs_.size() ? outputs_[i] : ge::DT_UNDEFINED;
  }
  ge::graphStatus SetOutputDataType(size_t i, ge::DataType dtype) {
    if (i >= outputs_.size()) return ge::GRAPH_FAILED;
    outputs_[i] = dtype;
    return ge::GRAPH_SUCCESS;
  }

 private:
  std::vector<ge::DataType> inputs_;
  std::vector<ge::DataType> outputs_;
};

}  // namespace gert
