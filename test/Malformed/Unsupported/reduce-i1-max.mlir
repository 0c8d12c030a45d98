// tile.reduce max over i1 has no GPU lowering.
func.func @k(%p: !tile.ptr<i32>, %c: i1) attributes {tile.kernel} {
  %a = arith.constant dense<true> : tensor<64xi1>
  %r = tile.reduce max %a {axis = 0 : i32} : tensor<64xi1> -> i1
  %r2 = arith.extui %r : i1 to i32
  %v = tile.splat %r2 : i32 -> tensor<1xi32>
  %z = arith.constant dense<0> : tensor<1xi32>
  %s = tile.splat %p : !tile.ptr<i32> -> tensor<1x!tile.ptr<i32>>
  %q = tile.addptr %s, %z : tensor<1x!tile.ptr<i32>>, tensor<1xi32>
  tile.store %q, %v : tensor<1x!tile.ptr<i32>>
  return
}
