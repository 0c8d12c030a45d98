// quire-warp-specialize with a producer warpgroup standing for two consumer
// warpgroups: the B tile's rows come through an index load (as a paged
// tile's through its block table). Where every producer thread's set-1
// clone of that load would read what its set-0 clone reads (the rows of
// warps w and w + 4 lie 8 apart, in one block of 16 equal entries), the
// producer loads it once; where the entries differ by row, each set keeps
// its own load (tile.thread_offset). Either way each fill's pointers are
// computed after the acquire of its stage.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true producer-warpgroup=true" | FileCheck %s
// RUN: quirec %s --sm 90 --num-warps 8 --producer-warpgroup -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// PTXAS-NOT: error

// CHECK-LABEL: func.func @rows_in_pages
// CHECK:         tile.setmaxnreg dec {count = 88 : i32}
// CHECK-NOT:     tile.thread_offset = 128 : i32} : tensor<64x!tile.ptr<i32>
// CHECK:         scf.for
// CHECK:           tile.load %{{.*}} : tensor<64x!tile.ptr<i32>
// CHECK-NOT:       tile.load
// CHECK:           scf.if
// CHECK-NOT:         tile.addptr
// CHECK:             tile.tma_acquire
// CHECK:             tile.addptr
// CHECK:             tile.async_copy
// CHECK:         tile.setmaxnreg inc {count = 208 : i32}

// CHECK-LABEL: func.func @rows_apart
// CHECK:         tile.setmaxnreg dec {count = 88 : i32}
// CHECK:         scf.for
// CHECK:           tile.load %{{.*}} : tensor<64x!tile.ptr<i32>
// CHECK-NEXT:      tile.load %{{.*}} {tile.thread_offset = 128 : i32} : tensor<64x!tile.ptr<i32>
// CHECK:         tile.setmaxnreg inc {count = 208 : i32}

func.func @rows_in_pages(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %ip: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                     %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %w64 = arith.constant dense<64> : tensor<128x1xi32>
  %ra = arith.muli %r2, %w64 : tensor<128x1xi32>
  %rab = tile.broadcast %ra : tensor<128x1xi32> -> tensor<128x64xi32>
  %k = tile.range 0, 64 : tensor<64xi32>
  %k2 = tile.expand_dims %k {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %kb = tile.broadcast %k2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %aoffs = arith.addi %rab, %kb : tensor<128x64xi32>
  %ap = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %aptrs = tile.addptr %ap, %aoffs : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %av = tile.load %aptrs : tensor<128x64x!tile.ptr<f16>>
  %w128 = arith.constant dense<128> : tensor<64x1xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %jr = tile.range 0, 64 : tensor<64xi32>
    %st = tile.splat %start : i32 -> tensor<64xi32>
    %tok = arith.addi %st, %jr : tensor<64xi32>
    %d16 = arith.constant dense<16> : tensor<64xi32>
    %ent = arith.divui %tok, %d16 : tensor<64xi32>
    %ipb = tile.splat %ip : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
    %ipp = tile.addptr %ipb, %ent : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
    %row = tile.load %ipp : tensor<64x!tile.ptr<i32>>
    %row2 = tile.expand_dims %row {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ro = arith.muli %row2, %w128 : tensor<64x1xi32>
    %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
    %boffs = arith.addi %rob, %cb : tensor<64x128xi32>
    %bp = tile.splat %b : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ow = arith.constant dense<128> : tensor<128x1xi32>
  %oo = arith.muli %o, %ow : tensor<128x1xi32>
  %oob = tile.broadcast %oo : tensor<128x1xi32> -> tensor<128x128xi32>
  %oc = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %ooffs = arith.addi %oob, %oc : tensor<128x128xi32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %ooffs : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %optrs, %acc1 : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

func.func @rows_apart(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %ip: !tile.ptr<i32> {tile.divisibility = 16 : i32},
                     %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.range 0, 128 : tensor<128xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %w64 = arith.constant dense<64> : tensor<128x1xi32>
  %ra = arith.muli %r2, %w64 : tensor<128x1xi32>
  %rab = tile.broadcast %ra : tensor<128x1xi32> -> tensor<128x64xi32>
  %k = tile.range 0, 64 : tensor<64xi32>
  %k2 = tile.expand_dims %k {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %kb = tile.broadcast %k2 : tensor<1x64xi32> -> tensor<128x64xi32>
  %aoffs = arith.addi %rab, %kb : tensor<128x64xi32>
  %ap = tile.splat %a : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>>
  %aptrs = tile.addptr %ap, %aoffs : tensor<128x64x!tile.ptr<f16>>, tensor<128x64xi32>
  %av = tile.load %aptrs : tensor<128x64x!tile.ptr<f16>>
  %w128 = arith.constant dense<128> : tensor<64x1xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %jr = tile.range 0, 64 : tensor<64xi32>
    %st = tile.splat %start : i32 -> tensor<64xi32>
    %tok = arith.addi %st, %jr : tensor<64xi32>
    %ent = arith.addi %tok, %tok : tensor<64xi32>
    %ipb = tile.splat %ip : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
    %ipp = tile.addptr %ipb, %ent : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
    %row = tile.load %ipp : tensor<64x!tile.ptr<i32>>
    %row2 = tile.expand_dims %row {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %ro = arith.muli %row2, %w128 : tensor<64x1xi32>
    %rob = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x128xi32>
    %boffs = arith.addi %rob, %cb : tensor<64x128xi32>
    %bp = tile.splat %b : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %o = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %ow = arith.constant dense<128> : tensor<128x1xi32>
  %oo = arith.muli %o, %ow : tensor<128x1xi32>
  %oob = tile.broadcast %oo : tensor<128x1xi32> -> tensor<128x128xi32>
  %oc = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<128x128xi32>
  %ooffs = arith.addi %oob, %oc : tensor<128x128xi32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %ooffs : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  tile.store %optrs, %acc1 : tensor<128x128x!tile.ptr<f32>>
  return
}
