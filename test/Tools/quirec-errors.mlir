// quirec rejects bad flags, unreadable or empty input and unwritable output
// with an error and exit code 1; a good kernel compiles.
//
// RUN: quirec %s --sm 90 -o %t.ptx && FileCheck %s --check-prefix=OK < %t.ptx
// OK: .entry add_one
//
// RUN: not quirec %s --sm 75 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=SM75
// SM75: error: not supported: --sm 75 (supported: 80, 86, 89, 90)
// RUN: not quirec %s --sm 100 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=SM100
// SM100: error: not supported: --sm 100
// RUN: not quirec %s --sm -1 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=SMNEG
// SMNEG: for the --sm option: '-1' value invalid for uint argument
//
// RUN: not quirec %s --num-warps 3 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARPS3
// WARPS3: error: --num-warps must be a power of two in [1, 32], got 3
// RUN: not quirec %s --num-warps 0 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARPS0
// WARPS0: error: --num-warps must be a power of two in [1, 32], got 0
// RUN: not quirec %s --num-warps 64 -o %t.ptx 2>&1 | FileCheck %s --check-prefix=WARPS64
// WARPS64: error: --num-warps must be a power of two in [1, 32], got 64
//
// RUN: not quirec %s --emit=sass 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: for the --emit option: Cannot find option named 'sass'
// RUN: not quirec 2>&1 | FileCheck %s --check-prefix=NOARG
// NOARG: Not enough positional command line arguments specified
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not quirec %t.dir/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not quirec %t.dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: error: cannot read input file '{{.*}}.dir': Is a directory
// An error on a line longer than 240 columns shows the columns around it,
// not the line (which printed twice its size with the caret's).
// RUN: %python -c "print('func.func @k() attributes {a = \"' + 'x' * 100000 + '\", b = } {\n  return\n}')" > %t.dir/long.mlir
// RUN: not quirec %t.dir/long.mlir 2>&1 | FileCheck %s --strict-whitespace --check-prefix=LONG
// LONG: long.mlir:1:100039: error: expected attribute value
// LONG-NEXT: {{^\.\.\.x{100,120}", b = \} \{$}}
// LONG-NEXT: {{^ {123}\^$}}
// An input that never ends (a device) stops at 1 GiB with an error.
// RUN: not quirec /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: quirec: error: input file '/dev/zero' holds more than 1024 MiB: not a kernel source
// RUN: touch %t.dir/empty.mlir
// RUN: not quirec %t.dir/empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: '{{.*}}empty.mlir' is empty
// RUN: not quirec - < %t.dir/empty.mlir 2>&1 | FileCheck %s --check-prefix=STDIN-EMPTY
// STDIN-EMPTY: error: '-' is empty
// RUN: quirec - < %s -o %t.stdin.ptx && FileCheck %s --check-prefix=OK < %t.stdin.ptx
//
// RUN: not quirec %s -o %t.dir/no/such/dir/out.ptx 2>&1 | FileCheck %s --check-prefix=NOWRITE
// NOWRITE: error: cannot write '{{.*}}out.ptx': No such file or directory
// RUN: not quirec %s -o %t.dir 2>&1 | FileCheck %s --check-prefix=WRITEDIR
// WRITEDIR: error: cannot write '{{.*}}.dir': Is a directory
// RUN: not quirec %s -o %t.ptx --meta-out %t.dir/no/meta.json 2>&1 | FileCheck %s --check-prefix=NOMETA
// NOMETA: error: cannot write '{{.*}}meta.json': No such file or directory
// A write that fails (a full disk) names the file, as a failed open does.
// RUN: not quirec %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: cannot write '/dev/full': No space left on device
// RUN: not quirec %s -o %t.ptx --meta-out /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// ptxas (for --emit=cubin) that cannot run, fails, or writes nothing:
// RUN: env QUIRE_PTXAS=%t.dir/no-ptxas not quirec %s --emit=cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// NOPTXAS: error: QUIRE_PTXAS='{{.*}}no-ptxas' is not an executable file
// RUN: env QUIRE_PTXAS=/bin/false not quirec %s --emit=cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXASFAIL
// PTXASFAIL: error: ptxas (/bin/false) failed with exit status 1
// RUN: env QUIRE_PTXAS=/bin/true not quirec %s --emit=cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXASEMPTY
// PTXASEMPTY: error: ptxas (/bin/true) exited 0 but wrote no cubin

func.func @add_one(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>>
  %one = arith.constant dense<1.0> : tensor<128xf32>
  %w = arith.addf %v, %one : tensor<128xf32>
  tile.store %a, %w : tensor<128x!tile.ptr<f32>>
  return
}
