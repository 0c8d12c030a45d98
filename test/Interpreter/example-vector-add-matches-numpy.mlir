// examples/vector_add.mlir in quire-run against NumPy on random inputs, with n
// not a multiple of the 1024-element block (buffers hold exactly n elements,
// so the last program's masked-off lanes lie past the end) and the output
// poisoned with NaN before the run.
// RUN: %python %S/Inputs/differential.py vector_add --quire-run quire-run \
// RUN:   --source %quire_src/examples/vector_add.mlir --tmp %t | FileCheck %s

// CHECK: vector_add n=1 grid=1: exact ok
// CHECK-NEXT: vector_add n=1025 grid=2: exact ok
// CHECK-NEXT: vector_add n=3000 grid=3: exact ok
