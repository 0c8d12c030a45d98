// The same attribute twice.
func.func @k() attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %e = tile.expand_dims %r {axis = 0 : i32, axis = 1 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  return
}
