// Only kernels are compiled; helper functions are not supported.
func.func @h(%x: i32) -> i32 { return %x : i32 }
func.func @a(%p: !tile.ptr<i32>, %x: i32) attributes {tile.kernel} {
  %y = func.call @h(%x) : (i32) -> i32
  tile.store %p, %y : !tile.ptr<i32>
  return }
