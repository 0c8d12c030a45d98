func.func @f(%a: f32) { %0 = tile.splat %a : f32 -> tensor<4xf32> %0 = tile.splat %a : f32 -> tensor<4xf32> return }
