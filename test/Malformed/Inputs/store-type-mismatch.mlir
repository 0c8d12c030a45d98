func.func @f(%p: !tile.ptr<f32>, %v: f16) { tile.store %p, %v : !tile.ptr<f32> return }
