func.func @f(%a: tensor<16x16xf16>, %b: tensor<8x16xf16>, %c: tensor<16x16xf32>) { %0 = tile.dot %a, %b, %c : tensor<16x16xf16> * tensor<8x16xf16> -> tensor<16x16xf32> return }
