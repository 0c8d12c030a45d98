// quire-early-dots on the paged prefill example (sm_90, wgmma, 3 stages):
// in both of its loops (the paged context and the chunk's own K/V) the
// scores dot S = Q K^T of iteration i + 1 is issued, async, right after
// iteration i's loop-top wait, which now also completes iteration i + 1's
// copy of K (two copies per iteration, K's first, 3 stages: pending 1
// instead of 2, V's copy of iteration i + 1 stays in flight; 4 stages:
// pending 3 instead of 4). The
// first iteration's scores come from a synchronous dot before the loop on
// stage 0; the loop carries the scores, and a wait with pending 0 before
// the yield retires the early dot. The softmax reads the carried scores.
// The query, the early dots' A, is stored once into a one-stage buffer of
// its own (tile.local_store, quire-async-copies' shared-invariant-operands)
// and read from there by every scores dot: the scores in flight take a
// second tile of registers.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 early-dots=true" | FileCheck %s
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=4 early-dots=true" | FileCheck %s --check-prefix=S4
// Off by default; with 2 stages the next iteration's K is still being
// copied, so nothing changes; the pass alone on IR without wgmma staging
// changes nothing either.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=2 early-dots=true" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=80 num-warps=4 async-stages=3" --quire-early-dots | FileCheck %s --check-prefix=OFF
// With producer warps (quire-warp-specialize) the consumers' loop waits on
// mbarriers: the early dot of iteration i + 1 comes after the wait for its
// stage's K (phase flipped where the ring wraps to stage 0), guarded by
// "iteration i + 1 runs" (the producer fills no stage past the loop's
// end); the first scores wait on stage 0 in phase 0 where the loop runs at
// all. Three stages or more, as without producer warps: with two, the
// fill of iteration i + 1 starts only when iteration i - 1 releases its
// stage. The kernel goes through ptxas.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 warp-specialize=true early-dots=true" | FileCheck %s --check-prefix=WS
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true early-dots=true" | FileCheck %s --check-prefix=OFF
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --num-warps 4 --async-stages 3 --warp-specialize --early-dots -o %t.ws.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ws.ptx -o %t.ws.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// The matmul's dot carries its accumulator: not an early dot.
// RUN: quire-opt %S/async-copies-warpgroup.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 early-dots=true" | FileCheck %s --check-prefix=MATMUL

// CHECK-LABEL: func.func @paged_prefill_attention
// CHECK:       tile.local_store %{{.*}} into stage %c0_i32 {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// CHECK-NOT:   tile.dot_op<{opIdx = 0, {{.*}}x128xf16
// CHECK-COUNT-2: tile.async_copy
// CHECK:       tile.async_wait {async_proxy, pending = 2 : i32}
// CHECK-NEXT:  %[[S0:.*]] = tile.warpgroup_dot a_stage %c0_i32 b_stage %c0{{.*}} acc %[[Z:[^ ]*]] {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32
// CHECK-NEXT:  scf.for {{.*}} iter_args({{.*}}, %[[STAGE:[^ ]*]] = %c0_i32, %[[S:[^ ]*]] = %[[S0]])
// CHECK-NEXT:    tile.async_wait {async_proxy, pending = 1 : i32}
// CHECK-NEXT:    %[[LAST:.*]] = arith.cmpi eq, %[[STAGE]], %c2_i32
// CHECK-NEXT:    %[[INC:.*]] = arith.addi %[[STAGE]], %c1_i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.select %[[LAST]], %c0_i32, %[[INC]]
// CHECK-NEXT:    %[[N:.*]] = tile.warpgroup_dot a_stage %c0_i32 b_stage %[[NEXT]] acc %[[Z]] {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, async, b_buffer = 0 : i32
// CHECK:         tile.async_copy
// CHECK:         arith.mulf %[[S]],
// CHECK:         tile.warpgroup_dot a({{.*}}) b_stage %[[STAGE]] acc %{{.*}} {b_buffer = 1 : i32
// CHECK-NEXT:    %[[R:.*]] = tile.warpgroup_wait %[[N]] {pending = 0 : i32}
// CHECK-NEXT:    scf.yield {{.*}}, %[[R]] :
// CHECK:       tile.async_wait {pending = 0 : i32}
// The chunk's loop likewise.
// CHECK:       tile.async_wait {async_proxy, pending = 2 : i32}
// CHECK-NEXT:  tile.warpgroup_dot a_stage %c0_i32 b_stage %c0
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    tile.async_wait {async_proxy, pending = 1 : i32}
// CHECK:         tile.warpgroup_dot {{.*}} {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, async,
// CHECK:         tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// CHECK-NEXT:    scf.yield

// S4-LABEL: func.func @paged_prefill_attention
// S4:       tile.async_wait {async_proxy, pending = 4 : i32}
// S4-NEXT:  tile.warpgroup_dot a_stage %c0_i32 b_stage %c0
// S4-NEXT:  scf.for
// S4-NEXT:    tile.async_wait {async_proxy, pending = 3 : i32}
// S4:         tile.warpgroup_dot {{.*}} a_stages = 1 : i32, async,

// OFF-LABEL: func.func @paged_prefill_attention
// OFF-NOT:   async,
// OFF-NOT:   tile.warpgroup_wait

// MATMUL-LABEL: func.func @matmul
// MATMUL-NOT:   async,
// MATMUL-NOT:   tile.warpgroup_wait

// WS-LABEL: func.func @paged_prefill_attention
// WS:         tile.tma_init {arrivals = 128 : i32, buffer = 0 : i32, release, stages = 3 : i32}
// WS:       } else {
// WS:         tile.local_store %{{.*}} into stage %c0_i32 {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// WS:         %[[RUNS:.*]] = arith.cmpi sgt, %[[UB:[^ ]*]], %c0_i32 : i32
// WS-NEXT:    %[[S0:.*]] = scf.if %[[RUNS]] -> (tensor<64x64xf32
// WS-NEXT:      tile.tma_wait stage %c0_i32 phase %c0_i32 {async_proxy, buffer = 0 : i32, stages = 3 : i32}
// WS-NEXT:      %[[D0:.*]] = tile.warpgroup_dot a_stage %c0_i32 b_stage %c0_i32 acc %[[Z:[^ ]*]] {a_buffer = 2 : i32, {{.*}}, b_buffer = 0 : i32
// WS-NEXT:      scf.yield %[[D0]]
// WS-NEXT:    } else {
// WS-NEXT:      scf.yield %[[Z]]
// WS:         scf.for %[[IV:[^ ]*]] = %c0_i32 to %[[UB]] step %c64_i32 iter_args({{.*}}, %[[STAGE:[^ ]*]] = %c0_i32, %[[S:[^ ]*]] = %[[S0]])
// WS:           %[[PHASE:.*]] = arith.andi
// WS:           %[[LAST:.*]] = arith.cmpi eq, %[[STAGE]], %c2_i32
// WS:           %[[NEXT:.*]] = arith.select %[[LAST]], %c0_i32,
// WS:           tile.tma_wait stage %[[STAGE]] phase %[[PHASE]] {async_proxy, buffer = 0 : i32, stages = 3 : i32}
// WS-NEXT:      %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c0_i32
// WS-NEXT:      %[[FLIP:.*]] = arith.xori %[[PHASE]], %c1_i32
// WS-NEXT:      %[[NPHASE:.*]] = arith.select %[[WRAP]], %[[FLIP]], %[[PHASE]]
// WS:           scf.if %{{.*}} {
// WS-NEXT:        tile.tma_wait stage %[[NEXT]] phase %[[NPHASE]] {async_proxy, buffer = 0 : i32, stages = 3 : i32}
// WS-NEXT:      {{^ *}}}{{$}}
// WS-NEXT:      %[[N:.*]] = tile.warpgroup_dot a_stage %c0_i32 b_stage %[[NEXT]] acc %[[Z]] {a_buffer = 2 : i32, {{.*}}, async, b_buffer = 0 : i32
// WS-NEXT:      arith.mulf %[[S]],
// WS:           tile.tma_wait stage %[[STAGE]] phase %[[PHASE]] {async_proxy, buffer = 1 : i32, stages = 3 : i32}
// WS-NEXT:      tile.warpgroup_dot a({{.*}}) b_stage %[[STAGE]] acc %{{.*}} {b_buffer = 1 : i32
// WS-NEXT:      tile.tma_release stage %[[STAGE]] if %true {async_proxy, buffer = 0 : i32
// WS-NEXT:      tile.tma_release stage %[[STAGE]] if %true {async_proxy, buffer = 1 : i32
// WS-NEXT:      %[[R:.*]] = tile.warpgroup_wait %[[N]] {pending = 0 : i32}
// WS-NEXT:      scf.yield {{.*}}, %[[R]] :
// The chunk's loop likewise.
// WS:         tile.tma_init {arrivals = 128 : i32, buffer = 1 : i32, release, split, stages = 3 : i32}
// WS:         scf.if
// WS-NEXT:      tile.tma_wait stage %c0_i32 phase %c0_i32
// WS-NEXT:      tile.warpgroup_dot a_stage %c0_i32 b_stage %c0_i32
// WS:         scf.for
// WS:           scf.if %{{[^ ]*}} {{{$}}
// WS-NEXT:        tile.tma_wait
// WS-NEXT:      {{^ *}}}{{$}}
// WS-NEXT:      tile.warpgroup_dot {{.*}} async,
// WS:           tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// WS-NEXT:      scf.yield

// PTXAS-NOT: warning
// PTXAS-NOT: error
