func.func @f(%p: !tile.ptr<!tile.ptr<f32>>) { return }
