#include "tessera/kernel/data_copy.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "block_state.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::kernel::detail {
namespace {

template <class T>
T Combine(AtomicOp op, T old, T value) {
  switch (op) {
    case AtomicOp::kMax:
      return old < value ? value : old;
    case AtomicOp::kMin:
      return value < old ? value : old;
    default:
      return static_cast<T>(old + value);
  }
}

// float and the integers: fetch_add for adds, a compare-exchange loop for max / min.
template <class T>
void CombineElements(AtomicOp op, std::byte* dst, const std::byte* src, size_t bytes) {
  for (size_t i = 0; i + sizeof(T) <= bytes; i += sizeof(T)) {
    T value;
    std::memcpy(&value, src + i, sizeof(T));
    std::atomic_ref<T> word(*reinterpret_cast<T*>(dst + i));
    if (op == AtomicOp::kAdd) {
      word.fetch_add(value, std::memory_order_relaxed);
      continue;
    }
    T old = word.load(std::memory_order_relaxed);
    while (!word.compare_exchange_weak(old, Combine(op, old, value), std::memory_order_relaxed)) {
    }
  }
}

// half / bfloat16: a compare-exchange loop on the 16-bit pattern, combining in float.
template <class T>
void CombineElements16(AtomicOp op, std::byte* dst, const std::byte* src, size_t bytes) {
  for (size_t i = 0; i + 2 <= bytes; i += 2) {
    uint16_t value_bits;
    std::memcpy(&value_bits, src + i, 2);
    const float value = static_cast<float>(T::FromBits(value_bits));
    std::atomic_ref<uint16_t> word(*reinterpret_cast<uint16_t*>(dst + i));
    uint16_t old = word.load(std::memory_order_relaxed);
    while (!word.compare_exchange_weak(
        old, T(Combine(op, static_cast<float>(T::FromBits(old)), value)).bits,
        std::memory_order_relaxed)) {
    }
  }
}

// The running block's atomic mode; kNone outside kernels and by default.
AtomicOp RunningAtomic(AtomicType& type) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr) return AtomicOp::kNone;
  const auto* state = static_cast<const KernelBlockState*>(ctx->layer_state);
  type = state->atomic;
  return state->atomic_op;
}

// Input streams: copies of at least kStreamMinBytes, in chunks of kStreamChunk.
constexpr size_t kStreamMinBytes = 4096;
constexpr size_t kStreamChunk = 1024;
constexpr size_t kLine = 64;
constexpr int kStreams = KernelBlockState::kStreams;

KernelBlockState* RunningState() {
  const device::BlockContext* ctx = device::CurrentBlock();
  return ctx == nullptr ? nullptr : static_cast<KernelBlockState*>(ctx->layer_state);
}

}  // namespace

void SetAtomicType(AtomicType type) {
  if (type == AtomicType::kNone) {
    SetAtomicMode(AtomicOp::kNone, type);
  } else {
    SetAtomicMode(AtomicOp::kAdd, type);
  }
}

void SetAtomicMode(AtomicOp op, AtomicType type) {
  KernelBlockState& state = State("SetAtomicAdd");
  state.atomic_op = op;
  if (type != AtomicType::kNone) state.atomic = type;
}

void SetAtomicElementType(AtomicType type) {
  State("SetAtomicType").atomic = type;
}

void CopyToGlobal(void* dst, const void* src, size_t bytes, bool streaming, const char* api) {
  AtomicType type = AtomicType::kNone;
  const AtomicOp op = RunningAtomic(type);
  if (CheckedLaunch()) {
    device::NoteGmAccess(
        op == AtomicOp::kNone ? device::GmAccess::kWrite : device::GmAccess::kAtomicAdd, dst, bytes,
        api);
  }
  if (op != AtomicOp::kNone) {
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    switch (type) {
      case AtomicType::kF32:
        return CombineElements<float>(op, d, s, bytes);
      case AtomicType::kF16:
        return CombineElements16<half>(op, d, s, bytes);
      case AtomicType::kBF16:
        return CombineElements16<bfloat16>(op, d, s, bytes);
      case AtomicType::kS32:
        return CombineElements<int32_t>(op, d, s, bytes);
      case AtomicType::kS16:
        return CombineElements<int16_t>(op, d, s, bytes);
      default:
        return CombineElements<int8_t>(op, d, s, bytes);
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

void CopyFromGlobal(void* dst, const void* src, size_t bytes, uint64_t ahead) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  KernelBlockState* state = bytes >= kStreamMinBytes ? RunningState() : nullptr;
  if (state == nullptr) {
    std::memcpy(d, s, bytes);
    return;
  }
  // The stream this copy continues, or a slot for a new one (round robin).
  KernelBlockState::GmStream* stream = nullptr;
  for (auto& e : state->streams) {
    if (e.next == s) stream = &e;
  }
  const bool continues = stream != nullptr;
  if (!continues) {
    stream = &state->streams[state->stream_victim];
    state->stream_victim = static_cast<uint8_t>((state->stream_victim + 1) % kStreams);
  }
  const char* following = s + bytes;
  const char* prefetched = continues ? std::max(stream->prefetched, following) : following;
  // Only a stream seen to continue prefetches: one large copy says nothing about the next.
  const char* target = continues ? following + std::min<uint64_t>(ahead, bytes) : following;
  *stream = KernelBlockState::GmStream{following, target > prefetched ? target : prefetched};
  if (prefetched >= target) {
    std::memcpy(d, s, bytes);
    return;
  }
  // One prefetch per line copied, the copy in chunks so the two stay in step; a prefetch that
  // runs ahead of the copy would wait on the same miss buffers the copy needs.
  for (size_t at = 0; at < bytes; at += kStreamChunk) {
    const size_t n = std::min(kStreamChunk, bytes - at);
    for (size_t i = 0; i < n && prefetched < target; i += kLine, prefetched += kLine)
      __builtin_prefetch(prefetched, 0, 3);
    std::memcpy(d + at, s + at, n);
  }
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

std::vector<uint64_t> SliceOffsets(const SliceInfo info[], uint32_t dims, uint32_t elem_bytes,
                                   const char* side) {
  constexpr const char* kApi = "DataCopy (slice)";
  if (dims == 0 || dims > K_MAX_DIM) {
    KernelFail(kApi, "dimValue " + std::to_string(dims) + " is outside [1, " +
                         std::to_string(K_MAX_DIM) + "]");
  }
  // Per dimension: the selected indices, then the element pitch of the dimension.
  std::vector<std::vector<uint64_t>> picks(dims);
  uint64_t pitch = 1;
  std::vector<uint64_t> pitches(dims);
  for (uint32_t d = 0; d < dims; ++d) {
    const SliceInfo& s = info[d];
    const std::string where = std::string(side) + "SliceInfo[" + std::to_string(d) + "]";
    if (d > 0 && s.burstLen != 1) {
      KernelFail(kApi, where + ".burstLen is " + std::to_string(s.burstLen) +
                           "; dimensions past the first take burstLen 1");
    }
    const uint64_t burst = d == 0 ? uint64_t{s.burstLen} * kBlockBytes / elem_bytes : 1;
    if (burst == 0 || s.startIndex > s.endIndex || s.endIndex >= s.shapeValue) {
      KernelFail(kApi, where + " {start " + std::to_string(s.startIndex) + ", end " +
                           std::to_string(s.endIndex) + ", burstLen " + std::to_string(s.burstLen) +
                           ", shape " + std::to_string(s.shapeValue) +
                           "} needs burstLen > 0 and start <= end < shapeValue");
    }
    const uint64_t span = uint64_t{s.endIndex} - s.startIndex + 1;
    if ((span + s.stride) % (burst + s.stride) != 0) {
      KernelFail(kApi, where + ": end - start + 1 = " + std::to_string(span) +
                           " is not a whole number of segments of " + std::to_string(burst) +
                           " elements " + std::to_string(s.stride) + " apart");
    }
    for (uint64_t at = s.startIndex; at + burst <= uint64_t{s.endIndex} + 1; at += burst + s.stride)
      for (uint64_t i = 0; i < burst; ++i)
        picks[d].push_back(at + i);
    pitches[d] = pitch;
    pitch *= s.shapeValue;
  }
  // Row-major over the dimensions, the last outermost.
  std::vector<uint64_t> out{0};
  for (uint32_t d = dims; d-- > 0;) {
    std::vector<uint64_t> next;
    next.reserve(out.size() * picks[d].size());
    for (uint64_t base : out)
      for (uint64_t i : picks[d])
        next.push_back(base + i * pitches[d]);
    out.swap(next);
  }
  return out;
}

SlicePairs PairSlices(const SliceInfo dst_info[], const SliceInfo src_info[], uint32_t dims,
                      uint32_t elem_bytes) {
  SlicePairs pairs;
  pairs.from = SliceOffsets(src_info, dims, elem_bytes, "src");
  pairs.to = SliceOffsets(dst_info, dims, elem_bytes, "dst");
  if (pairs.from.size() != pairs.to.size()) {
    KernelFail("DataCopy (slice)", "the source slice selects " + std::to_string(pairs.from.size()) +
                                       " elements, the destination slice " +
                                       std::to_string(pairs.to.size()));
  }
  for (size_t i = 0; i < pairs.from.size(); ++i) {
    pairs.from_extent = std::max(pairs.from_extent, pairs.from[i] + 1);
    pairs.to_extent = std::max(pairs.to_extent, pairs.to[i] + 1);
  }
  return pairs;
}

void SliceCopy(void* dst, const void* src, const SlicePairs& pairs, uint32_t elem_bytes,
               bool to_global, bool checked, const void* ub_tensor, TPosition ub_pos) {
  const std::vector<uint64_t>& from = pairs.from;
  const std::vector<uint64_t>& to = pairs.to;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  // Runs contiguous on both sides go as one copy.
  for (size_t i = 0; i < from.size();) {
    size_t n = 1;
    while (i + n < from.size() && from[i + n] == from[i] + n && to[i + n] == to[i] + n)
      ++n;
    const size_t bytes = n * elem_bytes;
    uint8_t* out = d + to[i] * elem_bytes;
    const uint8_t* in = s + from[i] * elem_bytes;
    if (to_global) {
      if (checked)
        ShadowCheckRead(in, bytes, ub_tensor, elem_bytes, ub_pos, "DataCopy (slice)", "source");
      CopyToGlobal(out, in, bytes, false, "DataCopy (slice)");
    } else {
      if (checked) NoteGmRead(in, bytes, "DataCopy (slice)");
      std::memcpy(out, in, bytes);
      ShadowWritten(out, bytes);
    }
    i += n;
  }
}

}  // namespace tessera::kernel::detail
