// examples/matmul.mlir in quire-run against a float64 NumPy product: M, N, K
// not multiples of the 64x64x32 tiles (and one exact fit), padded leading
// dimensions whose padding must stay unwritten, f16 output with relative
// error < 1e-3.
// RUN: %python %S/Inputs/differential.py matmul --quire-run quire-run \
// RUN:   --source %quire_src/examples/matmul.mlir --tmp %t | FileCheck %s

// CHECK: matmul M=100 N=70 K=45: rel_err<1e-3 ok
// CHECK-NEXT: matmul M=64 N=64 K=32: rel_err<1e-3 ok
// CHECK-NEXT: matmul M=1 N=130 K=7: rel_err<1e-3 ok
