// The accumulator of a dot is f32.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<16x16xf16>
  %c = arith.constant dense<0.0> : tensor<16x16xf16>
  %d = tile.dot %a, %a, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf16>
  return
}
