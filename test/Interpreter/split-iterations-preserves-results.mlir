// quire-split-iterations computes what the loop computed as written:
// quire-run runs a loop whose body branches on %i - 5 > %x (step 3)
// before and after the pass and the outputs must be byte for byte the
// same: the split inside the loop, before it (every iteration takes the
// branch), past it (none does), a loop without iterations, and one whose
// %i - 5 wraps below the i32 minimum in its first iterations (there the
// condition is not monotone, and the pass runs no iteration unbranched).
// The branch's sides differ (2 and 1 in every element of the dot's A), so
// an iteration on the wrong side changes the sum.
// RUN: quire-opt %s --quire-split-iterations -o %t.split.mlir
// RUN: FileCheck %s --input-file %t.split.mlir
// RUN: quire-run %s --kernel tail --grid 1 --arg out:%t.a0.npy:f32:256 --arg i32:-7 --arg i32:40 --arg i32:10
// RUN: quire-run %t.split.mlir --kernel tail --grid 1 --arg out:%t.b0.npy:f32:256 --arg i32:-7 --arg i32:40 --arg i32:10
// RUN: cmp %t.a0.npy %t.b0.npy
// RUN: quire-run %s --kernel tail --grid 1 --arg out:%t.a1.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:-100
// RUN: quire-run %t.split.mlir --kernel tail --grid 1 --arg out:%t.b1.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:-100
// RUN: cmp %t.a1.npy %t.b1.npy
// RUN: quire-run %s --kernel tail --grid 1 --arg out:%t.a2.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:100
// RUN: quire-run %t.split.mlir --kernel tail --grid 1 --arg out:%t.b2.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:100
// RUN: cmp %t.a2.npy %t.b2.npy
// RUN: quire-run %s --kernel tail --grid 1 --arg out:%t.a3.npy:f32:256 --arg i32:5 --arg i32:2 --arg i32:0
// RUN: quire-run %t.split.mlir --kernel tail --grid 1 --arg out:%t.b3.npy:f32:256 --arg i32:5 --arg i32:2 --arg i32:0
// RUN: cmp %t.a3.npy %t.b3.npy
// RUN: quire-run %s --kernel tail --grid 1 --arg out:%t.a4.npy:f32:256 --arg i32:-2147483647 --arg i32:-2147483600 --arg i32:0
// RUN: quire-run %t.split.mlir --kernel tail --grid 1 --arg out:%t.b4.npy:f32:256 --arg i32:-2147483647 --arg i32:-2147483600 --arg i32:0
// RUN: cmp %t.a4.npy %t.b4.npy
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if

func.func @tail(%out: !tile.ptr<f32>, %lb: i32, %ub: i32, %x: i32) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %cm5 = arith.constant -5 : i32
  %ones = arith.constant dense<1.0> : tensor<16x16xf16>
  %twos = arith.constant dense<2.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c3 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %e = arith.addi %i, %cm5 : i32
    %t = arith.cmpi sgt, %e, %x : i32
    %a = scf.if %t -> (tensor<16x16xf16>) {
      scf.yield %twos : tensor<16x16xf16>
    } else {
      scf.yield %ones : tensor<16x16xf16>
    }
    %o = tile.dot %a, %ones, %acc : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
    scf.yield %o : tensor<16x16xf32>
  }
  %r = tile.range 0, 16 : tensor<16xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16v = arith.constant dense<16> : tensor<16x1xi32>
  %rs = arith.muli %r2, %c16v : tensor<16x1xi32>
  %rsb = tile.broadcast %rs : tensor<16x1xi32> -> tensor<16x16xi32>
  %cs = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %csb = tile.broadcast %cs : tensor<1x16xi32> -> tensor<16x16xi32>
  %off = arith.addi %rsb, %csb : tensor<16x16xi32>
  %ops = tile.splat %out : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %optr = tile.addptr %ops, %off : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %optr, %res : tensor<16x16x!tile.ptr<f32>>
  return
}
