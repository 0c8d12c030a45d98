// !tile.ptr with nothing inside.
func.func @k(%p: !tile.ptr<>) attributes {tile.kernel} {
  return
}
