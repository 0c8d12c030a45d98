// A mask must be i1.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = arith.constant dense<1.0> : tensor<64xf32>
  tile.store %a, %v, %r : tensor<64x!tile.ptr<f32>>
  return
}
