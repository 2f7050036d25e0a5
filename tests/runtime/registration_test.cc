// The op-library and kernel-library registration ABI: what a package's libraries export.
#include <gtest/gtest.h>

#include <cstring>

#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_registration.h"
#include "tessera/runtime/tiling_context.h"

namespace {

using tessera::DataType;
using namespace tessera::runtime;

// A kernel with four GM parameters: x, y (inputs), z (output), tiling; two tiling-key variants.
template <int kScale>
void ScaleAdd(uint8_t* x, uint8_t* y, uint8_t* z, uint8_t* tiling) {
  int64_t n = 0;
  std::memcpy(&n, tiling, sizeof(n));
  const auto* a = reinterpret_cast<const float*>(x);
  const auto* b = reinterpret_cast<const float*>(y);
  auto* c = reinterpret_cast<float*>(z);
  for (int64_t i = 0; i < n; ++i)
    c[i] = a[i] + kScale * b[i];
}

TESSERA_KERNEL_ENTRY(scale_add, 1, AIV, ScaleAdd<1>)
TESSERA_KERNEL_ENTRY(scale_add, 2, AIV, ScaleAdd<2>)
TESSERA_KERNEL_LIBRARY()

class ScaleAddOp : public OpDef {
 public:
  ScaleAddOp() : OpDef("ScaleAdd") {
    Input("x").DataType({DataType::kFloat32});
    Input("y").DataType({DataType::kFloat32});
    Output("z").Follow("x");
    SetTiling([](TilingContext&) { return tessera::OkStatus(); });
    AddConfig("x86-64-v2");
  }
};
TESSERA_OP_ADD(ScaleAddOp);
TESSERA_OP_LIBRARY()

TEST(RegistrationTest, KernelLibraryListsCallableEntries) {
  size_t count = 0;
  const KernelEntryInfo* entries = tessera_kernel_entries(&count);
  ASSERT_EQ(count, 2u);
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 20, 30, 40, 50}, z[5] = {};
  int64_t n = 5;
  uint8_t* args[4] = {reinterpret_cast<uint8_t*>(x), reinterpret_cast<uint8_t*>(y),
                      reinterpret_cast<uint8_t*>(z), reinterpret_cast<uint8_t*>(&n)};
  for (size_t e = 0; e < count; ++e) {
    EXPECT_STREQ(entries[e].kernel, "scale_add");
    EXPECT_STREQ(entries[e].kernel_type, "AIV");
    EXPECT_EQ(entries[e].num_args, 4u);
    entries[e].fn(args);
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(z[i], x[i] + static_cast<float>(entries[e].tiling_key) * y[i]);
  }
}

TEST(RegistrationTest, OpLibraryCreatesValidOpDefs) {
  size_t count = 0;
  const OpFactory* factories = tessera_op_definitions(&count);
  ASSERT_EQ(count, 1u);
  std::unique_ptr<OpDef> op(factories[0]());
  EXPECT_EQ(op->type(), "ScaleAdd");
  EXPECT_EQ(op->KernelName(), "scale_add");
  EXPECT_TRUE(op->Validate().ok()) << op->Validate().ToString();
}

}  // namespace
