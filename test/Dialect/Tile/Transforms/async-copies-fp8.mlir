// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=4" | FileCheck %s
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=4 wgmma=false" | FileCheck %s --check-prefix=MMA
// RUN: quirec --sm 90 --num-warps 4 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 4 --emit=ptx %s -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o /dev/null %}
// An fp8 dot operand (a load of f8E4M3FN or f8E5M2 whose arith.extf to f16
// feeds the dot, before or after a tile.trans) is staged as bytes: cp.async
// copies them, tile.async_local_load reads them in the operand's layout and
// arith.extf converts them there. Only where no two warps read the same
// elements (the conversion would be repeated per warp): with 4 warps on a
// 64-row dot the B operand is replicated over the warps along M, and stays
// a register load (prefetched one iteration ahead by quire-pipeline-loads)
// converted before the layout change. On sm_90 the converted tile is then
// stored into a one-stage swizzled buffer (tile.local_store) that wgmma
// reads; without wgmma it is converted to the mma.sync operand layout.

// CHECK-LABEL: func.func @fp8_b
// CHECK:         tile.async_copy %{{.*}} : tensor<32x64x!tile.ptr<f8E4M3FN>
// CHECK:       scf.for
// CHECK:         %[[B8:.*]] = tile.async_local_load %{{.*}} : tensor<32x64xf8E4M3FN, #tile.dot_op<{opIdx = 1
// CHECK:         %[[B:.*]] = arith.extf %[[B8]] : tensor<32x64xf8E4M3FN, #tile.dot_op<{opIdx = 1, {{.*}}> to tensor<32x64xf16, #tile.dot_op<{opIdx = 1
// CHECK:         tile.dot %{{.*}}, %[[B]], %{{.*}}
// CHECK-NOT:   tile.convert_layout {{.*}}f8E4M3FN
// PTX-LABEL:   .entry fp8_b
// PTX:         cp.async
// PTX:         cvt.rn.f16x2.e4m3x2
// PTX:         mma.sync.aligned.m16n8k16

func.func @fp8_b(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                 %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                 %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %rm = tile.range 0, 16 : tensor<16xi32>
  %rk = tile.range 0, 32 : tensor<32xi32>
  %rb0 = tile.range 0, 32 : tensor<32xi32>
  %rb1 = tile.range 0, 64 : tensor<64xi32>
  %rn = tile.range 0, 64 : tensor<64xi32>
  // a: [16 x K] with row stride K; b: [K x 64] fp8 row stride 64.
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ck = arith.constant dense<32> : tensor<16x1xi32>
  %am = arith.muli %m2, %ck : tensor<16x1xi32>
  %amb = tile.broadcast %am : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %amb, %kb : tensor<16x32xi32>
  %b0 = tile.expand_dims %rb0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cc = arith.constant dense<64> : tensor<32x1xi32>
  %br = arith.muli %b0, %cc : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x64xi32>
  %b1 = tile.expand_dims %rb1 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %bcb = tile.broadcast %b1 : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff0 = arith.addi %brb, %bcb : tensor<32x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f8E4M3FN> -> tensor<32x64x!tile.ptr<f8E4M3FN>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %x = tile.load %ap : tensor<16x32x!tile.ptr<f16>>
    %cn = arith.constant 64 : i32
    %in = arith.muli %i, %cn : i32
    %is2 = tile.splat %in : i32 -> tensor<32x64xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x64xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f8E4M3FN>>, tensor<32x64xi32>
    %y8 = tile.load %bp : tensor<32x64x!tile.ptr<f8E4M3FN>>
    %y = arith.extf %y8 : tensor<32x64xf8E4M3FN> to tensor<32x64xf16>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>
    scf.yield %d : tensor<16x64xf32>
  }
  %o = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cnb = arith.constant dense<64> : tensor<16x1xi32>
  %or = arith.muli %o, %cnb : tensor<16x1xi32>
  %orb = tile.broadcast %or : tensor<16x1xi32> -> tensor<16x64xi32>
  %n2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<16x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %cp, %acc : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

// The tile stored transposed (N x K, K contiguous) is staged transposed.
// CHECK-LABEL: func.func @fp8_b_transposed
// CHECK:         tile.async_copy %{{.*}} {buffer = 1 : i32, contig = 0 : i32, stages = 2 : i32, transposed} : tensor<64x32x!tile.ptr<f8E4M3FN>
// CHECK:       scf.for
// CHECK:         %[[B8:.*]] = tile.async_local_load %{{.*}} {buffer = 1 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<32x64xf8E4M3FN, #tile.dot_op<{opIdx = 1
// CHECK:         arith.extf %[[B8]]
// PTX-LABEL:   .entry fp8_b_transposed
// PTX:         cp.async
// PTX:         cvt.rn.f16x2.e4m3x2
func.func @fp8_b_transposed(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                 %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                 %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %rm = tile.range 0, 16 : tensor<16xi32>
  %rk = tile.range 0, 32 : tensor<32xi32>
  %rb0 = tile.range 0, 64 : tensor<64xi32>
  %rb1 = tile.range 0, 32 : tensor<32xi32>
  %rn = tile.range 0, 64 : tensor<64xi32>
  // a: [16 x K] with row stride K; b: [K x 64] fp8 stored transposed, row stride 32.
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ck = arith.constant dense<32> : tensor<16x1xi32>
  %am = arith.muli %m2, %ck : tensor<16x1xi32>
  %amb = tile.broadcast %am : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %amb, %kb : tensor<16x32xi32>
  %b0 = tile.expand_dims %rb0 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cc = arith.constant dense<32> : tensor<64x1xi32>
  %br = arith.muli %b0, %cc : tensor<64x1xi32>
  %brb = tile.broadcast %br : tensor<64x1xi32> -> tensor<64x32xi32>
  %b1 = tile.expand_dims %rb1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %bcb = tile.broadcast %b1 : tensor<1x32xi32> -> tensor<64x32xi32>
  %boff0 = arith.addi %brb, %bcb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f8E4M3FN> -> tensor<64x32x!tile.ptr<f8E4M3FN>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %x = tile.load %ap : tensor<16x32x!tile.ptr<f16>>
    %cn = arith.constant 64 : i32
    %in = arith.muli %i, %cn : i32
    %is2 = tile.splat %in : i32 -> tensor<64x32xi32>
    %boff = arith.addi %boff0, %is2 : tensor<64x32xi32>
    %bp = tile.addptr %bs, %boff : tensor<64x32x!tile.ptr<f8E4M3FN>>, tensor<64x32xi32>
    %y8 = tile.load %bp : tensor<64x32x!tile.ptr<f8E4M3FN>>
    %yt = tile.trans %y8 : tensor<64x32xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %y = arith.extf %yt : tensor<32x64xf8E4M3FN> to tensor<32x64xf16>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>
    scf.yield %d : tensor<16x64xf32>
  }
  %o = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cnb = arith.constant dense<64> : tensor<16x1xi32>
  %or = arith.muli %o, %cnb : tensor<16x1xi32>
  %orb = tile.broadcast %or : tensor<16x1xi32> -> tensor<16x64xi32>
  %n2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<16x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %cp, %acc : tensor<16x64x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @fp8_b_replicated
// CHECK-NOT:     tile.async_copy {{.*}}f8E4M3FN
// CHECK:         tile.load %{{.*}} : tensor<32x16x!tile.ptr<f8E4M3FN>
// CHECK:       scf.for
// CHECK:         tile.load %{{.*}} : tensor<32x16x!tile.ptr<f8E4M3FN>
// CHECK:         %[[B:.*]] = arith.extf %{{.*}} : tensor<32x16xf8E4M3FN, #tile.blocked
// CHECK:         tile.local_store %[[B]] into stage %{{.*}} {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 1 : i32} : tensor<32x16xf16, #tile.blocked
// CHECK:         tile.warpgroup_dot a(%{{.*}}) b_stage %{{.*}} acc %{{.*}} {b_buffer = 1 : i32, b_contig = 1 : i32, k = 32 : i64, operand_type = f16, stages = 1 : i32}
// CHECK:         scf.yield
// CHECK:       tile.barrier
// CHECK-NEXT:  tile.async_wait {pending = 0 : i32}
// MMA-LABEL:   func.func @fp8_b_replicated
// MMA:           %[[B:.*]] = arith.extf %{{.*}} : tensor<32x16xf8E4M3FN, #tile.blocked
// MMA:           tile.convert_layout %[[B]] : tensor<32x16xf16, #tile.blocked<{{.*}}>> -> tensor<32x16xf16, #tile.dot_op<{opIdx = 1
// PTX-LABEL:   .entry fp8_b_replicated
// PTX-NOT:     .entry
// PTX:         cvt.rn.f16x2.e4m3x2
// PTX:         bar.sync
// PTX:         st.shared
// PTX:         fence.proxy.async.shared::cta;
// PTX-NEXT:    // end inline asm
// PTX-NEXT:    bar.sync
// PTX:         wgmma.mma_async
func.func @fp8_b_replicated(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                 %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                 %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<64x16xf32>
  %rm = tile.range 0, 64 : tensor<64xi32>
  %rk = tile.range 0, 32 : tensor<32xi32>
  %rb0 = tile.range 0, 32 : tensor<32xi32>
  %rb1 = tile.range 0, 16 : tensor<16xi32>
  %rn = tile.range 0, 16 : tensor<16xi32>
  // a: [64 x K] with row stride K; b: [K x 16] fp8 row stride 16.
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ck = arith.constant dense<32> : tensor<64x1xi32>
  %am = arith.muli %m2, %ck : tensor<64x1xi32>
  %amb = tile.broadcast %am : tensor<64x1xi32> -> tensor<64x32xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff0 = arith.addi %amb, %kb : tensor<64x32xi32>
  %b0 = tile.expand_dims %rb0 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %cc = arith.constant dense<16> : tensor<32x1xi32>
  %br = arith.muli %b0, %cc : tensor<32x1xi32>
  %brb = tile.broadcast %br : tensor<32x1xi32> -> tensor<32x16xi32>
  %b1 = tile.expand_dims %rb1 {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %bcb = tile.broadcast %b1 : tensor<1x16xi32> -> tensor<32x16xi32>
  %boff0 = arith.addi %brb, %bcb : tensor<32x16xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f8E4M3FN> -> tensor<32x16x!tile.ptr<f8E4M3FN>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<64x16xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<64x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<64x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
    %x = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
    %cn = arith.constant 16 : i32
    %in = arith.muli %i, %cn : i32
    %is2 = tile.splat %in : i32 -> tensor<32x16xi32>
    %boff = arith.addi %boff0, %is2 : tensor<32x16xi32>
    %bp = tile.addptr %bs, %boff : tensor<32x16x!tile.ptr<f8E4M3FN>>, tensor<32x16xi32>
    %y8 = tile.load %bp : tensor<32x16x!tile.ptr<f8E4M3FN>>
    %y = arith.extf %y8 : tensor<32x16xf8E4M3FN> to tensor<32x16xf16>
    %d = tile.dot %x, %y, %acc : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  %o = tile.expand_dims %rm {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cnb = arith.constant dense<16> : tensor<64x1xi32>
  %or = arith.muli %o, %cnb : tensor<64x1xi32>
  %orb = tile.broadcast %or : tensor<64x1xi32> -> tensor<64x16xi32>
  %n2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %ob = tile.broadcast %n2 : tensor<1x16xi32> -> tensor<64x16xi32>
  %ooff = arith.addi %orb, %ob : tensor<64x16xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x16x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<64x16x!tile.ptr<f32>>, tensor<64x16xi32>
  tile.store %cp, %acc : tensor<64x16x!tile.ptr<f32>>
  return
}

// -----

// The conversion before the transpose: the same staging.
// CHECK-LABEL: func.func @fp8_b_converted_then_transposed
// CHECK:         tile.async_copy %{{.*}} {buffer = 1 : i32, contig = 0 : i32, stages = 2 : i32, transposed} : tensor<64x32x!tile.ptr<f8E4M3FN>
// CHECK:       scf.for
// CHECK:         %[[B8:.*]] = tile.async_local_load %{{.*}} {buffer = 1 : i32, contig = 0 : i32, stages = 2 : i32} : tensor<32x64xf8E4M3FN, #tile.dot_op<{opIdx = 1
// CHECK:         arith.extf %[[B8]]
// CHECK-NOT:     tile.trans
// PTX-LABEL:   .entry fp8_b_converted_then_transposed
// PTX:         cp.async
func.func @fp8_b_converted_then_transposed(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                 %b: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                 %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                 %k: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %rm = tile.range 0, 16 : tensor<16xi32>
  %rk = tile.range 0, 32 : tensor<32xi32>
  %rb0 = tile.range 0, 64 : tensor<64xi32>
  %rb1 = tile.range 0, 32 : tensor<32xi32>
  %rn = tile.range 0, 64 : tensor<64xi32>
  // a: [16 x K] with row stride K; b: [K x 64] fp8 stored transposed, row stride 32.
  %m2 = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %ck = arith.constant dense<32> : tensor<16x1xi32>
  %am = arith.muli %m2, %ck : tensor<16x1xi32>
  %amb = tile.broadcast %am : tensor<16x1xi32> -> tensor<16x32xi32>
  %k2 = tile.expand_dims %rk {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %aoff0 = arith.addi %amb, %kb : tensor<16x32xi32>
  %b0 = tile.expand_dims %rb0 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cc = arith.constant dense<32> : tensor<64x1xi32>
  %br = arith.muli %b0, %cc : tensor<64x1xi32>
  %brb = tile.broadcast %br : tensor<64x1xi32> -> tensor<64x32xi32>
  %b1 = tile.expand_dims %rb1 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %bcb = tile.broadcast %b1 : tensor<1x32xi32> -> tensor<64x32xi32>
  %boff0 = arith.addi %brb, %bcb : tensor<64x32xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>>
  %bs = tile.splat %b : !tile.ptr<f8E4M3FN> -> tensor<64x32x!tile.ptr<f8E4M3FN>>
  %acc = scf.for %i = %c0 to %k step %c32 iter_args(%acc = %zero) -> (tensor<16x64xf32>) : i32 {
    %is = tile.splat %i : i32 -> tensor<16x32xi32>
    %aoff = arith.addi %aoff0, %is : tensor<16x32xi32>
    %ap = tile.addptr %as, %aoff : tensor<16x32x!tile.ptr<f16>>, tensor<16x32xi32>
    %x = tile.load %ap : tensor<16x32x!tile.ptr<f16>>
    %cn = arith.constant 64 : i32
    %in = arith.muli %i, %cn : i32
    %is2 = tile.splat %in : i32 -> tensor<64x32xi32>
    %boff = arith.addi %boff0, %is2 : tensor<64x32xi32>
    %bp = tile.addptr %bs, %boff : tensor<64x32x!tile.ptr<f8E4M3FN>>, tensor<64x32xi32>
    %y8 = tile.load %bp : tensor<64x32x!tile.ptr<f8E4M3FN>>
    %y16 = arith.extf %y8 : tensor<64x32xf8E4M3FN> to tensor<64x32xf16>
    %y = tile.trans %y16 : tensor<64x32xf16> -> tensor<32x64xf16>
    %d = tile.dot %x, %y, %acc : tensor<16x32xf16> * tensor<32x64xf16> -> tensor<16x64xf32>
    scf.yield %d : tensor<16x64xf32>
  }
  %o = tile.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %cnb = arith.constant dense<64> : tensor<16x1xi32>
  %or = arith.muli %o, %cnb : tensor<16x1xi32>
  %orb = tile.broadcast %or : tensor<16x1xi32> -> tensor<16x64xi32>
  %n2 = tile.expand_dims %rn {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ob = tile.broadcast %n2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %ooff = arith.addi %orb, %ob : tensor<16x64xi32>
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %ooff : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xi32>
  tile.store %cp, %acc : tensor<16x64x!tile.ptr<f32>>
  return
}
