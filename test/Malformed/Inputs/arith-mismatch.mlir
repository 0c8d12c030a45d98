func.func @f(%a: tensor<4xf32>, %b: tensor<8xf32>) { %0 = arith.addf %a, %b : tensor<4xf32> return }
