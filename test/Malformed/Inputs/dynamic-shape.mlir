// Tensors in registers have static shapes.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<?xi32>
  return
}
