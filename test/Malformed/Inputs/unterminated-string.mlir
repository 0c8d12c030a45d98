// A string attribute that never ends.
func.func @k() attributes {tile.kernel, note = "no end} {
  return
}
