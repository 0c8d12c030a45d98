func.func @f() -> i32 attributes {tile.kernel} { %0 = arith.constant 0 : i32 return %0 : i32 }
