// scf.if without its then region.
func.func @k(%c: i1) attributes {tile.kernel} {
  scf.if %c
  return
}
