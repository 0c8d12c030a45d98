func.func @f(%a: tensor<4x8xf32>) { %0 = tile.broadcast %a : tensor<4x8xf32> -> tensor<4x1xf32> return }
