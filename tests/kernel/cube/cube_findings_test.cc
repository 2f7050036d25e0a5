// Every cube-side finding: the stream error names kernel, block, API and the values. The CATLASS
// pattern (events pre-set in a constructor, waited in the destructor) is not a finding.
#include <gtest/gtest.h>

#include <string>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::Contains;
using testing::RunCube;

// Device memory the kernels below may use as a GM tensor (checked mode accepts only device memory).
void* Scratch() {
  static void* p = [] {
    auto r = device::Malloc(1 << 20);
    EXPECT_TRUE(r.ok());
    return *r;
  }();
  return p;
}

Status RunAic(const char* name, void (*kernel)()) {
  return RunCube(name, KernelType::kAic, 1, kernel);
}

void ExpectFinding(const char* name, void (*kernel)(), bool checked,
                   std::initializer_list<const char*> needles) {
  testing::CheckedScope scope(checked);
  Status st = RunAic(name, kernel);
  ASSERT_FALSE(st.ok()) << name;
  const std::string where = std::string("kernel '") + name + "' block 0 (AIC)";
  EXPECT_TRUE(Contains(st, where)) << st.ToString();
  for (const char* n : needles)
    EXPECT_TRUE(Contains(st, n)) << "missing '" << n << "' in " << st.ToString();
}

// ---- capacity ----
// Each request exceeds the active profile's buffer (native's are larger than the 2201's).
const device::ArchSpec* g_arch = nullptr;
void L1OverCapacity() {
  TPipe pipe;
  TQue<TPosition::A1, 1> q;
  pipe.InitBuffer(q, 1, static_cast<uint32_t>(g_arch->l1_bytes + 88 * 1024));
}
void L0aOverCapacity() {
  TPipe pipe;
  TQue<TPosition::A2, 2> q;
  pipe.InitBuffer(q, 2, static_cast<uint32_t>(g_arch->l0a_bytes / 2 + 8 * 1024));
}
void BiasTableOverCapacity() {
  TPipe pipe;
  TBuf<TPosition::C2> bt;
  pipe.InitBuffer(bt, 2048);
}
void AllocatorOverCapacity() {
  LocalMemAllocator<Hardware::L0C> l0c;
  (void)l0c.Alloc<TPosition::CO1, float>(static_cast<uint32_t>(g_arch->l0c_bytes / 4 + 1));
}

TEST(CubeFindingsTest, Capacity) {
  for (const char* profile : {"native", "ascend910b"}) {
    ASSERT_TRUE(device::SetProfile(profile).ok());
    g_arch = &device::CurrentArch();
    const std::string l1 = std::to_string(g_arch->l1_bytes),
                      l1_asked = std::to_string(g_arch->l1_bytes + 88 * 1024),
                      l0a = std::to_string(g_arch->l0a_bytes),
                      l0a_asked = std::to_string(g_arch->l0a_bytes + 16 * 1024),
                      l0c = std::to_string(g_arch->l0c_bytes),
                      l0c_asked = std::to_string(g_arch->l0c_bytes / 4 + 1);
    for (bool checked : {false, true}) {
      ExpectFinding("l1_cap", L1OverCapacity, checked,
                    {"TPipe::InitBuffer",
                     ("L1 buffer size is " + l1_asked + ", exceeds the limit " + l1).c_str()});
      ExpectFinding("l0a_cap", L0aOverCapacity, checked,
                    {("L0A buffer size is " + l0a_asked).c_str(), l0a.c_str()});
      ExpectFinding("bt_cap", BiasTableOverCapacity, checked, {"BT buffer size is 2048", "1024"});
      ExpectFinding("alloc_cap", AllocatorOverCapacity, checked,
                    {"LocalMemAllocator::Alloc", (l0c_asked + " elements").c_str(),
                     (l0c + " bytes").c_str()});
    }
  }
  ASSERT_TRUE(device::SetProfile("native").ok());
}

// ---- alignment, position, extent ----
void LoadDataMisaligned() {
  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(1024);
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(1024);
  LoadData(a2[16], a1, LoadData2DParams{0, 1, 1, 0, 0, false, 0});
}
void MmadMisaligned() {
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(256);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(256);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(1024);
  Mmad(c1[128], a2, b2, MmadParams{16, 16, 16, 0, false, true});
}
void LoadDataWrongPosition() {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(1024);
  LocalTensor<half> b1 = l1.Alloc<TPosition::B1, half>(1024);
  LoadData(b1, a1, LoadData2DParams{0, 1, 1, 0, 0, false, 0});
}
void Nd2NzPastTheTensor() {
  LocalMemAllocator<Hardware::L1> l1;
  LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(16 * 16);
  GlobalTensor<half> g;
  g.SetGlobalBuffer(static_cast<half*>(Scratch()), 1 << 19);
  DataCopy(a1, g, Nd2NzParams{1, 16, 32, 0, 32, 16, 1, 0});
}
void MmadTileLargerThanL0a() {
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(32 * 1024);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(32 * 1024);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(32 * 1024);
  Mmad(c1, a2, b2, MmadParams{256, 16, 256, 0, false, true});  // A needs 65536 halves
}

TEST(CubeFindingsTest, AlignmentPositionExtentInCheckedMode) {
  ExpectFinding("ld_align", LoadDataMisaligned, true,
                {"LoadData(LoadData2DParams)", "destination (A2)", "512-byte aligned"});
  ExpectFinding("mmad_align", MmadMisaligned, true, {"Mmad", "dst (CO1)", "1024-byte aligned"});
  ExpectFinding("ld_pos", LoadDataWrongPosition, true,
                {"LoadData(LoadData2DParams)", "destination is in B1; expected A2 or B2"});
  ExpectFinding(
      "nd2nz_extent", Nd2NzPastTheTensor, true,
      {"DataCopy(Nd2NzParams)", "destination (L1) (A1, half) needs 512 elements", "holds 256"});
  ExpectFinding("mmad_extent", MmadTileLargerThanL0a, true,
                {"Mmad", "fm (L0A) (A2, half) needs 65536 elements", "holds 32768"});
}

TEST(CubeFindingsTest, FastModeDoesNotCheckAlignment) {
  testing::CheckedScope scope(false);
  EXPECT_TRUE(RunAic("ld_align_fast", LoadDataMisaligned).ok());
}

// ---- ranges and unsupported modes (always checked) ----
void MmadTooBig() {
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(256);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(256);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(256);
  Mmad(c1, a2, b2, MmadParams{4096, 16, 16, 0, false, true});
}
void TransposeFloatWithLoadData() {
  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalTensor<float> b1 = l1.Alloc<TPosition::B1, float>(256);
  LocalTensor<float> b2 = l0b.Alloc<TPosition::B2, float>(256);
  LoadData(b2, b1, LoadData2DParams{0, 1, 1, 0, 0, true, 0});
}
void FixpipeWithoutCast() {
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(256);
  GlobalTensor<half> g;
  g.SetGlobalBuffer(static_cast<half*>(Scratch()), 256);
  Fixpipe(g, c1, FixpipeParamsV220{16, 16, 16, 16, false});
}

TEST(CubeFindingsTest, RangesAndModesInBothModes) {
  for (bool checked : {false, true}) {
    ExpectFinding("mmad_range", MmadTooBig, checked,
                  {"Mmad: m 4096, n 16, k 16: each must be 0..4095"});
    ExpectFinding("ld_tr", TransposeFloatWithLoadData, checked,
                  {"ifTranspose is for 2-byte types only; this is float"});
    ExpectFinding(
        "fix_cast", FixpipeWithoutCast, checked,
        {"Fixpipe", "quantPre NoQuant cannot turn float L0C values into half", "expected F322F16"});
  }
}

// ---- events ----
void UnwaitedCubeEvent() {
  SetFlag<HardEvent::M_FIX>(1);
}
void WaitWithoutSet() {
  WaitFlag<HardEvent::MTE1_M>(3);
}
void DoubleSet() {
  SetFlag<HardEvent::MTE2_MTE1>(0);
  SetFlag<HardEvent::MTE2_MTE1>(0);
}
void VectorEventOnCube() {
  SetFlag<HardEvent::MTE2_V>(0);
  WaitFlag<HardEvent::MTE2_V>(0);
}

TEST(CubeFindingsTest, UnpairedEventsAcrossCubePipes) {
  ExpectFinding("unwaited", UnwaitedCubeEvent, true,
                {"SetFlag<M_FIX>(1) was set 1 time(s) more than it was waited for"});
  ExpectFinding("no_set", WaitWithoutSet, true,
                {"WaitFlag<MTE1_M>(3) has no earlier SetFlag of the same event and id"});
  ExpectFinding("double_set", DoubleSet, true,
                {"SetFlag<MTE2_MTE1>(0) is set again before a WaitFlag consumed"});
  ExpectFinding("v_on_aic", VectorEventOnCube, true,
                {"HardEvent::MTE2_V names the vector pipe V, which an AIC core does not have"});
}

void CubeEventOnVector() {
  SetFlag<HardEvent::M_MTE1>(0);
  WaitFlag<HardEvent::M_MTE1>(0);
}

TEST(CubeFindingsTest, CubeEventOnAVectorCore) {
  testing::CheckedScope scope(true);
  Status st = testing::RunKernel("m_on_aiv", 1, CubeEventOnVector);
  EXPECT_TRUE(Contains(st, "kernel 'm_on_aiv' block 0 (AIV)")) << st.ToString();
  EXPECT_TRUE(Contains(st, "HardEvent::M_MTE1 names a cube pipe")) << st.ToString();
}

// CATLASS's BlockMmad: the constructor pre-sets one event per buffer slot, each use waits on the
// slot's event and sets it again, the destructor waits them all.
class PingPong {
 public:
  PingPong() {
    for (int i = 0; i < 4; ++i)
      SetFlag<HardEvent::MTE1_MTE2>(i);
    for (int i = 0; i < 2; ++i)
      SetFlag<HardEvent::M_MTE1>(i);
    SetFlag<HardEvent::FIX_M>(0);
  }
  ~PingPong() {
    for (int i = 0; i < 4; ++i)
      WaitFlag<HardEvent::MTE1_MTE2>(i);
    for (int i = 0; i < 2; ++i)
      WaitFlag<HardEvent::M_MTE1>(i);
    WaitFlag<HardEvent::FIX_M>(0);
  }
  void Step(int k) {
    const int l1 = k % 2, l0 = k % 2;
    WaitFlag<HardEvent::MTE1_MTE2>(l1);  // L1 slot free: copy in
    SetFlag<HardEvent::MTE2_MTE1>(l1);
    WaitFlag<HardEvent::MTE2_MTE1>(l1);
    WaitFlag<HardEvent::M_MTE1>(l0);  // L0 slot free: load
    SetFlag<HardEvent::MTE1_MTE2>(l1);
    SetFlag<HardEvent::MTE1_M>(l0);
    WaitFlag<HardEvent::MTE1_M>(l0);
    if (k == 0) WaitFlag<HardEvent::FIX_M>(0);  // L0C free
    SetFlag<HardEvent::M_MTE1>(l0);
  }
  void Drain() {
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    SetFlag<HardEvent::FIX_M>(0);
  }
};

void CatlassPattern() {
  PingPong block;
  for (int tile = 0; tile < 3; ++tile) {
    for (int k = 0; k < 5; ++k)
      block.Step(k);
    block.Drain();
  }
}

TEST(CubeFindingsTest, CatlassConstructorDestructorEventsAreNotFindings) {
  testing::CheckedScope scope(true);
  Status st = RunAic("catlass_pingpong", CatlassPattern);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

// ---- unit flags ----
template <int kMmadFlag, int kFixFlag, int kFirstFlag = -1>
void UnitFlags() {
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(256);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(256);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(256);
  std::memset(static_cast<void*>(a2.GetPhyAddr()), 0, 512);
  std::memset(static_cast<void*>(b2.GetPhyAddr()), 0, 512);
  if (kFirstFlag >= 0) Mmad(c1, a2, b2, MmadParams{16, 16, 16, kFirstFlag, false, true});
  Mmad(c1, a2, b2, MmadParams{16, 16, 16, kMmadFlag, false, kFirstFlag < 0});
  GlobalTensor<float> g;
  g.SetGlobalBuffer(static_cast<float*>(Scratch()), 128);
  Fixpipe(g, c1, FixpipeParamsV220{8, 16, 16, 8, false, NoQuant, 0, 1, 0, 0, kFixFlag});
}

TEST(CubeFindingsTest, UnitFlagMismatches) {
  ExpectFinding("uf_fix0", UnitFlags<3, 0>, true,
                {"Fixpipe", "unitFlag 0 but the last Mmad into this L0C tile had unitFlag 3"});
  ExpectFinding("uf_mmad0", UnitFlags<0, 3>, true,
                {"Fixpipe", "unitFlag 3 but the last Mmad into this L0C tile had unitFlag 0"});
  ExpectFinding("uf_two", UnitFlags<2, 3>, true, {"had unitFlag 2 (more Mmads to come)"});
  ExpectFinding("uf_bad", UnitFlags<1, 0>, false, {"Mmad", "unitFlag 1 is not 0"});
  testing::CheckedScope scope(true);
  EXPECT_TRUE(RunAic("uf_ok", UnitFlags<3, 3, 2>).ok());
  EXPECT_TRUE(RunAic("uf_off", UnitFlags<0, 0>).ok());
}

// SetFixPipeConfig(..., true) clears the unit flags after a unitFlag Mmad: a Fixpipe without
// unitFlag is then consistent, and one with unitFlag 3 finds no flagged Mmad.
template <int kFixFlag>
void UnitFlagsCleared() {
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(256);
  LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(256);
  LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(256);
  std::memset(static_cast<void*>(a2.GetPhyAddr()), 0, 512);
  std::memset(static_cast<void*>(b2.GetPhyAddr()), 0, 512);
  Mmad(c1, a2, b2, MmadParams{16, 16, 16, 3, false, true});
  SetFixPipeConfig<float>(c1, true);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(static_cast<float*>(Scratch()), 128);
  Fixpipe(g, c1, FixpipeParamsV220{8, 16, 16, 8, false, NoQuant, 0, 1, 0, 0, kFixFlag});
}

TEST(CubeFindingsTest, SetFixPipeConfigClearsUnitFlags) {
  ExpectFinding("uf_cleared3", UnitFlagsCleared<3>, true,
                {"unitFlag 3 but the last Mmad into this L0C tile had unitFlag 0"});
  testing::CheckedScope scope(true);
  EXPECT_TRUE(RunAic("uf_cleared0", UnitFlagsCleared<0>).ok());
}

}  // namespace
}  // namespace tessera::kernel
