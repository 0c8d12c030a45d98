func.func @f() { %0 = tile.range 8, 0 : tensor<8xi32> return }
