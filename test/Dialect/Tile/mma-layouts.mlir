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
