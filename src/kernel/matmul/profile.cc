#include "tessera/kernel/matmul/profile.h"

#include "tessera/device/arch_spec.h"

namespace tessera::kernel {

AiCoreProfile Ascend910bProfile() {
  const Result<device::ArchSpec> spec = device::FindProfile("ascend910b");
  AiCoreProfile p;
  if (!spec.ok()) return p;  // the profile is built in; this does not happen
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

}  // namespace tessera::kernel
