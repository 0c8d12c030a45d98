func.func @f(%p: f32) { %0 = tile.load %p : f32 return }
