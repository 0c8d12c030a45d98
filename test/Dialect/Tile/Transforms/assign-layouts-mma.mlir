// RUN: quire-opt %s --quire-assign-layouts | FileCheck %s
// RUN: quire-opt %s "--quire-assign-layouts=num-warps=8" | FileCheck %s --check-prefix=W8
// RUN: quire-opt %s "--quire-assign-layouts=mma=false" | FileCheck %s --check-prefix=NOMMA
// f16/bf16 dots with M >= 16 get tensor-core layouts: the accumulator (and
// everything elementwise with it, down to the store) a #tile.mma layout
// decided first, the operands #tile.dot_op layouts converted from the
// layouts their loads chose. Warps split M and N evenly, except in a dot
// chain (attention), where they all split M. f32 dots and M < 16 do not.
// NOMMA-NOT: #tile.mma

// CHECK-LABEL: func.func @tile_matmul
// CHECK: %[[A:.*]] = tile.load {{.*}} : tensor<64x32x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8]
// CHECK: %[[B:.*]] = tile.load {{.*}} : tensor<32x64x!tile.ptr<f16>, #tile.blocked<{sizePerThread = [1, 8]
// CHECK: %[[CA:.*]] = tile.convert_layout %[[A]] : {{.*}} -> tensor<64x32xf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [2, 2]}>}>>
// CHECK: %[[CB:.*]] = tile.convert_layout %[[B]] : {{.*}} -> tensor<32x64xf16, #tile.dot_op<{opIdx = 1, parent = #tile.mma<{warpsPerCTA = [2, 2]}>}>>
// CHECK: tile.dot %[[CA]], %[[CB]], %{{.*}} -> tensor<64x64xf32, #tile.mma<{warpsPerCTA = [2, 2]}>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store {{.*}} : tensor<64x64x!tile.ptr<f32>, #tile.mma<{warpsPerCTA = [2, 2]}>>
// W8-LABEL: func.func @tile_matmul
// W8: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 2]}>>
func.func @tile_matmul(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16>, %pc: !tile.ptr<f32>) attributes {tile.kernel} {
  %r64 = tile.range 0, 64 : tensor<64xi32>
  %r32 = tile.range 0, 32 : tensor<32xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %c64b = arith.constant dense<64> : tensor<64x1xi32>
  %am = tile.expand_dims %r64 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ak = tile.expand_dims %r32 {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %arow = arith.muli %am, %c32 : tensor<64x1xi32>
  %arowb = tile.broadcast %arow : tensor<64x1xi32> -> tensor<64x32xi32>
  %akb = tile.broadcast %ak : tensor<1x32xi32> -> tensor<64x32xi32>
  %aoff = arith.addi %arowb, %akb : tensor<64x32xi32>
  %as = tile.splat %pa : !tile.ptr<f16> -> tensor<64x32x!tile.ptr<f16>>
  %ap = tile.addptr %as, %aoff : tensor<64x32x!tile.ptr<f16>>, tensor<64x32xi32>
  %a = tile.load %ap : tensor<64x32x!tile.ptr<f16>>
  %bk = tile.expand_dims %r32 {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %bn = tile.expand_dims %r64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %brow = arith.muli %bk, %c64 : tensor<32x1xi32>
  %browb = tile.broadcast %brow : tensor<32x1xi32> -> tensor<32x64xi32>
  %bnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
  %boff = arith.addi %browb, %bnb : tensor<32x64xi32>
  %bs = tile.splat %pb : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %bp = tile.addptr %bs, %boff : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %b = tile.load %bp : tensor<32x64x!tile.ptr<f16>>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %z : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %crow = arith.muli %am, %c64b : tensor<64x1xi32>
  %crowb = tile.broadcast %crow : tensor<64x1xi32> -> tensor<64x64xi32>
  %cnb = tile.broadcast %bn : tensor<1x64xi32> -> tensor<64x64xi32>
  %coff = arith.addi %crowb, %cnb : tensor<64x64xi32>
  %cs = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %cp = tile.addptr %cs, %coff : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %cp, %d : tensor<64x64x!tile.ptr<f32>>
  return
}

// The scores of the first dot become, elementwise, the A operand of the
// second: every warp owns its rows in both, and the row max is a slice of
// the mma layout.
// CHECK-LABEL: func.func @attention_chain
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
// CHECK: tile.reduce max {{.*}} -> tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>
// CHECK: math.exp2 {{.*}} : tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
// CHECK: tile.convert_layout {{.*}} : tensor<64x64xf16, #tile.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x64xf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [4, 1]}>}>>
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
func.func @attention_chain(%pi: !tile.ptr<f16>, %po: !tile.ptr<f32>) attributes {tile.kernel} {
  %qs = tile.splat %pi : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %q = tile.load %qs : tensor<64x64x!tile.ptr<f16>>
  %kts = tile.splat %pi : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %kt = tile.load %kts : tensor<64x64x!tile.ptr<f16>>
  %vs = tile.splat %pi : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %v = tile.load %vs : tensor<64x64x!tile.ptr<f16>>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %s = tile.dot %q, %kt, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %m = tile.reduce max %s {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %m2 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %m2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %sm = arith.subf %s, %mb : tensor<64x64xf32>
  %p = math.exp2 %sm : tensor<64x64xf32>
  %p16 = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xf16>
  %o = tile.dot %p16, %v, %z : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %os = tile.splat %po : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %os, %o : tensor<64x64x!tile.ptr<f32>>
  return
}

// One fragment for four warps: the extra warps replicate it along M.
// CHECK-LABEL: func.func @bf16
// CHECK: tile.dot {{.*}} -> tensor<16x8xf32, #tile.mma<{warpsPerCTA = [4, 1]}>>
func.func @bf16(%pi: !tile.ptr<bf16>, %po: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pi : !tile.ptr<bf16> -> tensor<16x16x!tile.ptr<bf16>>
  %a = tile.load %as : tensor<16x16x!tile.ptr<bf16>>
  %bs = tile.splat %pi : !tile.ptr<bf16> -> tensor<16x8x!tile.ptr<bf16>>
  %b = tile.load %bs : tensor<16x8x!tile.ptr<bf16>>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  %d = tile.dot %a, %b, %z : tensor<16x16xbf16> * tensor<16x8xbf16> -> tensor<16x8xf32>
  %os = tile.splat %po : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>>
  tile.store %os, %d : tensor<16x8x!tile.ptr<f32>>
  return
}

// CHECK-LABEL: func.func @no_mma
// CHECK-NOT: #tile.mma
// CHECK: return
func.func @no_mma(%pf: !tile.ptr<f32>, %ph: !tile.ptr<f16>, %po: !tile.ptr<f32>) attributes {tile.kernel} {
  %as = tile.splat %pf : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %a = tile.load %as : tensor<32x32x!tile.ptr<f32>>
  %bs = tile.splat %pf : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %b = tile.load %bs : tensor<32x32x!tile.ptr<f32>>
  %a4s = tile.splat %ph : !tile.ptr<f16> -> tensor<4x64x!tile.ptr<f16>>
  %a4 = tile.load %a4s : tensor<4x64x!tile.ptr<f16>>
  %b4s = tile.splat %ph : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %b4 = tile.load %b4s : tensor<64x64x!tile.ptr<f16>>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %z : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32>
  %os = tile.splat %po : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %os, %d : tensor<32x32x!tile.ptr<f32>>
  %z4 = arith.constant dense<0.0> : tensor<4x64xf32>
  %d4 = tile.dot %a4, %b4, %z4 : tensor<4x64xf16> * tensor<64x64xf16> -> tensor<4x64xf32>
  %os4 = tile.splat %po : !tile.ptr<f32> -> tensor<4x64x!tile.ptr<f32>>
  tile.store %os4, %d4 : tensor<4x64x!tile.ptr<f32>>
  return
}
