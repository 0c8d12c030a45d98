// Diagnostics from a bad kernel name the file, line and column, with exit 1,
// for a file and for stdin.
// RUN: not quirec %s -o %t.ptx 2>&1 | FileCheck %s -DFILE=%s
// CHECK: [[FILE]]:[[@LINE+5]]:8: error: 'tile.range' op end (0) must be greater than start (64)
// RUN: not quirec - -o %t.ptx < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>:[[@LINE+3]]:8: error: 'tile.range' op

func.func @bad(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 64, 0 : tensor<64xi32>
  return
}
