// Example: core types - parse a dtype and a shape, count elements with overflow detection, and
// convert to half/bfloat16 with round-to-nearest-even.
#include <cstdio>

#include "tessera/core/data_type.h"
#include "tessera/core/float16.h"
#include "tessera/core/shape.h"
#include "tessera/core/tensor_desc.h"

using namespace tessera;

int main() {
  Result<DataType> dtype = ParseDataType("bf16");
  Result<Shape> shape = Shape::Parse("16384,4096");
  if (!dtype.ok() || !shape.ok()) return 1;
  TensorDesc desc{*dtype, *shape, Format::kND, {}};
  std::printf("%s: %lld elements, %lld bytes\n", desc.ToString().c_str(),
              static_cast<long long>(*shape->NumElements()),
              static_cast<long long>(*desc.StorageBytes()));

  Result<Shape> huge = Shape::Make({int64_t{1} << 40, int64_t{1} << 40});
  Result<int64_t> count = huge->NumElements();
  std::printf("overflow: %s\n", count.status().ToString().c_str());

  const float x = 1.00390625f;  // exactly between two bfloat16 values
  std::printf("bfloat16(%.8f) = %.8f (tie to even), half(%.8f) = %.8f\n", x,
              static_cast<float>(bfloat16(x)), 0.1f, static_cast<float>(half(0.1f)));
  return count.ok() ? 1 : 0;
}
