// examples/softmax.mlir in quire-run against a float64 NumPy softmax, for
// ragged row lengths n (1, 777, 1024) in padded rows: the padding holds 1e30,
// so reading it would show, and must stay NaN (never written).
// RUN: %python %S/Inputs/differential.py softmax --quire-run quire-run \
// RUN:   --source %quire_src/examples/softmax.mlir --tmp %t | FileCheck %s

// CHECK: softmax rows=3 n=1: rel_err<1e-5 ok
// CHECK-NEXT: softmax rows=5 n=777: rel_err<1e-5 ok
// CHECK-NEXT: softmax rows=2 n=1024: rel_err<1e-5 ok
