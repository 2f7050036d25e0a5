// Built with -march of the build machine's SoC (CMakeLists.txt); callers check the CPU first.
#include "operators.h"
#include "tessera/elewise/compiled.h"

namespace tessera::bench {
namespace {
template <class C>
using CompiledBlock = elewise::CompiledBlockBuilder<C>;
}  // namespace

std::unique_ptr<OperatorRunner> MakeCompiledOperator(BenchOp op) {
  return ops::MakeRunner<CompiledBlock>(op);
}

}  // namespace tessera::bench
