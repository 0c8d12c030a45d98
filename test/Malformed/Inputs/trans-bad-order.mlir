func.func @f(%a: tensor<4x8xf32>) { %0 = tile.trans %a {order = array<i32: 0, 2>} : tensor<4x8xf32> -> tensor<4x8xf32> return }
