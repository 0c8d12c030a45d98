// The file ends in the middle of an operation.
func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.range 0, 64 : tensor<64xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.
