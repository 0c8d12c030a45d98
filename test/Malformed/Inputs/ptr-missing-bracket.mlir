func.func @f(%p: !tile.ptr<f32) { return }
