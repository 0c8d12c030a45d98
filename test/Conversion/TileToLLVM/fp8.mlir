// RUN: quire-opt %s --quire-convert-tile-to-llvm --canonicalize | FileCheck %s
// RUN: not quire-opt %s "--quire-convert-tile-to-llvm=sm=80" 2>&1 | FileCheck %s --check-prefix=SM80
// fp8 (Fp8ToLLVM.cpp) lives in i8 registers: loaded and stored as bytes,
// converted two at a time with the sm_89+ cvt instructions (to f32 and bf16
// through f16 and f32, from bf16 through f32), saturating at the largest
// finite value on the way down.

// SM80: error: 'arith.extf' op not supported on the GPU: fp8 conversions need sm_89 or later (cvt with e4m3x2/e5m2x2), got sm_80

#b4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {tile.num_warps = 1 : i32} {

// Four e4m3 bytes per thread: two conversions to f16x2, then widened to f32.
// CHECK-LABEL: llvm.func @widen_e4m3
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h" %{{.*}} : (i16) -> i32
// CHECK-NEXT:      llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-COUNT-2:   llvm.extractelement
// CHECK-COUNT-2:   llvm.fpext %{{.*}} : f16 to f32
// CHECK-NOT:     cvt.rn
// CHECK:         llvm.return
func.func @widen_e4m3(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                      %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #b4>
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<128x!tile.ptr<f8E4M3FN>, #b4>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f8E4M3FN>, #b4>, tensor<128xi32, #b4>
  %v = tile.load %xp : tensor<128x!tile.ptr<f8E4M3FN>, #b4>
  %w = arith.extf %v : tensor<128xf8E4M3FN, #b4> to tensor<128xf32, #b4>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b4>
  %op = tile.addptr %os, %r : tensor<128x!tile.ptr<f32>, #b4>, tensor<128xi32, #b4>
  tile.store %op, %w : tensor<128x!tile.ptr<f32>, #b4>
  return
}

// e5m2 to bf16: through f16 and f32. Under a mask that may change inside
// a run, one byte per access (ld.global.b8 into a 16-bit register), masked
// off reading the fp8 constant's byte.
// CHECK-LABEL: llvm.func @widen_e5m2_bf16
// CHECK-COUNT-4: "mov.b16 $0, $3;{{.*}}@$2 ld.global.b8 $0, [ $1 + 0 ];", "=h,l,b,h"
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "cvt.rn.f16x2.e5m2x2 $0, $1;", "=r,h"
// CHECK:         llvm.fptrunc %{{.*}} : f32 to bf16
func.func @widen_e5m2_bf16(%x: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i32},
                           %out: !tile.ptr<bf16> {tile.divisibility = 16 : i32},
                           %n: i32) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #b4>
  %ns = tile.splat %n : i32 -> tensor<128xi32, #b4>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #b4>
  %zero = arith.constant dense<0.0> : tensor<128xf8E5M2, #b4>
  %xs = tile.splat %x : !tile.ptr<f8E5M2> -> tensor<128x!tile.ptr<f8E5M2>, #b4>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f8E5M2>, #b4>, tensor<128xi32, #b4>
  %v = tile.load %xp, %m, %zero : tensor<128x!tile.ptr<f8E5M2>, #b4>
  %w = arith.extf %v : tensor<128xf8E5M2, #b4> to tensor<128xbf16, #b4>
  %os = tile.splat %out : !tile.ptr<bf16> -> tensor<128x!tile.ptr<bf16>, #b4>
  %op = tile.addptr %os, %r : tensor<128x!tile.ptr<bf16>, #b4>, tensor<128xi32, #b4>
  tile.store %op, %w : tensor<128x!tile.ptr<bf16>, #b4>
  return
}

// Narrowing: f32 pairs (the first operand goes to the high byte), f16 pairs
// as one f16x2 register.
// CHECK-LABEL: llvm.func @narrow
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;", "=h,f,f"
// CHECK-COUNT-2: llvm.inline_asm asm_dialect = att "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;", "=h,r"
func.func @narrow(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                  %a: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                  %b: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %r = tile.range 0, 128 : tensor<128xi32, #b4>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b4>
  %xp = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>, #b4>, tensor<128xi32, #b4>
  %v = tile.load %xp : tensor<128x!tile.ptr<f32>, #b4>
  %e4 = arith.truncf %v : tensor<128xf32, #b4> to tensor<128xf8E4M3FN, #b4>
  %as = tile.splat %a : !tile.ptr<f8E4M3FN> -> tensor<128x!tile.ptr<f8E4M3FN>, #b4>
  %ap = tile.addptr %as, %r : tensor<128x!tile.ptr<f8E4M3FN>, #b4>, tensor<128xi32, #b4>
  tile.store %ap, %e4 : tensor<128x!tile.ptr<f8E4M3FN>, #b4>
  %h = arith.truncf %v : tensor<128xf32, #b4> to tensor<128xf16, #b4>
  %e5 = arith.truncf %h : tensor<128xf16, #b4> to tensor<128xf8E5M2, #b4>
  %bs = tile.splat %b : !tile.ptr<f8E5M2> -> tensor<128x!tile.ptr<f8E5M2>, #b4>
  %bp = tile.addptr %bs, %r : tensor<128x!tile.ptr<f8E5M2>, #b4>, tensor<128xi32, #b4>
  tile.store %bp, %e5 : tensor<128x!tile.ptr<f8E5M2>, #b4>
  return
}

}
