// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4" | FileCheck %s
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 wgmma=false" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=80 num-warps=4" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=2" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4" | FileCheck %s --check-prefix=PREFILL
// The pass alone, on laid-out IR (warpgroup layouts for the dots):
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=4 warpgroup=true" "--quire-async-copies=warpgroup=true" | FileCheck %s
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=4" --quire-async-copies | FileCheck %s --check-prefix=OFF
// With shared-invariant-operands=false (quire-warp-specialize follows and
// moves it after its split) the scores read q from registers.
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=4 warpgroup=true" "--quire-async-copies=warpgroup=true shared-invariant-operands=false" | FileCheck %s --check-prefix=REGS
// async-wgmma: the dots of the matmul and of the scores (A from its
// one-stage buffer) stay in flight, with 2, 3 or 4 stages (late refill
// below 4); the prefill's (accumulators read in the loop) do not.
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 async-wgmma=true" | FileCheck %s --check-prefix=ASYNC
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=4 async-wgmma=true" | FileCheck %s --check-prefix=ASYNC4
// RUN: quire-opt %s "--quire-tile-pipeline=sm=90 num-warps=4 async-wgmma=true" | FileCheck %s --check-prefix=ASYNC2
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 async-wgmma=true" | FileCheck %s --check-prefix=SYNC
// On sm_90 a dot whose B operand the cp.async staging holds becomes a
// tile.warpgroup_dot (wgmma): the accumulator gets a warpgroup layout (all
// warps along M), the staged operands are copied in the swizzled `nvmma`
// layout and read from shared memory by the dot itself (no
// async_local_load), and the wait fences the copies for the async proxy.
// A is read from its buffer when it is staged too (@matmul). A loaded
// before the loop (@scores: q; K^T staged through the transpose, K-major)
// is stored once into a one-stage buffer of its own and read from there
// (docs/passes.md, "Loop-invariant A operands of wgmma loops"); an A
// computed in the loop is read from registers (the prefill's P in P V). Off
// with wgmma=false, below sm_90, or when the warps do not form warpgroups.

// CHECK-LABEL: func.func @matmul
// CHECK:      tile.async_copy {{.*}} {buffer = 0 : i32, contig = 1 : i32, nvmma, stages = 2 : i32}
// CHECK:      tile.async_copy {{.*}} {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 2 : i32}
// CHECK:      scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %{{.*}})
// CHECK-NEXT:   tile.async_wait {async_proxy, pending = 0 : i32}
// CHECK-NOT:    tile.async_local_load
// CHECK:        %[[D:.*]] = tile.warpgroup_dot a_stage %[[STAGE]] b_stage %[[STAGE]] acc %[[ACC]] {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, k = 32 : i64, operand_type = f16, stages = 2 : i32} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
// CHECK:        scf.yield %[[D]]
// CHECK:      tile.async_wait {pending = 0 : i32}

// CHECK-LABEL: func.func @scores
// CHECK:      tile.local_store %{{.*}} into stage %[[Q:.*]] {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// CHECK:      tile.async_copy {{.*}} {buffer = 0 : i32, contig = 0 : i32, nvmma, stages = 2 : i32, transposed}
// CHECK:      scf.for
// CHECK:        tile.warpgroup_dot a_stage %[[Q]] b_stage %{{.*}} acc %{{.*}} {a_buffer = 1 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32, b_contig = 0 : i32, k = 64 : i64, operand_type = f16, stages = 2 : i32}
// CHECK-NOT:  tile.convert_layout {{.*}}opIdx = 0
// REGS-LABEL: func.func @scores
// REGS-NOT:   tile.local_store
// REGS:       scf.for
// REGS:         tile.warpgroup_dot a(%{{.*}} : tensor<64x64xf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>) b_stage %{{.*}} acc %{{.*}} {b_buffer = 0 : i32

// Buffer ids are per kernel and reused by sequential loops (each loop's
// buffers are free after the wait that follows it): the prefill's context
// loop and its chunk loop both stage K and V in buffers 0 and 1 (the
// lowering gives an id the room of its largest tile). Both loops' scores
// read the query from one buffer (2), stored once before them.
// PREFILL:     tile.local_store %{{.*}} into stage %[[Q:.*]] {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// PREFILL-NOT: tile.local_store
// PREFILL:     tile.async_copy {{.*}} {buffer = 0 : i32, contig = 0 : i32, nvmma, stages = 2 : i32, transposed}
// PREFILL:     tile.async_copy {{.*}} {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 2 : i32}
// PREFILL:     scf.for
// PREFILL:       tile.warpgroup_dot a_stage %[[Q]] b_stage %{{.*}} acc %{{.*}} {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32, b_contig = 0 : i32, k = 128 : i64
// PREFILL:       tile.warpgroup_dot a({{.*}}) b_stage %{{.*}} acc %{{.*}} {b_buffer = 1 : i32, b_contig = 1 : i32, k = 64 : i64
// PREFILL:     tile.async_wait {pending = 0 : i32}
// PREFILL:     tile.async_copy {{.*}} {buffer = 0 : i32, contig = 0 : i32, nvmma, stages = 2 : i32, transposed}
// PREFILL:     scf.for
// PREFILL:       tile.warpgroup_dot a_stage %[[Q]] b_stage %{{.*}} acc %{{.*}} {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32
// PREFILL:       tile.warpgroup_dot a({{.*}}) b_stage %{{.*}} acc %{{.*}} {b_buffer = 1 : i32

// Stage s of iteration i: the dot is async and a wait with pending 1 after
// it retires the previous iteration's group; then a barrier (a wait that
// completes nothing) and the copies of iteration i + 2 into the stage
// iteration i - 1 read, (s + 2) % 3. A wait with pending 0 after the loop
// retires the last group (before the barrier after the loop: a later
// loop's copies into the stages come after every warpgroup's last reads),
// and the store reads its result.
// ASYNC-LABEL: func.func @matmul
// ASYNC:      tile.async_copy {{.*}} into stage %[[C0:.*]] {buffer = 0 : i32, contig = 1 : i32, nvmma, stages = 3 : i32}
// ASYNC:      tile.async_copy {{.*}} into stage %[[C0]] {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 3 : i32}
// ASYNC:      tile.async_copy {{.*}} into stage %[[C1:.*]] {buffer = 0 : i32, contig = 1 : i32, nvmma, stages = 3 : i32}
// ASYNC:      tile.async_copy {{.*}} into stage %[[C1]] {buffer = 1 : i32, contig = 1 : i32, nvmma, stages = 3 : i32}
// ASYNC-NEXT: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %{{.*}})
// ASYNC-NEXT:   tile.async_wait {async_proxy, pending = 2 : i32}
// ASYNC-NEXT:   %[[D:.*]] = tile.warpgroup_dot a_stage %[[STAGE]] b_stage %[[STAGE]] acc %[[ACC]] {{{.*}}async{{.*}}}
// ASYNC-NEXT:   %[[W:.*]] = tile.warpgroup_wait %[[D]] {pending = 1 : i32}
// ASYNC-NEXT:   tile.async_wait {pending = 2 : i32}
// ASYNC-NEXT:   %[[WRAP:.*]] = arith.cmpi slt, %[[STAGE]], %c1_i32
// ASYNC-NEXT:   %[[DOWN:.*]] = arith.subi %[[STAGE]], %c1_i32
// ASYNC-NEXT:   %[[UP:.*]] = arith.addi %[[STAGE]], %c2_i32
// ASYNC-NEXT:   %[[TO:.*]] = arith.select %[[WRAP]], %[[UP]], %[[DOWN]]
// ASYNC:        tile.async_copy {{.*}} into stage %[[TO]] {buffer = 0 : i32
// ASYNC:        tile.async_copy {{.*}} into stage %[[TO]] {buffer = 1 : i32
// ASYNC:        scf.yield %[[W]],
// ASYNC-NEXT: {{^ *}}}
// ASYNC-NEXT: %[[R:.*]] = tile.warpgroup_wait %{{.*}}#0 {pending = 0 : i32}
// ASYNC-NEXT: tile.async_wait {pending = 0 : i32}
// ASYNC:      tile.store %{{.*}}, %[[R]]
// ASYNC-LABEL: func.func @scores
// ASYNC:        tile.warpgroup_dot a_stage %{{.*}} b_stage %{{.*}} acc %{{.*}} {{{.*}}async{{.*}}}
// ASYNC-NEXT:   tile.warpgroup_wait %{{.*}} {pending = 1 : i32}
// ASYNC:      tile.warpgroup_wait %{{.*}} {pending = 0 : i32}

// With 4 stages the copies run two iterations ahead, issued at the top into
// the stage iteration i - 2 read (one barrier): the prologue fills stages 0
// and 1, and the wait lets one iteration's two copies run.
// ASYNC4-LABEL: func.func @matmul
// ASYNC4-COUNT-4: tile.async_copy
// ASYNC4:       scf.for
// ASYNC4-NEXT:    tile.async_wait {async_proxy, pending = 2 : i32}
// ASYNC4-COUNT-2: tile.async_copy
// ASYNC4:         tile.warpgroup_dot {{.*}}async
// ASYNC4-NEXT:    tile.warpgroup_wait %{{.*}} {pending = 1 : i32}
// ASYNC4-NEXT:    scf.yield

// With 2 stages the copies run one iteration ahead: nothing is pending at
// either wait.
// ASYNC2-LABEL: func.func @matmul
// ASYNC2-COUNT-2: tile.async_copy
// ASYNC2:       scf.for
// ASYNC2-NEXT:    tile.async_wait {async_proxy, pending = 0 : i32}
// ASYNC2-NEXT:    tile.warpgroup_dot {{.*}}async
// ASYNC2-NEXT:    tile.warpgroup_wait %{{.*}} {pending = 1 : i32}
// ASYNC2-NEXT:    tile.async_wait {pending = 0 : i32}
// ASYNC2-COUNT-2: tile.async_copy

// SYNC-NOT: async,
// SYNC-NOT: tile.warpgroup_wait

// OFF-LABEL: func.func @matmul
// OFF-NOT:   tile.warpgroup_dot
// OFF-NOT:   nvmma
// OFF:       tile.async_local_load
// OFF:       tile.dot
// OFF-LABEL: func.func @scores
// OFF-NOT:   tile.warpgroup_dot

// a: [64 x K] row-major, row stride %lda; b: [K x 64], row stride %ldb.
func.func @matmul(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32},
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

// s = sum over key tiles of q (64 x 64, registers) . K^T, K tiles [64 keys x
// 64] row-major (row stride 64).
func.func @scores(%q: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %kp: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                  %c: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %r = tile.range 0, 64 : tensor<64xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %s64 = arith.constant dense<64> : tensor<64x1xi32>
  %rr = arith.muli %r2, %s64 : tensor<64x1xi32>
  %rrb = tile.broadcast %rr : tensor<64x1xi32> -> tensor<64x64xi32>
  %c2 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rrb, %cb : tensor<64x64xi32>
  %qs = tile.splat %q : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %qp = tile.addptr %qs, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %qv = tile.load %qp : tensor<64x64x!tile.ptr<f16>>
  %ks = tile.splat %kp : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %acc = scf.for %i = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %i64 = arith.muli %i, %c64 : i32
    %is = tile.splat %i64 : i32 -> tensor<64x64xi32>
    %koff = arith.addi %off, %is : tensor<64x64xi32>
    %kptr = tile.addptr %ks, %koff : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
    %kt = tile.load %kptr : tensor<64x64x!tile.ptr<f16>>
    %ktt = tile.trans %kt : tensor<64x64xf16> -> tensor<64x64xf16>
    %d = tile.dot %qv, %ktt, %acc : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %acc : tensor<64x64x!tile.ptr<f32>>
  return
}
