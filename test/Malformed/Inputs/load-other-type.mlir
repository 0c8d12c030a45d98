// `other` of the wrong element type.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %m = arith.constant dense<true> : tensor<64xi1>
  %o = arith.constant dense<0> : tensor<64xi32>
  %v = tile.load %a, %m, %o : tensor<64x!tile.ptr<f32>>
  return
}
