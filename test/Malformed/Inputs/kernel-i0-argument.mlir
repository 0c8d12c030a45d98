// An i0 kernel argument would make the NVPTX backend abort ("Empty
// parameter types are not supported"; a quire-fuzz finding): the verifier
// rejects it.
func.func @k(%a: i0) attributes {tile.kernel} {
  return
}
