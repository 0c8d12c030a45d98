// A loop whose upper bound is INT32_MAX: after its last iteration,
// i + step wraps to a negative i32, below the bound. The copy of the next
// iteration that quire-pipeline-loads issues must still be masked off (it
// tests i < ub - step, not i + step < ub): the pipelined kernel reads only
// its 64 elements and writes what the unpipelined one writes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: quire-opt %s --quire-pipeline-loads -o %t/pipelined.mlir
// RUN: FileCheck %s --input-file %t/pipelined.mlir
// RUN: quire-run %s --kernel sum_tail --arg rand:f32:64:seed=3 \
// RUN:   --arg out:%t/plain.npy:f32:32 --arg i32:2147483607 --arg i32:2147483647
// RUN: quire-run %t/pipelined.mlir --kernel sum_tail --arg rand:f32:64:seed=3 \
// RUN:   --arg out:%t/pipelined.npy:f32:32 --arg i32:2147483607 --arg i32:2147483647
// RUN: cmp %t/plain.npy %t/pipelined.npy

// CHECK: scf.for
// CHECK: %[[LIM:.*]] = arith.subi %arg3, %c32_i32{{.*}} : i32
// CHECK: arith.cmpi slt, %arg4, %[[LIM]] : i32

func.func @sum_tail(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %lb: i32, %ub: i32)
    attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32>
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %c32 = arith.constant 32 : i32
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %sum = scf.for %i = %lb to %ub step %c32 iter_args(%acc = %zero) -> (tensor<32xf32>) : i32 {
    %base = arith.subi %i, %lb : i32
    %bs = tile.splat %base : i32 -> tensor<32xi32>
    %off = arith.addi %bs, %r : tensor<32xi32>
    %ptr = tile.addptr %xs, %off : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
    %v = tile.load %ptr : tensor<32x!tile.ptr<f32>>
    %s = arith.addf %acc, %v : tensor<32xf32>
    scf.yield %s : tensor<32xf32>
  }
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<32x!tile.ptr<f32>>, tensor<32xi32>
  tile.store %op, %sum : tensor<32x!tile.ptr<f32>>
  return
}
