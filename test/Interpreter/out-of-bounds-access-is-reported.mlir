// A masked-in lane that leaves every buffer is an error naming the op's
// location and the program id, and the op is not executed. Masked-off lanes
// may point anywhere.
// @copy: program p copies elements 8p .. 8p+7 where the index is below n.

// In bounds: n = 12 masks off lanes 4..7 of program 1, which lie past the end.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --kernel copy --grid 2 --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11 \
// RUN:   --arg out:%t/o.npy:f32:12 --arg i32:12 --print | FileCheck %s --check-prefix=OK
// OK:      arg #1 (out, f32, 12):
// OK-NEXT: 0 1 2 3 4 5 6 7 8 9 10 11

// n = 14 masks lanes 4 and 5 of program 1 in: the load of x reports lane 4.
// RUN: not quire-run %s --kernel copy --grid 2 --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11 \
// RUN:   --arg out:%t/o.npy:f32:16 --arg i32:14 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: out-of-bounds-access-is-reported.mlir:[[@LINE+25]]:8: error: 'tile.load' op out-of-bounds access: lane [4] reads 4 bytes at 0x10000000030, 0 bytes past the end of buffer 0 (argument #0, 48 bytes), in program (1, 0, 0)

// A store: the output has 12 elements, the input 16.
// RUN: not quire-run %s --kernel copy --grid 2 --arg values:f32:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 \
// RUN:   --arg out:%t/o.npy:f32:12 --arg i32:16 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: out-of-bounds-access-is-reported.mlir:[[@LINE+23]]:3: error: 'tile.store' op out-of-bounds access: lane [4] writes 4 bytes at 0x20000000030, 0 bytes past the end of buffer 1 (argument #1, 48 bytes), in program (1, 0, 0)

// The failing run writes no output file.
// RUN: rm -f %t/never.npy
// RUN: not quire-run %s --kernel copy --grid 2 --arg values:f32:0,1,2,3 \
// RUN:   --arg out:%t/never.npy:f32:16 --arg i32:16
// RUN: not ls %t/never.npy

func.func @copy(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel} {
  %pid = tile.program_id x
  %c8 = arith.constant 8 : i32
  %start = arith.muli %pid, %c8 : i32
  %r = tile.range 0, 8 : tensor<8xi32>
  %starts = tile.splat %start : i32 -> tensor<8xi32>
  %offs = arith.addi %starts, %r : tensor<8xi32>
  %ns = tile.splat %n : i32 -> tensor<8xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp, %mask : tensor<8x!tile.ptr<f32>>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %op, %v, %mask : tensor<8x!tile.ptr<f32>>
  return
}

// A negative offset lands before the start of a buffer.
// RUN: not quire-run %s --kernel before --arg values:i32:1,2 --arg values:i32:3 \
// RUN:   2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: out-of-bounds-access-is-reported.mlir:[[@LINE+5]]:8: error: 'tile.load' op out-of-bounds access: the scalar access reads 4 bytes at 0x1fffffffffc, 4 bytes before the start of buffer 1 (argument #1, 4 bytes), in program (0, 0, 0)
func.func @before(%a: !tile.ptr<i32>, %b: !tile.ptr<i32>)
    attributes {tile.kernel} {
  %m1 = arith.constant -1 : i32
  %p = tile.addptr %b, %m1 : !tile.ptr<i32>, i32
  %v = tile.load %p : !tile.ptr<i32>
  return
}
