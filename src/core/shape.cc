#include "tessera/core/shape.h"

#include <cctype>
#include <charconv>
#include <vector>

namespace tessera {

Result<Shape> Shape::Make(std::span<const int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return InvalidArgument("shape rank " + std::to_string(dims.size()) + " exceeds the maximum " +
                           std::to_string(kMaxRank));
  }
  Shape shape;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return InvalidArgument("shape dim " + std::to_string(i) + " is " + std::to_string(dims[i]) +
                             "; expected a value >= 0");
    }
    shape.dims_[i] = dims[i];
  }
  shape.rank_ = static_cast<int>(dims.size());
  return shape;
}

Result<Shape> Shape::Parse(std::string_view text) {
  std::string_view body = text;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front())))
    body.remove_prefix(1);
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back())))
    body.remove_suffix(1);
  if (!body.empty() && body.front() == '[') {
    if (body.back() != ']') return InvalidArgument("shape '" + std::string(text) + "' lacks ']'");
    body = body.substr(1, body.size() - 2);
  }
  std::vector<int64_t> dims;
  size_t pos = 0;
  bool any = body.find_first_not_of(" \t") != std::string_view::npos;
  while (any) {
    size_t comma = body.find(',', pos);
    std::string_view item =
        body.substr(pos, comma == std::string_view::npos ? body.npos : comma - pos);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
      item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back())))
      item.remove_suffix(1);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      return InvalidArgument("shape '" + std::string(text) + "': '" + std::string(item) +
                             "' is not an integer dim");
    }
    dims.push_back(value);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return Make(dims);
}

Result<int64_t> Shape::NumElements() const {
  int64_t count = 1;
  for (int i = 0; i < rank_; ++i) {
    if (__builtin_mul_overflow(count, dims_[static_cast<size_t>(i)], &count)) {
      return OutOfRange("element count of shape " + ToString() + " overflows int64");
    }
  }
  return count;
}

std::string Shape::ToString() const {
  std::string out = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) out += ", ";
    out += std::to_string(dims_[static_cast<size_t>(i)]);
  }
  return out + "]";
}

}  // namespace tessera
