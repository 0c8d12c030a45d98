// RUN: quire-opt %s "--quire-tile-pipeline=sm=80 num-warps=4" | FileCheck %s
// A loop's own `tile.num_stages` (tl.range(..., num_stages=N)) replaces the
// pipeline's staging depth (2 here): @deep stages its operands 4 deep (its
// wait lets two iterations' copies run), @unstaged (1) is not staged, and
// @default keeps the pipeline's 2.

// Whether iteration i + 3 * 32 runs is i < k - 96 (i + 96 < k would hold
// where the sum wraps to a negative index, near INT32_MAX).
// CHECK-LABEL: func.func @deep
// CHECK:       tile.async_copy {{.*}}stages = 4 : i32
// CHECK:       scf.for %[[I:[^ ]*]] =
// CHECK-NEXT:    tile.async_wait {pending = 4 : i32}
// CHECK:         %[[LIM:.*]] = arith.subi %arg3, %c96_i32 : i32
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi slt, %[[LIM]], %arg3 : i32
// CHECK-NEXT:    %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[LIM]] : i32
// CHECK-NEXT:    arith.andi %[[BELOW]], %[[OK]] : i1
// CHECK-LABEL: func.func @unstaged
// CHECK-NOT:   tile.async_copy
// CHECK:       scf.for
// CHECK-NOT:   tile.async
// CHECK-LABEL: func.func @default
// CHECK:       tile.async_copy {{.*}}stages = 2 : i32

func.func @deep(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %k: i32, %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %ar = arith.muli %r2, %ldas : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<64x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %br = arith.muli %kc, %ldbs : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %nb = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<64x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<64x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
    %ib = arith.muli %i, %ldb : i32
    %is2 = tile.splat %ib : i32 -> tensor<32x64xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x64xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  } {tile.num_stages = 4 : i32}
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %or = arith.muli %o, %c64 : tensor<64x1xi32>
  %orb = tile.broadcast %or : tensor<64x1xi32> -> tensor<64x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

func.func @unstaged(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %k: i32, %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %ar = arith.muli %r2, %ldas : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<64x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %br = arith.muli %kc, %ldbs : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %nb = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<64x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<64x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
    %ib = arith.muli %i, %ldb : i32
    %is2 = tile.splat %ib : i32 -> tensor<32x64xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x64xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  } {tile.num_stages = 1 : i32}
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %or = arith.muli %o, %c64 : tensor<64x1xi32>
  %orb = tile.broadcast %or : tensor<64x1xi32> -> tensor<64x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}

func.func @default(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %k: i32, %lda: i32 {tile.divisibility = 16 : i32},
                  %ldb: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ldas = tile.splat %lda : i32 -> tensor<64x1xi32>
  %ar = arith.muli %r2, %ldas : tensor<64x1xi32>
  %arb = tile.broadcast %ar : tensor<64x1xi32> -> tensor<64x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<64x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ldbs = tile.splat %ldb : i32 -> tensor<32x1xi32>
  %br = arith.muli %kc, %ldbs : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %nb = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<64x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<64x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
    %ib = arith.muli %i, %ldb : i32
    %is2 = tile.splat %ib : i32 -> tensor<32x64xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x64xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
    %y = tile.load %bp : tensor<32x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %or = arith.muli %o, %c64 : tensor<64x1xi32>
  %orb = tile.broadcast %or : tensor<64x1xi32> -> tensor<64x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<64x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
