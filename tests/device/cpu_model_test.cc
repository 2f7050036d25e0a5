// CPU model (compute unit) identification from fake CPUID/MIDR values, and this machine's.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tessera/device/arch_spec.h"

namespace tessera::device {
namespace {

std::string ModelOf(std::string_view vendor, uint32_t family, uint32_t model,
                    uint32_t stepping = 0) {
  const CpuModel* m = CpuModelOf(CpuIdentity{vendor, family, model, stepping});
  return m ? std::string(m->name) : "";
}

TEST(CpuModel, IntelFamily6Models) {
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x3C), "haswell");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x4F), "broadwell");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x9E), "skylake");  // Kaby/Coffee Lake: Skylake cores
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x55, 4), "skylake-avx512");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x55, 7), "cascadelake");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x55, 11), "cooperlake");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x55, 8), "");  // no product has this stepping
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x6A), "icelake-server");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x7E), "icelake-client");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x8F), "sapphirerapids");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x97), "alderlake");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x2A), "sandybridge");
  EXPECT_EQ(ModelOf("GenuineIntel", 6, 0x01), "");
  EXPECT_EQ(ModelOf("GenuineIntel", 15, 0x3C), "");  // NetBurst family, not family 6
}

TEST(CpuModel, AmdFamilies) {
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x17, 0x01), "znver1");
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x17, 0x31), "znver2");
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x19, 0x01), "znver3");  // Milan
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x19, 0x21), "znver3");  // Vermeer
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x19, 0x11), "znver4");  // Genoa
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x19, 0x61), "znver4");  // Raphael
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x19, 0xA0), "znver4");  // Bergamo
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x1A, 0x02), "znver5");
  EXPECT_EQ(ModelOf("AuthenticAMD", 0x15, 0x02), "");  // Bulldozer family: not in the table
  EXPECT_EQ(ModelOf("HygonGenuine", 0x18, 0x01), "");
}

TEST(CpuModel, ArmParts) {
  EXPECT_EQ(ModelOf("arm", 0, 0xD0C), "neoverse-n1");
  EXPECT_EQ(ModelOf("arm", 0, 0xD40), "neoverse-v1");
  EXPECT_EQ(ModelOf("arm", 0, 0xD08), "cortex-a72");
  EXPECT_EQ(ModelOf("arm", 0, 0x123), "");
}

TEST(CpuModel, TableIsConsistent) {
  std::set<std::string_view> names;
  const std::set<std::string_view> levels = {"x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"};
  for (const CpuModel& m : KnownCpuModels()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name << " repeats";
    EXPECT_TRUE(levels.count(m.soc)) << m.name << " has level " << m.soc;
    EXPECT_EQ(FindCpuModel(m.name), &m);
  }
  EXPECT_EQ(FindCpuModel("znver99"), nullptr);
}

// This machine's model is either unknown or one the table knows, never above the machine's ISA
// level (a hypervisor may hide features the model has).
TEST(CpuModel, ThisMachine) {
  const std::string unit = DetectComputeUnit();
  const ArchSpec spec = *FindProfile("native");
  EXPECT_EQ(spec.compute_unit, unit);
  if (unit.empty()) GTEST_SKIP() << "CPU model not identified on this machine";
  const CpuModel* m = FindCpuModel(unit);
  ASSERT_NE(m, nullptr) << unit;
  const std::string soc = DetectSoc();
  if (soc.rfind("x86-64", 0) == 0) {
    EXPECT_LE(std::string(m->soc), soc) << unit;
  }
}

}  // namespace
}  // namespace tessera::device
