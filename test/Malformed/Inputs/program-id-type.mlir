func.func @f() { %0 = tile.program_id x : i64 return }
