//===- Passes.h - Tile dialect transformations ------------------*- C++ -*-===//

#ifndef QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quire::tile {

#define GEN_PASS_DECL
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"

/// True if `numWarps` is a warp count the passes take: a power of two in
/// [1, 32].
inline bool isNumWarps(int64_t numWarps) {
  return numWarps >= 1 && numWarps <= 32 && llvm::isPowerOf2_64(numWarps);
}

/// True if quire-warp-specialize's producer-registers takes `registers`: 0
/// (the pass's estimate) or what setmaxnreg takes, a multiple of 8 in
/// [24, 256].
inline bool isProducerRegisters(int64_t registers) {
  return registers == 0 ||
         (registers >= 24 && registers <= 256 && registers % 8 == 0);
}

} // namespace mlir::quire::tile

#endif // QUIRE_DIALECT_TILE_TRANSFORMS_PASSES_H
