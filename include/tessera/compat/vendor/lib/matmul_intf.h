// The vendor's high-level Matmul API header (lib/matmul_intf.h): AscendC::Matmul, MatmulType,
// REGIST_MATMUL_OBJ and the global names the vendor declares with them (CubeFormat, MatmulConfig,
// CFG_NORM / CFG_MDL / GetMMConfig ..., TCubeTiling, GetSysWorkSpacePtr), over tessera's
// tessera/kernel/matmul/matmul.h.
//
//   #include "kernel_operator.h"
//   #define ASCENDC_CUBE_ONLY            // before this header: the AIC computes (a __cube__
//   kernel) #include "lib/matmul_intf.h"
//   AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>, ...> mm;
//   REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
//
// Without ASCENDC_CUBE_ONLY a MIX (__mix__(1, 2)) kernel's AIVs are clients of their group's AIC,
// as on the NPU; older kernels name the same things through `using namespace matmul`.
#pragma once

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "tessera/kernel/matmul/matmul.h"

using tessera::kernel::BatchMode;
using tessera::kernel::BatchOutMode;
using tessera::kernel::CFG_IBSHARE_NORM;
using tessera::kernel::CFG_MDL;
using tessera::kernel::CFG_NORM;
using tessera::kernel::CubeFormat;
using tessera::kernel::DecompressionMode;
using tessera::kernel::DYNAMIC;
using tessera::kernel::GetBasicConfig;
using tessera::kernel::GetIBShareNormConfig;
using tessera::kernel::GetMatmulApiTiling;
using tessera::kernel::GetMDLConfig;
using tessera::kernel::GetMMConfig;
using tessera::kernel::GetNormalConfig;
using tessera::kernel::GetSpecialMDLConfig;
using tessera::kernel::GetSysWorkSpacePtr;
using tessera::kernel::ITERATE_MODE_ALL;
using tessera::kernel::ITERATE_MODE_BATCH;
using tessera::kernel::ITERATE_MODE_DEFAULT;
using tessera::kernel::ITERATE_MODE_N_BATCH;
using tessera::kernel::ITERATE_MODE_NORMAL;
using tessera::kernel::IterateMode;
using tessera::kernel::IterateOrder;
using tessera::kernel::LayoutMode;
using tessera::kernel::MatmulApiStaticTiling;
using tessera::kernel::MatmulBatchParams;
using tessera::kernel::MatmulBiasParams;
using tessera::kernel::MatmulConfig;
using tessera::kernel::MatmulConfigMode;
using tessera::kernel::MatmulFuncParams;
using tessera::kernel::MatmulQuantParams;
using tessera::kernel::MatmulShapeParams;
using tessera::kernel::MM_CFG_BB;
using tessera::kernel::MULTI_BATCH;
using tessera::kernel::ScheduleType;
using tessera::kernel::SHARED_CO1_BUFFER_SIZE;
using tessera::kernel::SINGLE_BATCH;

namespace AscendC {
namespace Impl {
// Depth of the queues the vendor's matmul kernels declare for their L0C / CO1 buffers.
inline constexpr int32_t QUEUE_DEPTH = 1;
}  // namespace Impl
// Integer ceiling division and rounding up to a multiple, as the vendor's matmul utilities.
template <class T>
T Ceil(T num1, T num2) {
  if (!(num2 > 0)) ::tessera::kernel::KernelFail("Ceil", "the divisor must be positive");
  return (num1 + num2 - 1) / num2;
}
template <class T>
T CeilAlign(T num1, T num2) {
  return Ceil(num1, num2) * num2;
}
namespace Impl::Detail {
using ::tessera::kernel::matmul_policy::MatmulPolicy;
using ::tessera::kernel::matmul_policy::NBuffer33MatmulPolicy;
}  // namespace Impl::Detail
// Bytes of one C0 unit (a fractal row of 32 bytes), which Matmul kernels use for copy strides.
inline constexpr uint32_t DEFAULT_C0_SIZE = 32;
// The L0C (accumulator) type of a Matmul input type on dav-2201: float for half, bfloat16 and
// float, int32 for int8; any other type accumulates in itself, as the vendor's primary template.
template <class T>
struct GetMmDstType {
  using Type = T;
};
template <>
struct GetMmDstType<half> {
  using Type = float;
};
template <>
struct GetMmDstType<bfloat16_t> {
  using Type = float;
};
template <>
struct GetMmDstType<int8_t> {
  using Type = int32_t;
};
}  // namespace AscendC

namespace matmul {
using namespace AscendC;
}  // namespace matmul

#ifndef REGIST_MATMUL_OBJ_STATIC
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#endif
