#include "tessera/kernel/matmul/profile.h"

#include "tessera/device/arch_spec.h"
#include "tessera/device/device.h"

namespace tessera::kernel {
namespace {

AiCoreProfile ProfileOf(const device::ArchSpec* spec) {
  AiCoreProfile p;
  p.aic_cores = spec->aic_cores;
  p.aiv_cores = spec->aiv_cores;
  p.ub_bytes = spec->ub_bytes;
  p.l1_bytes = spec->l1_bytes;
  p.l0a_bytes = spec->l0a_bytes;
  p.l0b_bytes = spec->l0b_bytes;
  p.l0c_bytes = spec->l0c_bytes;
  p.bt_bytes = spec->bt_bytes;
  p.fb_bytes = spec->fb_bytes;
  return p;
}

}  // namespace

AiCoreProfile Ascend910bProfile() {
  const Result<device::ArchSpec> spec = device::FindProfile("ascend910b");
  // The profile is built in; the failure does not happen.
  return spec.ok() ? ProfileOf(&*spec) : AiCoreProfile{};
}

AiCoreProfile CurrentProfile() {
  return ProfileOf(&device::CurrentArch());
}

}  // namespace tessera::kernel
