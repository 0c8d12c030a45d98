// RUN: quirec %s --sm 90 -o - | FileCheck %s

// (pid * 512 + range) % n, n a run-time value divisible by 16 (Triton's
// matmul tutorial wraps its row offsets this way): runs of 16 consecutive
// offsets survive the remainder, so the f32 loads (four per thread of the
// 128) are 16 bytes wide.
// CHECK-LABEL: .entry wrap_rows
// CHECK: ld.global.v4.b32
func.func @wrap_rows(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = tile.program_id x
  %c512 = arith.constant 512 : i32
  %start = arith.muli %pid, %c512 : i32
  %r = tile.range 0, 512 : tensor<512xi32>
  %s = tile.splat %start : i32 -> tensor<512xi32>
  %offs = arith.addi %s, %r : tensor<512xi32>
  %ns = tile.splat %n : i32 -> tensor<512xi32>
  %wrapped = arith.remsi %offs, %ns : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %wrapped : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %op, %v : tensor<512x!tile.ptr<f32>>
  return
}
