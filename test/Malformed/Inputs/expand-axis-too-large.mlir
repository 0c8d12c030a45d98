// expand_dims axis past the result rank.
func.func @k() attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %e = tile.expand_dims %r {axis = 5 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  return
}
