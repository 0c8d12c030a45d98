func.func @f(%p: !tile.pointer<f32>) { return }
