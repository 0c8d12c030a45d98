func.func @f(%a: tensor<4xf32>) { %0 = tile.expand_dims %a {axis = -1 : i32} : tensor<4xf32> -> tensor<4x1xf32> return }
