// An arith op with no trailing type.
func.func @k(%a: i32, %b: i32) attributes {tile.kernel} {
  %c = arith.addi %a, %b
  return
}
