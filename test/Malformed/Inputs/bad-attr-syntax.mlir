func.func @f() attributes {tile.kernel = } { return }
