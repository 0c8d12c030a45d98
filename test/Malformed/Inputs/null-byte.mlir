func.func @f() { return }
