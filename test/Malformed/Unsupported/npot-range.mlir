// Tensor dimensions on the GPU are powers of two.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 100 : tensor<100xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<100x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<100x!tile.ptr<f32>>, tensor<100xi32>
  %v = tile.load %a : tensor<100x!tile.ptr<f32>>
  tile.store %a, %v : tensor<100x!tile.ptr<f32>>
  return
}
