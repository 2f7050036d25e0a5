// An elewise Compute as an operator of a package, in three lines (docs/first_op_package.md):
//
//   // axpy.h, included by the op source and the kernel source
//   template <class T> struct AxpyCompute { ... (y = Attr<"alpha">(1.0f) * x1 + x2) ... };
//   TESSERA_ELEWISE_OP(Axpy, AxpyCompute, float, tessera::half);
//   // axpy_op.cc (the package's op library: OpDef + tiling)
//   TESSERA_ELEWISE_OP_DEF(Axpy);
//   // axpy_kernel.cc (the kernel library, compiled once per SoC)
//   TESSERA_ELEWISE_OP_KERNEL(Axpy);
//
// Contract:
// - Compute<T> is an elewise Compute struct (expr.h) for every listed dtype T; its parameters are
//   tensors only: ParamUsage::IN PlaceHolders are the op's inputs and OUT ones its outputs, each in
//   PlaceHolder order (inputs x, or x1..xn; outputs y, or y1..yn). Op scalars are attributes:
//   Attr<"name">() is a required attribute, Attr<"name">(v) an optional one with default v
//   (float, or int with Attr<"name", int32_t>). Every T gives the same parameters and attributes.
// - The OpDef has one dtype column per T (each parameter with the dtype Compute<T> gives it),
//   format ND, AddConfig for every SoC tessera knows; the tiling key is T's DataType code.
// - Tiling: every tensor contiguous; shapes, broadcasting and the UB fit are checked as by
//   DeviceAdapter::can_implement (errors prefixed with the op type). The tiling data holds the
//   whole plan: the kernel entry binds it to the GM addresses and plans nothing.
// - TESSERA_ELEWISE_OP defines type `Name` in the current namespace (put each package in its own
//   namespace); TESSERA_ELEWISE_OP_DEF and TESSERA_ELEWISE_OP_KERNEL are used once each, at
//   namespace scope, next to the library's TESSERA_OP_LIBRARY() / TESSERA_KERNEL_LIBRARY().
//   Selective builds (TILING_KEYS) select among the dtype keys.
//
// This header joins elewise and the runtime (OpDef, TilingContext): it is for package sources,
// which use every layer; no part of the elewise library includes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/status.h"
#include "tessera/elewise/block.h"
#include "tessera/elewise/expr.h"
#include "tessera/elewise/grid.h"
#include "tessera/elewise/op_kernel.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::elewise::op {

// The op type as a template argument.
template <size_t L>
struct OpName {
  char chars[L] = {};
  constexpr OpName(const char (&s)[L]) {  // NOLINT: implicit from a string literal by design
    for (size_t i = 0; i < L; ++i)
      chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, L - 1}; }
};

// OpDef::KernelName() at compile time: AddCustom -> add_custom, RMSNorm -> rms_norm.
template <size_t L>
struct KernelName {
  char chars[2 * L] = {};
  constexpr explicit KernelName(std::string_view type) {
    auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
    auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
    size_t n = 0;
    for (size_t i = 0; i < type.size(); ++i) {
      const char c = type[i];
      if (upper(c) && i > 0) {
        const char prev = type[i - 1];
        const bool next_lower = i + 1 < type.size() && lower(type[i + 1]);
        if (lower(prev) || (prev >= '0' && prev <= '9') || (upper(prev) && next_lower)) {
          chars[n++] = '_';
        }
      }
      chars[n++] = upper(c) ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  constexpr const char* c_str() const { return chars; }
  constexpr std::string_view view() const { return chars; }
};

namespace detail {

// Compute-time facts about a program, checked by ElewiseOp.
constexpr uint32_t CountParams(const tile::ProgramView& p, ParamUsage usage) {
  uint32_t n = 0;
  for (const tile::ParamInfo& info : p.params)
    n += info.usage == usage ? 1 : 0;
  return n;
}
constexpr bool OnlyTensorsInOrOut(const tile::ProgramView& p) {
  for (const tile::ParamInfo& info : p.params) {
    if (!info.is_tensor || info.usage == ParamUsage::IN_OUT) return false;
  }
  return true;
}
constexpr bool SameInterface(const tile::ProgramView& a, const tile::ProgramView& b) {
  if (a.params.size() != b.params.size() || a.attrs.size() != b.attrs.size()) return false;
  for (size_t i = 0; i < a.params.size(); ++i) {
    if (a.params[i].usage != b.params[i].usage) return false;
  }
  for (size_t i = 0; i < a.attrs.size(); ++i) {
    if (a.attrs[i].name != b.attrs[i].name || a.attrs[i].dtype != b.attrs[i].dtype ||
        a.attrs[i].has_default != b.attrs[i].has_default ||
        a.attrs[i].default_value != b.attrs[i].default_value) {
      return false;
    }
  }
  return true;
}

// Where PlaceHolder `i` lives among the kernel's GM addresses: inputs first, then outputs.
inline int32_t GmIndex(const tile::ProgramView& p, size_t i, uint32_t num_inputs) {
  int32_t same = 0;
  for (size_t k = 0; k < i; ++k)
    same += p.params[k].usage == p.params[i].usage ? 1 : 0;
  return p.params[i].usage == ParamUsage::IN ? same : static_cast<int32_t>(num_inputs) + same;
}

inline std::string ParamName(const char* base, uint32_t index, uint32_t count) {
  return count == 1 ? std::string(base) : base + std::to_string(index + 1);
}

}  // namespace detail

// An elewise operator of a package: the op type, the Compute template and its dtypes. Defined by
// TESSERA_ELEWISE_OP; read by TESSERA_ELEWISE_OP_DEF (host) and TESSERA_ELEWISE_OP_KERNEL (device).
template <OpName Name_, template <class> class Compute_, class... T_>
struct ElewiseOp {
  static_assert(sizeof...(T_) > 0, "TESSERA_ELEWISE_OP: list at least one dtype");

  static constexpr std::string_view kName = Name_.view();
  static constexpr KernelName<sizeof(Name_.chars)> kKernelName{Name_.view()};

  template <class T>
  using KernelOp = grid::KernelBuilder<block::BlockBuilder<Compute_<T>>>;
  template <class T>
  static constexpr tile::ProgramView Program() {
    return KernelOp<T>::BlockOp::Program();
  }
  // The dtypes' programs in list order: column i of the OpDef is Program<T_i>.
  static constexpr std::array<tile::ProgramView, sizeof...(T_)> kPrograms{Program<T_>()...};
  // T's tiling key: its DataType code.
  template <class T>
  static constexpr uint64_t kKey = static_cast<uint64_t>(DataTypeOf<T>::value);

  static constexpr uint32_t kNumInputs = detail::CountParams(kPrograms[0], ParamUsage::IN);
  static constexpr uint32_t kNumOutputs = detail::CountParams(kPrograms[0], ParamUsage::OUT);
  static constexpr uint32_t kNumGm = kNumInputs + kNumOutputs;

  static_assert(detail::OnlyTensorsInOrOut(kPrograms[0]),
                "TESSERA_ELEWISE_OP: the Compute's parameters must be IN or OUT tensors; pass op "
                "scalars as attributes (Attr<\"name\">)");
  static_assert(kNumOutputs > 0, "TESSERA_ELEWISE_OP: the Compute writes no OUT PlaceHolder");
  static_assert(kNumGm <= op_kernel::kMaxOperands &&
                    kPrograms[0].attrs.size() <= op_kernel::kMaxAttrs,
                "TESSERA_ELEWISE_OP: at most 16 parameters and 8 attributes (ElewiseTilingData)");
  static_assert((detail::SameInterface(kPrograms[0], Program<T_>()) && ...),
                "TESSERA_ELEWISE_OP: every dtype's Compute must have the same parameters and "
                "attributes (with the same defaults)");
};

namespace detail {

// Host: the op's tiling function. Describes each PlaceHolder by its input or output desc, reads
// the attributes the Compute uses, plans the column the call's dtypes select.
template <class Op, class T>
Status TilingFor(runtime::TilingContext& ctx, const op_kernel::OpArguments& args) {
  const runtime::PlatformInfo& platform = ctx.GetPlatformInfo();
  Result<op_kernel::OpTiling> t = op_kernel::MakeOpTiling<typename Op::template KernelOp<T>>(
      args, Op::kNumGm, platform.ub_bytes, platform.aiv_cores);
  if (!t.ok()) {
    return Status(t.status().code(), ctx.GetOpType() + ": " + std::string(t.status().message()));
  }
  ctx.SetBlockDim(t->block_dim);
  ctx.SetTilingKey(Op::template kKey<T>);
  ctx.SetTilingData(t->data);
  if (t->workspace_bytes > 0) ctx.SetWorkspaceSizes({t->workspace_bytes});
  return OkStatus();
}

template <class Op, class T>
bool ColumnMatches(const std::vector<const TensorDesc*>& descs) {
  constexpr tile::ProgramView p = Op::template Program<T>();
  for (size_t i = 0; i < descs.size(); ++i) {
    if (descs[i]->dtype != p.params[i].dtype) return false;
  }
  return true;
}

template <class Op, class... T>
Status Tiling(runtime::TilingContext& ctx) {
  constexpr tile::ProgramView p = Op::kPrograms[0];
  std::vector<const TensorDesc*> descs;
  op_kernel::OpArguments args;
  for (size_t i = 0; i < p.params.size(); ++i) {
    const int32_t gm = GmIndex(p, i, Op::kNumInputs);
    const bool in = p.params[i].usage == ParamUsage::IN;
    const TensorDesc* d = in ? ctx.GetInputDesc(gm) : ctx.GetOutputDesc(gm - Op::kNumInputs);
    const std::string name = in ? ParamName("x", gm, Op::kNumInputs)
                                : ParamName("y", gm - Op::kNumInputs, Op::kNumOutputs);
    if (d == nullptr) return InvalidArgument(ctx.GetOpType() + ": " + name + " is missing");
    TESSERA_RETURN_IF_ERROR(d->Validate());
    if (!d->IsContiguous()) {
      return InvalidArgument(ctx.GetOpType() + ": " + name + " " + d->ToString() +
                             " is not contiguous; this op takes contiguous tensors");
    }
    descs.push_back(d);
    args.params.emplace_back(op_kernel::OpTensor{gm, 0, d->dtype, d->shape, 0});
  }
  for (const tile::AttrInfo& a : p.attrs) {
    const std::string name(a.name);
    if (a.dtype == DataType::kInt32) {
      TESSERA_ASSIGN_OR_RETURN(const int64_t v, ctx.GetIntAttr(name));
      args.attrs.Set(name, v);
    } else {
      TESSERA_ASSIGN_OR_RETURN(const float v, ctx.GetFloatAttr(name));
      args.attrs.Set(name, static_cast<double>(v));
    }
  }
  Status st = InvalidArgument(ctx.GetOpType() + ": no dtype column of the op matches the call");
  (void)((ColumnMatches<Op, T>(descs) ? (st = TilingFor<Op, T>(ctx, args), true) : false) || ...);
  return st;
}

}  // namespace detail

// The OpDef TESSERA_ELEWISE_OP_DEF registers for `Op` (an ElewiseOp).
template <class Op>
class ElewiseOpDef;

template <OpName Name, template <class> class Compute, class... T>
class ElewiseOpDef<ElewiseOp<Name, Compute, T...>> : public runtime::OpDef {
  using Op = ElewiseOp<Name, Compute, T...>;

 public:
  ElewiseOpDef() : OpDef(std::string(Op::kName)) {
    constexpr tile::ProgramView p = Op::kPrograms[0];
    const std::vector<Format> nd(sizeof...(T), Format::kND);
    for (size_t i = 0; i < p.params.size(); ++i) {
      const std::vector<DataType> column = {Op::template Program<T>().params[i].dtype...};
      const int32_t gm = detail::GmIndex(p, i, Op::kNumInputs);
      if (p.params[i].usage == ParamUsage::IN) {
        Input(detail::ParamName("x", gm, Op::kNumInputs))
            .ParamType(runtime::REQUIRED)
            .DataType(column)
            .Format(nd);
      } else {
        Output(detail::ParamName("y", gm - Op::kNumInputs, Op::kNumOutputs))
            .ParamType(runtime::REQUIRED)
            .DataType(column)
            .Format(nd);
      }
    }
    for (const tile::AttrInfo& a : p.attrs) {
      runtime::OpAttrDef& attr =
          Attr(std::string(a.name)).AttrType(a.has_default ? runtime::OPTIONAL : runtime::REQUIRED);
      if (a.dtype == DataType::kInt32) {
        attr.Int(static_cast<int64_t>(a.default_value));
      } else {
        attr.Float(static_cast<float>(a.default_value));
      }
    }
    SetTiling(&detail::Tiling<Op, T...>);
    TilingDataType<op_kernel::ElewiseTilingData>();
    for (const char* soc : {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"})
      AddConfig(soc);
  }
};

// Device: the kernel entry of dtype T. Parameters as every entry's: the op's inputs, outputs,
// workspace, tiling.
template <class Op, class T>
void KernelEntry(uint8_t* const* args) {
  const auto t = tiling::GetTilingData<op_kernel::ElewiseTilingData>(args[Op::kNumGm + 1]);
  op_kernel::RunOpBlock<typename Op::template KernelOp<T>>(
      t, std::span<uint8_t* const>(args, Op::kNumGm), args[Op::kNumGm]);
}

}  // namespace tessera::elewise::op

// Per package (TESSERA_PACKAGE_NAMESPACE): registration honours the package's selective build.
namespace tessera::elewise::op::detail::TESSERA_PACKAGE_NAMESPACE {

template <class Op, class T>
void RegisterEntry() {
  constexpr bool selected = ::tessera::kernel::detail::TilingKeySelected(
      TESSERA_SELECTED_TILING_KEYS_, Op::kKernelName.view(), Op::template kKey<T>);
  ::tessera::kernel::detail::SelectedEntry entry;
  if constexpr (selected) entry = {Op::kNumGm + 2, &KernelEntry<Op, T>};
  (void)::tessera::kernel::detail::TESSERA_PACKAGE_NAMESPACE::EntryRegistrar(
      Op::kKernelName.c_str(), Op::template kKey<T>, "AIV", entry);
}

// Registers the kernel entries of `Op` (an ElewiseOp), one per dtype.
template <class Op>
struct KernelRegistrar;

template <OpName Name, template <class> class Compute, class... T>
struct KernelRegistrar<ElewiseOp<Name, Compute, T...>> {
  KernelRegistrar() { (RegisterEntry<ElewiseOp<Name, Compute, T...>, T>(), ...); }
};

}  // namespace tessera::elewise::op::detail::TESSERA_PACKAGE_NAMESPACE

// In a header shared by the op and kernel sources: declares op `Name` (type Name, op type "Name")
// computing Compute<T> for each listed dtype T.
#define TESSERA_ELEWISE_OP(Name, Compute, ...) \
  using Name = ::tessera::elewise::op::ElewiseOp<#Name, Compute, __VA_ARGS__>

// In one source of the op library: registers Name's OpDef and tiling function.
#define TESSERA_ELEWISE_OP_DEF(Name)                                                \
  using tessera_elewise_op_def_##Name = ::tessera::elewise::op::ElewiseOpDef<Name>; \
  TESSERA_OP_ADD(tessera_elewise_op_def_##Name)

// In one source of the kernel library: registers Name's kernel entries (one per dtype).
#define TESSERA_ELEWISE_OP_KERNEL(Name)                                                         \
  static const ::tessera::elewise::op::detail::TESSERA_PACKAGE_NAMESPACE::KernelRegistrar<Name> \
      tessera_elewise_op_kernel_##Name
