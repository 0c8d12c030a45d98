func.func @f(%a: tensor<16x!tile.ptr<f32>>) { %0 = tile.reduce sum %a {axis = 0 : i32} : tensor<16x!tile.ptr<f32>> -> !tile.ptr<f32> return }
