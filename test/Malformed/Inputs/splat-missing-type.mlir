func.func @f(%a: f32) { %0 = tile.splat %a return }
