// The vendor's Broadcast (adv_api/pad): dst (dstShape, row-major, contiguous) takes src
// (srcShape, the same rank, each dim equal to dst's or 1) repeated along the dims where src has 1.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/compat/kernel/adv/detail/adv_common.h"
#include "tessera/device/gm_access.h"

namespace tessera::compat::adv {

template <class T, int32_t dim>
void BroadcastND(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[],
                 const uint32_t srcShape[]) {
  static_assert(dim >= 1 && dim <= 8, "Broadcast: dim must be 1..8");
  const char* api = "Broadcast";
  uint64_t dst_count = 1, src_count = 1;
  uint64_t src_stride[dim];  // element stride of src per dim, 0 where src broadcasts
  for (int32_t d = dim - 1; d >= 0; --d) {
    Require(srcShape[d] == dstShape[d] || srcShape[d] == 1, api,
            "srcShape[" + std::to_string(d) + "] = " + std::to_string(srcShape[d]) +
                " is neither 1 nor dstShape's " + std::to_string(dstShape[d]));
    src_stride[d] = srcShape[d] == 1 ? 0 : src_count;
    src_count *= srcShape[d];
    dst_count *= dstShape[d];
  }
  CheckRead(src, src_count, api, "src");
  CheckWrite(dst, dst_count, api);
  if (dst_count == 0) return;
  const uint32_t inner = dstShape[dim - 1];
  const bool inner_broadcast = src_stride[dim - 1] == 0;
  uint32_t index[dim] = {};
  for (uint64_t out = 0; out < dst_count; out += inner) {
    uint64_t s = 0;
    for (int32_t d = 0; d < dim - 1; ++d)
      s += index[d] * src_stride[d];
    T* o = dst.data() + out;
    const T* in = src.data() + s;
    if (inner_broadcast) {
      for (uint32_t j = 0; j < inner; ++j)
        o[j] = in[0];
    } else {
      for (uint32_t j = 0; j < inner; ++j)
        o[j] = in[j];
    }
    for (int32_t d = dim - 2; d >= 0; --d) {  // next outer index, odometer style
      if (++index[d] < dstShape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace tessera::compat::adv

namespace AscendC {

// The functions are declared in AscendC::adv_api, which AscendC imports: a qualified
// AscendC::Name then finds these and the kernel layer's same-named instructions together.
namespace adv_api {

// Broadcast<T, dim, axis>: dst[dstShape] = src[srcShape] repeated where srcShape has 1 (axis names
// the vendor's broadcast axis; the shapes decide). Any element type; no temporary is needed.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
               const uint32_t dstShape[dim], const uint32_t srcShape[dim],
               LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {
  static_assert(axis >= 0 && axis < dim, "Broadcast: axis must be in [0, dim)");
  ::tessera::compat::adv::BroadcastND<T, dim>(dstLocal, srcLocal, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
               const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  static_assert(axis >= 0 && axis < dim, "Broadcast: axis must be in [0, dim)");
  ::tessera::compat::adv::BroadcastND<T, dim>(dstLocal, srcLocal, dstShape, srcShape);
}

// Fill (InitGlobalMemory): sets the first `size` elements of a global tensor to `value`.
template <typename T>
void Fill(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value) {
  ::tessera::compat::adv::Require(
      gmWorkspaceAddr.GetSize() == 0 || size <= gmWorkspaceAddr.GetSize(), "Fill",
      "size " + std::to_string(size) + " exceeds the global tensor's " +
          std::to_string(gmWorkspaceAddr.GetSize()) + " elements");
  T* p = gmWorkspaceAddr.GetPhyAddr();
  // Checked mode: the write counts for the race and unwritten-output checks like a DataCopy's.
  if (gmWorkspaceAddr.checked() && size > 0)
    ::tessera::device::NoteGmAccess(::tessera::device::GmAccess::kWrite, p, size * sizeof(T),
                                    "Fill");
  for (uint64_t i = 0; i < size; ++i)
    p[i] = value;
}
template <typename T>
void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value) {
  Fill(gmWorkspaceAddr, size, value);
}

}  // namespace adv_api
using namespace adv_api;
}  // namespace AscendC
