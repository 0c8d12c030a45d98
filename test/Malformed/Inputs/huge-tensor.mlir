func.func @f() { %0 = tile.range 0, 2147483647 : tensor<2147483647xi32> %1 = tile.range 0, 64 : tensor<64xi64> return }
