// fp8 (f8E4M3FN, f8E5M2) in the interpreter: loaded, widened exactly with
// arith.extf, narrowed with arith.truncf rounding to nearest even and
// saturating at the largest finite value (448, 57344: the GPU's
// cvt.rn.satfinite), NaN kept; .npy buffers hold the bytes.
// RUN: quire-run %s --kernel roundtrip_e4m3 --arg values:f32:0.1,1.0,-2.5,240.0,450.0,1000.0,-1e9,0.001953125 \
// RUN:   --arg out:%t.e4m3.npy:f8E4M3FN:8 --arg out:%t.back.npy:f32:8 --print | FileCheck %s --check-prefix=E4M3
// E4M3: arg #2 (out, f32, 8):
// E4M3-NEXT: 0.1015625 1 -2.5 240 448 448 -448 0.001953125
// RUN: quire-run %s --kernel roundtrip_e5m2 --arg values:f32:0.1,1.0,-2.5,240.0,60000.0,1e9,-inf,1.52587890625e-05 \
// RUN:   --arg out:%t.e5m2.npy:f8E5M2:8 --arg out:%t.back2.npy:f32:8 --print | FileCheck %s --check-prefix=E5M2
// E5M2: arg #2 (out, f32, 8):
// E5M2-NEXT: 0.09375 1 -2.5 256 57344 57344 -57344 1.5258789e-05
// The bytes on disk: 448 is 0x7e in E4M3FN (S.1111.110), and the all-ones
// byte 0x7f is its only NaN.
// RUN: %python -c "import numpy as np; np.save('%t.bits.npy', np.array([126, 127, 255, 1, 56], np.uint8))"
// RUN: quire-run %s --kernel widen_e4m3 --arg in:%t.bits.npy --arg out:%t.w.npy:f16:5 --print | FileCheck %s --check-prefix=BITS
// BITS: arg #1 (out, f16, 5):
// BITS-NEXT: 448 nan nan 0.001953 1

func.func @roundtrip_e4m3(%x: !tile.ptr<f32>, %y: !tile.ptr<f8E4M3FN>, %z: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>>
  %f8 = arith.truncf %v : tensor<8xf32> to tensor<8xf8E4M3FN>
  %ys = tile.splat %y : !tile.ptr<f8E4M3FN> -> tensor<8x!tile.ptr<f8E4M3FN>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f8E4M3FN>>, tensor<8xi32>
  tile.store %yp, %f8 : tensor<8x!tile.ptr<f8E4M3FN>>
  %back = tile.load %yp : tensor<8x!tile.ptr<f8E4M3FN>>
  %w = arith.extf %back : tensor<8xf8E4M3FN> to tensor<8xf32>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %zp, %w : tensor<8x!tile.ptr<f32>>
  return
}

func.func @roundtrip_e5m2(%x: !tile.ptr<f32>, %y: !tile.ptr<f8E5M2>, %z: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 8 : tensor<8xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  %v = tile.load %xp : tensor<8x!tile.ptr<f32>>
  %f8 = arith.truncf %v : tensor<8xf32> to tensor<8xf8E5M2>
  %ys = tile.splat %y : !tile.ptr<f8E5M2> -> tensor<8x!tile.ptr<f8E5M2>>
  %yp = tile.addptr %ys, %r : tensor<8x!tile.ptr<f8E5M2>>, tensor<8xi32>
  tile.store %yp, %f8 : tensor<8x!tile.ptr<f8E5M2>>
  %back = tile.load %yp : tensor<8x!tile.ptr<f8E5M2>>
  %w = arith.extf %back : tensor<8xf8E5M2> to tensor<8xf32>
  %zs = tile.splat %z : !tile.ptr<f32> -> tensor<8x!tile.ptr<f32>>
  %zp = tile.addptr %zs, %r : tensor<8x!tile.ptr<f32>>, tensor<8xi32>
  tile.store %zp, %w : tensor<8x!tile.ptr<f32>>
  return
}

// A byte buffer read as E4M3FN through a kernel argument of that pointee.
func.func @widen_e4m3(%x: !tile.ptr<f8E4M3FN>, %z: !tile.ptr<f16>) attributes {tile.kernel} {
  %r = tile.range 0, 5 : tensor<5xi32>
  %xs = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<5x!tile.ptr<f8E4M3FN>>
  %xp = tile.addptr %xs, %r : tensor<5x!tile.ptr<f8E4M3FN>>, tensor<5xi32>
  %v = tile.load %xp : tensor<5x!tile.ptr<f8E4M3FN>>
  %w = arith.extf %v : tensor<5xf8E4M3FN> to tensor<5xf16>
  %zs = tile.splat %z : !tile.ptr<f16> -> tensor<5x!tile.ptr<f16>>
  %zp = tile.addptr %zs, %r : tensor<5x!tile.ptr<f16>>, tensor<5xi32>
  tile.store %zp, %w : tensor<5x!tile.ptr<f16>>
  return
}
