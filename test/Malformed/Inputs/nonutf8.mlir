func.func @f() { %0 = tile.range 0, 4 : tensor<4xÿþi32> return }
