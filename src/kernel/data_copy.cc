#include "tessera/kernel/data_copy.h"

#include <atomic>
#include <cstdio>

#include "block_state.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::kernel::detail {
namespace {

template <class T>
void AddElements(std::byte* dst, const std::byte* src, size_t bytes) {
  for (size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T add;
    std::memcpy(&add, src + i, sizeof(T));
    std::atomic_ref<T>(*reinterpret_cast<T*>(dst + i)).fetch_add(add, std::memory_order_relaxed);
  }
}

// half / bfloat16: a compare-exchange loop on the 16-bit pattern, summing in float.
template <class T>
void AddElements16(std::byte* dst, const std::byte* src, size_t bytes) {
  for (size_t i = 0; i + 2 <= bytes; i += 2) {
    uint16_t add_bits;
    std::memcpy(&add_bits, src + i, 2);
    const float add = static_cast<float>(T::FromBits(add_bits));
    std::atomic_ref<uint16_t> word(*reinterpret_cast<uint16_t*>(dst + i));
    uint16_t old = word.load(std::memory_order_relaxed);
    while (!word.compare_exchange_weak(old, T(static_cast<float>(T::FromBits(old)) + add).bits,
                                       std::memory_order_relaxed)) {
    }
  }
}

// SetAtomicAdd's type for the running block (kNone outside kernels and by default).
AtomicType RunningAtomicType() {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr) return AtomicType::kNone;
  return static_cast<const KernelBlockState*>(ctx->layer_state)->atomic;
}

}  // namespace

void SetAtomicType(AtomicType type) {
  State("SetAtomicAdd").atomic = type;
}

void CopyToGlobal(void* dst, const void* src, size_t bytes, bool streaming, const char* api) {
  const AtomicType atomic = RunningAtomicType();
  if (CheckedLaunch()) {
    device::NoteGmAccess(
        atomic == AtomicType::kNone ? device::GmAccess::kWrite : device::GmAccess::kAtomicAdd, dst,
        bytes, api);
  }
  if (atomic != AtomicType::kNone) {
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    switch (atomic) {
      case AtomicType::kF32:
        return AddElements<float>(d, s, bytes);
      case AtomicType::kF16:
        return AddElements16<half>(d, s, bytes);
      case AtomicType::kBF16:
        return AddElements16<bfloat16>(d, s, bytes);
      case AtomicType::kS32:
        return AddElements<int32_t>(d, s, bytes);
      case AtomicType::kS16:
        return AddElements<int16_t>(d, s, bytes);
      default:
        return AddElements<int8_t>(d, s, bytes);
    }
  }
#if defined(__x86_64__) || defined(__i386__)
  if (streaming) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    // Plain copy up to the first 16-byte aligned destination byte, streaming stores for the body,
    // plain copy for the tail: never a byte past `bytes`.
    const size_t head = (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16;
    const size_t lead = head < bytes ? head : bytes;
    std::memcpy(d, s, lead);
    size_t i = lead;
    for (; i + 64 <= bytes; i += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + i, s + i, bytes - i);
    // Streaming stores are weakly ordered: fence so the data is visible before the block ends or
    // signals another core.
    _mm_sfence();
    return;
  }
#else
  (void)streaming;
#endif
  std::memcpy(dst, src, bytes);
}

void FailAlignment(const char* api, const char* what, uint64_t value) {
  char buf[64];
  if (std::string(what).find("address") != std::string::npos) {
    std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(value));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(value));
  }
  KernelFail(api, std::string(what) + " " + buf + " is not 32-byte aligned" +
                      (std::string(what) == "length in bytes"
                           ? "; use DataCopyPad for lengths that are not a multiple of 32 bytes"
                           : ""));
}

void SetPadBits(uint64_t bits) {
  KernelBlockState& state = State("SetPadValue");
  state.pad_bits = bits;
  state.pad_set = true;
}

bool GetPadBits(uint64_t& bits) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr) return false;
  const auto* state = static_cast<const KernelBlockState*>(ctx->layer_state);
  bits = state->pad_bits;
  return state->pad_set;
}

}  // namespace tessera::kernel::detail
