// A kernel inside a nested module is not a kernel of the input.
module { module { func.func @a() attributes {tile.kernel} { return } } }
