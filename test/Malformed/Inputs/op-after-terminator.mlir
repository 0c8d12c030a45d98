// Nothing may follow the terminator of a block.
func.func @k() attributes {tile.kernel} {
  return
  %x = tile.program_id x
}
