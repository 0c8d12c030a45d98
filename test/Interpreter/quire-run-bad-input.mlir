// quire-run rejects bad input with a message and exit status 1, never a
// crash: unreadable or malformed files, no or ambiguous kernels, wrong
// argument counts and types, malformed grids and specs, .npy files with the
// wrong dtype, Fortran order, big-endian data or a truncated body.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not quire-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not quire-run /dev/zero 2>&1 | FileCheck %s --check-prefix=ENDLESS
// ENDLESS: error: input file '/dev/zero' holds more than 1024 MiB: not a kernel source
// RUN: %python -c "print('(' * 30000)" > %t/deep.mlir
// RUN: not quire-run %t/deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1:1001: error: not supported: brackets nested deeper than 1000 levels

// RUN: printf 'func.func @f(\n' > %t/bad.mlir
// RUN: not quire-run %t/bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: bad.mlir:1:14: error: expected non-function type

// RUN: printf 'func.func @f() {\n  return\n}\n' > %t/nokernel.mlir
// RUN: not quire-run %t/nokernel.mlir 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: error: the module has no kernel (a func.func with the tile.kernel attribute)

// RUN: printf 'func.func @k(%%%%t: !tile.tensormap, %%%%n: i32) attributes {tile.kernel} {\n  return\n}\n' > %t/tensormap.mlir
// RUN: not quire-run %t/tensormap.mlir --arg i32:0 --arg i32:1 2>&1 | FileCheck %s --check-prefix=TENSORMAP
// TENSORMAP: error: argument #0 of @k (!tile.tensormap) cannot be given to the interpreter: a tensor map is what the GPU's TMA reads

// RUN: not quire-run %s 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: error: the module has several kernels (@scale, @other); choose one with --kernel
// RUN: not quire-run %s --kernel nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: no kernel named @nope; kernels: @scale, @other
// RUN: not quire-run %s --kernel helper 2>&1 | FileCheck %s --check-prefix=NOTKERNEL
// NOTKERNEL: error: @helper is not a kernel (no tile.kernel attribute); kernels: @scale, @other

// RUN: not quire-run %s --kernel scale --arg values:f32:1 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: kernel @scale takes 3 arguments (!tile.ptr<f32>, !tile.ptr<f32>, f32) but 1 --arg was given

// RUN: not quire-run %s --kernel other --grid 3,x 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not quire-run %s --kernel other --grid 0 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not quire-run %s --kernel other --grid 1,2,3,4 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not quire-run %s --kernel other --grid= 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not quire-run %s --kernel other --grid 2147483648 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: error: malformed --grid '{{.*}}': expected X[,Y[,Z]] with integers in [1, 2^31)

// RUN: not quire-run %s --kernel other --arg nocolon 2>&1 | FileCheck %s --check-prefix=SPEC1
// SPEC1: error: bad --arg 'nocolon': expected KIND:...
// RUN: not quire-run %s --kernel other --arg foo:bar 2>&1 | FileCheck %s --check-prefix=SPEC2
// SPEC2: error: bad --arg 'foo:bar': unknown kind 'foo' (in, out, inout, rand, values, or a scalar type such as i32)
// RUN: not quire-run %s --kernel other --arg out:%t/o.npy:f32 2>&1 | FileCheck %s --check-prefix=SPEC3
// SPEC3: error: bad --arg 'out:{{.*}}o.npy:f32': expected out:FILE:DTYPE:SHAPE[:fill=VALUE]
// RUN: not quire-run %s --kernel other --arg out:%t/o.npy:f99:4 2>&1 | FileCheck %s --check-prefix=SPEC4
// SPEC4: error: bad --arg 'out:{{.*}}': unknown dtype 'f99' (f16 bf16 f32 f64 f8E4M3FN f8E5M2 i1 i8 i16 i32 i64)
// RUN: not quire-run %s --kernel other --arg out:%t/o.npy:f32:4x 2>&1 | FileCheck %s --check-prefix=SPEC5
// SPEC5: error: bad --arg 'out:{{.*}}': malformed shape '4x' (e.g. 1024 or 16x128)
// RUN: not quire-run %s --kernel other --arg rand:f32:4:seed=x 2>&1 | FileCheck %s --check-prefix=SPEC6
// SPEC6: error: bad --arg 'rand:f32:4:seed=x': seed must be a non-negative integer, got 'x'
// RUN: not quire-run %s --kernel other --arg rand:f32:4:mean=1 2>&1 | FileCheck %s --check-prefix=SPEC7
// SPEC7: error: bad --arg 'rand:f32:4:mean=1': unknown option 'mean=1' (seed=, dist=, lo=, hi=)

// RUN: not quire-run %s --kernel other --arg i32:abc --arg i64:1 2>&1 | FileCheck %s --check-prefix=VALUE1
// VALUE1: error: argument #0 of @other (i32): 'abc' is not an integer that fits in 32 bits
// RUN: not quire-run %s --kernel other --arg i32:4294967296 --arg i64:1 2>&1 | FileCheck %s --check-prefix=VALUE2
// VALUE2: error: argument #0 of @other (i32): '4294967296' is not an integer that fits in 32 bits
// RUN: not quire-run %s --kernel other --arg i64:1 --arg i64:1 2>&1 | FileCheck %s --check-prefix=SCALARTYPE
// SCALARTYPE: error: argument #0 of @other (i32) does not match --arg 'i64:1' (i64)
// RUN: not quire-run %s --kernel other --arg values:i32:1 --arg i64:1 2>&1 | FileCheck %s --check-prefix=BUFFORSCALAR
// BUFFORSCALAR: error: argument #0 of @other (i32) is a scalar, but --arg 'values:i32:1' describes a buffer; write e.g. i32:VALUE
// RUN: not quire-run %s --kernel scale --arg f32:1 --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=SCALARFORBUF
// SCALARFORBUF: error: argument #0 of @scale (!tile.ptr<f32>) is a pointer, but --arg 'f32:1' is a scalar; use in:, out:, inout:, rand: or values:
// RUN: not quire-run %s --kernel scale --arg rand:f32:4 --arg out:%t/o.npy:f16:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=OUTDTYPE
// OUTDTYPE: error: argument #1 of @scale (!tile.ptr<f32>) points to f32, but --arg 'out:{{.*}}o.npy:f16:4' has dtype f16

// RUN: not quire-run %s --kernel scale --arg in:%t/none.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=NONPY
// NONPY: error: argument #0 of @scale (!tile.ptr<f32>): cannot read '{{.*}}none.npy': No such file or directory
// RUN: %python -c "import numpy as np; np.save('%t/f64.npy', np.zeros(4))"
// RUN: not quire-run %s --kernel scale --arg in:%t/f64.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=NPYTYPE
// NPYTYPE: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}f64.npy' has dtype '<f8' but the argument points to f32 (needs '<f4')
// RUN: %python -c "import numpy as np; np.save('%t/fortran.npy', np.asfortranarray(np.zeros((2, 3), np.float32)))"
// RUN: not quire-run %s --kernel scale --arg in:%t/fortran.npy --arg out:%t/o.npy:f32:6 --arg f32:2 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}fortran.npy': fortran_order arrays are not supported; save a C-order array (numpy.ascontiguousarray)
// RUN: %python -c "import numpy as np; np.save('%t/big.npy', np.zeros(4, '>f4'))"
// RUN: not quire-run %s --kernel scale --arg in:%t/big.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=BIGENDIAN
// BIGENDIAN: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}big.npy': big-endian dtype '>f4' is not supported
// RUN: %python -c "import numpy as np; np.save('%t/complex.npy', np.zeros(4, np.complex64))"
// RUN: not quire-run %s --kernel scale --arg in:%t/complex.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}complex.npy': unsupported dtype '<c8'
// RUN: %python -c "import numpy as np; np.save('%t/f32.npy', np.zeros(4, np.float32))"
// RUN: head -c 140 %t/f32.npy > %t/truncated.npy
// RUN: not quire-run %s --kernel scale --arg in:%t/truncated.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}truncated.npy': data has 12 bytes but the header promises 16
// RUN: head -c 20 %t/f32.npy > %t/header.npy
// RUN: not quire-run %s --kernel scale --arg in:%t/header.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}header.npy': truncated .npy header
// RUN: printf 'hello' > %t/text.npy
// RUN: not quire-run %s --kernel scale --arg in:%t/text.npy --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: error: argument #0 of @scale (!tile.ptr<f32>): '{{.*}}text.npy': not a .npy file (bad magic)

// The good case, to show the kernels themselves are fine.
// Shapes and buffers too large for the interpreter, and random ranges that
// say nothing (the element count wrapped before).
// RUN: not quire-run %s --kernel scale --arg in:%t/f32.npy --arg out:%t/o.npy:f32:4294967296x4294967297 --arg f32:2 2>&1 | FileCheck %s --check-prefix=WRAP
// WRAP: error: bad --arg 'out:{{.*}}o.npy:f32:4294967296x4294967297': shape '4294967296x4294967297' has more than 2^40 elements
// RUN: not quire-run %s --kernel scale --arg in:%t/f32.npy --arg out:%t/o.npy:f32:2000000000 --arg f32:2 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: argument #1 of @scale (!tile.ptr<f32>): --arg 'out:{{.*}}o.npy:f32:2000000000' is too large: 8000000000 bytes, and quire-run holds at most 4294967296 bytes a buffer
// RUN: not quire-run %s --kernel scale --arg rand:f32:4:dist=uniform:lo=5:hi=1 --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=LOHI
// LOHI: error: argument #0 of @scale (!tile.ptr<f32>): rand needs lo <= hi
// RUN: not quire-run %s --kernel scale --arg rand:f32:4:lo=5 --arg out:%t/o.npy:f32:4 --arg f32:2 2>&1 | FileCheck %s --check-prefix=NORMAL
// NORMAL: error: argument #0 of @scale (!tile.ptr<f32>): rand's lo= and hi= need dist=uniform (the normal distribution is the standard one)
// RUN: quire-run %s --kernel scale --arg in:%t/f32.npy --arg out:%t/o.npy:f32:4 --arg f32:2 --print \
// RUN:   | FileCheck %s --check-prefix=GOOD
// GOOD: arg #1 (out, f32, 4):
// GOOD-NEXT: 0 0 0 0

// out[i] = s * x[i] for i < 4.
func.func @scale(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %s: f32)
    attributes {tile.kernel} {
  %r = tile.range 0, 4 : tensor<4xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  %v = tile.load %xp : tensor<4x!tile.ptr<f32>>
  %ss = tile.splat %s : f32 -> tensor<4xf32>
  %y = arith.mulf %v, %ss : tensor<4xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.store %op, %y : tensor<4x!tile.ptr<f32>>
  return
}

func.func @other(%a: i32, %b: i64) attributes {tile.kernel} {
  return
}

func.func @helper() {
  return
}
