#include "tessera/runtime/param_cache.h"

#include <array>
#include <cstdlib>
#include <cstring>

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
  // The fields go into a stack buffer and then into the key with one append (this runs on every
  // call, cache hits included).
  const int rank = desc->shape.rank();
  const size_t num_strides =
      desc->strides.empty() ? static_cast<size_t>(rank) : desc->strides.size();
  constexpr size_t kMaxFields = 5 + 2 * Shape::kMaxRank;
  std::array<int64_t, kMaxFields> fields;
  size_t n = 0;
  const auto put = [&](int64_t v) {
    if (n == fields.size()) {
      Raw(fields.data(), n * sizeof(int64_t));
      n = 0;
    }
    fields[n++] = v;
  };
  key_ += 'T';
  put(static_cast<int64_t>(desc->dtype));
  put(static_cast<int64_t>(desc->format));
  put(rank);
  for (int64_t d : desc->shape.dims())
    put(d);
  put(static_cast<int64_t>(num_strides));  // counted, so the strides and view offset stay delimited
  if (desc->strides.empty()) {
    // Contiguous strides, computed without allocating. Unsigned, so a shape too large to address
    // wraps instead of overflowing (the shape itself is in the key, and validation rejects it).
    const size_t first = n;
    uint64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      fields[first + static_cast<size_t>(i)] = static_cast<int64_t>(stride);
      stride *= desc->shape.dim(i) > 0 ? static_cast<uint64_t>(desc->shape.dim(i)) : 1;
    }
    n += static_cast<size_t>(rank);
  } else {
    for (int64_t st : desc->strides)
      put(st);
  }
  put(view_offset);
  Raw(fields.data(), n * sizeof(int64_t));
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
  // One append for the fixed-size part (this runs on every call).
  char head[1 + 3 * sizeof(int64_t)];
  head[0] = 'P';
  const int64_t fields[3] = {aiv_cores, aic_cores, static_cast<int64_t>(soc.size())};
  std::memcpy(head + 1, fields, sizeof(fields));
  key_.append(head, sizeof(head));
  key_ += soc;
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
