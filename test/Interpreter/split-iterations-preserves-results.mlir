// quire-split-iterations computes what the loop computed as written:
// quire-run runs loops (step 3) whose bodies branch on %i + c against %x
// before and after the pass and the outputs must be byte for byte the
// same. Each predicate, with the induction variable on either side: the
// split inside the loop (on the loop's grid and between two of its
// iterations), before it (every iteration takes the first side), past it
// (none does), loops without iterations; %i - 5 wrapping below the i32
// minimum in the first iterations and %i + 50 above the maximum in the
// last (there the condition is not monotone: the pass runs no such
// iteration unbranched). The branch's sides differ (2 and 1 in every
// element of the dot's A), so an iteration on the wrong side changes the
// sum: a split too late shows (one too early only runs an iteration more
// through the branch, which the split-iterations.mlir CHECKs pin).
// RUN: quire-opt %s --quire-split-iterations -o %t.split.mlir
// RUN: FileCheck %s --input-file %t.split.mlir
// RUN: quire-run %s --kernel tail_sgt --grid 1 --arg out:%t.a0.npy:f32:256 --arg i32:-7 --arg i32:40 --arg i32:10
// RUN: quire-run %t.split.mlir --kernel tail_sgt --grid 1 --arg out:%t.b0.npy:f32:256 --arg i32:-7 --arg i32:40 --arg i32:10
// RUN: cmp %t.a0.npy %t.b0.npy
// RUN: quire-run %s --kernel tail_sgt --grid 1 --arg out:%t.a1.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:-100
// RUN: quire-run %t.split.mlir --kernel tail_sgt --grid 1 --arg out:%t.b1.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:-100
// RUN: cmp %t.a1.npy %t.b1.npy
// RUN: quire-run %s --kernel tail_sgt --grid 1 --arg out:%t.a2.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:100
// RUN: quire-run %t.split.mlir --kernel tail_sgt --grid 1 --arg out:%t.b2.npy:f32:256 --arg i32:0 --arg i32:30 --arg i32:100
// RUN: cmp %t.a2.npy %t.b2.npy
// RUN: quire-run %s --kernel tail_sgt --grid 1 --arg out:%t.a3.npy:f32:256 --arg i32:5 --arg i32:2 --arg i32:0
// RUN: quire-run %t.split.mlir --kernel tail_sgt --grid 1 --arg out:%t.b3.npy:f32:256 --arg i32:5 --arg i32:2 --arg i32:0
// RUN: cmp %t.a3.npy %t.b3.npy
// RUN: quire-run %s --kernel tail_sgt --grid 1 --arg out:%t.a4.npy:f32:256 --arg i32:-2147483647 --arg i32:-2147483600 --arg i32:0
// RUN: quire-run %t.split.mlir --kernel tail_sgt --grid 1 --arg out:%t.b4.npy:f32:256 --arg i32:-2147483647 --arg i32:-2147483600 --arg i32:0
// RUN: cmp %t.a4.npy %t.b4.npy
// RUN: quire-run %s --kernel head_slt --grid 1 --arg out:%t.a5.npy:f32:256 --arg i32:0 --arg i32:40 --arg i32:12
// RUN: quire-run %t.split.mlir --kernel head_slt --grid 1 --arg out:%t.b5.npy:f32:256 --arg i32:0 --arg i32:40 --arg i32:12
// RUN: cmp %t.a5.npy %t.b5.npy
// RUN: quire-run %s --kernel head_slt --grid 1 --arg out:%t.a6.npy:f32:256 --arg i32:0 --arg i32:40 --arg i32:13
// RUN: quire-run %t.split.mlir --kernel head_slt --grid 1 --arg out:%t.b6.npy:f32:256 --arg i32:0 --arg i32:40 --arg i32:13
// RUN: cmp %t.a6.npy %t.b6.npy
// RUN: quire-run %s --kernel head_slt --grid 1 --arg out:%t.a7.npy:f32:256 --arg i32:1 --arg i32:40 --arg i32:-3
// RUN: quire-run %t.split.mlir --kernel head_slt --grid 1 --arg out:%t.b7.npy:f32:256 --arg i32:1 --arg i32:40 --arg i32:-3
// RUN: cmp %t.a7.npy %t.b7.npy
// RUN: quire-run %s --kernel head_slt --grid 1 --arg out:%t.a8.npy:f32:256 --arg i32:1 --arg i32:40 --arg i32:99
// RUN: quire-run %t.split.mlir --kernel head_slt --grid 1 --arg out:%t.b8.npy:f32:256 --arg i32:1 --arg i32:40 --arg i32:99
// RUN: cmp %t.a8.npy %t.b8.npy
// RUN: quire-run %s --kernel head_sge_swapped --grid 1 --arg out:%t.a9.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:17
// RUN: quire-run %t.split.mlir --kernel head_sge_swapped --grid 1 --arg out:%t.b9.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:17
// RUN: cmp %t.a9.npy %t.b9.npy
// RUN: quire-run %s --kernel head_sge_swapped --grid 1 --arg out:%t.a10.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:18
// RUN: quire-run %t.split.mlir --kernel head_sge_swapped --grid 1 --arg out:%t.b10.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:18
// RUN: cmp %t.a10.npy %t.b10.npy
// RUN: quire-run %s --kernel head_sge_swapped --grid 1 --arg out:%t.a11.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:19
// RUN: quire-run %t.split.mlir --kernel head_sge_swapped --grid 1 --arg out:%t.b11.npy:f32:256 --arg i32:-4 --arg i32:40 --arg i32:19
// RUN: cmp %t.a11.npy %t.b11.npy
// RUN: quire-run %s --kernel head_sge_swapped --grid 1 --arg out:%t.a12.npy:f32:256 --arg i32:3 --arg i32:3 --arg i32:5
// RUN: quire-run %t.split.mlir --kernel head_sge_swapped --grid 1 --arg out:%t.b12.npy:f32:256 --arg i32:3 --arg i32:3 --arg i32:5
// RUN: cmp %t.a12.npy %t.b12.npy
// RUN: quire-run %s --kernel tail_sge --grid 1 --arg out:%t.a13.npy:f32:256 --arg i32:2147483500 --arg i32:2147483640 --arg i32:2147483600
// RUN: quire-run %t.split.mlir --kernel tail_sge --grid 1 --arg out:%t.b13.npy:f32:256 --arg i32:2147483500 --arg i32:2147483640 --arg i32:2147483600
// RUN: cmp %t.a13.npy %t.b13.npy
// RUN: quire-run %s --kernel tail_sge --grid 1 --arg out:%t.a14.npy:f32:256 --arg i32:0 --arg i32:60 --arg i32:40
// RUN: quire-run %t.split.mlir --kernel tail_sge --grid 1 --arg out:%t.b14.npy:f32:256 --arg i32:0 --arg i32:60 --arg i32:40
// RUN: cmp %t.a14.npy %t.b14.npy
// RUN: quire-run %s --kernel tail_sge --grid 1 --arg out:%t.a15.npy:f32:256 --arg i32:0 --arg i32:60 --arg i32:41
// RUN: quire-run %t.split.mlir --kernel tail_sge --grid 1 --arg out:%t.b15.npy:f32:256 --arg i32:0 --arg i32:60 --arg i32:41
// RUN: cmp %t.a15.npy %t.b15.npy
// CHECK-LABEL: func.func @tail_sgt
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if
// CHECK-LABEL: func.func @head_slt
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if
// CHECK-LABEL: func.func @head_sge_swapped
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if
// CHECK-LABEL: func.func @tail_sge
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.if

func.func @tail_sgt(%out: !tile.ptr<f32>, %lb: i32, %ub: i32, %x: i32) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %ones = arith.constant dense<1.0> : tensor<16x16xf16>
  %twos = arith.constant dense<2.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c3 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %cm5 = arith.constant -5 : i32
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

func.func @head_slt(%out: !tile.ptr<f32>, %lb: i32, %ub: i32, %x: i32) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %ones = arith.constant dense<1.0> : tensor<16x16xf16>
  %twos = arith.constant dense<2.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c3 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %t = arith.cmpi slt, %i, %x : i32
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

func.func @head_sge_swapped(%out: !tile.ptr<f32>, %lb: i32, %ub: i32, %x: i32) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %ones = arith.constant dense<1.0> : tensor<16x16xf16>
  %twos = arith.constant dense<2.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c3 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %c7 = arith.constant 7 : i32
    %e = arith.addi %c7, %i : i32
    %t = arith.cmpi sge, %x, %e : i32
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

func.func @tail_sge(%out: !tile.ptr<f32>, %lb: i32, %ub: i32, %x: i32) attributes {tile.kernel} {
  %c3 = arith.constant 3 : i32
  %ones = arith.constant dense<1.0> : tensor<16x16xf16>
  %twos = arith.constant dense<2.0> : tensor<16x16xf16>
  %acc0 = arith.constant dense<0.0> : tensor<16x16xf32>
  %res = scf.for %i = %lb to %ub step %c3 iter_args(%acc = %acc0) -> (tensor<16x16xf32>) : i32 {
    %c50 = arith.constant 50 : i32
    %e = arith.addi %i, %c50 : i32
    %t = arith.cmpi sge, %e, %x : i32
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
