// quire-warp-specialize on loops staged with cp.async (no tensor maps):
// two K loops one after the other, 8 warps, sm_90 wgmma, 2 stages. The
// kernel gets as many producer warps as consumer warps (512 threads); the
// mbarriers are initialized before the split (arrivals: the 256 producer
// threads); the producer runs the prologue's copy and the loop's, each
// fill guarded by "that iteration runs", waits for the stage's release
// (every producer thread) and completes the stage's mbarrier with
// tile.async_arrive; between the loops both roles meet where the
// mbarriers start over (split: barrier.sync, each at its own point). The
// consumers wait on the stage (async_proxy: the fence for wgmma) and
// release it after the dot (async_proxy: a fence before the refill through
// cp.async's generic proxy); the copies and the CTA barriers are gone. The
// producer warps give registers to the consumers (setmaxnreg). Each
// fill's addresses are computed after its stage's acquire.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true" | FileCheck %s
// With pingpong the two consumer warpgroups issue each dot in turn.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true pingpong=true" | FileCheck %s --check-prefix=PP
// With producer-warpgroup the producer is one warpgroup (384 threads) whose
// warps issue the copies of both consumer warpgroups: each op that holds a
// tensor is cloned for the threads 128 above (tile.thread_offset), whose
// thread index the lowering offsets; the copies arrive once per thread.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true producer-warpgroup=true" | FileCheck %s --check-prefix=WG
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize --producer-warpgroup -o %t.wg.ptx
// RUN: FileCheck %s --check-prefix=WGPTX < %t.wg.ptx
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize --producer-warpgroup --emit=llvm-mlir | FileCheck %s --check-prefix=WGTID
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.wg.ptx -o %t.wg.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// producer-registers sets what the producer keeps: 40, and the consumers
// share the rest (232); values that setmaxnreg cannot take are errors.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 producer-warpgroup=true producer-registers=40" | FileCheck %s --check-prefix=R40
// RUN: quirec %s --sm 90 --num-warps 8 --producer-warpgroup --producer-registers 40 | FileCheck %s --check-prefix=R40PTX
// RUN: not quire-opt %s --split-input-file "--quire-warp-specialize=producer-warpgroup=true producer-registers=44" 2>&1 | FileCheck %s --check-prefix=R44
// RUN: not quirec %s --sm 90 --num-warps 8 --producer-warpgroup --producer-registers 264 2>&1 | FileCheck %s --check-prefix=R264
// 16 consumer warps and a producer warpgroup (640 threads, 96 registers a
// thread at entry): the producer would need more than it starts with, so
// no setmaxnreg.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=16 warp-specialize=true producer-warpgroup=true" | FileCheck %s --check-prefix=W16
// Off by default.
// RUN: quire-opt %s --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8" | FileCheck %s --check-prefix=OFF
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize --emit=llvm | FileCheck %s --check-prefix=LLIR
// In the PTX: 512 threads, one CTA an SM, cp.async.mbarrier.arrive.noinc,
// the fence after the consumers' wait, the meeting between the loops as
// barrier.sync 0 (unaligned), the consumers' other barriers named barrier
// 1 of their 256 threads; ptxas assembles it.
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize -o %t.ptx
// RUN: FileCheck %s --check-prefix=WSPTX < %t.ptx
// RUN: FileCheck %s --check-prefix=NOBAR0 < %t.ptx
// RUN: quirec %s --sm 90 --num-warps 8 --warp-specialize --pingpong -o %t.pp.ptx
// RUN: FileCheck %s --check-prefix=PPTX < %t.pp.ptx
// RUN: FileCheck %s --check-prefix=PPEDGE < %t.pp.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.pp.ptx -o %t.pp.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}

// CHECK-LABEL: func.func @two_loops
// CHECK-SAME:    tile.producer_warps = 8 : i32
// CHECK:         tile.tma_init {arrivals = 256 : i32, buffer = 0 : i32, release, stages = 2 : i32}
// CHECK-NEXT:    %[[P:.*]] = tile.is_producer
// CHECK-NEXT:    scf.if %[[P]] {
// CHECK-NEXT:      tile.setmaxnreg dec {count = 56 : i32}
// CHECK:           scf.if
// CHECK-NEXT:        tile.async_copy {{.*}} into stage %c0_i32 {buffer = 0 : i32
// CHECK-NEXT:        tile.async_arrive stage %c0_i32 {buffer = 0 : i32, stages = 2 : i32}
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK-NOT:             tile.addptr
// CHECK:                 tile.tma_acquire stage %{{.*}} phase %{{.*}} {buffer = 0 : i32, every_thread, producer, stages = 2 : i32}
// CHECK-NEXT:            tile.splat
// CHECK:                 tile.addptr
// CHECK:                 tile.async_copy
// CHECK-NEXT:            tile.async_arrive
// CHECK:           tile.tma_inval {buffer = 0 : i32, release, split, stages = 2 : i32}
// CHECK-NEXT:      tile.tma_init {arrivals = 256 : i32, buffer = 0 : i32, release, split, stages = 2 : i32}
// CHECK:           tile.async_copy {{.*}} into stage %c0_i32
// CHECK:           scf.for
// CHECK:             tile.tma_acquire
// CHECK:             tile.async_copy
// CHECK-NEXT:        tile.async_arrive
// CHECK:         } else {
// CHECK-NEXT:      tile.setmaxnreg inc {count = 200 : i32}
// CHECK-NOT:       tile.async_copy
// CHECK:           scf.for
// CHECK-NOT:         tile.async_wait
// CHECK:             tile.tma_wait stage %[[S:[^ ]*]] phase %{{.*}} {async_proxy, buffer = 0 : i32, stages = 2 : i32}
// CHECK-NEXT:        tile.warpgroup_dot {{.*}} b_stage %[[S]]
// CHECK:             tile.tma_release stage %[[S]] if %{{.*}} {async_proxy, buffer = 0 : i32, stages = 2 : i32}
// CHECK-NEXT:        scf.yield
// CHECK:           tile.tma_inval {buffer = 0 : i32, release, split, stages = 2 : i32}
// CHECK-NEXT:      tile.tma_init {arrivals = 256 : i32, buffer = 0 : i32, release, split, stages = 2 : i32}
// CHECK-NOT:       tile.async_copy
// CHECK:           scf.for
// CHECK:             tile.tma_wait
// CHECK:             tile.tma_release
// CHECK:           tile.tma_inval {buffer = 0 : i32, release, stages = 2 : i32}
// CHECK-NOT:       tile.async
// CHECK:           tile.store

// PP-LABEL: func.func @two_loops
// PP:         } else {
// PP-NEXT:      tile.setmaxnreg inc
// PP-NEXT:      tile.warpgroup_turn start
// PP:           scf.for
// PP:             tile.tma_wait
// PP-NEXT:        tile.warpgroup_turn wait
// PP-NEXT:        %[[D:.*]] = tile.warpgroup_dot a_stage {{.*}} async,
// PP-NEXT:        tile.warpgroup_turn pass
// PP-NEXT:        tile.warpgroup_wait %[[D]] {pending = 0 : i32}
// PP:           scf.for
// PP:             tile.warpgroup_turn wait
// PP:             tile.warpgroup_turn pass
// PP:           tile.warpgroup_turn end
// PP-NEXT:      tile.tma_inval
// PP:           tile.store

// WG-LABEL: func.func @two_loops
// WG-SAME:    tile.producer_warps = 4 : i32
// WG:         tile.tma_init {arrivals = 128 : i32, buffer = 0 : i32, release, stages = 2 : i32}
// WG:         scf.if
// WG-NEXT:      tile.setmaxnreg dec {count = 88 : i32}
// WG:           scf.for
// WG:             tile.tma_acquire
// WG:             tile.async_copy {{.*}} {buffer = 0 : i32, contig = 1 : i32, nvmma, stages = 2 : i32} :
// WG:             tile.async_copy {{.*}} {buffer = 0 : i32, contig = 1 : i32, nvmma, stages = 2 : i32, tile.thread_offset = 128 : i32}
// WG-NEXT:        tile.async_arrive
// WG:         } else {
// WG-NEXT:      tile.setmaxnreg inc {count = 208 : i32}

// WGPTX-LABEL: .entry two_loops(
// WGPTX:         .maxntid 384, 1, 1
// WGPTX:         mbarrier.init.shared::cta.b64 [{{.*}}], 128;
// WGTID-LABEL: llvm.func @two_loops(
// WGTID:         %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// WGTID:         %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// WGTID:         llvm.add %[[TID]], %[[C128]] : i32

// R40-LABEL: func.func @two_loops
// R40:         tile.setmaxnreg dec {count = 40 : i32}
// R40:       } else {
// R40-NEXT:    tile.setmaxnreg inc {count = 232 : i32}
// R40PTX-LABEL: .entry two_loops(
// R40PTX-DAG:     setmaxnreg.dec.sync.aligned.u32 40;
// R40PTX-DAG:     setmaxnreg.inc.sync.aligned.u32 232;
// R44: error: quire-warp-specialize: producer-registers must be 0 (the estimate) or a multiple of 8 in [24, 256], got 44
// R264: error: --producer-registers must be 0 (the estimate) or a multiple of 8 in [24, 256], got 264

// W16-LABEL: func.func @two_loops
// W16-SAME:    tile.producer_warps = 4 : i32
// W16-NOT:     tile.setmaxnreg
// W16:         tile.async_arrive
// W16-NOT:     tile.setmaxnreg
// W16-LABEL: func.func @wide_dot

// OFF-LABEL: func.func @two_loops
// OFF-NOT:     tile.is_producer
// OFF:         tile.async_wait

// WSPTX-LABEL: .entry two_loops(
// WSPTX:         .maxntid 512, 1, 1
// WSPTX-NEXT:    .minnctapersm 1
// WSPTX-DAG:     mbarrier.init.shared::cta.b64 [{{.*}}], 256;
// WSPTX-DAG:     setmaxnreg.dec.sync.aligned.u32 56;
// WSPTX-DAG:     cp.async.mbarrier.arrive.noinc.shared::cta.b64
// WSPTX-DAG:     barrier.sync 0;
// WSPTX-DAG:     setmaxnreg.inc.sync.aligned.u32 200;
// WSPTX-DAG:     mbarrier.try_wait.parity
// WSPTX-DAG:     fence.proxy.async.shared::cta;
// WSPTX-DAG:     mbarrier.arrive.shared::cta.b64
// WSPTX-DAG:     fence.proxy.async.shared::cta;
// WSPTX-DAG:     bar.warp.sync -1;
// WSPTX-DAG:     bar.sync 1, 256;
// The aligned barrier of the first init (every thread, before the split)
// is the kernel's only bar.sync 0.
// NOBAR0-LABEL:  .entry two_loops(
// NOBAR0:        bar.sync 0;
// NOBAR0-NOT:    bar.sync 0
// NOBAR0-LABEL:  .entry wide_dot(

// PPTX-LABEL: .entry two_loops(
// PPTX:        bar.sync id, 256;
// PPTX:        wgmma.mma_async
// PPTX:        bar.arrive id, 256;
// PPTX:        wgmma.wait_group.sync.aligned 0;
// PPEDGE-DAG:  @p bar.arrive 2, 256;
// PPEDGE-DAG:  @p bar.sync 2, 256;

// PTXAS-NOT: error
// PTXAS-NOT: C75
func.func @two_loops(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                     %a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                     %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
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
  // B tiles: 64 rows of 128 at b + (start + j) * 128 + c.
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w128 = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w128 : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %start, %c128 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %acc2 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %acc1) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %start, %c128 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
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
  tile.store %optrs, %acc2 : tensor<128x128x!tile.ptr<f32>>
  return
}

// -----

// Left alone: a 128 x 256 dot (ptxas checks each wgmma against the
// registers a thread has at entry, 128 at 512 threads: m64n256 needs 158),
// and a store before the loop (the producer's copies would no longer come
// after it).
// CHECK-LABEL: func.func @wide_dot
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.async_wait
// PP-LABEL: func.func @wide_dot
// PP-NOT:        tile.warpgroup_turn
func.func @wide_dot(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                    %a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                    %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c256 = arith.constant 256 : i32
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<256> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x256xi32>
  %c = tile.range 0, 256 : tensor<256xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
  %cb = tile.broadcast %c2 : tensor<1x256xi32> -> tensor<64x256xi32>
  %boffs = arith.addi %job, %cb : tensor<64x256xi32>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %off = arith.muli %start, %c256 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x256x!tile.ptr<f16>>, tensor<64x256xi32>
    %bv = tile.load %bptrs : tensor<64x256x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %s = tile.reduce sum %acc1 {axis = 1 : i32} : tensor<128x256xf32> -> tensor<128xf32>
  %r = tile.range 0, 128 : tensor<128xi32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// CHECK-LABEL: func.func @store_before_the_loop
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.async_wait
func.func @store_before_the_loop(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                 %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                 %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  tile.store %out, %one : !tile.ptr<f32>
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %start, %c128 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.reduce sum %acc1 {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %c : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// Left alone: a staged loop inside an scf.if (its stages share the other
// loop's buffers, which the producer would fill while it runs).
// CHECK-LABEL: func.func @nested_staged_loop
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.async_wait
func.func @nested_staged_loop(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                              %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                              %n: i32, %c: i1) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %cc = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %cc {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc0 = scf.if %c -> (tensor<128x128xf32>) {
    %a = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %off = arith.muli %start, %c128 : i32
      %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
      %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
      %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
      %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
      %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    scf.yield %a : tensor<128x128xf32>
  } else {
    scf.yield %zero : tensor<128x128xf32>
  }
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %acc0) -> (tensor<128x128xf32>) : i32 {
    %off = arith.muli %start, %c128 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.reduce sum %acc1 {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %cc : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// The producer runs a loop of scalar loads and index arithmetic that its
// copies' addresses need (the prefill kernel's flat grid searches the query
// starts for its sequence), cloned before its copies (here only the
// copies need it: the consumers' goes).
// CHECK-LABEL: func.func @searched_base
// CHECK:         %[[P:.*]] = tile.is_producer
// CHECK-NEXT:    scf.if %[[P]] {
// CHECK:           scf.for
// CHECK:             tile.load %{{.*}} : !tile.ptr<i32>
// CHECK:           tile.async_copy
// CHECK:           scf.for
// CHECK:             tile.async_copy
// CHECK:         } else {
// CHECK-NOT:       tile.async_copy
// CHECK:           tile.tma_wait
// PP-LABEL: func.func @searched_base
// PP:            tile.warpgroup_turn start
func.func @searched_base(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                         %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                         %starts: !tile.ptr<i32>, %steps: i32,
                         %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %base = scf.for %i = %c0 to %steps step %c1 iter_args(%l = %c0) -> (i32) : i32 {
    %at = tile.addptr %starts, %l : !tile.ptr<i32>, i32
    %v = tile.load %at : !tile.ptr<i32>
    %next = arith.addi %l, %v : i32
    scf.yield %next : i32
  }
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %c = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc1 = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %row = arith.addi %start, %base : i32
    %off = arith.muli %row, %c128 : i32
    %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
    %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
    %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
    %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
    %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %s = tile.reduce sum %acc1 {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %op = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %op, %c : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>
  return
}

// -----

// A persistent loop: each tile's staged loop and its store. The producer
// runs the tiles in the consumers' order, counting the ring's fills across
// them (the scf.for's i32 argument): the prologue's fill k of a tile goes
// into stage (fills + k) % 2 once its last reader released it, the loop's
// fills likewise, and each tile adds its loop's trip count. The consumers
// carry the same count: the staged loop starts its stage at fills % 2, and
// waits on the parity of fill fills + i. The mbarriers are initialized once
// and invalidated after the persistent loop. Both tile loops ask LLVM not to
// hoist loop-invariant code out of them (their index math would hold
// registers through every tile).
// CHECK: #[[$LICM:.*]] = #llvm.loop_licm<disable = true, versioningDisable = true>
// CHECK: #[[$NOHOIST:.*]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// In LLVM IR the tile loops' back edges carry it:
// LLIR: !{!"llvm.licm.disable"}
// With pingpong the consumer warpgroups' turns start once before the tile
// loop and end once after it (a start and an end per tile could let one
// warpgroup's next start pass the other's end).
// PP-LABEL: func.func @persistent_tiles
// PP:         } else {
// PP:           tile.warpgroup_turn start
// PP-NEXT:      scf.for
// PP:             scf.for
// PP:               tile.warpgroup_turn wait
// PP:               tile.warpgroup_turn pass
// PP:           } {llvm.loop_annotation
// PP-NEXT:      tile.warpgroup_turn end
// CHECK-LABEL: func.func @persistent_tiles
// CHECK:         tile.tma_init
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[F:.*]] = %c0_i32) -> (i32)
// CHECK:             %[[S0:.*]] = arith.remui %[[F]], %c2_i32
// CHECK:             tile.tma_acquire stage %[[S0]] phase %{{.*}} {buffer = 0 : i32, every_thread, producer, stages = 2 : i32}
// CHECK:             tile.async_copy %{{.*}} into stage %[[S0]]
// CHECK:             scf.for
// CHECK:               arith.remui
// CHECK:               tile.tma_acquire
// CHECK:               tile.async_copy
// CHECK:             %[[N:.*]] = arith.divui
// CHECK:             %[[NEXT:.*]] = arith.addi %[[F]], %[[N]]
// CHECK:             scf.yield %[[NEXT]] : i32
// CHECK:           } {llvm.loop_annotation = #[[$NOHOIST]]}
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} iter_args(%[[CF:.*]] = %c0_i32) -> (i32)
// CHECK:             %[[CS:.*]] = arith.remui %[[CF]], %c2_i32
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[CS]])
// CHECK:               arith.addi %[[CF]]
// CHECK:               tile.tma_wait
// CHECK:               tile.warpgroup_dot
// CHECK:               tile.tma_release
// CHECK:             tile.store
// CHECK:             scf.yield
// CHECK:           } {llvm.loop_annotation = #[[$NOHOIST]]}
// CHECK:           tile.tma_inval
// CHECK-NOT:     tile.async_wait
func.func @persistent_tiles(%out: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                            %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                            %n: i32, %tiles: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %cc = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %cc {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %pid = tile.program_id x
  %np = tile.num_programs x
  scf.for %t = %pid to %tiles step %np : i32 {
    // Tile t reads t * 64 more keys.
    %len = arith.muli %t, %c64 : i32
    %end = arith.addi %n, %len : i32
    %acc = scf.for %start = %c0 to %end step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %off = arith.muli %start, %c128 : i32
      %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
      %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
      %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
      %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
      %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %s = tile.reduce sum %acc {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
    %row = arith.muli %t, %c128 : i32
    %ob = tile.addptr %out, %row : !tile.ptr<f32>, i32
    %op = tile.splat %ob : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    %optrs = tile.addptr %op, %cc : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>
  }
  return
}

// -----

// Left alone: a persistent loop whose tiles store through the argument the
// next tiles' copies read (the producer would copy before the store).
// CHECK-LABEL: func.func @persistent_stores_what_it_reads
// CHECK-NOT:     tile.is_producer
// CHECK:         tile.async_wait
func.func @persistent_stores_what_it_reads(%b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                                           %n: i32, %tiles: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %av = arith.constant dense<1.0> : tensor<128x64xf16>
  %k = tile.range 0, 64 : tensor<64xi32>
  %j = tile.expand_dims %k {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %w = arith.constant dense<128> : tensor<64x1xi32>
  %jo = arith.muli %j, %w : tensor<64x1xi32>
  %job = tile.broadcast %jo : tensor<64x1xi32> -> tensor<64x128xi32>
  %cc = tile.range 0, 128 : tensor<128xi32>
  %c2 = tile.expand_dims %cc {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %cb = tile.broadcast %c2 : tensor<1x128xi32> -> tensor<64x128xi32>
  %boffs = arith.addi %job, %cb : tensor<64x128xi32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %pid = tile.program_id x
  %np = tile.num_programs x
  scf.for %t = %pid to %tiles step %np : i32 {
    %acc = scf.for %start = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %off = arith.muli %start, %c128 : i32
      %bat = tile.addptr %b, %off : !tile.ptr<f16>, i32
      %bp = tile.splat %bat : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>>
      %bptrs = tile.addptr %bp, %boffs : tensor<64x128x!tile.ptr<f16>>, tensor<64x128xi32>
      %bv = tile.load %bptrs : tensor<64x128x!tile.ptr<f16>>
      %d = tile.dot %av, %bv, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
    %s = tile.reduce sum %h {axis = 1 : i32} : tensor<128x128xf16> -> tensor<128xf16>
    %row = arith.muli %t, %c128 : i32
    %ob = tile.addptr %b, %row : !tile.ptr<f16>, i32
    %op = tile.splat %ob : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
    %optrs = tile.addptr %op, %cc : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
    tile.store %optrs, %s : tensor<128x!tile.ptr<f16>>
  }
  return
}
