// A dense literal with an unbalanced bracket.
func.func @k() attributes {tile.kernel} {
  %c = arith.constant dense<[1, 2> : tensor<2xi32>
  return
}
