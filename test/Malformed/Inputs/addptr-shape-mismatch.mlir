// Pointer and offset tensors of different shapes.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 32 : tensor<32xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<64x!tile.ptr<f32>>, tensor<32xi32>
  return
}
