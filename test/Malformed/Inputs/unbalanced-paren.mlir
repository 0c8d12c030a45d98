func.func @f(%a: f32 { return }
