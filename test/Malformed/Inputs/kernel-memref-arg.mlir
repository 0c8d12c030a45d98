// Kernel arguments are !tile.ptr or scalars, not memrefs.
func.func @k(%m: memref<16xf32>) attributes {tile.kernel} {
  return
}
