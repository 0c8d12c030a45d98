// A rank-3 transpose needs a 3-element order.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1.0> : tensor<2x4x8xf32>
  %t = tile.trans %a {order = array<i32: 1, 0>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return
}
