// A location attribute that is not a location.
func.func @k() attributes {tile.kernel} {
  return loc(42)
}
