// quire-overlap-softmax on the consumer loops of quire-warp-specialize (the
// paged prefill example, sm_90, wgmma, producer warps, 2 stages): in both
// loops (the paged context and the chunk's own K/V) the output dot P V of
// iteration i - 1 is issued in iteration i right after the scores S = Q K^T,
// both async, after the wait for its own V stage (the carried stage and
// phase of iteration i - 1); the scores are retired first (`older`, pending
// 1: P V stays in flight over the softmax); P V's wait (pending 0), the
// release of its V stage and the rescale by this iteration's alpha follow
// the softmax. K's stage (each buffer has its release mbarriers) is released
// as soon as the scores retire: the producer refills it an iteration sooner.
// Iteration 0's wait, scores, K's release, softmax and rescale are peeled before
// the loop (where it runs: scf.if), which then starts at its second
// iteration carrying P, its stage and its V phase; the last P V follows the
// loop (scf.if on the same test). The query moves to shared memory (the
// scores dots read it from buffer 2).
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true overlap-softmax=true" | FileCheck %s
// With 3 stages the same; the kernel goes through ptxas.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3 warp-specialize=true overlap-softmax=true" | FileCheck %s
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --num-warps 4 --warp-specialize --overlap-softmax -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// With pingpong (two consumer warpgroups: the fused attention loop of
// pingpong.mlir at 8 warps) the warpgroups take turns issuing the dots: the
// peeled scores, each iteration's scores and the previous P V (the turn
// passed once both are issued, before the softmax), and the last P V; start
// and end bracket the loop, and quire-warp-specialize adds no turns of its
// own. The kernel goes through ptxas.
// RUN: quire-opt %S/pingpong.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true overlap-softmax=true pingpong=true" | FileCheck %s --check-prefix=TURNS
// RUN: quirec %S/pingpong.mlir --sm 90 --num-warps 8 --async-stages 3 --warp-specialize --overlap-softmax --pingpong -o %t.turns.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.turns.ptx -o %t.turns.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// In a persistent loop (quire-warp-specialize's fills across tiles) the
// turns start once before the consumers' tile loop and end once after it:
// every tile's turns are balanced, so the alternation carries over, where a
// start and an end per tile could let one warpgroup's next start pass the
// other's end. The kernel goes through ptxas.
// RUN: quire-opt %S/Inputs/pingpong-persistent.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true overlap-softmax=true pingpong=true" | FileCheck %s --check-prefix=PTURNS
// RUN: quirec %S/Inputs/pingpong-persistent.mlir --sm 90 --num-warps 8 --async-stages 3 --warp-specialize --overlap-softmax --pingpong -o %t.pturns.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.pturns.ptx -o %t.pturns.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// With early-release=false K's stage goes back beside V's, at the end of the
// iteration.
// Two loops one after the other take one start before the first and one end
// after the last: an end and a start between them could let warpgroup 1's
// start pass warpgroup 0's end, the turns then one off until a wait that
// never returns (a kernel with its loop split where the mask starts, each
// part overlapped on its own, hung so on an H100).
// RUN: quire-opt %S/Inputs/pingpong-two-loops.mlir "--quire-tile-pipeline=sm=90 num-warps=8 async-stages=3 warp-specialize=true overlap-softmax=true pingpong=true" | FileCheck %s --check-prefix=JOIN
// RUN: quirec %S/Inputs/pingpong-two-loops.mlir --sm 90 --num-warps 8 --async-stages 3 --warp-specialize --overlap-softmax --pingpong -o %t.join.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.join.ptx -o %t.join.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true" "--quire-overlap-softmax=early-release=false" | FileCheck %s --check-prefix=LATE
// With ordered-release the wait for P V, and V's release after it, come
// after the softmax's row sums: the wait takes the carried sums (l * alpha +
// sum(p)) as `after`, and the PTX puts before it a bar.warp.sync predicated
// on them (x > +inf, false for every float), which ptxas does not hoist the
// wait above.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true overlap-softmax=true ordered-release=true" | FileCheck %s --check-prefix=ORDERED
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --num-warps 4 --warp-specialize --overlap-softmax --ordered-release -o %t.ordered.ptx
// RUN: FileCheck %s --input-file=%t.ordered.ptx --check-prefix=ORDERED-PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ordered.ptx -o %t.ordered.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// With convert-after-wait the conversion of the softmax's probabilities to
// P (truncf, then the dot operand's layout), which only the next P V reads,
// follows P V's wait and the rescale: the exponentials stay f32 over the
// softmax, and the new P is not live beside the old P the P V in flight
// reads. The peeled first iteration keeps its order. The kernel goes
// through ptxas.
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true overlap-softmax=true ordered-release=true convert-after-wait=true" | FileCheck %s --check-prefix=CONVERT
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --num-warps 4 --warp-specialize --overlap-softmax --ordered-release --convert-after-wait -o %t.convert.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.convert.ptx -o %t.convert.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// Off by default; without producer warps (loops staged by the warps that
// compute, waiting on cp.async groups) the pass changes nothing, nor does it
// on a matmul (one dot, carrying its accumulator).
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 warp-specialize=true" | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %quire_src/examples/paged_prefill_attention.mlir "--quire-tile-pipeline=sm=90 num-warps=4 async-stages=3" --quire-overlap-softmax | FileCheck %s --check-prefix=OFF
// RUN: quire-opt %S/warp-specialize-copies.mlir --split-input-file "--quire-tile-pipeline=sm=90 num-warps=8 warp-specialize=true overlap-softmax=true" | FileCheck %s --check-prefix=MATMUL

// CHECK-LABEL: func.func @paged_prefill_attention
// The producer refills K and V each after its own release of the stage.
// CHECK:             tile.tma_acquire stage %[[F:[^ ]*]] phase %[[PH:[^ ]*]] {buffer = 0 : i32, every_thread, producer
// CHECK:             tile.async_arrive stage %[[F]] {buffer = 0 : i32
// CHECK-NEXT:        tile.tma_acquire stage %[[F]] phase %[[PH]] {buffer = 1 : i32, every_thread, producer
// CHECK:       } else {
// CHECK:         tile.local_store %{{.*}} into stage %c0_i32 {buffer = 2 : i32, contig = 1 : i32, nvmma, stages = 1 : i32}
// The context loop: iteration 0 peeled.
// CHECK:         %[[FIRST:.*]]:4 = scf.if %[[RUNS:.*]] -> (
// CHECK:           tile.tma_wait stage %c0_i32 phase %c0_i32 {async_proxy, buffer = 0 : i32
// CHECK-NEXT:      tile.warpgroup_dot a_stage %c0_i32 b_stage %c0_i32 acc %{{.*}} {a_buffer = 2 : i32, a_contig = 1 : i32, a_stages = 1 : i32, b_buffer = 0 : i32
// CHECK-NEXT:      tile.tma_release stage %c0_i32 if %{{.*}} {async_proxy, buffer = 0 : i32
// CHECK-NOT:       tile.warpgroup_dot
// CHECK:           scf.yield
// CHECK:         } else {
// CHECK:         %[[LOOP:.*]]:7 = scf.for %{{.*}} = %c{{64|128}}_i32 to %{{.*}} iter_args(%{{.*}} = %[[FIRST]]#0, %{{.*}} = %[[FIRST]]#1, %[[O:.*]] = %[[FIRST]]#2, %[[STAGE:.*]] = %{{.*}}, %[[P:.*]] = %[[FIRST]]#3, %[[SP:.*]] = %c0_i32, %[[VP:.*]] = %c0_i32)
// CHECK:           tile.tma_wait stage %[[STAGE]] phase %{{.*}} {async_proxy, buffer = 0 : i32
// CHECK-NEXT:      %[[S:.*]] = tile.warpgroup_dot a_stage %c0_i32 b_stage %[[STAGE]] {{.*}}async
// CHECK-NEXT:      tile.tma_wait stage %[[SP]] phase %[[VP]] {async_proxy, buffer = 1 : i32
// CHECK-NEXT:      %[[PV:.*]] = tile.warpgroup_dot a(%[[P]] : {{.*}}) b_stage %[[SP]] acc %[[O]] {async, b_buffer = 1 : i32
// CHECK-NEXT:      tile.warpgroup_wait %[[S]] {older, pending = 1 : i32}
// CHECK-NEXT:      tile.tma_release stage %[[STAGE]] if %{{.*}} {async_proxy, buffer = 0 : i32
// CHECK:           math.exp2
// CHECK:           %[[DONE:.*]] = tile.warpgroup_wait %[[PV]] {pending = 0 : i32}
// CHECK-NEXT:      tile.tma_release stage %[[SP]] if %true {async_proxy, buffer = 1 : i32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[DONE]], %{{.*}} : tensor<{{.*}}x128xf32
// CHECK-NEXT:      scf.yield %{{.*}}, %{{.*}}, %[[SCALED]], %{{.*}}, %{{.*}}, %[[STAGE]], %{{.*}} :
// The last P V.
// CHECK:         scf.if %[[RUNS]] -> (
// CHECK-NEXT:      tile.tma_wait stage %[[LOOP]]#5 phase %[[LOOP]]#6 {async_proxy, buffer = 1 : i32
// CHECK-NEXT:      tile.warpgroup_dot a(%[[LOOP]]#4 : {{.*}}) b_stage %[[LOOP]]#5 acc %[[LOOP]]#2 {b_buffer = 1 : i32
// CHECK-NEXT:      tile.tma_release stage %[[LOOP]]#5 if %{{.*}} {async_proxy, buffer = 1 : i32
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[LOOP]]#2
// The chunk's loop: the same.
// CHECK:         scf.for
// CHECK:           tile.warpgroup_wait %{{.*}} {older, pending = 1 : i32}
// CHECK:           tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// CHECK:         scf.if
// CHECK-COUNT-1:   tile.warpgroup_dot a(
// PTXAS-NOT: error
// PTXAS-NOT: C75{{[0-9][0-9]}}

// LATE-LABEL: func.func @paged_prefill_attention
// LATE:         scf.for
// LATE:           tile.warpgroup_wait %{{.*}} {older, pending = 1 : i32}
// LATE-NOT:       tile.tma_release
// LATE:           %[[DONE:.*]] = tile.warpgroup_wait %{{.*}} {pending = 0 : i32}
// LATE:           tile.tma_release stage %{{.*}} {async_proxy, buffer = 1 : i32
// LATE:           tile.tma_release stage %{{.*}} {async_proxy, buffer = 0 : i32
// LATE-NEXT:      scf.yield

// ORDERED-LABEL: func.func @paged_prefill_attention
// ORDERED:         scf.for
// ORDERED:           tile.warpgroup_wait %{{.*}} {older, pending = 1 : i32}
// ORDERED:           %[[SUM:.*]] = tile.reduce sum
// ORDERED:           %[[L:.*]] = arith.addf {{.*}}%[[SUM]]
// ORDERED:           tile.warpgroup_wait %{{.*}} after(%[[L]] : tensor<{{[0-9]+}}xf32, {{.*}}>) {pending = 0 : i32}
// ORDERED-NEXT:      tile.tma_release stage %{{.*}} if %true {async_proxy, buffer = 1 : i32
// The last P V's release (after the loop) has nothing to wait for.
// ORDERED:         scf.if
// ORDERED:           tile.warpgroup_dot a(
// ORDERED-NEXT:      tile.tma_release stage %{{.*}} if %{{[^ ]*}} {async_proxy, buffer = 1 : i32

// ORDERED-PTX-LABEL: .entry paged_prefill_attention
// ORDERED-PTX:       .reg .pred q;
// ORDERED-PTX-NEXT:  setp.gt.f32 q, %r{{[0-9]+}}, 0f7F800000;
// ORDERED-PTX-NEXT:  setp.gt.or.f32 q, %r{{[0-9]+}}, 0f7F800000, q;
// ORDERED-PTX-NEXT:  @q bar.warp.sync -1;
// ORDERED-PTX-NEXT:  wgmma.wait_group.sync.aligned 0;
// ORDERED-PTX:       fence.proxy.async.shared::cta;
// ORDERED-PTX:       bar.warp.sync -1;
// ORDERED-PTX-NEXT:  @%p{{[0-9]+}} mbarrier.arrive.shared::cta.b64 _, [%r{{[0-9]+}}];

// CONVERT-LABEL: func.func @paged_prefill_attention
// CONVERT:         scf.if
// CONVERT:           %[[E0:.*]] = math.exp2 %{{.*}} : tensor<64x64xf32
// CONVERT:           arith.truncf %[[E0]]
// CONVERT:           scf.yield
// CONVERT:         scf.for
// CONVERT:           tile.warpgroup_wait %{{.*}} {older, pending = 1 : i32}
// CONVERT:           %[[E:.*]] = math.exp2 %{{.*}} : tensor<64x64xf32
// CONVERT-NOT:       arith.truncf
// CONVERT:           tile.reduce sum %[[E]]
// CONVERT-NOT:       arith.truncf
// CONVERT:           %[[O:.*]] = tile.warpgroup_wait %{{.*}} after({{.*}}) {pending = 0 : i32}
// CONVERT-NEXT:      tile.tma_release stage
// CONVERT-NEXT:      %[[C:.*]] = arith.mulf %[[O]],
// CONVERT-NEXT:      %[[T:.*]] = arith.truncf %[[E]] : tensor<64x64xf32, {{.*}}> to tensor<64x64xf16
// CONVERT-NEXT:      %[[P:.*]] = tile.convert_layout %[[T]] {{.*}}#tile.dot_op
// CONVERT-NEXT:      scf.yield %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %[[P]],

// OFF-LABEL: func.func @paged_prefill_attention
// OFF-NOT:   older

// MATMUL-LABEL: func.func @two_loops
// MATMUL-NOT:   older

// TURNS-LABEL: func.func @attention
// TURNS-NOT:     tile.warpgroup_turn
// TURNS:         tile.warpgroup_turn start
// TURNS-NEXT:    %[[RUNS:.*]] = arith.cmpi
// TURNS:         scf.if %[[RUNS]] -> (
// TURNS-NEXT:      tile.tma_wait stage %c0_i32 phase %c0_i32 {async_proxy, buffer = 0 : i32
// TURNS-NEXT:      tile.warpgroup_turn wait
// TURNS-NEXT:      tile.warpgroup_dot a_stage %c0_i32
// TURNS-NEXT:      tile.warpgroup_turn pass
// TURNS:         scf.for
// TURNS:           tile.tma_wait stage %{{.*}} {async_proxy, buffer = 0 : i32
// TURNS-NEXT:      tile.warpgroup_turn wait
// TURNS-NEXT:      %[[S:.*]] = tile.warpgroup_dot a_stage %c0_i32 {{.*}}async
// TURNS-NEXT:      tile.tma_wait stage {{.*}} {async_proxy, buffer = 1 : i32
// TURNS-NEXT:      tile.warpgroup_dot a(%{{.*}}) {{.*}}async
// TURNS-NEXT:      tile.warpgroup_turn pass
// TURNS-NEXT:      tile.warpgroup_wait %[[S]] {older, pending = 1 : i32}
// TURNS-NOT:       tile.warpgroup_turn
// TURNS:           scf.yield
// TURNS:         scf.if %[[RUNS]] -> (
// TURNS-NEXT:      tile.tma_wait
// TURNS-NEXT:      tile.warpgroup_turn wait
// TURNS-NEXT:      tile.warpgroup_dot a(
// TURNS-NEXT:      tile.warpgroup_turn pass
// TURNS:         tile.warpgroup_turn end
// TURNS-NOT:     tile.warpgroup_turn

// PTURNS-LABEL: func.func @persistent_attention
// PTURNS:         } else {
// PTURNS:           tile.warpgroup_turn start
// PTURNS-NEXT:      scf.for {{.*}} iter_args(%{{.*}} = %c0_i32) -> (i32)
// PTURNS-NOT:       tile.warpgroup_turn start
// PTURNS-NOT:       tile.warpgroup_turn end
// PTURNS:           tile.warpgroup_turn wait
// PTURNS:           tile.warpgroup_turn pass
// PTURNS-NOT:       tile.warpgroup_turn start
// PTURNS-NOT:       tile.warpgroup_turn end
// PTURNS:           } {llvm.loop_annotation
// PTURNS-NEXT:      tile.warpgroup_turn end

// JOIN-LABEL: func.func @two_loops_attention
// JOIN-NOT:     tile.warpgroup_turn start
// JOIN:         tile.warpgroup_turn start
// JOIN-NOT:     tile.warpgroup_turn start
// JOIN-NOT:     tile.warpgroup_turn end
// JOIN:         scf.for
// JOIN-NOT:     tile.warpgroup_turn start
// JOIN-NOT:     tile.warpgroup_turn end
// JOIN:         scf.for
// JOIN-NOT:     tile.warpgroup_turn start
// JOIN:         tile.warpgroup_turn end
// JOIN-NOT:     tile.warpgroup_turn
