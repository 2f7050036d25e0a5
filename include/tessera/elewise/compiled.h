// The compiled back end of elewise: a BlockBuilder whose device side runs the Compute's tile
// program as register-fused code generated in the including translation unit, instead of the
// interpreter of libtessera_elewise. Host side (planning, tiling data, workspace) is the
// interpreter's, so the two back ends take the same arguments and plans and give bit-identical
// results (tests/elewise/backend_equality_test.cc).
//
// Compile the TU for the CPU it runs on (an op package's kernel library is built with -march per
// SoC; elsewhere pass -march yourself): the code uses Highway's static target. At run time the
// interpreter still runs a call when
//   - the program has RA reductions (not compiled yet),
//   - checked mode (TESSERA_CHECK=1) or GM access recording is on (the interpreter traces),
//   - the static target is narrower than the widest the CPU supports (a TU built without -march),
//   - TESSERA_ELEWISE_BACKEND=interpreter is set (debugging, or to compare the back ends).
// The price is compile time: each Compute instantiates its own SIMD code (about a second per
// Compute and dtype).
#pragma once

#include <cstdint>

#include "tessera/elewise/detail/compiled_engine.h"
#include "tessera/elewise/elewise.h"
#include "tessera/elewise/fused.h"

namespace tessera::elewise::block {

template <class Compute_, class Policy_ = policy::DoubleBuffer>
struct CompiledBlockBuilder : BlockBuilder<Compute_, Policy_> {
  using typename BlockBuilder<Compute_, Policy_>::Params;

  // Device side: units [begin, begin + count) on the calling block (see the file comment for
  // when the interpreter runs instead).
  static void Run(const Params& params, int64_t begin, int64_t count) {
    compiled::HWY_NAMESPACE::RunBlock<expr::ProgramFor<Compute_>>(params, begin, count);
  }

  // Whether Run uses the compiled code in this process (false: the interpreter runs).
  static bool UsesCompiledCode() {
    return compiled::HWY_NAMESPACE::UsesCompiled<expr::ProgramFor<Compute_>>();
  }
};

}  // namespace tessera::elewise::block

namespace tessera::elewise {
using block::CompiledBlockBuilder;
}  // namespace tessera::elewise

namespace tessera::elewise::fused {

// The row operators of fused.h on the compiled back end.
template <class Compute>
using CompiledRowOp = DeviceAdapter<KernelBuilder<CompiledBlockBuilder<Compute>>>;

template <class T>
using CompiledRmsNorm = CompiledRowOp<RmsNormCompute<T>>;
template <class T>
using CompiledAddRmsNorm = CompiledRowOp<AddRmsNormCompute<T>>;
template <class T>
using CompiledLayerNorm = CompiledRowOp<LayerNormCompute<T>>;
template <class T>
using CompiledSoftmax = CompiledRowOp<SoftmaxCompute<T>>;
template <class T>
using CompiledSwiGlu = CompiledRowOp<SwiGluCompute<T>>;

}  // namespace tessera::elewise::fused
