// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=1" | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=1 async-stages=3" | FileCheck %s --check-prefix=S3
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=1 async-stages=0" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=1 async-stages=1" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=1 async-eager-refill" | FileCheck %s --check-prefix=EAGER
// The pass alone, on laid-out IR:
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=1" --quire-async-copies --canonicalize --cse | FileCheck %s
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=1" "--quire-async-copies=stages=3" --canonicalize --cse | FileCheck %s --check-prefix=S3
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=1" "--quire-async-copies=eager-refill" --canonicalize --cse | FileCheck %s --check-prefix=EAGER
// The dot operands of a K loop are copied into shared memory with cp.async
// one iteration ahead (two stages): the first iteration's copies before the
// loop, then each iteration waits for its own copies (and synchronizes the
// CTA), issues the next iteration's copies into the other stage, and reads
// its operands from its stage where the layout conversions stood. With
// three stages two iterations are in flight (wait for all but the newest
// two copies). Off below sm_80 or with async-stages=0.
//
// With eager refill, the prologue issues both stages, each iteration waits
// for its own copies leaving the next iteration's in flight, reads its
// stage, and only then (after a barrier: a wait that completes nothing)
// refills that same stage with iteration i + 2.

// CHECK-LABEL: func.func @dot_loop
// CHECK:      tile.async_copy %{{.*}} mask %{{.*}} into stage %[[C0:.*]] {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32}
// CHECK:      tile.async_copy %{{.*}} mask %{{.*}} into stage %[[C0]] {buffer = 1 : i32, contig = 1 : i32, stages = 2 : i32}
// CHECK:      scf.for %[[IV:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[C0]])
// CHECK-NEXT:   tile.async_wait {pending = 0 : i32}
// CHECK:        %[[NEXT:.*]] = arith.select %{{.*}} : i32
// CHECK:        tile.async_copy %{{.*}} mask %{{.*}} into stage %[[NEXT]] {buffer = 0 : i32
// CHECK:        tile.async_copy %{{.*}} mask %{{.*}} into stage %[[NEXT]] {buffer = 1 : i32
// CHECK:        %[[YS:.*]] = arith.select %{{.*}} : i32
// CHECK:        %[[A:.*]] = tile.async_local_load %[[STAGE]] {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<16x32xf16, #tile.dot_op<{opIdx = 0
// CHECK:        %[[B:.*]] = tile.async_local_load %[[STAGE]] {buffer = 1 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<32x16xf16, #tile.dot_op<{opIdx = 1
// CHECK:        %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]]
// CHECK:        scf.yield %[[D]], %[[YS]]
// CHECK:      tile.async_wait {pending = 0 : i32}
// CHECK-NOT:  tile.convert_layout {{.*}}dot_op

// S3-LABEL: func.func @dot_loop
// S3-COUNT-4: tile.async_copy
// S3:         scf.for
// S3-NEXT:      tile.async_wait {pending = 2 : i32}

// EAGER-LABEL: func.func @dot_loop
// EAGER:      tile.async_copy %{{.*}} into stage %[[C0:.*]] {buffer = 0 : i32
// EAGER:      tile.async_copy %{{.*}} into stage %[[C0]] {buffer = 1 : i32
// EAGER:      tile.async_copy %{{.*}} into stage %[[C1:.*]] {buffer = 0 : i32
// EAGER:      tile.async_copy %{{.*}} into stage %[[C1]] {buffer = 1 : i32
// EAGER:      scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[C0]])
// EAGER-NEXT:   tile.async_wait {pending = 2 : i32}
// EAGER-NOT:    tile.async_copy
// EAGER:        tile.async_local_load %[[STAGE]] {buffer = 0 : i32
// EAGER:        tile.async_local_load %[[STAGE]] {buffer = 1 : i32
// EAGER:        %[[D:.*]] = tile.dot
// EAGER-NEXT:   tile.async_wait {pending = 2 : i32}
// EAGER:        tile.async_copy %{{.*}} into stage %[[STAGE]] {buffer = 0 : i32
// EAGER:        tile.async_copy %{{.*}} into stage %[[STAGE]] {buffer = 1 : i32
// EAGER:        %[[YS:.*]] = arith.select %{{.*}} : i32
// EAGER-NEXT:   scf.yield %[[D]], %[[YS]]
// EAGER:      tile.async_wait {pending = 0 : i32}

// OFF-LABEL: func.func @dot_loop
// OFF-NOT:   tile.async
// OFF:       tile.convert_layout {{.*}}dot_op

// A loop that stores through a kernel argument keeps that argument's loads
// in place (iteration i's store could feed iteration i+1's load); the loads
// of other arguments are staged (distinct arguments do not overlap).
// CHECK-LABEL: func.func @dot_loop_with_store
// CHECK:       tile.async_copy %{{.*}} {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<32x16x!tile.ptr<f16>
// CHECK-NOT:   tile.async_copy
// CHECK:       scf.for
// CHECK:         tile.async_copy %{{.*}} {buffer = 0 : i32
// CHECK-NOT:     tile.async_copy
// CHECK:         tile.load %{{.*}} : tensor<16x32x!tile.ptr<f16>
// CHECK:         tile.async_local_load %{{.*}} {buffer = 0 : i32, contig = 1 : i32, stages = 2 : i32} : tensor<32x16xf16
// CHECK:         tile.store
func.func @dot_loop(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  // a: [16 x K] row-major with row stride 64; b: [K x 16], row stride 16.
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %ar = arith.muli %r2, %c64 : tensor<16x1xi32>
  %arb = tile.broadcast %ar : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<16x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c16 = arith.constant dense<16> : tensor<32x1xi32>
  %br = arith.muli %kc, %c16 : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x16xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %nb = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %x = tile.load %ap : tensor<16x32x!tile.ptr<f16>>
    %c16s = arith.constant 16 : i32
    %i16 = arith.muli %i, %c16s : i32
    %is2 = tile.splat %i16 : i32 -> tensor<32x16xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x16xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    %y = tile.load %bp : tensor<32x16x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16b = arith.constant dense<16> : tensor<16x1xi32>
  %or = arith.muli %o, %c16b : tensor<16x1xi32>
  %orb = tile.broadcast %or : tensor<16x1xi32> -> tensor<16x16xi32>
  %ob = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %ooff = arith.addi %orb, %ob : tensor<16x16xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc : tensor<16x16x!tile.ptr<f32>>
  return
}
func.func @dot_loop_with_store(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %r = tile.range 0, 16 : tensor<16xi32>
  %kk = tile.range 0, 32 : tensor<32xi32>
  // a: [16 x K] row-major with row stride 64; b: [K x 16], row stride 16.
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c64 = arith.constant dense<64> : tensor<16x1xi32>
  %ar = arith.muli %r2, %c64 : tensor<16x1xi32>
  %arb = tile.broadcast %ar : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %kk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %arb, %kb : tensor<16x32xi32>
  %kc = tile.expand_dims %kk {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c16 = arith.constant dense<16> : tensor<32x1xi32>
  %br = arith.muli %kc, %c16 : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x16xi32>
  %n2 = tile.expand_dims %r {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %nb = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<32x16xi32>
  %boff0 = arith.addi %brb, %nb : tensor<32x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x16xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %x = tile.load %ap : tensor<16x32x!tile.ptr<f16>>
    %c16s = arith.constant 16 : i32
    %i16 = arith.muli %i, %c16s : i32
    %is2 = tile.splat %i16 : i32 -> tensor<32x16xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x16xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x16x!tile.ptr<f16>>, tensor<32x16xi32>
    %y = tile.load %bp : tensor<32x16x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x16xf16> -> tensor<16x16xf32>
    %as0 = tile.splat %a : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>>
    %dh = arith.truncf %d : tensor<16x16xf32> to tensor<16x16xf16>
    tile.store %as0, %dh : tensor<16x16x!tile.ptr<f16>>
    scf.yield %d : tensor<16x16xf32>
  }
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c16b = arith.constant dense<16> : tensor<16x1xi32>
  %or = arith.muli %o, %c16b : tensor<16x1xi32>
  %orb = tile.broadcast %or : tensor<16x1xi32> -> tensor<16x16xi32>
  %ob = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %ooff = arith.addi %orb, %ob : tensor<16x16xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
  tile.store %cp, %acc : tensor<16x16x!tile.ptr<f32>>
  return
}
