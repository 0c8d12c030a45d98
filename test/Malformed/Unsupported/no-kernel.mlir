// A function without tile.kernel: nothing to compile.
func.func @f(%x: i32) { return }
