// A value used before the op that defines it.
func.func @k(%a: i32) attributes {tile.kernel} {
  %b = arith.addi %c, %a : i32
  %c = arith.addi %a, %a : i32
  return
}
