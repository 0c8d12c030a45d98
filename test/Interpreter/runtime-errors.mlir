// Errors while running a kernel: undefined integer arithmetic, unsupported
// ops and types, unstructured control flow, stores into read-only buffers,
// broken tile.divisibility promises. Each names the op's location (and the
// program, once one runs) and exits non-zero without a crash.

// RUN: not quire-run %s --kernel div --grid 2 --arg values:i32:7,7 --arg values:i32:1,0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DIV
func.func @div(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>) attributes {tile.kernel} {
  %r = tile.range 0, 2 : tensor<2xi32>
  %as = tile.splat %a : !tile.ptr<i32> -> tensor<2x!tile.ptr<i32>>
  %ap = tile.addptr %as, %r : tensor<2x!tile.ptr<i32>>, tensor<2xi32>
  %bs = tile.splat %b : !tile.ptr<i32> -> tensor<2x!tile.ptr<i32>>
  %bp = tile.addptr %bs, %r : tensor<2x!tile.ptr<i32>>, tensor<2xi32>
  %x = tile.load %ap : tensor<2x!tile.ptr<i32>>
  %y = tile.load %bp : tensor<2x!tile.ptr<i32>>
  // DIV: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.divsi' op is undefined: division by zero (7, 0) at lane [1] in program (0, 0, 0)
  %q = arith.divsi %x, %y : tensor<2xi32>
  return
}

// RUN: not quire-run %s --kernel shift --arg i32:32 2>&1 | FileCheck %s --check-prefix=SHIFT
func.func @shift(%s: i32) attributes {tile.kernel} {
  %c1 = arith.constant 1 : i32
  // SHIFT: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.shli' op is undefined: shift amount not less than the bit width (1, 32) at the scalar access in program (0, 0, 0)
  %x = arith.shli %c1, %s : i32
  return
}

// RUN: not quire-run %s --kernel overflow --arg i8:-128 2>&1 | FileCheck %s --check-prefix=OVERFLOW
func.func @overflow(%a: i8) attributes {tile.kernel} {
  %m1 = arith.constant -1 : i8
  // OVERFLOW: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.divsi' op is undefined: signed division overflow (minimum value / -1) (-128, -1)
  %q = arith.divsi %a, %m1 : i8
  return
}

// RUN: not quire-run %s --kernel overflow_rem --arg i32:-2147483648 2>&1 | FileCheck %s --check-prefix=OVERFLOW-REM
func.func @overflow_rem(%a: i32) attributes {tile.kernel} {
  %m1 = arith.constant -1 : i32
  // OVERFLOW-REM: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.remsi' op is undefined: signed division overflow (minimum value / -1) (-2147483648, -1)
  %r = arith.remsi %a, %m1 : i32
  return
}

// RUN: not quire-run %s --kernel unsupported_op --arg i32:1 2>&1 | FileCheck %s --check-prefix=OP
func.func @unsupported_op(%a: i32) attributes {tile.kernel} {
  // OP: runtime-errors.mlir:[[@LINE+1]]:21: error: 'arith.addui_extended' op is not supported by the interpreter in program (0, 0, 0)
  %sum, %overflow = arith.addui_extended %a, %a : i32, i1
  return
}

// Types are checked before any program runs.
// RUN: not quire-run %s --kernel unsupported_type 2>&1 | FileCheck %s --check-prefix=TYPE
func.func @unsupported_type() attributes {tile.kernel} {
  // TYPE: runtime-errors.mlir:[[@LINE+1]]:8: error: 'arith.constant' op has a result of unsupported type f8E4M3FNUZ{{$}}
  %x = arith.constant 1.0 : f8E4M3FNUZ
  return
}

// RUN: not quire-run %s --kernel blocks 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: runtime-errors.mlir:[[@LINE+1]]:1: error: 'func.func' op has a body with several blocks; the interpreter runs structured control flow only
func.func @blocks() attributes {tile.kernel} {
  cf.br ^bb1
^bb1:
  return
}

// in: and values: buffers are read-only.
// RUN: not quire-run %s --kernel write --arg values:f32:1,2 2>&1 | FileCheck %s --check-prefix=RO
func.func @write(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %c = arith.constant 3.0 : f32
  // RO: runtime-errors.mlir:[[@LINE+1]]:3: error: 'tile.store' op store to a read-only buffer: the scalar access writes 4 bytes at 0x10000000000, byte offset 0 of buffer 0 (argument #0, 8 bytes), in program (0, 0, 0)
  tile.store %p, %c : !tile.ptr<f32>
  return
}

// The compiler may rely on tile.divisibility of integer arguments.
// RUN: quire-run %s --kernel divisible --arg i32:48
// RUN: not quire-run %s --kernel divisible --arg i32:40 2>&1 | FileCheck %s --check-prefix=DIVISIBLE
// DIVISIBLE: error: argument #0 of @divisible (i32) is 40, which breaks its tile.divisibility = 16
func.func @divisible(%n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  return
}
