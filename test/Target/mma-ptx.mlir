// The f16 matmul example runs on tensor cores: operands staged through
// shared memory with 16-byte stores, read back with ldmatrix (B, stored with
// N contiguous, with .trans), one mma.sync m16n8k16 per fragment and K step;
// the next K step's tiles are loaded at the top of the loop. The example's
// row strides of unknown divisibility allow no cp.async staging
// (test/Target/async-copies-ptx.mlir covers that path), so its tiles are
// prefetched in registers with the staging on too.
// RUN: quirec %quire_src/examples/matmul.mlir --sm 80 --async-stages=0 | FileCheck %s
// RUN: quirec %quire_src/examples/matmul.mlir --sm 90 --num-warps 8 --async-stages=0 | FileCheck %s
// RUN: quirec %quire_src/examples/matmul.mlir --sm 80 | FileCheck %s
// bf16 takes the bf16 instruction.
// RUN: sed 's/f16/bf16/g' %quire_src/examples/matmul.mlir | quirec - --sm 80 | FileCheck %s --check-prefix=BF16
// The LLVM dialect form: NVVM ldmatrix and inline-PTX mma.
// RUN: quire-opt %quire_src/examples/matmul.mlir "--quire-llvm-pipeline=sm=80" | FileCheck %s --check-prefix=LLVM
// CHECK-LABEL: .entry matmul(
// CHECK: ld.global
// CHECK: $L__BB0_[[LOOP:[0-9]+]]:
// CHECK: ld.global
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT: fma.rn.f32
// CHECK: bra {{.*}}$L__BB0_[[LOOP]];
// BF16-LABEL: .entry matmul(
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// LLVM-LABEL: llvm.func @matmul(
// LLVM: nvvm.ldmatrix
// LLVM: llvm.inline_asm {{.*}}mma.sync.aligned.m16n8k16
