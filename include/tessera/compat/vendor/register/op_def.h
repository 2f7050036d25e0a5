// register/op_def.h: ops::OpDef as vendor op projects declare operators, over tessera's
// runtime::OpDef:
//
//   namespace ops {
//   class AddCustom : public OpDef {
//    public:
//     explicit AddCustom(const char* name) : OpDef(name) {
//       this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
//       this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
//       this->SetInferShape(InferShape).SetInferDataType(InferDataType);
//       this->AICore().SetTiling(TilingFunc).AddConfig("ascend910b");
//     }
//   };
//   OP_ADD(AddCustom);
//   }
//
// Vendor tiling and shape functions run on gert:: contexts built from tessera's. A vendor SoC in
// AddConfig ("ascend910b", ...) configures the op for every CPU ISA level tessera builds for (the
// CPU is the device); a tessera SoC name ("x86-64-v3") configures just that level. A dtype tessera
// has no kernels for (DT_UINT16, ...) makes the op's tiling fail with a message naming it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "tessera/runtime/op_def.h"

namespace ops {

using tessera::runtime::DYNAMIC;
using tessera::runtime::Option;
using tessera::runtime::OPTIONAL;
using tessera::runtime::REQUIRED;

using OpAttrDef = tessera::runtime::OpAttrDef;

namespace detail {
// What the wrapped tiling and shape functions need after construction: shared so the functions
// stored in the OpDef never point into it.
struct OpState {
  std::string type;
  std::vector<std::string> attr_names;
  std::string error;  // first unsupported declaration, reported when the op is used
  std::function<ge::graphStatus(gert::InferDataTypeContext*)> infer_dtype;
};
}  // namespace detail

// One input or output, or its per-SoC override.
class OpParamDef {
 public:
  OpParamDef(tessera::runtime::OpParamDef& param, std::shared_ptr<detail::OpState> state)
      : param_(&param), state_(std::move(state)) {}
  OpParamDef& ParamType(Option type) {
    param_->ParamType(type);
    return *this;
  }
  OpParamDef& DataType(const std::vector<ge::DataType>& dtypes) {
    std::vector<tessera::DataType> out;
    for (ge::DataType d : dtypes) {
      const auto t = ge::ToTessera(d);
      if (!t) Unsupported("dtype " + std::to_string(static_cast<int>(d)));
      out.push_back(t.value_or(tessera::DataType::kFloat32));
    }
    param_->DataType(std::move(out));
    return *this;
  }
  OpParamDef& Format(const std::vector<ge::Format>& formats) {
    std::vector<tessera::Format> out;
    for (ge::Format f : formats) {
      const auto t = ge::ToTessera(f);
      if (!t) Unsupported("format " + std::to_string(static_cast<int>(f)));
      out.push_back(t.value_or(tessera::Format::kND));
    }
    param_->Format(std::move(out));
    return *this;
  }
  // The older spelling of Format for dynamic shapes; the same list.
  OpParamDef& UnknownShapeFormat(const std::vector<ge::Format>& formats) { return Format(formats); }
  OpParamDef& Follow(const char* other) {
    param_->Follow(other);
    return *this;
  }

 private:
  void Unsupported(const std::string& what) {
    if (state_->error.empty()) {
      state_->error = "op " + state_->type + " declares " + what + " for parameter " +
                      param_->name() + ", which tessera does not support";
    }
  }
  tessera::runtime::OpParamDef* param_;
  std::shared_ptr<detail::OpState> state_;
};

class OpDef;

// Per-SoC overrides (AddConfig(soc, config)). The vendor compiler's flags are accepted for source
// compatibility: tessera compiles one binary per SoC, so they select nothing.
class OpAICoreConfig {
 public:
  OpAICoreConfig() : state_(std::make_shared<detail::OpState>()) {}
  OpParamDef Input(const char* name) { return OpParamDef(config_.Input(name), state_); }
  OpParamDef Output(const char* name) { return OpParamDef(config_.Output(name), state_); }
  OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
  OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
  OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
  OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
  OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
  OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
  OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }

 private:
  friend class OpAICoreDef;
  tessera::runtime::OpAICoreConfig config_;
  std::shared_ptr<detail::OpState> state_;
};

// this->AICore(): the tiling function and the SoCs.
class OpAICoreDef {
 public:
  explicit OpAICoreDef(OpDef& op) : op_(op) {}
  // `fn`: ge::graphStatus(gert::TilingContext*). Anything but GRAPH_SUCCESS fails the call with
  // CANN's "Failed to execute tiling function" naming the status.
  OpAICoreDef& SetTiling(std::function<ge::graphStatus(gert::TilingContext*)> fn);
  OpAICoreDef& AddConfig(const char* soc) { return AddConfig(soc, OpAICoreConfig()); }
  OpAICoreDef& AddConfig(const char* soc, const OpAICoreConfig& config);

 private:
  OpDef& op_;
};

class OpDef : public tessera::runtime::OpDef {
 public:
  explicit OpDef(const char* type)
      : tessera::runtime::OpDef(type), state_(std::make_shared<detail::OpState>()), aicore_(*this) {
    state_->type = type;
  }
  OpDef(const OpDef&) = delete;
  OpDef& operator=(const OpDef&) = delete;

  OpParamDef Input(const char* name) {
    return OpParamDef(tessera::runtime::OpDef::Input(name), state_);
  }
  OpParamDef Output(const char* name) {
    return OpParamDef(tessera::runtime::OpDef::Output(name), state_);
  }
  // Attributes keep their declaration index for gert::RuntimeAttrs.
  OpAttrDef& Attr(const char* name) {
    bool known = false;
    for (const auto& n : state_->attr_names)
      known = known || n == name;
    if (!known) state_->attr_names.emplace_back(name);
    return tessera::runtime::OpDef::Attr(name);
  }
  // `fn`: ge::graphStatus(gert::InferShapeContext*); output dtypes come from SetInferDataType's
  // function, else the first input's.
  OpDef& SetInferShape(std::function<ge::graphStatus(gert::InferShapeContext*)> fn) {
    auto state = state_;
    tessera::runtime::OpDef::SetInferShape(
        [state, fn](tessera::runtime::InferShapeContext& ctx) -> tessera::Status {
          gert::InferShapeContext shapes(ctx, state->attr_names);
          const ge::graphStatus st = fn(&shapes);
          if (st != ge::GRAPH_SUCCESS) {
            return tessera::InvalidArgument("InferShape of " + state->type +
                                            " returned graphStatus " + std::to_string(st));
          }
          gert::InferDataTypeContext dtypes(ctx);
          if (state->infer_dtype) {
            const ge::graphStatus dst = state->infer_dtype(&dtypes);
            if (dst != ge::GRAPH_SUCCESS) {
              return tessera::InvalidArgument("InferDataType of " + state->type +
                                              " returned graphStatus " + std::to_string(dst));
            }
          }
          for (size_t i = 0; i < ctx.outputs().size(); ++i) {
            const gert::Shape& s = shapes.outputs()[i];
            std::vector<int64_t> dims;
            for (size_t d = 0; d < s.GetDimNum(); ++d)
              dims.push_back(s.GetDim(d));
            TESSERA_ASSIGN_OR_RETURN(tessera::Shape shape, tessera::Shape::Make(dims));
            ge::DataType dt = dtypes.GetOutputDataType(i);
            if (dt == ge::DT_UNDEFINED) dt = dtypes.GetInputDataType(0);
            const auto t = ge::ToTessera(dt);
            if (!t) {
              return tessera::InvalidArgument("InferDataType of " + state->type + " gave output " +
                                              std::to_string(i) + " dtype " + std::to_string(dt) +
                                              ", which tessera does not support");
            }
            ctx.outputs()[i] = tessera::TensorDesc{*t, shape, tessera::Format::kND, {}};
          }
          return tessera::OkStatus();
        });
    return *this;
  }
  OpDef& SetInferDataType(std::function<ge::graphStatus(gert::InferDataTypeContext*)> fn) {
    state_->infer_dtype = std::move(fn);
    return *this;
  }
  OpAICoreDef& AICore() { return aicore_; }

 private:
  friend class OpAICoreDef;
  std::shared_ptr<detail::OpState> state_;
  OpAICoreDef aicore_;
};

inline OpAICoreDef& OpAICoreDef::SetTiling(
    std::function<ge::graphStatus(gert::TilingContext*)> fn) {
  auto state = op_.state_;
  op_.SetTiling([state, fn](tessera::runtime::TilingContext& ctx) -> tessera::Status {
    if (!state->error.empty()) return tessera::InvalidArgument(state->error);
    gert::TilingContext vendor(ctx, state->attr_names);
    const ge::graphStatus st = fn(&vendor);
    if (st != ge::GRAPH_SUCCESS) {
      return tessera::InvalidArgument("tiling function of " + state->type +
                                      " returned graphStatus " + std::to_string(st));
    }
    vendor.Commit();
    return tessera::OkStatus();
  });
  return *this;
}

inline OpAICoreDef& OpAICoreDef::AddConfig(const char* soc, const OpAICoreConfig& config) {
  if (!config.state_->error.empty() && op_.state_->error.empty())
    op_.state_->error = config.state_->error;
  static constexpr const char* kLevels[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"};
  const std::string name = soc;
  bool is_level = false;
  for (const char* level : kLevels)
    is_level = is_level || name == level;
  if (is_level) {
    op_.tessera::runtime::OpDef::AddConfig(name, config.config_);
    return *this;
  }
  for (const char* level : kLevels)
    op_.tessera::runtime::OpDef::AddConfig(level, config.config_);
  return *this;
}

}  // namespace ops
