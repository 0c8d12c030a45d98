@@@ not mlir at all
