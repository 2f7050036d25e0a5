// The elementwise ops on elewise beyond dense tensors: strided input views (every-other element,
// transposed, sliced rows) alone and with numpy broadcasts (a middle axis among them), every
// dtype, the sizes 1, 7, 31, 4097 and 1000003, checked mode, and the emulated ascend910b profile.
// References read the views by independent index arithmetic.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ops_test_util.h"
#include "tessera/device/device.h"

namespace tessera::ops::testing {
namespace {

using Dims = std::vector<int64_t>;

// A view: logical dims, element strides into its storage, and the storage's length.
struct View {
  Dims dims;
  Dims strides;
  int64_t storage = 0;
};

View Dense(const Dims& dims) {
  View v{dims, Dims(dims.size(), 1), Numel(dims)};
  for (size_t k = dims.size(); k-- > 1;)
    v.strides[k - 1] = v.strides[k] * dims[k];
  return v;
}

// Every `step`-th element of a 1-D buffer.
View Stepped(int64_t n, int64_t step) {
  return View{{n}, {step}, n == 0 ? 0 : (n - 1) * step + 1};
}

// The storage offset of element `flat` (row-major over v.dims) of the view broadcast into `out`.
int64_t Offset(const View& v, const Dims& out, int64_t flat) {
  int64_t off = 0;
  for (size_t i = out.size(); i-- > 0;) {
    const int64_t coord = flat % out[i];
    flat /= out[i];
    const size_t lead = out.size() - v.dims.size();
    if (i < lead) continue;
    if (v.dims[i - lead] != 1) off += coord * v.strides[i - lead];
  }
  return off;
}

TensorDesc ViewDesc(DataType dt, const View& v) {
  TensorDesc d = Desc(dt, v.dims);
  d.strides = v.strides;
  return d;
}

template <class T>
T BinaryRef(const std::string& op, T a, T b) {
  if constexpr (std::is_same_v<T, int32_t>) {
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    if (op == "Add") return static_cast<int32_t>(ua + ub);
    if (op == "Sub") return static_cast<int32_t>(ua - ub);
    if (op == "Mul") return static_cast<int32_t>(ua * ub);
    if (op == "Maximum") return a > b ? a : b;
    return a < b ? a : b;
  } else {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    if (op == "Add") return T(fa + fb);
    if (op == "Sub") return T(fa - fb);
    if (op == "Mul") return T(fa * fb);
    if (op == "Div") return T(fa / fb);
    if (op == "Maximum") return T(fa > fb ? fa : fb);
    return T(fa < fb ? fa : fb);
  }
}

template <class T>
void CheckBinary(const std::string& op, const View& va, const View& vb, const Dims& out,
                 bool checked, uint32_t seed) {
  const DataType dt = DataTypeOf<T>::value;
  SCOPED_TRACE(op + " " + std::string(DataTypeName(dt)) + " " + ViewDesc(dt, va).ToString() +
               " + " + ViewDesc(dt, vb).ToString() + (checked ? " checked" : ""));
  const bool is_int = std::is_same_v<T, int32_t>;
  const auto a =
      Random<T>(static_cast<size_t>(va.storage), is_int ? -1e9 : -100, is_int ? 1e9 : 100, seed);
  auto b =
      Random<T>(static_cast<size_t>(vb.storage), is_int ? -1e9 : 0.5, is_int ? 1e9 : 100, seed + 1);
  CheckedScope scope(checked);
  auto r = RunOp(op, {ViewDesc(dt, va), ViewDesc(dt, vb)}, {ToBytes(a), ToBytes(b)}, Desc(dt, out));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto y = FromBytes<T>(r->y);
  ASSERT_EQ(static_cast<int64_t>(y.size()), Numel(out));
  for (int64_t i = 0; i < Numel(out); ++i) {
    const T want = BinaryRef<T>(op, a[static_cast<size_t>(Offset(va, out, i))],
                                b[static_cast<size_t>(Offset(vb, out, i))]);
    ASSERT_TRUE(SameValue(y[static_cast<size_t>(i)], want)) << "element " << i;
  }
}

// A view and a dense tensor of its shape, with a third shape broadcasting between them.
struct BinaryCase {
  View a, b;
  Dims out;
};

std::vector<BinaryCase> BinaryCases() {
  std::vector<BinaryCase> cases;
  for (int64_t n : {1, 7, 31, 4097, 1000003})
    cases.push_back({Stepped(n, 2), Dense({n}), {n}});
  // Transposed [5, 7] (storage [7, 5]) plus a sliced view (every other column of [5, 16]).
  cases.push_back({View{{5, 7}, {1, 5}, 35}, View{{5, 7}, {16, 2}, 80}, {5, 7}});
  // Middle-axis broadcast with a permuted input: x1 [3, 4, 33] stored as [33, 4, 3].
  cases.push_back({View{{3, 4, 33}, {1, 3, 12}, 396}, Dense({3, 1, 33}), {3, 4, 33}});
  // A strided row view broadcast over a leading axis: x2 rows 40 apart.
  cases.push_back({Dense({6, 9, 31}), View{{9, 31}, {40, 1}, 8 * 40 + 31}, {6, 9, 31}});
  // Only-strided x2 broadcast as a scalar per row.
  cases.push_back({Dense({4097, 3}), View{{4097, 1}, {5, 1}, 4096 * 5 + 1}, {4097, 3}});
  return cases;
}

TEST(ElementwiseViewTest, BinaryOpsReadStridedAndBroadcastViews) {
  const auto cases = BinaryCases();
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}) {
    for (size_t c = 0; c < cases.size(); ++c) {
      const BinaryCase& bc = cases[c];
      const bool checked = c % 3 == 1;
      const auto seed = static_cast<uint32_t>(c * 11 + 3);
      CheckBinary<float>(op, bc.a, bc.b, bc.out, checked, seed);
      CheckBinary<half>(op, bc.a, bc.b, bc.out, checked, seed);
      CheckBinary<bfloat16>(op, bc.a, bc.b, bc.out, checked, seed);
      if (std::string(op) != "Div") CheckBinary<int32_t>(op, bc.a, bc.b, bc.out, checked, seed);
    }
  }
}

// Unary ops and Cast over a stepped view: the same values as over the dense copy.
template <class S, class D>
void CheckUnaryView(const std::string& op, int64_t n, int64_t step,
                    const std::map<std::string, runtime::AttrValue>& attrs, double lo, double hi) {
  const DataType ds = DataTypeOf<S>::value, dd = DataTypeOf<D>::value;
  SCOPED_TRACE(op + " " + std::string(DataTypeName(ds)) + " -> " + std::string(DataTypeName(dd)) +
               " n=" + std::to_string(n));
  const View v = Stepped(n, step);
  const auto storage = Random<S>(static_cast<size_t>(v.storage), lo, hi, static_cast<uint32_t>(n));
  std::vector<S> dense(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    dense[static_cast<size_t>(i)] = storage[static_cast<size_t>(i * step)];
  auto strided = RunOp(op, {ViewDesc(ds, v)}, {ToBytes(storage)}, Desc(dd, {n}), attrs);
  ASSERT_TRUE(strided.ok()) << strided.status().ToString();
  auto flat = RunOp(op, {Desc(ds, {n})}, {ToBytes(dense)}, Desc(dd, {n}), attrs);
  ASSERT_TRUE(flat.ok()) << flat.status().ToString();
  EXPECT_EQ(strided->y, flat->y);
}

TEST(ElementwiseViewTest, UnaryOpsAndCastReadSteppedViews) {
  for (int64_t n : {1, 7, 31, 4097, 1000003}) {
    CheckUnaryView<float, float>("Sigmoid", n, 3, {}, -20, 20);
    CheckUnaryView<half, half>("Exp", n, 2, {}, -10, 10);
    CheckUnaryView<bfloat16, bfloat16>("Sqrt", n, 2, {}, 0, 1e4);
    CheckUnaryView<int32_t, int32_t>("Abs", n, 2, {}, -1e9, 1e9);
    CheckUnaryView<float, float>("Adds", n, 2, {{"value", 2.5f}}, -100, 100);
    CheckUnaryView<int32_t, int32_t>("Muls", n, 5, {{"value", -3.0f}}, -1e6, 1e6);
    CheckUnaryView<float, bfloat16>("Cast", n, 2, {{"dst_type", int64_t{27}}}, -3e9, 3e9);
    CheckUnaryView<int32_t, bfloat16>("Cast", n, 3, {{"dst_type", int64_t{27}}}, -2147483648.0,
                                      2147483647.0);
    CheckUnaryView<half, int32_t>("Cast", n, 2, {{"dst_type", int64_t{3}}}, -6e4, 6e4);
  }
}

// The emulated NPU profile (many logical cores, NPU-sized UB) computes the same bits.
TEST(ElementwiseViewTest, Ascend910bProfileMatchesNative) {
  const View strided{{3, 4, 33}, {1, 3, 12}, 396};
  const auto a = Random<float>(1000003, -100, 100, 7);
  const auto b = Random<float>(1000003, -100, 100, 8);
  const auto s = Random<float>(396, -100, 100, 9);
  const auto m = Random<float>(99, -100, 100, 10);
  const auto run_all = [&]() {
    std::vector<std::vector<uint8_t>> outs;
    const auto push = [&](Result<OpResult> r) {
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      outs.push_back(r.ok() ? r->y : std::vector<uint8_t>{});
    };
    push(RunOp("Add", {Desc(DataType::kFloat32, {1000003}), Desc(DataType::kFloat32, {1000003})},
               {ToBytes(a), ToBytes(b)}, Desc(DataType::kFloat32, {1000003})));
    push(RunOp("Mul", {ViewDesc(DataType::kFloat32, strided), Desc(DataType::kFloat32, {3, 1, 33})},
               {ToBytes(s), ToBytes(m)}, Desc(DataType::kFloat32, {3, 4, 33})));
    push(RunOp("Sigmoid", {Desc(DataType::kFloat32, {1000003})}, {ToBytes(a)},
               Desc(DataType::kFloat32, {1000003})));
    push(RunOp("Cast", {Desc(DataType::kFloat32, {1000003})}, {ToBytes(a)},
               Desc(DataType::kBfloat16, {1000003}), {{"dst_type", int64_t{27}}}));
    return outs;
  };
  const auto native = run_all();
  ASSERT_TRUE(device::SetProfile("ascend910b").ok());
  const auto npu = run_all();
  ASSERT_TRUE(device::SetProfile("native").ok());
  ASSERT_EQ(native.size(), npu.size());
  for (size_t i = 0; i < native.size(); ++i)
    EXPECT_EQ(native[i], npu[i]) << "call " << i;
}

// int32 -> bfloat16 around the double-rounding traps: values that fp32 would round onto a
// bfloat16 tie, saturation to 2^31, negative extremes.
TEST(ElementwiseViewTest, Int32ToBfloat16RoundsOnce) {
  const std::vector<int32_t> x = {
      16842753,   16842751,   -16842753,   16777217, 16777215, 2147483647, -2147483647 - 1,
      2147450879, 2147450881, -2147450880, 33554433, 33685505, 65537,      -65535,
      0,          1,          -1,          8388609,  25165825};
  auto r = RunOp("Cast", {Desc(DataType::kInt32, {static_cast<int64_t>(x.size())})}, {ToBytes(x)},
                 Desc(DataType::kBfloat16, {static_cast<int64_t>(x.size())}),
                 {{"dst_type", int64_t{27}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto y = FromBytes<bfloat16>(r->y);
  for (size_t i = 0; i < x.size(); ++i) {
    // Nearest even at 8 significant bits in long double (exact), then exact in bfloat16.
    const long double v = x[i];
    long double want = 0;
    if (x[i] != 0) {
      const long double scale = std::ldexp(1.0L, std::ilogb(v) - 7);
      want = std::nearbyint(v / scale) * scale;
    }
    EXPECT_TRUE(SameValue(y[i], bfloat16(static_cast<float>(want))))
        << x[i] << " -> " << static_cast<float>(y[i]) << ", want " << static_cast<double>(want);
  }
}

}  // namespace
}  // namespace tessera::ops::testing
