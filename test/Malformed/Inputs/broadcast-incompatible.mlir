// 4x2 does not broadcast to 8x3.
func.func @k() attributes {tile.kernel} {
  %a = arith.constant dense<1> : tensor<4x2xi32>
  %b = tile.broadcast %a : tensor<4x2xi32> -> tensor<8x3xi32>
  return
}
