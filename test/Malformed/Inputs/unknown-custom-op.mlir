func.func @f() { %0 = tile.frobnicate 3 return }
