// RUN: quire-opt %s --quire-convert-tile-to-llvm | FileCheck %s
// math ops (MathToLLVM.cpp): exp, exp2, log, log2, rsqrt, tanh, sin and cos
// of f32 run on the SFU's approximate instructions (inline PTX), f16 and
// bf16 through f32; exp(x) = ex2(x * log2(e)), log(x) = lg2(x) * ln(2).
// Other math ops take upstream's LLVM lowering (sqrt: llvm.intr.sqrt); the
// rest are located errors (unsupported.mlir). An f32 arith.divf marked
// fastmath<arcp> (the frontend's `/`) is div.full.f32; an unmarked one, and
// one of f64, keep upstream's correctly rounded llvm.fdiv (div.rn). A marked
// division whose divisor repeats a smaller value (a splat, a broadcast of a
// row vector) multiplies by that value's reciprocal (a marked 1.0 / x is
// rcp.approx.f32): one per value a thread holds, an llvm.fmul per element.
// fptosi/fptoui to i8 saturate (llvm.fpto{s,u}i.sat; PTX has no 8-bit cvt,
// and the plain conversion kept the 16-bit result's low byte); to wider
// integers they stay upstream's (cvt.rzi saturates). floordivsi, ceildivsi
// and ceildivui, which LLVM has not, become upstream's expansions into sdiv
// and udiv before the conversion.

#b = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b2 = #tile.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s2 = #tile.slice<{dim = 1, parent = #b2}>

module attributes {tile.num_warps = 4 : i32} {

// CHECK-LABEL: llvm.func @fast_math_f32
// CHECK:         %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK:         %[[S:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
// CHECK:         llvm.inline_asm asm_dialect = att "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[S]] : (f32) -> f32
// CHECK:         %[[LG:.*]] = llvm.inline_asm asm_dialect = att "lg2.approx.ftz.f32 $0, $1;", "=f,f"
// CHECK:         %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK:         llvm.fmul %[[LG]], %[[LN2]] : f32
// CHECK:         "tanh.approx.f32 $0, $1;"
// CHECK:         "rsqrt.approx.ftz.f32 $0, $1;"
// CHECK:         "sin.approx.ftz.f32 $0, $1;"
// CHECK:         "cos.approx.ftz.f32 $0, $1;"
// CHECK:         llvm.intr.sqrt(%{{.*}}) : (f32) -> f32
func.func @fast_math_f32(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<128x!tile.ptr<f32>, #b>
  %e = math.exp %x : tensor<128xf32, #b>
  %l = math.log %e : tensor<128xf32, #b>
  %t = math.tanh %l : tensor<128xf32, #b>
  %r = math.rsqrt %t : tensor<128xf32, #b>
  %s = math.sin %r : tensor<128xf32, #b>
  %c = math.cos %s : tensor<128xf32, #b>
  %q = math.sqrt %c : tensor<128xf32, #b>
  tile.store %ps, %q : tensor<128x!tile.ptr<f32>, #b>
  return
}

// CHECK-LABEL: llvm.func @fast_math_f16
// CHECK:         %[[X:.*]] = llvm.fpext %{{.*}} : f16 to f32
// CHECK:         %[[E:.*]] = llvm.inline_asm asm_dialect = att "ex2.approx.ftz.f32 $0, $1;", "=f,f" %[[X]] : (f32) -> f32
// CHECK:         llvm.fptrunc %[[E]] : f32 to f16
func.func @fast_math_f16(%p: !tile.ptr<f16>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>, #b>
  %x = tile.load %ps : tensor<128x!tile.ptr<f16>, #b>
  %e = math.exp2 %x : tensor<128xf16, #b>
  tile.store %ps, %e : tensor<128x!tile.ptr<f16>, #b>
  return
}

// CHECK-LABEL: llvm.func @division
// CHECK:         llvm.inline_asm asm_dialect = att "div.full.f32 $0, $1, $2;", "=f,f,f" %{{.*}}, %{{.*}} : (f32, f32) -> f32
// CHECK-NOT:     div.full
// CHECK:         llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     div.full
// CHECK:         llvm.fdiv %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<arcp>} : f64
func.func @division(%p: !tile.ptr<f32>, %d: f64, %q: !tile.ptr<f64>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<128x!tile.ptr<f32>, #b>
  %a = arith.divf %x, %x fastmath<arcp> : tensor<128xf32, #b>
  %r = arith.divf %a, %x : tensor<128xf32, #b>
  tile.store %ps, %r : tensor<128x!tile.ptr<f32>, #b>
  %e = arith.divf %d, %d fastmath<arcp> : f64
  tile.store %q, %e : !tile.ptr<f64>
  return
}

// CHECK-LABEL: llvm.func @divide_by_splat
// CHECK:         %[[R:.*]] = llvm.inline_asm asm_dialect = att "rcp.approx.f32 $0, $1;", "=f,f" %arg1 : (f32) -> f32
// CHECK-COUNT-4: llvm.fmul %{{.*}}, %[[R]]
// CHECK-NOT:     div.full
// CHECK-NOT:     rcp.approx
// CHECK-NOT:     llvm.fdiv
// CHECK:         llvm.return
func.func @divide_by_splat(%p: !tile.ptr<f32>, %s: f32) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<512x!tile.ptr<f32>, #b>
  %d = tile.splat %s : f32 -> tensor<512xf32, #b>
  %y = arith.divf %x, %d fastmath<arcp> : tensor<512xf32, #b>
  tile.store %ps, %y : tensor<512x!tile.ptr<f32>, #b>
  return
}

// CHECK-LABEL: llvm.func @divide_by_row_vector
// CHECK:         %[[R:.*]] = llvm.inline_asm asm_dialect = att "rcp.approx.f32 $0, $1;", "=f,f" %{{.*}} : (f32) -> f32
// CHECK-COUNT-4: llvm.fmul %{{.*}}, %[[R]]
// CHECK-NOT:     div.full
// CHECK-NOT:     rcp.approx
// CHECK-NOT:     llvm.fdiv
// CHECK:         llvm.return
func.func @divide_by_row_vector(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<8x64x!tile.ptr<f32>, #b2>
  %x = tile.load %ps : tensor<8x64x!tile.ptr<f32>, #b2>
  %qs = tile.splat %q : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>, #s2>
  %v = tile.load %qs : tensor<8x!tile.ptr<f32>, #s2>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<8xf32, #s2> -> tensor<8x1xf32, #b2>
  %d = tile.broadcast %e : tensor<8x1xf32, #b2> -> tensor<8x64xf32, #b2>
  %y = arith.divf %x, %d fastmath<arcp> : tensor<8x64xf32, #b2>
  tile.store %ps, %y : tensor<8x64x!tile.ptr<f32>, #b2>
  return
}

// CHECK-LABEL: llvm.func @float_to_i8_saturates
// CHECK:         llvm.call_intrinsic "llvm.fptosi.sat.i8.f32"(%{{.*}}) : (f32) -> i8
// CHECK:         llvm.call_intrinsic "llvm.fptoui.sat.i8.f16"(%{{.*}}) : (f16) -> i8
// CHECK:         llvm.fptosi %{{.*}} : f32 to i16
// CHECK-NOT:     llvm.fptosi %{{.*}} to i8
func.func @float_to_i8_saturates(%p: !tile.ptr<f32>, %h: !tile.ptr<f16>, %q: !tile.ptr<i8>, %r: !tile.ptr<i16>) attributes {tile.kernel} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<128x!tile.ptr<f32>, #b>
  %qs = tile.splat %q : !tile.ptr<i8> -> tensor<128x!tile.ptr<i8>, #b>
  %i = arith.fptosi %x : tensor<128xf32, #b> to tensor<128xi8, #b>
  tile.store %qs, %i : tensor<128x!tile.ptr<i8>, #b>
  %hv = tile.load %h : !tile.ptr<f16>
  %u = arith.fptoui %hv : f16 to i8
  tile.store %q, %u : !tile.ptr<i8>
  %w = arith.fptosi %x : tensor<128xf32, #b> to tensor<128xi16, #b>
  %rs = tile.splat %r : !tile.ptr<i16> -> tensor<128x!tile.ptr<i16>, #b>
  tile.store %rs, %w : tensor<128x!tile.ptr<i16>, #b>
  return
}

// CHECK-LABEL: llvm.func @floor_and_ceil_divisions
// CHECK-NOT:     divsi
// CHECK-NOT:     ceildivui
// CHECK-COUNT-3: llvm.sdiv
// CHECK:         llvm.udiv
// CHECK:         llvm.return
func.func @floor_and_ceil_divisions(%p: !tile.ptr<i32>, %a: i32, %b: i32) attributes {tile.kernel} {
  %f = arith.floordivsi %a, %b : i32
  %c = arith.ceildivsi %a, %b : i32
  %s = arith.addi %f, %c : i32
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #b>
  %r = tile.range 0, 128 : tensor<128xi32, #b>
  %bs = tile.splat %b : i32 -> tensor<128xi32, #b>
  %v = arith.floordivsi %r, %bs : tensor<128xi32, #b>
  tile.store %ps, %v : tensor<128x!tile.ptr<i32>, #b>
  %u = arith.ceildivui %a, %b : i32
  %t = arith.addi %s, %u : i32
  tile.store %p, %t : !tile.ptr<i32>
  return
}

}
