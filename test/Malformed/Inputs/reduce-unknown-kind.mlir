// `prod` is not a reduce kind.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<64xf32>
  %s = tile.reduce prod %a {axis = 0 : i32} : tensor<64xf32> -> f32
  return
}
