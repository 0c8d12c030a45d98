// An integer type wider than MLIR allows.
func.func @k(%a: i99999999) attributes {tile.kernel} {
  return
}
