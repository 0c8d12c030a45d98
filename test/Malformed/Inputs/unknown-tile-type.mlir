// A tile dialect type that does not exist.
func.func @k(%p: !tile.pointer<f32>) attributes {tile.kernel} {
  return
}
