// RUN: quire-opt %s --quire-strided-iter-args --split-input-file | FileCheck %s

// A pointer tile advanced by a splat stride: the body reads init + k * s.
// CHECK-LABEL: func.func @pointer_stride
// CHECK: scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %[[ST:.*]] iter_args(%[[P:.*]] = %[[P0:[^)]*]], %[[ACC:.*]] = %{{.*}})
// CHECK:   %[[D:.*]] = arith.subi %[[IV]], %[[LB]] : i32
// CHECK:   %[[K:.*]] = arith.divui %[[D]], %[[ST]] : i32
// CHECK:   %[[K64:.*]] = arith.extsi %[[K]] : i32 to i64
// CHECK:   %[[S64:.*]] = arith.extsi %[[S:.*]] : i32 to i64
// CHECK:   %[[OFF:.*]] = arith.muli %[[K64]], %[[S64]] : i64
// CHECK:   %[[OFFS:.*]] = tile.splat %[[OFF]] : i64 -> tensor<64xi64>
// The load reads the recomputed pointers, not the carried ones.
// CHECK:   %[[Q:.*]] = tile.addptr %[[P0]], %{{.*}} : tensor<64x!tile.ptr<f32>>, tensor<64xi64>
// CHECK:   tile.load %[[Q]]
// CHECK:   tile.addptr %[[Q]], %{{.*}} : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
func.func @pointer_stride(%x: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32,
                          %s: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %inc = tile.splat %s : i32 -> tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %zero)
      -> (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) : i32 {
    %v = tile.load %p : tensor<64x!tile.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<64xf32>
    %pn = tile.addptr %p, %inc : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %pn, %a : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  }
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %res#1 : tensor<64x!tile.ptr<f32>>
  return
}

// -----

// An integer advanced by a constant: init + k * c in its own type.
// CHECK-LABEL: func.func @int_stride
// CHECK: scf.for %[[IV:.*]] = %[[LB:.*]] to %{{.*}} step %[[ST:.*]] iter_args(%[[T:.*]] = %[[T0:[^)]*]])
// CHECK:   %[[K:.*]] = arith.divui
// CHECK:   %[[M:.*]] = arith.muli %[[K]], %[[C:.*]] : i32
// CHECK:   %[[V:.*]] = arith.addi %[[T0]], %[[M]] : i32
// CHECK:   tile.addptr %{{.*}}, %[[V]] : !tile.ptr<i32>, i32
// CHECK:   arith.addi %[[V]], %[[C]] : i32
func.func @int_stride(%x: !tile.ptr<i32>, %n: i32, %t0: i32)
    attributes {tile.kernel} {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c16 = arith.constant 16 : i32
  %end = scf.for %i = %c2 to %n step %c3 iter_args(%t = %t0) -> (i32) : i32 {
    %p = tile.addptr %x, %t : !tile.ptr<i32>, i32
    tile.store %p, %i : !tile.ptr<i32>
    %tn = arith.addi %t, %c16 : i32
    scf.yield %tn : i32
  }
  return
}

// -----

// Near misses it leaves alone: a stride computed in the loop, a value
// advanced in a branch.
// CHECK-LABEL: func.func @near_misses
// CHECK-NOT: arith.divui
// CHECK: return
func.func @near_misses(%x: !tile.ptr<i32>, %n: i32, %c: i1)
    attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c0)
      -> (i32, i32) : i32 {
    %pa = tile.addptr %x, %a : !tile.ptr<i32>, i32
    tile.store %pa, %i : !tile.ptr<i32>
    %pb = tile.addptr %x, %b : !tile.ptr<i32>, i32
    tile.store %pb, %i : !tile.ptr<i32>
    %an = arith.addi %a, %i : i32
    %bn = scf.if %c -> (i32) {
      %bb = arith.addi %b, %c1 : i32
      scf.yield %bb : i32
    } else {
      scf.yield %b : i32
    }
    scf.yield %an, %bn : i32, i32
  }
  return
}
