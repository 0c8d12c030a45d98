// Brackets nested deeper than 1000 levels are rejected with a located error
// before the recursive parser sees them (it overflowed the stack at ~20000
// levels, and took minutes on nested regions); quire-opt, quirec and
// libquire (through quirec's driver) all exit 1 with the position.
// RUN: rm -rf %t && mkdir -p %t && %python %S/Unsupported/make_deep_nesting.py %t
// RUN: not quire-opt %t/deep-dense-nesting.mlir 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not quire-opt %t/deep-ptr-nesting.mlir 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: not quire-opt %t/deep-attr-nesting.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not quire-opt %t/deep-region-nesting.mlir 2>&1 | FileCheck %s --check-prefix=REGION
// RUN: not quirec %t/deep-region-nesting.mlir -o %t/out.ptx 2>&1 | FileCheck %s --check-prefix=REGION
// RUN: not quire-opt - < %t/deep-ptr-nesting.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// DENSE: deep-dense-nesting.mlir:3:1027: error: not supported: brackets nested deeper than 1000 levels
// PTR: deep-ptr-nesting.mlir:2:10017: error: not supported: brackets nested deeper than 1000 levels
// ATTR: deep-attr-nesting.mlir:2:5040: error: not supported: brackets nested deeper than 1000 levels
// REGION: deep-region-nesting.mlir:1002:11: error: not supported: brackets nested deeper than 1000 levels
// STDIN: <stdin>:2:10017: error: not supported
// Nesting within the bound parses; brackets in strings and comments and the
// `>` of `->` do not count.
// RUN: %python -c "print('func.func @k() attributes {a = ' + '[' * 990 + '1' + ']' * 990 + ', s = \"' + '(' * 2000 + '\"} {\n  // ' + '{' * 2000 + '\n  return\n}')" > %t/ok.mlir
// RUN: quire-opt %t/ok.mlir | FileCheck %s --check-prefix=OK
// OK: func.func @k()
