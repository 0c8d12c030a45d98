func.func @f(%p: !tile.ptr<f32>, %o: f32) { %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32 return }
