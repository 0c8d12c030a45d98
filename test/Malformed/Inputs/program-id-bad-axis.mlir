// There is no grid axis `w`.
func.func @k() attributes {tile.kernel} {
  %x = tile.program_id w
  return
}
