// RUN: quire-opt %s --quire-lower-descriptors | FileCheck %s --check-prefix=LOWER
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3" | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 async-wgmma=true" | FileCheck %s --check-prefix=LATE
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 tma=false" | FileCheck %s --check-prefix=NOTMA
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 tma-release=true" | FileCheck %s --check-prefix=REL
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=4 async-wgmma=true tma-release=true" | FileCheck %s --check-prefix=RELASYNC
// RUN: quirec --sm 90 --num-warps 8 --async-stages 3 --tma-release --emit=ptx %s -o - | FileCheck %s --check-prefix=RELPTX
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 tma-release=true warp-specialize=true" | FileCheck %s --check-prefix=WS
// RUN: quirec --sm 90 --num-warps 8 --async-stages 3 --tma-release --warp-specialize --emit=ptx %s -o - | FileCheck %s --check-prefix=WSPTX
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 8 --async-stages 4 --async-wgmma --tma-release --warp-specialize --emit=ptx %s -o %t.ws.ptx && %ptxas -arch=sm_90a %t.ws.ptx -o /dev/null %}
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 8 --async-stages 3 --async-wgmma --tma-release --emit=ptx %s -o %t.rel.ptx && %ptxas -arch=sm_90a %t.rel.ptx -o /dev/null %}
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 producer-warpgroup=true" | FileCheck %s --check-prefix=WG
// RUN: quirec --sm 90 --num-warps 8 --async-stages 3 --producer-warpgroup --emit=ptx %s -o - | FileCheck %s --check-prefix=WGPTX
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 producer-warpgroup=true" | FileCheck %s --check-prefix=WG4
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 producer-warpgroup=true producer-registers=56" | FileCheck %s --check-prefix=WG56
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 producer-warpgroup=true producer-registers=176" | FileCheck %s --check-prefix=WG176
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 8 --async-stages 3 --producer-warpgroup --emit=ptx %s -o %t.wg.ptx && %ptxas -arch=sm_90a -v %t.wg.ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=WGPTXAS %}
// RUN: quirec --sm 90 --num-warps 8 --async-stages 3 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ quirec --sm 90 --num-warps 8 --async-stages 3 --emit=ptx %s -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o /dev/null %}
// A matmul whose operands are read through descriptors with tensor maps
// (host TensorDescriptors under tma=True): quire-lower-descriptors marks
// the blocks' pointers with tile.tensormap_block, and quire-async-copies
// stages both wgmma operands with TMA: mbarriers initialized before the
// prologue (stages - 1 iterations of copies), each iteration a barrier
// (the refilled stage's reads done), the copies of iteration i + 2 issued
// by one thread where j < K tiles, then every thread waits for its stage's
// mbarrier phase, which the loop carries (flipped when the stage wraps);
// mbarriers invalidated after the loop. tma=false keeps cp.async.

// LOWER-LABEL: func.func @matmul
// LOWER:         %[[P:.*]] = tile.addptr
// LOWER:         tile.tensormap_block %[[P]], %arg4[%{{.*}}, %{{.*}}] : tensor<128x64x!tile.ptr<f16>>
// LOWER:         tile.tensormap_block %{{.*}}, %arg9[%{{.*}}, %{{.*}}] : tensor<64x128x!tile.ptr<f16>>
// The stored block's pointers are not marked (TMA stages loads only).
// LOWER-NOT:     tile.tensormap_block
// LOWER:         tile.store

// CHECK-LABEL: func.func @matmul(
// CHECK:         tile.tma_init {buffer = 0 : i32, stages = 3 : i32}
// CHECK:         tile.tma_init {buffer = 1 : i32, stages = 3 : i32}
// CHECK:         tile.tma_copy %arg4[%{{.*}}, %c0_i32] into stage %c0_i32 if %{{.*}} {block = tensor<128x64xf16>, buffer = 0 : i32, contig = 1 : i32, stages = 3 : i32}
// CHECK:         tile.tma_copy %arg9[%c0_i32, %{{.*}}] into stage %c0_i32 if %{{.*}} {block = tensor<64x128xf16>, buffer = 1 : i32, contig = 1 : i32, stages = 3 : i32}
// CHECK:         tile.tma_copy %arg4[%{{.*}}, %c64_i32] into stage %c1_i32
// CHECK:         tile.tma_copy %arg9[%c64_i32, %{{.*}}] into stage %c1_i32
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %c0_i32, %[[PHASE:.*]] = %c0_i32)
// CHECK-NEXT:      tile.barrier
// CHECK:           tile.tma_copy %arg4
// CHECK:           tile.tma_copy %arg9
// CHECK:           %[[NEXT:.*]] = arith.select
// CHECK:           %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c0_i32
// CHECK:           %[[FLIP:.*]] = arith.xori %[[PHASE]], %c1_i32
// CHECK:           %[[NPHASE:.*]] = arith.select %[[WRAP]], %[[FLIP]], %[[PHASE]]
// CHECK:           tile.tma_wait stage %[[STAGE]] phase %[[PHASE]] {buffer = 0 : i32, stages = 3 : i32}
// CHECK:           tile.tma_wait stage %[[STAGE]] phase %[[PHASE]] {buffer = 1 : i32, stages = 3 : i32}
// CHECK:           tile.warpgroup_dot a_stage %[[STAGE]] b_stage %[[STAGE]] acc %[[ACC]]
// CHECK:           scf.yield %{{.*}}, %[[NEXT]], %[[NPHASE]]
// CHECK:         tile.tma_inval {buffer = 0 : i32, stages = 3 : i32}
// CHECK:         tile.tma_inval {buffer = 1 : i32, stages = 3 : i32}
// CHECK-NOT:     tile.async_copy
// CHECK-NOT:     tile.tensormap_block
// CHECK:         return

// K not known to be a multiple of 16 elements: the A rows' mask leaves runs too
// narrow for cp.async (tma=false: B staged by cp.async, A loaded in the loop);
// TMA reads the blocks whole (zeros past K) and stages both.
// CHECK-LABEL: func.func @matmul_ragged_k
// CHECK:         tile.tma_init {buffer = 0
// CHECK:         scf.for
// CHECK:           tile.tma_copy %arg4
// CHECK:           tile.tma_copy %arg9
// CHECK:           tile.warpgroup_dot a_stage

// With async wgmma and 3 stages the refill moves after the wgmma wait and a
// barrier at the end of the body; the stage's wait stays at the top.
// LATE:          scf.for
// LATE-NEXT:       tile.tma_wait
// LATE-NEXT:       tile.tma_wait
// LATE-NEXT:       tile.warpgroup_dot {{.*}}async
// LATE-NEXT:       tile.warpgroup_wait {{.*}}pending = 1
// LATE-NEXT:       tile.barrier
// LATE:            tile.tma_copy %arg4
// LATE:            tile.tma_copy %arg9
// LATE:            scf.yield

// With tma-release the loop has no CTA barrier: the first buffer's release
// mbarriers stand for the stage; thread 0 acquires the stage it refills
// (iteration j = i + 2 fills stage j % 3 for the (j / 3)-th time: release
// parity = j's fill phase flipped), every warp releases the stage it read at
// the end of the body (synchronous dots) or, with async wgmma, the previous
// iteration's stage after the wait that retires its dots (not in the first).
// REL-LABEL:   func.func @matmul(
// REL:           tile.tma_init {buffer = 0 : i32, release, stages = 3 : i32}
// REL:           tile.tma_init {buffer = 1 : i32, stages = 3 : i32}
// REL:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[STAGE:.*]] = %c0_i32, %[[PHASE:.*]] = %c0_i32)
// REL-NOT:         tile.barrier
// REL:             %[[NOWRAP:.*]] = arith.cmpi slt, %[[STAGE]], %c1_i32
// REL:             %[[ISSUE:.*]] = arith.select %[[NOWRAP]]
// REL:             %[[FLIP:.*]] = arith.xori %[[PHASE]], %c1_i32
// REL:             %[[PARITY:.*]] = arith.select %[[NOWRAP]], %[[FLIP]], %[[PHASE]]
// REL:             tile.tma_acquire stage %[[ISSUE]] phase %[[PARITY]] {buffer = 0 : i32, stages = 3 : i32}
// REL:             tile.tma_copy %arg4{{.*}} into stage %[[ISSUE]]
// REL:             tile.tma_wait stage %[[STAGE]] phase %[[PHASE]]
// REL:             tile.warpgroup_dot
// REL:             tile.tma_release stage %[[STAGE]] if %true {buffer = 0 : i32, stages = 3 : i32}
// REL-NEXT:        scf.yield
// REL:           tile.tma_inval {buffer = 0 : i32, release, stages = 3 : i32}
// RELASYNC-LABEL: func.func @matmul(
// RELASYNC:        scf.for %[[IV:[^ ]*]] = %[[LB:[^ ]*]] to {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[STAGE:.*]] = %c0_i32, %{{.*}} = %c0_i32)
// RELASYNC-NOT:      tile.barrier
// RELASYNC:          tile.tma_acquire
// RELASYNC:          tile.warpgroup_dot {{.*}}async
// RELASYNC-NEXT:     tile.warpgroup_wait {{.*}}pending = 1
// RELASYNC-NEXT:     %[[NOTFIRST:.*]] = arith.cmpi ne, %[[IV]], %[[LB]]
// RELASYNC-NEXT:     %[[AT0:.*]] = arith.cmpi eq, %[[STAGE]], %c0_i32
// RELASYNC-NEXT:     %[[DEC:.*]] = arith.subi %[[STAGE]], %c1_i32
// RELASYNC-NEXT:     %[[PREV:.*]] = arith.select %[[AT0]], %c3_i32, %[[DEC]]
// RELASYNC-NEXT:     tile.tma_release stage %[[PREV]] if %[[NOTFIRST]]
// RELASYNC-NOT:      tile.barrier
// RELASYNC:          scf.yield
// RELPTX-LABEL: .entry matmul(
// RELPTX:         mbarrier.init.shared::cta.b64 [{{.*}}], 8;
// The issuing thread waits for the stage's release (the others branch
// around the loop); then every thread waits for its stage's copies.
// RELPTX:         @!%p{{[0-9]+}} bra skip_wait_acquire;
// RELPTX-NEXT:    wait_acquire:
// RELPTX-NEXT:    mbarrier.try_wait.parity.shared::cta.b64 done, [%r{{[0-9]+}}], %r{{[0-9]+}};
// RELPTX-NEXT:    @!done bra wait_acquire;
// RELPTX-NEXT:    skip_wait_acquire:
// RELPTX:         wait_tma:
// RELPTX-NEXT:    mbarrier.try_wait.parity.shared::cta.b64 done, [%r{{[0-9]+}}], %r{{[0-9]+}};
// RELPTX-NEXT:    @!done bra wait_tma;
// RELPTX:         bar.warp.sync -1;
// RELPTX-NEXT:    mbarrier.arrive.shared::cta.b64 _, [{{.*}}];

// quire-warp-specialize: one warp more; after the inits, the producer warp
// (tile.is_producer) runs every iteration's acquire and copies, issued by its
// first thread, iteration j's offsets (the consumer loop's copies were of
// iteration i + 2: j - 2 * step maps back); the consumers run the loop
// without copies, acquires or prologue, then the rest of the kernel. Every
// barrier after the inits' is a named barrier of the 8 consumer warps.
// WS-LABEL:    func.func @matmul(
// WS-SAME:       tile.producer_warps = 1 : i32
// WS:            tile.tma_init {buffer = 0 : i32, release, stages = 3 : i32}
// WS:            tile.tma_init {buffer = 1 : i32, stages = 3 : i32}
// WS-NEXT:       %[[P:.*]] = tile.is_producer
// WS-NEXT:       scf.if %[[P]] {
// WS-NEXT:         scf.for %[[J:[^ ]*]] = {{.*}} iter_args(%[[S:.*]] = %c0_i32, %[[PH:.*]] = %c0_i32) -> (i32, i32)
// WS-NEXT:           %[[PAR:.*]] = arith.xori %[[PH]], %c1_i32
// WS-NEXT:           tile.tma_acquire stage %[[S]] phase %[[PAR]] {buffer = 0 : i32, producer, stages = 3 : i32}
// WS-NEXT:           %[[K:.*]] = arith.muli %[[J]], %c64_i32
// WS-NEXT:           tile.tma_copy %arg4[%{{.*}}, %[[K]]] into stage %[[S]] if %true {{.*}}producer
// WS-NEXT:           tile.tma_copy %arg9[%[[K]], %{{.*}}] into stage %[[S]] if %true {{.*}}producer
// WS:              scf.yield
// WS:            } else {
// WS-NOT:          tile.tma_copy
// WS-NOT:          tile.tma_acquire
// WS:              scf.for
// WS:                tile.tma_wait
// WS:                tile.warpgroup_dot
// WS:                tile.tma_release
// WS:              tile.tma_inval
// WS:              tile.store
// WS-NEXT:       {{^}}  }
// WS-NEXT:       return
// WSPTX-LABEL: .entry matmul(
// WSPTX:         .maxntid 288, 1, 1
// WSPTX:         bar.sync 0;
// WSPTX:         bar.sync 0;
// WSPTX-NOT:     bar.sync 0;
// WSPTX:         bar.sync 1, 256;

// producer-warpgroup (implies warp-specialize): the producer is a
// warpgroup, four warps more, which gives back its registers (24 each) while
// the two consumer warpgroups take what the CTA's 64K then leave them (240
// each); the CTA starts at 64K / 384 threads (ptxas: 168).
// WG-LABEL:    func.func @matmul(
// WG-SAME:       tile.producer_warps = 4 : i32
// WG:            %[[P:.*]] = tile.is_producer
// WG-NEXT:       scf.if %[[P]] {
// WG-NEXT:         tile.setmaxnreg dec {count = 24 : i32}
// WG-NEXT:         scf.for
// WG:                tile.tma_acquire {{.*}}producer
// WG:            } else {
// WG-NEXT:         tile.setmaxnreg inc {count = 240 : i32}
// WG-NOT:          tile.tma_copy
// producer-registers: the producer keeps 56, the consumers get 224; at 176
// (more than the 168 a thread starts with) no registers move.
// WG56-LABEL:  func.func @matmul(
// WG56:          tile.setmaxnreg dec {count = 56 : i32}
// WG56:          tile.setmaxnreg inc {count = 224 : i32}
// WG176-LABEL: func.func @matmul(
// WG176-SAME:    tile.producer_warps = 4 : i32
// WG176-NOT:     tile.setmaxnreg
// WG:              tile.warpgroup_dot
// WGPTX:         .target sm_90a
// WGPTX-LABEL:   .entry matmul(
// WGPTX:         .maxntid 384, 1, 1
// WGPTX-NEXT:    .minnctapersm 1
// WGPTX:         setmaxnreg.dec.sync.aligned.u32 24;
// WGPTX:         setmaxnreg.inc.sync.aligned.u32 240;
// WGPTX:         bar.sync 1, 256;
// ptxas honours both (no C7508 "'setmaxnreg' ignored": .minnctapersm 1
// tells it each thread's count at entry) and starts every thread at the
// CTA's share, 168, which the counts above assume (the producer's 128 x 144
// registers freed are the consumers' 256 x 72).
// WGPTXAS-NOT:   C7508
// WGPTXAS:       Used 168 registers
// WGPTXAS-NOT:   C7508
// With one consumer warpgroup every thread may hold 255 registers already:
// a producer warp, no setmaxnreg.
// WG4-LABEL:   func.func @matmul(
// WG4-SAME:      tile.producer_warps = 1 : i32
// WG4-NOT:       tile.setmaxnreg

// NOTMA-LABEL:   func.func @matmul(
// NOTMA-NOT:     tile.tma_
// NOTMA:         tile.async_copy {{.*}}nvmma
// NOTMA-NOT:     tile.tma_
// NOTMA-LABEL:   func.func @matmul_ragged_k
// NOTMA:         tile.async_copy {{.*}} : tensor<64x128x!tile.ptr<f16>
// NOTMA:         scf.for
// NOTMA:           tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>
// NOTMA:         return

// PTX-LABEL:   .entry matmul(
// PTX:           .param .align 64 .b8 matmul_param_4[128]
// PTX:           .param .align 64 .b8 matmul_param_9[128]
// PTX:           mbarrier.init.shared::cta.b64 [{{.*}}], 1;
// PTX:           fence.mbarrier_init.release.cluster;
// PTX:           mbarrier.arrive.expect_tx.shared::cta.b64 _, [{{.*}}], 16384;
// PTX:           cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX:           mbarrier.try_wait.parity.shared::cta.b64
// PTX:           wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX:           mbarrier.inval.shared::cta.b64
// PTX-NOT:       cp.async.cg
// PTX-NOT:       ld.global

func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32 {tile.divisibility = 16 : i32},
                  %k: i32 {tile.divisibility = 16 : i32}, %lda: i64 {tile.divisibility = 16 : i32},
                  %tma: !tile.tensormap,
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k2: i32 {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32},
                  %tmb: !tile.tensormap,
                  %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %ldc: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %c1_i64 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %da = tile.make_descriptor %a, shape [%m, %k], strides [%lda, %c1_i64], tensormap %tma
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %db = tile.make_descriptor %b, shape [%k2, %n], strides [%ldb, %c1_i64], tensormap %tmb
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %dc = tile.make_descriptor %c, shape [%m, %n], strides [%ldc, %c1_i64]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x128xf16>>
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %kt = arith.divsi %k, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %i, %c64 : i32
    %x = tile.descriptor_load %da[%m0, %k0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.descriptor_load %db[%k0, %n0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.descriptor_store %dc[%m0, %n0], %h : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
  return
}

func.func @matmul_ragged_k(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32,
                  %k: i32, %lda: i64 {tile.divisibility = 8 : i32},
                  %tma: !tile.tensormap,
                  %b: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %k2: i32,
                  %n: i32 {tile.divisibility = 16 : i32}, %ldb: i64 {tile.divisibility = 16 : i32},
                  %tmb: !tile.tensormap,
                  %c: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %ldc: i64 {tile.divisibility = 16 : i32})
    attributes {tile.kernel} {
  %c1_i64 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %da = tile.make_descriptor %a, shape [%m, %k], strides [%lda, %c1_i64], tensormap %tma
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x64xf16>>
  %db = tile.make_descriptor %b, shape [%k2, %n], strides [%ldb, %c1_i64], tensormap %tmb
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<64x128xf16>>
  %dc = tile.make_descriptor %c, shape [%m, %n], strides [%ldc, %c1_i64]
      : !tile.ptr<f16> -> !tile.tensordesc<tensor<128x128xf16>>
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %kr = arith.addi %k, %c63 : i32
  %kt = arith.divsi %kr, %c64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32>) : i32 {
    %k0 = arith.muli %i, %c64 : i32
    %x = tile.descriptor_load %da[%m0, %k0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.descriptor_load %db[%k0, %n0] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc0 : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %h = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xf16>
  tile.descriptor_store %dc[%m0, %n0], %h : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16>
  return
}
