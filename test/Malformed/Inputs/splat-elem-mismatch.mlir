// Splat of an f32 pointer into a tensor of f16 pointers.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f16>>
  return
}
