// The malformed corpus through the whole compiler: quirec must fail on every
// input with a located diagnostic (a parse or verifier error, or a kernel-level
// one such as "no kernel in the input"), never a crash.
// RUN: %python %S/check_malformed.py %S/Inputs quirec --emit=ptx -o %t.ptx | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed
