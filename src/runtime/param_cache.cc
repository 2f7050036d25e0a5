#include "tessera/runtime/param_cache.h"

#include <array>
#include <cstdlib>

namespace tessera::runtime {

size_t CacheLimitFromEnv() {
  const char* env = std::getenv("TESSERA_CACHE_LIMIT");
  if (env == nullptr || env[0] == '\0') return 10000;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return (end && *end == '\0' && v >= 0) ? static_cast<size_t>(v) : 10000;
}

CacheKeyBuilder::CacheKeyBuilder(const std::string& op_type) {
  key_.reserve(512);
  Str(op_type);
}

CacheKeyBuilder& CacheKeyBuilder::Reset(const std::string& op_type) {
  key_.clear();
  Str(op_type);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::Tensor(const TensorDesc* desc, int64_t view_offset) {
  if (desc == nullptr) {
    key_ += 'N';
    return *this;
  }
  key_ += 'T';
  Int(static_cast<int64_t>(desc->dtype));
  Int(static_cast<int64_t>(desc->format));
  Int(desc->shape.rank());
  for (int64_t d : desc->shape.dims())
    Int(d);
  const int rank = desc->shape.rank();
  if (desc->strides.empty()) {
    // Contiguous strides, computed without allocating (this runs on every cache hit).
    // Unsigned, so a shape too large to address wraps instead of overflowing (the shape itself
    // is in the key, and validation rejects it).
    std::array<int64_t, Shape::kMaxRank> strides{};
    uint64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[static_cast<size_t>(i)] = static_cast<int64_t>(stride);
      stride *= desc->shape.dim(i) > 0 ? static_cast<uint64_t>(desc->shape.dim(i)) : 1;
    }
    Int(rank);  // counted, so the strides and the view offset after them stay delimited
    for (int i = 0; i < rank; ++i)
      Int(strides[static_cast<size_t>(i)]);
  } else {
    Int(static_cast<int64_t>(desc->strides.size()));
    for (int64_t s : desc->strides)
      Int(s);
  }
  Int(view_offset);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::Attr(const std::string& name, const AttrValue& value) {
  key_ += 'A';
  Str(name);
  Int(static_cast<int64_t>(value.index()));
  std::visit(
      [this](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          Str(v);
        } else if constexpr (std::is_same_v<V, std::vector<int64_t>> ||
                             std::is_same_v<V, std::vector<float>>) {
          Int(static_cast<int64_t>(v.size()));
          Raw(v.data(), v.size() * sizeof(typename V::value_type));
        } else {
          Raw(&v, sizeof(v));
        }
      },
      value);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::RunTimeAttr(const std::string& name, AttrKind kind) {
  key_ += 'R';
  Str(name);
  Int(static_cast<int64_t>(kind));
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::Platform(uint32_t aiv_cores, uint32_t aic_cores,
                                           const std::string& soc, const std::string& profile) {
  key_ += 'P';
  Int(aiv_cores);
  Int(aic_cores);
  Str(soc);
  Str(profile);
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::Deterministic(bool on) {
  key_ += on ? 'D' : 'd';
  return *this;
}

CacheKeyBuilder& CacheKeyBuilder::Package(const std::string& dir) {
  key_ += 'K';
  Str(dir);
  return *this;
}

}  // namespace tessera::runtime
