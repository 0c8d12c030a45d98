// A name that is not UTF-8.
func.func @k() attributes {tile.kernel, s = "ÿþ"} {
  return
}
