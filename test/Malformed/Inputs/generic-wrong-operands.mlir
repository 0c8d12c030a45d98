// A generic-form op with the wrong number of operands.
func.func @k(%a: i32) attributes {tile.kernel} {
  %s = "tile.splat"(%a, %a) : (i32, i32) -> tensor<64xi32>
  return
}
