// Every malformed input makes quire-opt fail with a located diagnostic, never a crash.
// RUN: %python %S/check_malformed.py %S/Inputs quire-opt | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: {{[0-9]+}} passed, 0 failed
