// tile.warpgroup_dot on sm_90: the kernels of the async-copies-warpgroup
// pass test (a matmul with both operands staged, attention scores with Q
// stored once into shared memory and K^T staged) and the paged prefill
// example. The PTX targets sm_90a; the dynamic shared memory is 1024-byte
// aligned for the swizzled staging; the wait before each iteration's reads
// fences the cp.async data for the async proxy; each dot is fence,
// wgmma.mma_async m64nNk16 per 64-row block and K step (descriptors for
// staged operands: A K-major, B N-major in the matmul; Q's one-stage buffer
// and K-major K^T in the scores; registers for P and N-major V in P V),
// commit, wait. --wgmma=false (and sm_80) keep mma.sync.
// RUN: quirec %S/../Dialect/Tile/Transforms/async-copies-warpgroup.mlir --sm 90 --num-warps 4 | FileCheck %s
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 | FileCheck %s --check-prefix=PREFILL
// The scores' accumulator is the zero constant: the first wgmma of each block
// takes no accumulator registers in (outputs only, scale-d 0), the next ones
// take the previous result. P, the register A of the P V dot, is packed
// before the wgmma fence (the fence takes it), so ptxas injects no
// warpgroup.arrive between the wgmmas (C7519).
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --emit=llvm | FileCheck %s --check-prefix=ZERO
// RUN: %if ptxas %{ quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 -o %t.prefill.ptx %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.prefill.ptx -o %t.prefill.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 90 --wgmma=false | FileCheck %s --check-prefix=OFF
// RUN: quirec %quire_src/examples/paged_prefill_attention.mlir --sm 80 | FileCheck %s --check-prefix=OFF
// --async-wgmma with 3 stages: each iteration's wgmma group stays in flight
// (wait_group 1 in the loop, wait_group 0 after it), the next copies are
// issued after the wait and a barrier (the stage iteration i - 1 read is
// then free), and ptxas takes the
// pipeline as it is: it neither serializes the wgmmas (C7515) nor injects
// waits before an accumulator register is read (C7517).
// RUN: quirec %S/../Dialect/Tile/Transforms/async-copies-warpgroup.mlir --sm 90 --num-warps 4 --async-stages=3 --async-wgmma -o %t.ptx
// RUN: FileCheck %s --check-prefix=ASYNC < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --allow-empty --check-prefix=PTXAS %}

// CHECK:       .target sm_90a
// CHECK:       .extern .shared .align 1024 .b8 quire_smem[];
// CHECK-LABEL: .entry matmul(
// CHECK:       cp.async.wait_group 0;
// CHECK-NEXT:  // begin inline asm
// CHECK-NEXT:  fence.proxy.async.shared::cta;
// CHECK:       bar.sync 0;
// CHECK:       wgmma.fence.sync.aligned;
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// CHECK:       wgmma.commit_group.sync.aligned;
// CHECK:       wgmma.wait_group.sync.aligned 0;
// CHECK-LABEL: .entry scores(
// CHECK:       st.shared.v4.b32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;

// PREFILL:     .target sm_90a
// PREFILL-LABEL: .entry paged_prefill_attention(
// PREFILL:     wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PREFILL:     wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1;
// PREFILL-NOT: mma.sync.aligned.m16n8k16

// ZERO-LABEL: define {{.*}} @paged_prefill_attention(
// ZERO:       asm sideeffect "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16{{.*}}", "{{(=f,)+}}l,l,r"({{.*}}, i32 0)
// ZERO-NEXT:  extractvalue
// ZERO:       asm sideeffect "{{.*}}wgmma.mma_async.sync.aligned.m64n64k16{{.*}}", "{{(=f,)+}}0,1,{{.*}}l,l,r"({{.*}}, i32 1)
// ZERO:       asm sideeffect "wgmma.fence.sync.aligned;", "r,r,r,r,{{.*}}"
// ZERO:       asm sideeffect "{{.*}}wgmma.mma_async.sync.aligned.m64n128k16{{.*}}", "{{(=f,)+}}0,1,{{.*}}r,r,r,r,l,r"

// OFF-NOT:     sm_90a
// OFF-LABEL:   .entry paged_prefill_attention(
// OFF-NOT:     wgmma
// OFF:         mma.sync.aligned.m16n8k16

// ASYNC-LABEL: .entry matmul(
// ASYNC:       $L__BB0_[[LOOP:[0-9]+]]:
// ASYNC-NEXT:  cp.async.wait_group 2;
// ASYNC:       wgmma.mma_async.sync.aligned.m64n64k16
// ASYNC:       wgmma.commit_group.sync.aligned;
// ASYNC-NEXT:  // end inline asm
// ASYNC-NEXT:  // begin inline asm
// ASYNC-NEXT:  wgmma.wait_group.sync.aligned 1;
// ASYNC-NEXT:  // end inline asm
// ASYNC-NEXT:  cp.async.wait_group 2;
// ASYNC-NEXT:  bar.sync 0;
// ASYNC-NOT:   wgmma
// ASYNC:       cp.async.cg.shared.global
// ASYNC:       @%p{{[0-9]+}} bra $L__BB0_[[LOOP]];
// ASYNC:       wgmma.wait_group.sync.aligned 0;
// The f32 accumulator leaves in 16-byte stores: lanes 4g + t and 4g + (t ^ 1)
// first trade their pairs of columns (LoadStoreToLLVM.cpp, planWideStore).
// ASYNC:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// ASYNC:       st.global.v4.b32
// ASYNC-LABEL: .entry scores(
// ASYNC:       wgmma.wait_group.sync.aligned 1;
// ASYNC:       wgmma.wait_group.sync.aligned 0;

// PTXAS-NOT:   C75
