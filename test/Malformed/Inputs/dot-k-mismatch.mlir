// Inner dimensions differ: 16x32 times 16x16.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<16x32xf16>
  %b = arith.constant dense<1.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %a, %b, %c : tensor<16x32xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}
