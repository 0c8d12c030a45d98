//===- Passes.h - Tile dialect transformations ------------------*- C++ -*-===//

#ifndef QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quire::tile {

#define GEN_PASS_DECL
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::quire::tile

#endif // QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H
