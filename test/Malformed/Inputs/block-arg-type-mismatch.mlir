// A branch passes an i64 to an i32 block argument.
func.func @k(%a: i64) attributes {tile.kernel} {
  cf.br ^bb1(%a : i64)
^bb1(%x: i32):
  return
}
