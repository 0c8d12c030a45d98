func.func @f(%a: tensor<4xf32>) attributes {tile.kernel} { return }
