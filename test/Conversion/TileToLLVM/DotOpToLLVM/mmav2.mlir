// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// tile.dot on tensor cores with mma.sync (DotOpToLLVM/MMAv2.cpp): with a
// #tile.mma accumulator and #tile.dot_op operands, every 16x8 accumulator
// fragment a warp holds and every 16-deep K step is one
// mma.sync.aligned.m16n8k16 over registers the layouts already hold (pairs
// of consecutive-K elements packed into b32); nothing goes through shared
// memory. Inputs are loaded through splat pointers to keep them short.

#mma = #tile.mma<{warpsPerCTA = [2, 2]}>
#dota = #tile.dot_op<{opIdx = 0, parent = #mma}>
#dotb = #tile.dot_op<{opIdx = 1, parent = #mma}>
#mma1 = #tile.mma<{warpsPerCTA = [4, 1]}>
#dota1 = #tile.dot_op<{opIdx = 0, parent = #mma1}>
#dotb1 = #tile.dot_op<{opIdx = 1, parent = #mma1}>

module attributes {tile.num_warps = 4 : i32} {

// 32x32x32 on 2x2 warps: each warp holds a 16x16 block, two 16x8
// fragments, two K steps each.
// CHECK-LABEL: llvm.func @mma_dot_f16
// CHECK-SAME:    tile.shared_bytes = 0 : i64
// CHECK:         llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-COUNT-4: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
// CHECK-NOT:     mma.sync
// CHECK-NOT:     !llvm.ptr<3>
// CHECK:         llvm.return
func.func @mma_dot_f16(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>, #dota>
  %x = tile.load %as : tensor<32x32x!tile.ptr<f16>, #dota>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<32x32x!tile.ptr<f16>, #dotb>
  %y = tile.load %bs : tensor<32x32x!tile.ptr<f16>, #dotb>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32, #mma>
  %d = tile.dot %x, %y, %zero : tensor<32x32xf16, #dota> * tensor<32x32xf16, #dotb> -> tensor<32x32xf32, #mma>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #mma>
  tile.store %cs, %d : tensor<32x32x!tile.ptr<f32>, #mma>
  return
}

// One fragment, bf16: the bf16 instruction.
// CHECK-LABEL: llvm.func @mma_dot_bf16
// CHECK:         llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT:     mma.sync
// CHECK:         llvm.return
func.func @mma_dot_bf16(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pa : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>, #dota1>
  %x = tile.load %as : tensor<16x16x!tile.ptr<bf16>, #dota1>
  %bs = tile.splat %pb : !tile.ptr<bf16> -> tensor<16x8x!tile.ptr<bf16>, #dotb1>
  %y = tile.load %bs : tensor<16x8x!tile.ptr<bf16>, #dotb1>
  %zero = arith.constant dense<0.0> : tensor<16x8xf32, #mma1>
  %d = tile.dot %x, %y, %zero : tensor<16x16xbf16, #dota1> * tensor<16x8xbf16, #dotb1> -> tensor<16x8xf32, #mma1>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #mma1>
  tile.store %cs, %d : tensor<16x8x!tile.ptr<f32>, #mma1>
  return
}

}
