// tile.convert_layout is inserted by the compiler, not written in a kernel.
func.func @k(%p: !tile.ptr<f32>, %c: i1) attributes {tile.kernel} {
  %a = arith.constant dense<3.5> : tensor<64xf32>
  %v = tile.convert_layout %a : tensor<64xf32> -> tensor<64xf32>
  %z = arith.constant dense<0> : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %q = tile.addptr %s, %z : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %q, %v : tensor<64x!tile.ptr<f32>>
  return
}
