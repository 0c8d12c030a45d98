func.func @f() { %0 = tile.range 0.5, 8 : tensor<8xi32> return }
