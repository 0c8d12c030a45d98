// cf.cond_br branches on an i1.
func.func @k(%a: i32) attributes {tile.kernel} {
  cf.cond_br %a, ^bb1, ^bb1
^bb1:
  return
}
