// A constant tensor whose dimension is not a power of two.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %v = arith.constant dense<1.0> : tensor<48xf32>
  %z = arith.constant dense<0> : tensor<48xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<48x!tile.ptr<f32>>
  %q = tile.addptr %s, %z : tensor<48x!tile.ptr<f32>>, tensor<48xi32>
  tile.store %q, %v : tensor<48x!tile.ptr<f32>>
  return
}
