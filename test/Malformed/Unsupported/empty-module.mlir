// An empty module: nothing to compile.
module {}
