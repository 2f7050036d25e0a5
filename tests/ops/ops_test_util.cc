#include "ops_test_util.h"

#include <dlfcn.h>

#include <array>
#include <optional>
#include <span>

#include "tessera/device/device.h"
#include "tessera/device/kernel_abi.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/op_registration.h"

namespace tessera::ops::testing {
namespace {

// The entry list of the built-in package's kernel library for this machine, loaded once and kept
// loaded (TESSERA_TEST_BUILTIN_KERNELS). A library that cannot be loaded fails every test that
// asks for an entry, naming the library and dlerror().
std::span<const device::KernelEntryInfo> BuiltinEntries() {
  static const std::span<const device::KernelEntryInfo> entries = [] {
    void* lib = dlopen(TESSERA_TEST_BUILTIN_KERNELS, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      ADD_FAILURE() << "cannot load " << TESSERA_TEST_BUILTIN_KERNELS << ": " << dlerror();
      return std::span<const device::KernelEntryInfo>();
    }
    auto list = reinterpret_cast<device::KernelEntriesFn>(dlsym(lib, device::kKernelEntriesSymbol));
    if (list == nullptr) {
      ADD_FAILURE() << TESSERA_TEST_BUILTIN_KERNELS << " does not export "
                    << device::kKernelEntriesSymbol;
      return std::span<const device::KernelEntryInfo>();
    }
    size_t count = 0;
    const device::KernelEntryInfo* first = list(&count);
    return std::span<const device::KernelEntryInfo>(first, count);
  }();
  return entries;
}

// The largest entry arity: two inputs, one output, workspace, tiling.
constexpr size_t kMaxArgs = 5;

// Not a pointer, so checked-mode launches do not take the entry function for a device address.
struct EntryFn {
  device::KernelEntryFn fn;
};

// The launched kernel: hands the GM addresses to the entry as its argument array (trailing unused
// slots are null).
void CallEntry(EntryFn entry, uint8_t* a0, uint8_t* a1, uint8_t* a2, uint8_t* a3, uint8_t* a4) {
  uint8_t* const args[kMaxArgs] = {a0, a1, a2, a3, a4};
  entry.fn(args);
}

// Device allocations freed on scope exit.
class DeviceArena {
 public:
  ~DeviceArena() {
    for (void* p : ptrs_)
      EXPECT_TRUE(device::Free(p).ok());
  }
  Result<uint8_t*> Upload(const std::vector<uint8_t>& bytes) {
    TESSERA_ASSIGN_OR_RETURN(uint8_t * p, Alloc(bytes.size()));
    if (!bytes.empty()) {
      TESSERA_RETURN_IF_ERROR(device::Memcpy(p, bytes.size(), bytes.data(), bytes.size(),
                                             device::MemcpyKind::kHostToDevice));
    }
    return p;
  }
  Result<uint8_t*> Alloc(size_t bytes) {
    TESSERA_ASSIGN_OR_RETURN(void* p, device::Malloc(std::max<size_t>(bytes, 1)));
    ptrs_.push_back(p);
    return static_cast<uint8_t*>(p);
  }

 private:
  std::vector<void*> ptrs_;
};

Result<size_t> Bytes(const TensorDesc& d) {
  TESSERA_ASSIGN_OR_RETURN(int64_t n, d.shape.NumElements());
  return static_cast<size_t>(n) * DataTypeSize(d.dtype);
}

}  // namespace

std::vector<device::KernelEntryInfo> AllEntries() {
  const std::span<const device::KernelEntryInfo> entries = BuiltinEntries();
  return {entries.begin(), entries.end()};
}

const device::KernelEntryInfo* FindEntry(const std::string& kernel, uint64_t key) {
  for (const device::KernelEntryInfo& e : BuiltinEntries()) {
    if (kernel == e.kernel && e.tiling_key == key) return &e;
  }
  return nullptr;
}

runtime::PlatformInfo CurrentPlatform() {
  return runtime::PlatformInfo::FromArch(device::CurrentArch());
}

TensorDesc Desc(DataType dtype, const std::vector<int64_t>& dims) {
  auto shape = Shape::Make(std::span<const int64_t>(dims.data(), dims.size()));
  EXPECT_TRUE(shape.ok()) << shape.status().ToString();
  return TensorDesc{dtype, shape.value_or(Shape()), Format::kND, {}};
}

int64_t Numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

Status TilingOnly(const std::string& type, const std::vector<TensorDesc>& inputs,
                  const TensorDesc& output,
                  const std::map<std::string, runtime::AttrValue>& attrs) {
  std::unique_ptr<runtime::OpDef> op = MakeOp(type);
  if (op == nullptr) return NotFound("no built-in op " + type);
  runtime::TilingContext ctx(type, {inputs.begin(), inputs.end()}, {output}, attrs,
                             CurrentPlatform());
  return runtime::RunTiling(*op, ctx);
}

Result<OpResult> RunOp(const std::string& type, const std::vector<TensorDesc>& inputs,
                       const std::vector<std::vector<uint8_t>>& input_bytes,
                       const TensorDesc& output,
                       const std::map<std::string, runtime::AttrValue>& attrs,
                       const runtime::PlatformInfo& platform) {
  std::unique_ptr<runtime::OpDef> op = MakeOp(type);
  if (op == nullptr) return NotFound("no built-in op " + type);
  TESSERA_RETURN_IF_ERROR(op->Validate());
  runtime::TilingContext ctx(type, {inputs.begin(), inputs.end()}, {output}, attrs, platform);
  TESSERA_RETURN_IF_ERROR(runtime::RunTiling(*op, ctx));
  const device::KernelEntryInfo* entry = FindEntry(op->KernelName(), ctx.tiling_key());
  if (entry == nullptr) {
    return NotFound("no kernel entry " + op->KernelName() + " for tiling key " +
                    std::to_string(ctx.tiling_key()));
  }
  if (entry->num_args != inputs.size() + 3) {
    return Internal("entry " + op->KernelName() + " takes " + std::to_string(entry->num_args) +
                    " arguments, expected " + std::to_string(inputs.size() + 3));
  }

  DeviceArena arena;
  std::array<uint8_t*, kMaxArgs> args{};
  size_t n = 0;
  for (const auto& bytes : input_bytes) {
    TESSERA_ASSIGN_OR_RETURN(args[n++], arena.Upload(bytes));
  }
  TESSERA_ASSIGN_OR_RETURN(const size_t out_bytes, Bytes(output));
  TESSERA_ASSIGN_OR_RETURN(uint8_t * y, arena.Alloc(out_bytes));
  args[n++] = y;
  args[n++] = nullptr;  // workspace: the built-in ops need none
  TESSERA_ASSIGN_OR_RETURN(args[n++], arena.Upload(ctx.tiling_data()));

  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(device::Launch(
      device::LaunchConfig{ctx.block_dim(), device::KernelType::kAiv, entry->kernel}, &CallEntry,
      stream, EntryFn{entry->fn}, args[0], args[1], args[2], args[3], args[4]));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());

  OpResult result;
  result.tiling_key = ctx.tiling_key();
  result.block_dim = ctx.block_dim();
  result.y.resize(out_bytes);
  if (out_bytes > 0) {
    TESSERA_RETURN_IF_ERROR(device::Memcpy(result.y.data(), out_bytes, y, out_bytes,
                                           device::MemcpyKind::kDeviceToHost));
  }
  return result;
}

CheckedScope::CheckedScope(bool on) : previous_(device::CheckedMode()) {
  device::SetCheckedMode(on);
}
CheckedScope::~CheckedScope() {
  device::SetCheckedMode(previous_);
}

}  // namespace tessera::ops::testing
