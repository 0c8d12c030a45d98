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
// A closer closes only its own kind of bracket: the `>` of `>=` in an
// affine set closed nothing and let the count fall back to 0 while the
// real depth grew (9000 levels reached the parser and overflowed its
// stack). `<=` inside parentheses does not open a level past them.
// RUN: %python -c "print('func.func @k() attributes {a = ' + ('[' * 900 + 'affine_set<(d0) : (' + 'd0 >= 0, ' * 911 + 'd0 >= 0)>, ') * 2 + '1' + ']' * 1800 + '} {\n  return\n}')" > %t/bypass.mlir
// RUN: not quire-opt %t/bypass.mlir 2>&1 | FileCheck %s --check-prefix=BYPASS
// BYPASS: bypass.mlir:1:{{[0-9]+}}: error: not supported: brackets nested deeper than 1000 levels
// RUN: %python -c "print('func.func @k() attributes {a = affine_set<(d0) : (' + 'd0 <= 5, ' * 1500 + 'd0 <= 5)>} {\n  return\n}')" > %t/le.mlir
// RUN: quire-opt %t/le.mlir | FileCheck %s --check-prefix=OK
