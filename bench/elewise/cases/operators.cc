#include "operators.h"

namespace tessera::bench {
namespace {
template <class C>
using InterpretedBlock = elewise::BlockBuilder<C>;
}  // namespace

std::unique_ptr<OperatorRunner> MakeInterpretedOperator(BenchOp op) {
  return ops::MakeRunner<InterpretedBlock>(op);
}

#if !TESSERA_BENCH_HAVE_COMPILED_OPERATORS
std::unique_ptr<OperatorRunner> MakeCompiledOperator(BenchOp) {
  return nullptr;
}
#endif

}  // namespace tessera::bench
