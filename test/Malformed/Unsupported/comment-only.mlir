// Only a comment: nothing to compile.
