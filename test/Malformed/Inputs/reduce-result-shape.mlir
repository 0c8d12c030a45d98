// Reducing axis 1 of 16x64 gives tensor<16xf32>, not tensor<64xf32>.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<16x64xf32>
  %s = tile.reduce sum %a {axis = 1 : i32} : tensor<16x64xf32> -> tensor<64xf32>
  return
}
