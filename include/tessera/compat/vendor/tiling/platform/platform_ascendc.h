// The vendor's host platform query (tiling/platform/platform_ascendc.h): core counts, on-chip
// memory sizes and the SoC of the device a tiling is computed for.
//
//   auto* p = platform_ascendc::PlatformAscendCManager::GetInstance();   // or ("Ascend910B1")
//   matmul_tiling::MultiCoreMatmulTiling t(*p);
//   t.SetDim(p->GetCoreNumAic());
//
// tessera's device is the CPU; the values are those of its `ascend910b` profile (the 2201 AI core:
// 24 AIC, 48 AIV, L1 512 KB, L0A/L0B 64 KB, L0C 128 KB, UB 192 KB, bias table 1 KB, fixpipe buffer
// 2 KB), so a tiling computed here is the one the NPU gets. As on 910B, UB and L1 are reported 256
// bytes short (the vendor reserves them for the Matmul server).
#pragma once

#include <cstdint>
#include <cstring>
#include <mutex>

#include "tessera/kernel/matmul/profile.h"

namespace platform_ascendc {

enum class CoreMemType {
  L0_A = 0,
  L0_B = 1,
  L0_C = 2,
  L1 = 3,
  L2 = 4,
  UB = 5,
  HBM = 6,
  FB = 7,
  BT = 8,
  RESERVED
};

enum class SocVersion {
  ASCEND910 = 0,
  ASCEND910B,
  ASCEND310P,
  ASCEND310B,
  ASCEND950,
  ASCEND910_55,
  ASCEND910_95 = ASCEND950,
  AS31XM1,
  ASCEND031,
  ASCEND035,
  ASCEND310,
  ASCEND610,
  ASCEND610Lite,
  ASCEND910_93,
  BS9SX1A,
  BS9SX2A,
  HI3796CV300CS,
  HI3796CV300ES,
  MC61AM21A,
  MC62,
  SD3403,
  KIRINX90,
  KIRIN9030,
  MC32DM11A,
  ASCEND350,
  RESERVED_VERSION = 99999
};

enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
 public:
  // The ascend910b profile's sizes.
  PlatformAscendC() : spec_(Profile()) {}

  // Cube cores (the core count of a MIX launch on 910B).
  uint32_t GetCoreNum() const { return spec_.aic_cores; }
  uint32_t GetCoreNumAic() const { return spec_.aic_cores; }
  uint32_t GetCoreNumAiv() const { return spec_.aiv_cores; }
  // Only the 200-series has separate vector cores.
  uint32_t GetCoreNumVector() const { return 0; }
  // Blocks for `sliceNum` slices: at most the cores used (AIV cores count per AIC core in MIX).
  uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
  }
  uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const {
    if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
    const uint32_t ration = aivCoreNum / aicCoreNum;
    return (sliceNum + ration - 1) / ration;
  }
  // GM bytes the advanced APIs (the Matmul server) need: 16 MB on 910B.
  uint32_t GetLibApiWorkSpaceSize() const { return 16u * 1024 * 1024; }
  uint32_t GetResCubeGroupWorkSpaceSize() const { return 1u * 1024 * 1024; }
  uint32_t GetResGroupBarrierWorkSpaceSize() const { return 1u * 1024 * 1024; }
  // Bytes of one core's memory of `memType` (0 for kinds tessera does not model: L2, HBM).
  void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const {
    switch (memType) {
      case CoreMemType::L0_A:
        size = spec_.l0a_bytes;
        break;
      case CoreMemType::L0_B:
        size = spec_.l0b_bytes;
        break;
      case CoreMemType::L0_C:
        size = spec_.l0c_bytes;
        break;
      case CoreMemType::L1:
        size = spec_.l1_bytes - kServerReserve;
        break;
      case CoreMemType::UB:
        size = spec_.ub_bytes - kServerReserve - reserved_;
        break;
      case CoreMemType::FB:
        size = spec_.fb_bytes;
        break;
      case CoreMemType::BT:
        size = spec_.bt_bytes;
        break;
      default:
        size = 0;
        break;
    }
  }
  // Bandwidth is not modelled: 0.
  void GetCoreMemBw(const CoreMemType&, uint64_t& bwSize) const { bwSize = 0; }
  // Keeps `size` of UB out of GetCoreMemSize(UB).
  void ReserveLocalMemory(ReservedSize size) {
    reserved_ = size == ReservedSize::RESERVED_SIZE_8K    ? 8u * 1024
                : size == ReservedSize::RESERVED_SIZE_16K ? 16u * 1024
                                                          : 32u * 1024;
  }
  SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
  // Bytes of one vector register (256 on 2201).
  uint32_t GetVecRegLen() const { return 256; }

 private:
  static constexpr uint64_t kServerReserve = 256;
  static tessera::kernel::AiCoreProfile Profile() { return tessera::kernel::Ascend910bProfile(); }
  tessera::kernel::AiCoreProfile spec_;
  uint64_t reserved_ = 0;
};

class PlatformAscendCManager {
 public:
  // The process's platform (one instance). A SoC name other than a 910B one ("Ascend910B1" ...) is
  // refused with nullptr, as the vendor does for an unknown SoC.
  static PlatformAscendC* GetInstance() { return Instance(); }
  static PlatformAscendC* GetInstance(const char* customSocVersion) {
    if (customSocVersion != nullptr && std::strncmp(customSocVersion, "Ascend910B", 10) != 0 &&
        std::strncmp(customSocVersion, "Ascend910_93", 12) != 0) {
      return nullptr;
    }
    return Instance();
  }

 private:
  static PlatformAscendC* Instance() {
    static PlatformAscendC platform;
    return &platform;
  }
};

}  // namespace platform_ascendc
