// A type alias that was never defined.
func.func @k(%p: !undefined_alias) attributes {tile.kernel} {
  return
}
