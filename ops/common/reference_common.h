// Helpers of the host references the built-in ops declare (OpDef::Reference): scalar loops in
// double over runtime::ReferenceArgs, kept independent of the kernels.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/runtime/op_def.h"

namespace tessera::ops {

// Attribute `name` of a reference call, of kind T (the runtime fills in optional defaults, so a
// declared attribute is always there).
template <class T>
T RefAttr(const runtime::ReferenceArgs& args, const char* name) {
  return std::get<T>(args.attrs.at(name));
}

// `v` rounded to `dtype` as a kernel storing it in that type would (float attributes held in the
// tensor's type).
inline double RoundToDtype(DataType dtype, double v) {
  alignas(8) uint8_t buf[8] = {};
  runtime::WriteElement(dtype, buf, 0, v);
  return runtime::ReadElement(dtype, buf, 0);
}

// Element strides of shape `in` read at the coordinates of `out` (numpy broadcasting: aligned
// from the right, 0 along broadcast dims).
inline std::vector<int64_t> RefBroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(static_cast<size_t>(out.rank()), 0);
  int64_t acc = 1;
  for (int i = out.rank() - 1; i >= 0; --i) {
    const int j = i - (out.rank() - in.rank());
    const int64_t d = j < 0 ? 1 : in.dim(j);
    strides[static_cast<size_t>(i)] = d == 1 ? 0 : acc;
    acc *= d;
  }
  return strides;
}

// Output 0 = fn(a, b) element by element in double: `a` from input 0, `b` from input 1 when the op
// has one (numpy-broadcast into output 0's shape), else `scalar`.
template <class Fn>
Status ElementwiseReference(const runtime::ReferenceArgs& args, double scalar, Fn&& fn) {
  const runtime::ReferenceTensor& y = args.outputs.at(0);
  std::vector<const runtime::ReferenceTensor*> in;
  for (const auto& t : args.inputs)
    in.push_back(&t.value());
  const Shape& os = y.desc.shape;
  const int rank = os.rank();
  std::vector<std::vector<int64_t>> strides;
  for (const auto* t : in)
    strides.push_back(RefBroadcastStrides(t->desc.shape, os));
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0), offset(in.size(), 0);
  for (int64_t i = 0; i < y.size(); ++i) {
    const double a = in[0]->Get(offset[0]);
    const double b = in.size() > 1 ? in[1]->Get(offset[1]) : scalar;
    y.Set(i, fn(a, b));
    // Advance the output coordinate and every input's broadcast offset.
    for (int d = rank - 1; d >= 0; --d) {
      const auto ud = static_cast<size_t>(d);
      for (size_t k = 0; k < in.size(); ++k)
        offset[k] += strides[k][ud];
      if (++coord[ud] < os.dim(d)) break;
      for (size_t k = 0; k < in.size(); ++k)
        offset[k] -= strides[k][ud] * os.dim(d);
      coord[ud] = 0;
    }
  }
  return OkStatus();
}

}  // namespace tessera::ops
