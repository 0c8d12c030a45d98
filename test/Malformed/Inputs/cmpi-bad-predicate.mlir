// `less` is not an arith.cmpi predicate.
func.func @k(%a: i32) attributes {tile.kernel} {
  %c = arith.cmpi less, %a, %a : i32
  return
}
