// The kernel API's hook for pipe phases in traces (tessera/device/pipe_phase.h): a scope object as
// the first statement of an instruction. Fast mode pays one branch on the tensor's checked flag.
#pragma once

#include <cstdint>

#include "tessera/device/pipe_phase.h"

namespace tessera::kernel::detail {

class PipeScope {
 public:
  PipeScope(bool checked, device::TracePipe pipe)
      : pipe_(pipe), begin_(__builtin_expect(checked, 0) ? device::BeginPipeCall() : -1) {}
  ~PipeScope() {
    if (begin_ >= 0) device::EndPipeCall(pipe_, begin_);
  }
  PipeScope(const PipeScope&) = delete;
  PipeScope& operator=(const PipeScope&) = delete;

 private:
  device::TracePipe pipe_;
  int64_t begin_;
};

}  // namespace tessera::kernel::detail
