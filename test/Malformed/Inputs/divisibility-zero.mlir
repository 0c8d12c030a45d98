func.func @f(%p: !tile.ptr<f32> {tile.divisibility = 0 : i32}) attributes {tile.kernel} { return }
