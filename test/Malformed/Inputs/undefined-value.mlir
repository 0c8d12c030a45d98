func.func @f() { %0 = tile.splat %x : f32 -> tensor<4xf32> return }
