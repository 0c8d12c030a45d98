// RUN: quire-opt %s --split-input-file --quire-convert-tile-to-llvm | FileCheck %s
// RUN: not quire-opt %s --split-input-file "--quire-convert-tile-to-llvm=sm=80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// tile.warpgroup_dot on sm_90 (DotOpToLLVM/WGMMA.cpp): wgmma.fence, one
// wgmma.mma_async.m64nNk16 per 64-row block of the warpgroup and 16-wide K
// step, wgmma.commit_group, and a wgmma.wait_group 0 tied to every
// accumulator register. B, and A when it is staged, are read from the
// swizzled (nvmma) stages through 64-bit matrix descriptors; the dynamic
// shared memory is 1024-byte aligned for them. A zero accumulator is not
// read: the first K step of a block has outputs only and scale-d 0. A
// register A is packed before the fence, which takes it. On sm_80 it is an
// error.

#mma = #tile.mma<{warpsPerCTA = [4, 1]}>

module attributes {tile.num_warps = 4 : i32} {
// Both operands staged, K = 32, an accumulator loaded from memory: two K
// steps, each with descriptors for A and B ($64 and $65, after the 32
// accumulator registers out and in) and scale-d 1 ($66), the last immediate
// 1 because B is N-major (b_contig = 1).
// CHECK:       llvm.mlir.global external @quire_smem() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: llvm.func @staged_operands
// CHECK-SAME:    tile.shared_bytes = 16384 : i64
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.fence.sync.aligned;", ""
// CHECK-COUNT-2: setp.ne.b32 p, $66, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, $64, $65, p, 1, 1, 0, 1;\0A}", "{{(=f,)+}}0,1,{{.*}},31,l,l,r"
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.commit_group.sync.aligned;"
// CHECK:         llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;"
// CHECK:         llvm.return
// SM80: wgmma.mlir:[[@LINE+4]]:8: error: 'tile.warpgroup_dot' op not supported on sm_80: wgmma is sm_90's
func.func @staged_operands(%pc: !tile.ptr<f32>, %stage: i32) attributes {tile.kernel} {
  %cs0 = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  %c = tile.load %cs0 : tensor<64x64x!tile.ptr<f32>, #mma>
  %d = tile.warpgroup_dot a_stage %stage b_stage %stage acc %c {a_buffer = 0 : i32, a_contig = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, k = 32 : i64, operand_type = f16, stages = 2 : i32} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  tile.store %cs, %d : tensor<64x64x!tile.ptr<f32>, #mma>
  return
}
}

// -----

#mma = #tile.mma<{warpsPerCTA = [4, 1]}>

module attributes {tile.num_warps = 4 : i32} {
// The same dot with A's buffer one stage deep (a_stages = 1, a query stored
// once): 4 KB for A's stage and 8 KB for B's two, where the dot above, A
// as deep as B, takes 16 KB.
// A staged M-contiguous (a_contig = 0, a transposed query): the
// descriptors' A transpose immediate is 1 (the third of the four).
// CHECK-LABEL: llvm.func @one_stage_a
// CHECK-SAME:    tile.shared_bytes = 12288 : i64
// CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, $64, $65, p, 1, 1, 1, 1;
func.func @one_stage_a(%pc: !tile.ptr<f32>, %stage: i32) attributes {tile.kernel} {
  %cs0 = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  %c = tile.load %cs0 : tensor<64x64x!tile.ptr<f32>, #mma>
  %a0 = arith.constant 0 : i32
  %d = tile.warpgroup_dot a_stage %a0 b_stage %stage acc %c {a_buffer = 0 : i32, a_contig = 0 : i32, a_stages = 1 : i32, b_buffer = 1 : i32, b_contig = 1 : i32, k = 32 : i64, operand_type = f16, stages = 2 : i32} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  tile.store %cs, %d : tensor<64x64x!tile.ptr<f32>, #mma>
  return
}
}

// -----

#mma = #tile.mma<{warpsPerCTA = [4, 1]}>
#dota = #tile.dot_op<{opIdx = 0, parent = #mma}>

module attributes {tile.num_warps = 4 : i32} {
// A in registers (four b32 registers per K step), B K-major (b_contig = 0:
// the last immediate 0), bf16, K = 64: four K steps, the A registers of all
// four inputs of the fence. The zero accumulator: the first step takes no
// accumulator in (A from $32, scale-d $37, a constant 0), the next three
// take the previous step's registers (A from $64, scale-d $69).
// CHECK-LABEL: llvm.func @register_a
// CHECK:         "wgmma.fence.sync.aligned;", "r,r,r,r,r,r,r,r,r,r,r,r,r,r,r,r"
// CHECK:         setp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 0;\0A}", "{{(=f,)+}}r,r,r,r,l,r"
// CHECK-COUNT-3: setp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 0;
// CHECK:         wgmma.commit_group.sync.aligned;
// CHECK:         wgmma.wait_group.sync.aligned 0;
// SM80: wgmma.mlir:[[@LINE+5]]:8: error: 'tile.warpgroup_dot' op not supported on sm_80: wgmma is sm_90's
func.func @register_a(%pa: !tile.ptr<bf16>, %pc: !tile.ptr<f32>, %stage: i32) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>, #dota>
  %a = tile.load %as : tensor<64x64x!tile.ptr<bf16>, #dota>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %d = tile.warpgroup_dot a(%a : tensor<64x64xbf16, #dota>) b_stage %stage acc %zero {b_buffer = 0 : i32, b_contig = 0 : i32, k = 64 : i64, operand_type = bf16, stages = 2 : i32} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #mma>
  tile.store %cs, %d : tensor<64x64x!tile.ptr<f32>, #mma>
  return
}
}
