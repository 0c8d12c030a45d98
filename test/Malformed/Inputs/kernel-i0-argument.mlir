// Found by quire-fuzz (session 3): an i0 kernel argument made NVPTX abort
// ("Empty parameter types are not supported"); now a verifier error.
func.func @k(%a: i0) attributes {tile.kernel} {
  return
}
