// quire-opt rejects unreadable input, unwritable output and unknown passes
// with an error and exit code 1.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not quire-opt %t.dir/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not quire-opt %t.dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: cannot read input file '{{.*}}.dir': Is a directory
// RUN: not quire-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: error: input file '/dev/zero' holds more than 1024 MiB: not a kernel source
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

// Pass and pipeline options out of range are errors naming the option, as
// quirec's flags are (a zero warp count divided by zero before).
// RUN: not quire-opt %s --quire-pipeline-loads=num-warps=0 2>&1 | FileCheck %s --check-prefix=PLWARPS
// PLWARPS: error: quire-pipeline-loads: num-warps must be a power of two in [1, 32], got 0
// RUN: not quire-opt %s --quire-assign-layouts=num-warps=3 2>&1 | FileCheck %s --check-prefix=ALWARPS
// ALWARPS: error: quire-assign-layouts: num-warps must be a power of two in [1, 32], got 3
// RUN: not quire-opt %s --quire-async-copies=stages=100 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: quire-async-copies: stages must be in [2, 8], got 100
// RUN: not quire-opt %s --quire-convert-tile-to-llvm=max-registers=5 2>&1 | FileCheck %s --check-prefix=MAXREG
// MAXREG: error: quire-convert-tile-to-llvm: max-registers must be 0 (no cap) or in [24, 255], got 5
// RUN: not quire-opt %s --quire-tile-pipeline=num-warps=0 2>&1 | FileCheck %s --check-prefix=TPWARPS
// TPWARPS: error: quire-tile-pipeline: num-warps must be a power of two in [1, 32], got 0
// RUN: not quire-opt %s --quire-llvm-pipeline=sm=75 2>&1 | FileCheck %s --check-prefix=TPSM
// TPSM: error: quire-llvm-pipeline: not supported: sm 75 (supported: 80, 86, 89, 90)
// RUN: not quire-opt %s --quire-llvm-pipeline=producer-registers=7 2>&1 | FileCheck %s --check-prefix=TPPROD
// TPPROD: error: quire-llvm-pipeline: producer-registers must be 0 (the estimate) or a multiple of 8 in [24, 256], got 7
