func.func @f(%a: tensor<16xf32>) { %0 = tile.reduce sum %a : tensor<16xf32> -> f32 return }
