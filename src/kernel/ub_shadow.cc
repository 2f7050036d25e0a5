// Checked mode: the initialisation shadow of UB (see detail::ShadowFresh in local_tensor.h). A
// read is reported only where never-written bytes would reach GM (DataCopy out), after flowing
// through elementwise instructions: kernels legitimately compute garbage in the padding lanes of
// a tile and never copy it out.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "block_state.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel::detail {
namespace {

// The shadow bytes of [p, p + bytes) when they lie in this block's tracked UB, else null.
uint8_t* Shadow(const void* p, uint64_t bytes) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr || ctx->ub == nullptr) return nullptr;
  auto* state = static_cast<KernelBlockState*>(ctx->layer_state);
  const auto* b = static_cast<const std::byte*>(p);
  if (state->ub_shadow.empty() || b < ctx->ub || b + bytes > ctx->ub + ctx->ub_bytes)
    return nullptr;
  return state->ub_shadow.data() + (b - ctx->ub);
}

}  // namespace

void ShadowFresh(const void* p, uint64_t bytes) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->ub == nullptr) return;
  KernelBlockState& state = State("TPipe::InitBuffer");
  if (state.ub_shadow.empty()) state.ub_shadow.assign(ctx->ub_bytes, 1);
  if (uint8_t* s = Shadow(p, bytes)) std::fill(s, s + bytes, uint8_t{0});
}

void ShadowWritten(const void* p, uint64_t bytes) {
  if (uint8_t* s = Shadow(p, bytes)) std::fill(s, s + bytes, uint8_t{1});
}

void ShadowPropagate(const void* dst, const void* a, const void* b, uint64_t bytes) {
  uint8_t* d = Shadow(dst, bytes);
  if (d == nullptr) return;
  const uint8_t* sa = Shadow(a, bytes);
  const uint8_t* sb = b ? Shadow(b, bytes) : nullptr;
  // A source outside UB counts as written. One case per loop so that the loops vectorise: checked
  // mode runs this for every vector instruction. d may be a or b (in-place instructions).
  if (sa == nullptr) std::swap(sa, sb);
  if (sa == nullptr) {
    std::memset(d, 1, bytes);
  } else if (sb == nullptr && d > sa && d < sa + bytes) {
    // A destination overlapping its source from above: the forward walk, as the instructions'
    // own forward loops propagate the data (memmove would keep the source's original state).
    for (uint64_t i = 0; i < bytes; ++i)
      d[i] = sa[i];
  } else if (sb == nullptr) {
    std::memmove(d, sa, bytes);
  } else {
    for (uint64_t i = 0; i < bytes; ++i)
      d[i] = sa[i] & sb[i];
  }
}

void ShadowPropagateCast(const void* dst, uint32_t dst_size, const void* src, uint32_t src_size,
                         uint64_t count) {
  uint8_t* d = Shadow(dst, count * dst_size);
  const uint8_t* s = Shadow(src, count * src_size);
  if (d == nullptr || s == nullptr) return;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t all = 1;
    for (uint32_t k = 0; k < src_size; ++k)
      all &= s[i * src_size + k];
    std::fill(d + i * dst_size, d + (i + 1) * dst_size, all);
  }
}

void ShadowCheckRead(const void* p, uint64_t bytes, const void* tensor, uint32_t elem,
                     TPosition pos, const char* api, const char* role) {
  const uint8_t* s = Shadow(p, bytes);
  if (s == nullptr) return;
  const void* unwritten = std::memchr(s, 0, bytes);
  if (unwritten == nullptr) return;
  const uint64_t first = static_cast<uint64_t>(static_cast<const uint8_t*>(unwritten) - s);
  uint64_t last = first;
  while (last < bytes && s[last] == 0)
    ++last;
  const uint64_t base = static_cast<uint64_t>(static_cast<const std::byte*>(p) -
                                              static_cast<const std::byte*>(tensor));
  KernelFail(api, std::string(role) + " (" + TPositionName(pos) + "): elements " +
                      std::to_string((base + first) / elem) + ".." +
                      std::to_string((base + last - 1) / elem) +
                      " of the tensor were never written since TPipe::InitBuffer; copying them "
                      "to GM would write uninitialised UB (a read of UB never written)");
}

}  // namespace tessera::kernel::detail
