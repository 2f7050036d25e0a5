/* The op types of the built-in operator package, grouped by call signature, as X-macros for
 * generating typed functions (e.g. the C API's tsr<Op>GetWorkspaceSize / tsr<Op>). Plain C.
 *
 *   #define DECLARE(Op) ...
 *   TESSERA_BUILTIN_BINARY_OPS(DECLARE)
 *
 * binary:        inputs x1, x2 (numpy broadcasting), output y
 * unary:         input x, output y
 * scalar attr:   input x, required float attribute "value", output y
 * dtype attr:    input x, required int attribute "dst_type" (a DataType code), output y
 * row ops:       elewise fused operators over the last axis, each with its own signature:
 *                RmsNorm(x, gamma; epsilon) -> y, AddRmsNorm(x1, x2, gamma; epsilon) -> y, x,
 *                LayerNorm(x, gamma, beta; epsilon, begin_norm_axis) -> y, Softmax(x; dim) -> y,
 *                SwiGlu(x; dim) -> y
 * matmul ops:    cube and MIX kernels (ops/matmul): MatMul, BatchMatMul, Addmm, MatMulAct */
#ifndef TESSERA_OPS_BUILTIN_OPS_H_
#define TESSERA_OPS_BUILTIN_OPS_H_

#define TESSERA_BUILTIN_BINARY_OPS(X) X(Add) X(Sub) X(Mul) X(Div) X(Maximum) X(Minimum)
#define TESSERA_BUILTIN_UNARY_OPS(X) X(Abs) X(Exp) X(Log) X(Sqrt) X(Rsqrt) X(Relu) X(Sigmoid)
#define TESSERA_BUILTIN_SCALAR_ATTR_OPS(X) X(Adds) X(Muls)
#define TESSERA_BUILTIN_DTYPE_ATTR_OPS(X) X(Cast)
#define TESSERA_BUILTIN_ROW_OPS(X) X(RmsNorm) X(AddRmsNorm) X(LayerNorm) X(Softmax) X(SwiGlu)
#define TESSERA_BUILTIN_MATMUL_OPS(X) X(MatMul) X(BatchMatMul) X(Addmm) X(MatMulAct)

#define TESSERA_BUILTIN_OPS(X)       \
  TESSERA_BUILTIN_BINARY_OPS(X)      \
  TESSERA_BUILTIN_UNARY_OPS(X)       \
  TESSERA_BUILTIN_SCALAR_ATTR_OPS(X) \
  TESSERA_BUILTIN_DTYPE_ATTR_OPS(X)  \
  TESSERA_BUILTIN_ROW_OPS(X)         \
  TESSERA_BUILTIN_MATMUL_OPS(X)

#endif /* TESSERA_OPS_BUILTIN_OPS_H_ */
