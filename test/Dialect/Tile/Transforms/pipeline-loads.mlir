// RUN: quire-opt %s --quire-pipeline-loads --canonicalize | FileCheck %s
// The load of the next iteration is issued at the top of the current one and
// carried; the first iteration's load moves before the loop. Both masks are
// and-ed with "that iteration exists", so nothing past the end is read.
// Loads that depend on a loop-carried value stay where they are.

// CHECK-LABEL: func.func @sum_rows
// CHECK: %[[IN0:.*]] = arith.cmpi sgt, %[[UB:.*]], %c0_i32 : i32
// CHECK: %[[G0:.*]] = tile.splat %[[IN0]] : i1 -> tensor<64xi1>
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[G0]] : tensor<64xi1>
// CHECK: %[[X0:.*]] = tile.load %{{.*}}, %[[M0]], %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[X:.*]] = %[[X0]])
// CHECK:   %[[N:.*]] = arith.addi %[[I]], %{{.*}} : i32
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %[[N]], %[[UB]] : i32
// CHECK:   %[[G:.*]] = tile.splat %[[IN]] : i1 -> tensor<64xi1>
// CHECK:   %[[M:.*]] = arith.andi %{{.*}}, %[[G]] : tensor<64xi1>
// CHECK:   %[[XN:.*]] = tile.load %{{.*}}, %[[M]], %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : tensor<64xf32>
// CHECK:   scf.yield %[[S]], %[[XN]]
func.func @sum_rows(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %n: i32, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %ns = tile.splat %n : i32 -> tensor<64xi32>
  %inrow = arith.cmpi slt, %r, %ns : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %base = arith.muli %i, %n : i32
    %bs = tile.splat %base : i32 -> tensor<64xi32>
    %off = arith.addi %bs, %r : tensor<64xi32>
    %ptr = tile.addptr %ps, %off : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    %x = tile.load %ptr, %inrow, %zero : tensor<64x!tile.ptr<f32>>
    %s = arith.addf %acc, %x : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum : tensor<64x!tile.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @carried_pointer
// CHECK: scf.for
// CHECK:   tile.load %{{.*}} : tensor<64x!tile.ptr<f32>>
// CHECK:   tile.addptr
// CHECK:   scf.yield
func.func @carried_pointer(%p: !tile.ptr<f32>, %o: !tile.ptr<f32>, %rows: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.range 0, 64 : tensor<64xi32>
  %c64 = arith.constant dense<64> : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %p0 = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %sum:2 = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %zero, %ptr = %p0) -> (tensor<64xf32>, tensor<64x!tile.ptr<f32>>) : i32 {
    %x = tile.load %ptr : tensor<64x!tile.ptr<f32>>
    %s = arith.addf %acc, %x : tensor<64xf32>
    %pn = tile.addptr %ptr, %c64 : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %s, %pn : tensor<64xf32>, tensor<64x!tile.ptr<f32>>
  }
  %os = tile.splat %o : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %op = tile.addptr %os, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %op, %sum#0 : tensor<64x!tile.ptr<f32>>
  return
}
