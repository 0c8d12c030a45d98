// quire-opt rejects unreadable input, unwritable output and unknown passes
// with an error and exit code 1.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not quire-opt %t.dir/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not quire-opt %t.dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: cannot open input file '{{.*}}.dir': Is a directory
// RUN: not quire-opt %s -o %t.dir/no/out.mlir 2>&1 | FileCheck %s --check-prefix=NOWRITE
// NOWRITE: cannot open output file '{{.*}}out.mlir': No such file or directory
// RUN: not quire-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not quire-opt %s --quire-no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: Unknown command line argument '--quire-no-such-flag'
// An empty file is an empty module, as for mlir-opt.
// RUN: touch %t.dir/empty.mlir && quire-opt %t.dir/empty.mlir | FileCheck %s --check-prefix=EMPTY
// EMPTY: module {

func.func @k() attributes {tile.kernel} {
  return
}
