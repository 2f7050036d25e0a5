// `tessera demo`: device facts, then sample kernels on every logical core of the native and an
// emulated profile, then every built-in op through the two-stage API (PrepareOp/ExecuteOp), each
// checked against a scalar reference.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../../examples/kernels/add_custom/add_custom_tiling.h"
#include "commands.h"
#include "op_runner.h"
#include "ops/builtin_ops.h"
#include "tessera/device/block.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace tessera::cli {
namespace {

using namespace tessera::device;

struct SaxpyTiling {
  int64_t total;
  int64_t per_block;
  float alpha;
};

// y = alpha * x + y over this block's slice, staged through UB; then the blocks' partial sums are
// reduced by block 0 after a SyncAll.
void SaxpyReduceKernel(const float* x, float* y, double* partials, double* result, SaxpyTiling t) {
  const BlockContext* ctx = CurrentBlock();
  const int64_t idx = GetBlockIdx();
  const int64_t begin = std::min(t.total, idx * t.per_block);
  const int64_t end = std::min(t.total, begin + t.per_block);
  const int64_t tile = static_cast<int64_t>(ctx->ub_bytes / (2 * sizeof(float)));
  auto* ub_x = reinterpret_cast<float*>(ctx->ub);
  float* ub_y = ub_x + tile;
  double sum = 0;
  for (int64_t off = begin; off < end; off += tile) {
    const int64_t n = std::min(tile, end - off);
    std::memcpy(ub_x, x + off, static_cast<size_t>(n) * sizeof(float));
    std::memcpy(ub_y, y + off, static_cast<size_t>(n) * sizeof(float));
    for (int64_t i = 0; i < n; ++i) {
      ub_y[i] = t.alpha * ub_x[i] + ub_y[i];
      sum += ub_y[i];
    }
    std::memcpy(y + off, ub_y, static_cast<size_t>(n) * sizeof(float));
  }
  partials[idx] = sum;
  SyncAll();
  if (idx == 0) {
    double total = 0;
    for (uint32_t b = 0; b < GetBlockNum(); ++b)
      total += partials[b];
    *result = total;
  }
}

// MIX: each AI core fills its group's buffer, signals its vector cores, which scale their halves
// and signal back; the AI core then sums the buffer.
void MixPipelineKernel(float* buffer, double* sums, int64_t per_group) {
  const uint32_t group =
      GetCoreType() == CoreType::kAic ? GetBlockIdx() : GetBlockIdx() / GetSubBlockNum();
  float* mine = buffer + group * per_group;
  if (GetCoreType() == CoreType::kAic) {
    for (int64_t i = 0; i < per_group; ++i)
      mine[i] = static_cast<float>(group * 1000 + i % 97);
    CrossCoreSetFlag(CrossCoreMode::kGroupCubeVector, 0);
    CrossCoreWaitFlag(CrossCoreMode::kGroupCubeVector, 1);
    double s = 0;
    for (int64_t i = 0; i < per_group; ++i)
      s += mine[i];
    sums[group] = s;
  } else {
    CrossCoreWaitFlag(CrossCoreMode::kGroupCubeVector, 0);
    const int64_t half = (per_group + 1) / 2;
    const int64_t begin = GetSubBlockIdx() == 0 ? 0 : half;
    const int64_t end = GetSubBlockIdx() == 0 ? half : per_group;
    for (int64_t i = begin; i < end; ++i)
      mine[i] *= 2.0f;
    CrossCoreSetFlag(CrossCoreMode::kGroupCubeVector, 1);
  }
}

double Ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

template <class T>
Result<T*> DeviceArray(size_t n) {
  TESSERA_ASSIGN_OR_RETURN(void* p, Malloc(n * sizeof(T)));
  return static_cast<T*>(p);
}

Status RunSaxpy(const ArchSpec& arch, bool* ok) {
  const int64_t n = 1000003;
  const uint32_t blocks = arch.aiv_cores;
  std::vector<float> hx(n), hy(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i)
    hx[i] = dist(rng), hy[i] = dist(rng);
  TESSERA_ASSIGN_OR_RETURN(float* x, DeviceArray<float>(n));
  TESSERA_ASSIGN_OR_RETURN(float* y, DeviceArray<float>(n));
  TESSERA_ASSIGN_OR_RETURN(double* partials, DeviceArray<double>(blocks));
  TESSERA_ASSIGN_OR_RETURN(double* result, DeviceArray<double>(1));
  TESSERA_RETURN_IF_ERROR(Memcpy(x, n * 4, hx.data(), n * 4, MemcpyKind::kHostToDevice));
  TESSERA_RETURN_IF_ERROR(Memcpy(y, n * 4, hy.data(), n * 4, MemcpyKind::kHostToDevice));
  const SaxpyTiling tiling{n, (n + blocks - 1) / blocks, 0.5f};
  Stream stream;
  const auto start = std::chrono::steady_clock::now();
  TESSERA_RETURN_IF_ERROR(Launch(LaunchConfig{blocks, KernelType::kAiv, "saxpy_reduce"},
                                 SaxpyReduceKernel, stream, x, y, partials, result, tiling));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  const double ms = Ms(start);
  std::vector<float> out(n);
  double total = 0;
  TESSERA_RETURN_IF_ERROR(Memcpy(out.data(), n * 4, y, n * 4, MemcpyKind::kDeviceToHost));
  TESSERA_RETURN_IF_ERROR(Memcpy(&total, 8, result, 8, MemcpyKind::kDeviceToHost));
  size_t bad = 0;
  long double ref_total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float want = 0.5f * hx[i] + hy[i];
    bad += out[i] != want;
    ref_total += want;
  }
  const bool sum_ok = std::fabs(total - static_cast<double>(ref_total)) <= 1e-6 * n;
  *ok = bad == 0 && sum_ok;
  std::printf("  saxpy + SyncAll reduce: %u AIV blocks, %lld elements, %.3f ms: %s", blocks,
              static_cast<long long>(n), ms, *ok ? "OK" : "MISMATCH");
  if (!*ok)
    std::printf(" (%zu wrong elements, sum %.6f vs %.6f)", bad, total,
                static_cast<double>(ref_total));
  std::printf("\n");
  for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(partials),
                  static_cast<void*>(result)}) {
    TESSERA_RETURN_IF_ERROR(Free(p));
  }
  return OkStatus();
}

Status RunMix(const ArchSpec& arch, bool* ok) {
  const uint32_t groups = arch.aic_cores;
  const int64_t per_group = 4099;
  TESSERA_ASSIGN_OR_RETURN(float* buffer, DeviceArray<float>(groups * per_group));
  TESSERA_ASSIGN_OR_RETURN(double* sums, DeviceArray<double>(groups));
  Stream stream;
  const auto start = std::chrono::steady_clock::now();
  TESSERA_RETURN_IF_ERROR(Launch(LaunchConfig{groups, KernelType::kMix, "mix_pipeline"},
                                 MixPipelineKernel, stream, buffer, sums, per_group));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  const double ms = Ms(start);
  std::vector<double> got(groups);
  TESSERA_RETURN_IF_ERROR(
      Memcpy(got.data(), groups * 8, sums, groups * 8, MemcpyKind::kDeviceToHost));
  *ok = true;
  for (uint32_t g = 0; g < groups; ++g) {
    double want = 0;
    for (int64_t i = 0; i < per_group; ++i)
      want += 2.0 * static_cast<double>(g * 1000 + i % 97);
    *ok = *ok && got[g] == want;
  }
  std::printf("  MIX cube->vector->cube flags: %u groups of 1 AIC + %u AIV, %.3f ms: %s\n", groups,
              arch.task_ration, ms, *ok ? "OK" : "MISMATCH");
  TESSERA_RETURN_IF_ERROR(Free(buffer));
  TESSERA_RETURN_IF_ERROR(Free(sums));
  return OkStatus();
}

// The Ascend C sample add_custom through the kernel API (TPipe, double-buffered TQue, DataCopy,
// Add), with its tiling data passed as the last kernel argument.
Status RunAddCustom(const ArchSpec& arch, bool checked, bool* ok) {
  const int64_t n = 1000003;
  SetCheckedMode(checked);
  TESSERA_ASSIGN_OR_RETURN(add_custom_op::AddCustomPlan plan,
                           add_custom_op::AddCustomTiling(n, 4, arch));
  const std::vector<uint8_t> tiling_bytes = tiling::SerializeTiling(plan.tiling);
  std::vector<float> hx(n), hy(n), hz(n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i)
    hx[i] = dist(rng), hy[i] = dist(rng);
  TESSERA_ASSIGN_OR_RETURN(float* x, DeviceArray<float>(n));
  TESSERA_ASSIGN_OR_RETURN(float* y, DeviceArray<float>(n));
  TESSERA_ASSIGN_OR_RETURN(float* z, DeviceArray<float>(n));
  TESSERA_ASSIGN_OR_RETURN(uint8_t * t, DeviceArray<uint8_t>(tiling_bytes.size()));
  TESSERA_RETURN_IF_ERROR(Memcpy(x, n * 4, hx.data(), n * 4, MemcpyKind::kHostToDevice));
  TESSERA_RETURN_IF_ERROR(Memcpy(y, n * 4, hy.data(), n * 4, MemcpyKind::kHostToDevice));
  TESSERA_RETURN_IF_ERROR(Memcpy(t, tiling_bytes.size(), tiling_bytes.data(), tiling_bytes.size(),
                                 MemcpyKind::kHostToDevice));
  Stream stream;
  const auto start = std::chrono::steady_clock::now();
  TESSERA_RETURN_IF_ERROR(Launch(LaunchConfig{plan.blockDim, KernelType::kAiv, "add_custom"},
                                 add_custom, stream, reinterpret_cast<uint8_t*>(x),
                                 reinterpret_cast<uint8_t*>(y), reinterpret_cast<uint8_t*>(z), t));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  const double ms = Ms(start);
  TESSERA_RETURN_IF_ERROR(Memcpy(hz.data(), n * 4, z, n * 4, MemcpyKind::kDeviceToHost));
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    bad += hz[i] != hx[i] + hy[i];
  *ok = bad == 0;
  std::printf("  kernel API add_custom (%s mode): %u blocks, tiles of %lld, %.3f ms: %s\n",
              checked ? "checked" : "fast", plan.blockDim,
              static_cast<long long>(plan.tiling.tileLength), ms, *ok ? "OK" : "MISMATCH");
  SetCheckedMode(false);
  for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(z),
                  static_cast<void*>(t)}) {
    TESSERA_RETURN_IF_ERROR(Free(p));
  }
  return OkStatus();
}

// One small call per built-in op in float32 (binary ops broadcast), plus a few in bfloat16.
std::vector<OpCallOptions> BuiltinOpCases() {
  std::vector<OpCallOptions> cases;
  auto add = [&](const char* op, std::vector<std::string> shapes, const char* dtype,
                 std::vector<std::string> attrs) {
    OpCallOptions o;
    o.op = op;
    o.shapes = std::move(shapes);
    o.dtype = dtype;
    o.attrs = std::move(attrs);
    cases.push_back(std::move(o));
  };
#define TESSERA_DEMO_BINARY(Op) add(#Op, {"3,1,257", "4,257"}, "float32", {});
#define TESSERA_DEMO_UNARY(Op) add(#Op, {"4099"}, "float32", {});
#define TESSERA_DEMO_SCALAR(Op) add(#Op, {"4099"}, "float32", {"value=0.75"});
#define TESSERA_DEMO_CAST(Op) add(#Op, {"4099"}, "float32", {"dst_type=27"});
  TESSERA_BUILTIN_BINARY_OPS(TESSERA_DEMO_BINARY)
  TESSERA_BUILTIN_UNARY_OPS(TESSERA_DEMO_UNARY)
  TESSERA_BUILTIN_SCALAR_ATTR_OPS(TESSERA_DEMO_SCALAR)
  TESSERA_BUILTIN_DTYPE_ATTR_OPS(TESSERA_DEMO_CAST)
#undef TESSERA_DEMO_BINARY
#undef TESSERA_DEMO_UNARY
#undef TESSERA_DEMO_SCALAR
#undef TESSERA_DEMO_CAST
  add("Add", {"3,1,257", "4,257"}, "bfloat16", {});
  add("Mul", {"4099", "4099"}, "bfloat16", {});
  add("Exp", {"4099"}, "bfloat16", {});
  add("Sigmoid", {"4099"}, "bfloat16", {});
  add("Muls", {"4099"}, "bfloat16", {"value=0.75"});
  add("Cast", {"4099"}, "bfloat16", {"dst_type=0"});
  // Row ops (elewise fused operators); gamma is derived from x's last dim.
  add("RmsNorm", {"37,4096"}, "bfloat16", {"epsilon=1e-5"});
  add("Softmax", {"37,1000"}, "float32", {});
  return cases;
}

// Runs every case once; one line each. *ok is false when any result mismatches.
Status RunBuiltinOps(bool* ok) {
  *ok = true;
  for (const OpCallOptions& o : BuiltinOpCases()) {
    TESSERA_ASSIGN_OR_RETURN(ResolvedCall rc, BuildOpCall(o));
    TESSERA_ASSIGN_OR_RETURN(const RunReport r, RunOpCall(rc, 1, 7));
    std::string ins;
    for (const auto& in : rc.call.inputs)
      ins += (ins.empty() ? "" : " x ") + in->desc.shape.ToString();
    const bool pass = r.check && r.check->ok;
    *ok = *ok && pass;
    std::printf("  %-8s %-8s %-22s -> %-9s %-14s %s (max rel err %.2g)\n", o.op.c_str(),
                o.dtype.c_str(), ins.c_str(),
                std::string(DataTypeName(rc.call.outputs[0].desc.dtype)).c_str(),
                rc.call.outputs[0].desc.shape.ToString().c_str(), pass ? "OK" : "MISMATCH",
                r.check ? r.check->max_rel_error : 0.0);
  }
  return OkStatus();
}

}  // namespace

int RunInfo(const InfoOptions& options);

void AddDemoCommand(CLI::App& app, DemoOptions& options) {
  app.add_subcommand("demo", "Tour: device info, then sample kernels on every logical core");
  (void)options;
}

int RunDemo(const DemoOptions&) {
  std::printf("== device ==\n");
  RunInfo(InfoOptions{});
  bool all_ok = true;
  for (const char* profile : {"native", "ascend910b"}) {
    if (Status st = SetProfile(profile); !st.ok()) {
      std::fprintf(stderr, "tessera demo: %s\n", st.ToString().c_str());
      return 1;
    }
    const ArchSpec& arch = CurrentArch();
    std::printf("\n== profile %s: %u AIC + %u AIV logical cores on %u worker threads ==\n",
                arch.name.c_str(), arch.aic_cores, arch.aiv_cores, WorkerThreads());
    bool ok1 = false, ok2 = false, ok3 = false, ok4 = false;
    Status st = RunSaxpy(arch, &ok1);
    if (st.ok()) st = RunMix(arch, &ok2);
    if (st.ok()) st = RunAddCustom(arch, false, &ok3);
    if (st.ok()) st = RunAddCustom(arch, true, &ok4);
    if (!st.ok()) {
      std::fprintf(stderr, "tessera demo: %s\n", st.ToString().c_str());
      return 1;
    }
    all_ok = all_ok && ok1 && ok2 && ok3 && ok4;
  }
  if (Status st = SetProfile("native"); !st.ok()) {
    std::fprintf(stderr, "tessera demo: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("\n== built-in ops through the two-stage API (PrepareOp + ExecuteOp) ==\n");
  bool ops_ok = false;
  if (Status st = RunBuiltinOps(&ops_ok); !st.ok()) {
    std::fprintf(stderr, "tessera demo: %s\n", st.ToString().c_str());
    return 1;
  }
  all_ok = all_ok && ops_ok;
  std::printf("\ndemo %s\n", all_ok ? "passed" : "FAILED");
  return all_ok ? 0 : 1;
}

}  // namespace tessera::cli
