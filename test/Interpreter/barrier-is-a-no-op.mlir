// tile.barrier in the interpreter: a program runs as one unit, so the
// barrier does nothing and the loads after it see the stores before it;
// tile.setmaxnreg (registers of a warpgroup) does nothing either.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-run %s --grid 2 --arg out:%t/o.npy:i32:8 --print | FileCheck %s

// CHECK:      arg #0 (out, i32, 8):
// CHECK-NEXT: 1 2 3 4 5 6 7 8
func.func @k(%out: !tile.ptr<i32>) attributes {tile.kernel} {
  %pid = tile.program_id x
  %c4 = arith.constant 4 : i32
  %base = arith.muli %pid, %c4 : i32
  %r = tile.range 0, 4 : tensor<4xi32>
  %bs = tile.splat %base : i32 -> tensor<4xi32>
  %off = arith.addi %bs, %r : tensor<4xi32>
  %os = tile.splat %out : !tile.ptr<i32> -> tensor<4x!tile.ptr<i32>>
  %p = tile.addptr %os, %off : tensor<4x!tile.ptr<i32>>, tensor<4xi32>
  tile.setmaxnreg inc {count = 240 : i32}
  tile.store %p, %off : tensor<4x!tile.ptr<i32>>
  tile.barrier
  %x = tile.load %p : tensor<4x!tile.ptr<i32>>
  %one = arith.constant dense<1> : tensor<4xi32>
  %y = arith.addi %x, %one : tensor<4xi32>
  tile.store %p, %y : tensor<4x!tile.ptr<i32>>
  return
}
