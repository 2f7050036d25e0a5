// A package built only for one CPU model (COMPUTE_UNITS icelake-server): on any other model its
// ops fail, naming what the package has and what the machine is; on that model they run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tessera/device/arch_spec.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"
#include "runtime/package/package.h"

namespace tessera::runtime {
namespace {

TEST(ComputeUnitPackage, ManifestRecordsTheModelAsTheBinarySoc) {
  Result<PackageManifest> manifest = ParseManifestFile(
      std::filesystem::path(TESSERA_TEST_ICELAKE_PACKAGE_DIR) / kManifestFileName);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  ASSERT_EQ(manifest->ops.size(), 2u);
  for (const OpManifest& op : manifest->ops) {
    ASSERT_FALSE(op.binaries.empty());
    for (const ManifestBinary& b : op.binaries) {
      EXPECT_EQ(b.soc, "icelake-server");
      EXPECT_EQ(b.bin_path, "kernels/icelake-server/libicelake_only_kernels.so");
    }
  }
}

TEST(ComputeUnitPackage, RunsOnlyOnThatModel) {
  setenv("TESSERA_CUSTOM_OPP_PATH", TESSERA_TEST_ICELAKE_PACKAGE_DIR, 1);
  ClearParamCache();
  const int64_t n = 1031;
  std::vector<float> a(n), b(n), out(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2, 2);
  for (int64_t i = 0; i < n; ++i)
    a[i] = dist(rng), b[i] = dist(rng);
  const size_t bytes = n * sizeof(float);
  void* x1 = *device::Malloc(bytes);
  void* x2 = *device::Malloc(bytes);
  void* y = *device::Malloc(bytes);
  ASSERT_TRUE(device::Memcpy(x1, bytes, a.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
  ASSERT_TRUE(device::Memcpy(x2, bytes, b.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
  const TensorDesc desc{DataType::kFloat32, *Shape::Make({n}), Format::kND, {}};
  OpCall call;
  call.op_type = "ScaledAdd";
  call.inputs = {TensorArg{desc, x1}, TensorArg{desc, x2}};
  call.outputs = {TensorArg{desc, y}};
  uint64_t ws = 0;
  auto exec = PrepareOp(call, &ws);
  const device::ArchSpec& arch = device::CurrentArch();
  if (arch.compute_unit == "icelake-server") {
    ASSERT_TRUE(exec.ok()) << exec.status().ToString();
    EXPECT_EQ((*exec)->info().soc, "icelake-server");
    ASSERT_TRUE(ExecuteOp(**exec, nullptr, 0, device::Stream()).ok());
    ASSERT_TRUE(device::Stream().Synchronize().ok());
    ASSERT_TRUE(
        device::Memcpy(out.data(), bytes, y, bytes, device::MemcpyKind::kDeviceToHost).ok());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 2.0f * a[i] + b[i]) << i;
  } else {
    ASSERT_FALSE(exec.ok());
    EXPECT_EQ(exec.status().code(), StatusCode::kNotFound);
    const std::string machine = arch.compute_unit.empty()
                                    ? arch.soc + " (CPU model not identified)"
                                    : arch.compute_unit + " (" + arch.soc + ")";
    EXPECT_NE(std::string(exec.status().message())
                  .find("package icelake_only: op ScaledAdd has binaries for icelake-server; "
                        "this machine is " +
                        machine + ", which runs none of them"),
              std::string::npos)
        << exec.status().ToString();
  }
  for (void* p : {x1, x2, y})
    (void)device::Free(p);
  unsetenv("TESSERA_CUSTOM_OPP_PATH");
  ClearParamCache();
}

}  // namespace
}  // namespace tessera::runtime
