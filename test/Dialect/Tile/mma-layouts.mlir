// RUN: quire-opt %s | quire-opt | FileCheck %s
// The tensor-core layouts print and parse back; slices of an mma layout are
// allowed.

#mma = #tile.mma<{warpsPerCTA = [2, 2]}>
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<64x32xf16, #tile.dot_op<{opIdx = 0, parent = #tile.mma<{warpsPerCTA = [2, 2]}>}>>
// CHECK-SAME: tensor<32x64xf16, #tile.dot_op<{opIdx = 1, parent = #tile.mma<{warpsPerCTA = [2, 2]}>}>>
// CHECK-SAME: tensor<64x64xf32, #tile.mma<{warpsPerCTA = [2, 2]}>>
// CHECK-SAME: tensor<64xf32, #tile.slice<{dim = 1, parent = #tile.mma<{warpsPerCTA = [2, 2]}>}>>
func.func @layouts(%a: tensor<64x32xf16, #tile.dot_op<{opIdx = 0, parent = #mma}>>,
                   %b: tensor<32x64xf16, #tile.dot_op<{opIdx = 1, parent = #mma}>>,
                   %c: tensor<64x64xf32, #mma>,
                   %s: tensor<64xf32, #tile.slice<{dim = 1, parent = #mma}>>) {
  return
}

// kWidth, nWidth and mWidth print, in that order, when they are not their
// defaults (2, 1 and 1).
// CHECK-LABEL: func.func @renumbered
// CHECK-SAME: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>>
// CHECK-SAME: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 16}>>
// CHECK-SAME: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 8, nWidth = 4}>>
// CHECK-SAME: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1]}>>
// CHECK-SAME: tensor<128x8xf16, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 2, mWidth = 16}>>
func.func @renumbered(%a: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 16}>>,
                      %b: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 16}>>,
                      %c: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], nWidth = 4, kWidth = 8}>>,
                      %d: tensor<16x128xf16, #tile.mma<{warpsPerCTA = [1, 1], kWidth = 2, nWidth = 1}>>,
                      %e: tensor<128x8xf16, #tile.mma<{warpsPerCTA = [1, 1], mWidth = 16, nWidth = 2}>>) {
  return
}
