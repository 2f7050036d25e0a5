// The sample classifier of `tessera ascendc-check` (tools/tessera/ascendc_cores.h) on small
// sources written the way the vendor's samples are.
#include "ascendc_cores.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera::cli {
namespace {

std::string Classify(const std::string& source) {
  return ClassifyCores({source}).cores;
}

TEST(AscendcCores, AttributesDecide) {
  EXPECT_EQ(Classify("__global__ __vector__ void add(__gm__ float* x) { Mmad(c, a, b, p); }"),
            "vector");
  EXPECT_EQ(Classify("extern \"C\" __cube__ __global__ void mm(GM_ADDR a) { }"), "cube");
  EXPECT_EQ(Classify("__global__ __mix__(1, 2) void fused(GM_ADDR a, GM_ADDR b) { }"), "mix");
  EXPECT_EQ(Classify("__mix__(1, 2) __global__ void fused(GM_ADDR a) { }"), "mix");
  EXPECT_EQ(
      Classify("template <typename T>\n__vector__ __global__ __aicore__ void k(GM_ADDR x) {}"),
      "vector");
}

TEST(AscendcCores, KernelTaskTypeInTheBody) {
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);\n  Mmad(c, a, b, p);\n}"),
            "vector");
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_0);\n}"),
            "cube");
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  if (x) { KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2); }\n}"),
            "mix");
  // Another kernel's task type does not leak into this one, which then is inferred (no cube API).
  EXPECT_EQ(Classify("__global__ __aicore__ void a(GM_ADDR x) {}\n"
                     "__global__ __aicore__ void b(GM_ADDR x) {\n"
                     "  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);\n}"),
            "mix");
}

TEST(AscendcCores, InferredFromTheApis) {
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  TQue<TPosition::VECIN, 1> q; Add(z, x, y, n);\n}"),
            "vector");
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  TQue<TPosition::A1, 1> q; LoadData(a2, a1, p); Mmad(c, a, b, m);\n}"),
            "cube");
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  TQue<QuePosition::CO1, 1> c; TQue<QuePosition::VECOUT, 1> o;\n}"),
            "mix");
  const std::string matmul =
      "AscendC::Matmul<A, B, C, Bias> mm;\n"
      "__global__ __aicore__ void k(GM_ADDR a, __kfc_workspace__ GM_ADDR w) {\n"
      "  REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);\n}";
  EXPECT_EQ(Classify(matmul), "mix");
  EXPECT_EQ(Classify("#define ASCENDC_CUBE_ONLY\n" + matmul), "cube");
}

TEST(AscendcCores, SampleOfSeveralKernelsAndFiles) {
  const CoresClass stated = ClassifyCores(
      {"__global__ __vector__ void a(GM_ADDR x) {}", "__global__ __vector__ void b(GM_ADDR x) {}"});
  EXPECT_EQ(stated.cores, "vector");
  EXPECT_FALSE(stated.inferred);
  EXPECT_EQ(ClassifyCores({"__global__ __vector__ void a(GM_ADDR x) {}",
                           "__global__ __cube__ void b(GM_ADDR x) {}"})
                .cores,
            "mix");
  // One kernel states its type, the other's comes from the APIs: the sample counts as inferred.
  const CoresClass partly = ClassifyCores({"__global__ __vector__ void a(GM_ADDR x) {}",
                                           "__global__ __aicore__ void b(GM_ADDR x) { Mmad(); }"});
  EXPECT_EQ(partly.cores, "mix");
  EXPECT_TRUE(partly.inferred);
  // No kernel in any file (an op project's host): inferred from the APIs.
  const CoresClass host = ClassifyCores({"int main() { return 0; }"});
  EXPECT_EQ(host.cores, "vector");
  EXPECT_TRUE(host.inferred);
  EXPECT_EQ(ClassifyCores({"void f() { Fixpipe(dst, src, params); }"}).cores, "cube");
}

TEST(AscendcCores, CommentsStringsAndMacrosDoNotCount) {
  EXPECT_EQ(Classify("// __global__ __cube__ void old(GM_ADDR x) {}\n"
                     "/* __mix__(1, 2) */ __global__ __vector__ void k(GM_ADDR x) {}"),
            "vector");
  EXPECT_EQ(Classify("#define KERNEL __global__ __cube__\n"
                     "__global__ __vector__ void k(GM_ADDR x) { printf(\"// Mmad\"); }"),
            "vector");
  EXPECT_EQ(Classify("__global__ __aicore__ void k(GM_ADDR x) {\n"
                     "  // Mmad(c, a, b, p);\n  printf(\"LoadData %d\", 1);\n}"),
            "vector");
}

// A digit separator is no literal, and an unclosed quote (an apostrophe in a directive) ends at its
// line: the kernel on the next line is still found.
TEST(AscendcCores, QuotesThatOpenNoLiteral) {
  EXPECT_EQ(Classify("constexpr int kN = 1'000;\n"
                     "__global__ __cube__ void k(GM_ADDR x) { int y = 2'000; }"),
            "cube");
  EXPECT_EQ(Classify("#define NOTE (' left open)\n"
                     "__global__ __cube__ void k(GM_ADDR x) {}"),
            "cube");
  EXPECT_EQ(StripComments("int n = 1'000; // c"), "int n = 1'000; ");
}

TEST(AscendcCores, StripComments) {
  EXPECT_EQ(StripComments("a // b\nc /* d\ne */ f \"// g\" '/'"), "a \nc   f \"// g\" '/'");
  EXPECT_EQ(StripComments("x /* never closed"), "x  ");
  EXPECT_EQ(StripComments("\"esc \\\" // still\" y"), "\"esc \\\" // still\" y");
}

}  // namespace
}  // namespace tessera::cli
