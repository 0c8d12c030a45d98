func.func @f() { %0 = arith.constant dense<[1.0, 2.0]> : tensor<4xf32> return }
