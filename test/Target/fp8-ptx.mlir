// fp8 in PTX: 16 e4m3 bytes per 16-byte load, widened in pairs with
// cvt.rn.f16x2.e4m3x2, narrowed with cvt.rn.satfinite.e5m2x2.f16x2; ptxas
// accepts it for sm_90. On sm_80 the conversions are a located error.
// RUN: quirec %s --sm 90 | FileCheck %s
// RUN: not quirec %s --sm 80 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: %if ptxas %{ quirec %s --sm 90 -o %t.ptx && %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// CHECK-LABEL: .entry recode(
// CHECK:       ld.global.v4.b32
// CHECK-COUNT-8: cvt.rn.f16x2.e4m3x2
// CHECK-COUNT-8: cvt.rn.satfinite.e5m2x2.f16x2
// CHECK:       st.global.v4.b32
// SM80: fp8-ptx.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'arith.extf' op not supported on the GPU: fp8 conversions need sm_89 or later
func.func @recode(%x: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32},
                  %y: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i32},
                  %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
  %pid = tile.program_id x
  %c = arith.constant 2048 : i32
  %base = arith.muli %pid, %c : i32
  %r = tile.range 0, 2048 : tensor<2048xi32>
  %bs = tile.splat %base : i32 -> tensor<2048xi32>
  %off = arith.addi %bs, %r : tensor<2048xi32>
  %ns = tile.splat %n : i32 -> tensor<2048xi32>
  %m = arith.cmpi slt, %off, %ns : tensor<2048xi32>
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<2048x!tile.ptr<f8E4M3FN>>
  %xp = tile.addptr %xs, %off : tensor<2048x!tile.ptr<f8E4M3FN>>, tensor<2048xi32>
  %v = tile.load %xp, %m : tensor<2048x!tile.ptr<f8E4M3FN>>
  %h = arith.extf %v : tensor<2048xf8E4M3FN> to tensor<2048xf16>
  %e = arith.truncf %h : tensor<2048xf16> to tensor<2048xf8E5M2>
  %ys = tile.splat %y : !tile.ptr<f8E5M2> -> tensor<2048x!tile.ptr<f8E5M2>>
  %yp = tile.addptr %ys, %off : tensor<2048x!tile.ptr<f8E5M2>>, tensor<2048xi32>
  tile.store %yp, %e, %m : tensor<2048x!tile.ptr<f8E5M2>>
  return
}
