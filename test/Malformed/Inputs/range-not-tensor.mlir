func.func @f() { %0 = tile.range 0, 8 : i32 return }
