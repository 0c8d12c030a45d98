//===- Tile.h - The tile dialect --------------------------------*- C++ -*-===//
//
// Public header of the tile dialect: the dialect class, `!tile.ptr`, the op
// classes, and small type helpers the ops' constraints use.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_TILE_H
#define QUIRE_DIALECT_TILE_IR_TILE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "quire/Dialect/Tile/IR/TileDialect.h.inc"
#include "quire/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "quire/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "quire/Dialect/Tile/IR/TileAttrs.h.inc"

namespace mlir::quire::tile {

/// `!tile.ptr<T>` -> `T`; `tensor<...x!tile.ptr<T>>` -> `tensor<...xT>`.
/// Any other type is returned unchanged (the op verifier then reports it).
Type getPointeeType(Type type);

/// `tensor<...xT>` -> `tensor<...xi1>`; a scalar -> `i1`.
Type getI1SameShape(Type type);

/// True if an atomic of semantic `sem` orders the program's later accesses
/// after it (acquire, acq_rel).
inline bool acquires(MemSemantic sem) {
  return sem == MemSemantic::Acquire || sem == MemSemantic::AcqRel;
}

/// True if an atomic of semantic `sem` orders the program's earlier accesses
/// before it (release, acq_rel).
inline bool releases(MemSemantic sem) {
  return sem == MemSemantic::Release || sem == MemSemantic::AcqRel;
}

/// True if `func` is a kernel entry point (`func.func` with `tile.kernel`).
bool isKernel(func::FuncOp func);

/// Gives `op` tile.thread_offset `offset` (quire-warp-specialize's producer
/// clones) and tags its location with it, so the ops a rewrite or the
/// lowering makes from it carry the offset too (threadOffsetOf).
void setThreadOffset(Operation *op, int64_t offset);

/// The thread offset `loc` is tagged with (setThreadOffset), looking into
/// fused locations; 0 if none.
int64_t threadOffsetOf(Location loc);

/// True for the fp8 element types of tile tensors (Tile_Float: f8E4M3FN,
/// f8E5M2), which the GPU converts with cvt e4m3x2/e5m2x2 on sm_89+.
inline bool isFp8Type(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

/// True if wgmma computes an M x N x K dot on `warps` warps that all split M
/// (#tile.mma [warps, 1]): warpgroups of 4 warps, 16 rows per warp
/// (repeating), m64nNk16 steps with N a multiple of 8 up to 256.
bool isWarpgroupShape(int64_t m, int64_t n, int64_t k, int64_t warps);

/// True if TMA may copy a `rows` x `cols` tile of `bits`-bit tokens in
/// boxes of R = min(page_size, rows) tokens (tile.tma_copy_pages): 16-bit
/// elements, lines of S = min(128, row bytes) >= 32 bytes, whole boxes
/// (R divides rows and page_size, at most 256), each filling whole
/// 1024-byte periods of the S-byte swizzle (R * S a multiple of 1024).
bool tmaPagesFit(int64_t rows, int64_t cols, int64_t bits, int64_t pageSize);

/// Fails with a located error unless every tensor operand and result of
/// `op` has a static shape without zero-size dimensions: tile tensors live
/// in registers, a fixed number per thread.
LogicalResult verifyTensorShapes(Operation *op);

/// The op trait every tile op carries (Tile_TensorShapes in ODS).
template <typename ConcreteType>
class TensorShapesTrait
    : public ::mlir::OpTrait::TraitBase<ConcreteType, TensorShapesTrait> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorShapes(op);
  }
};

} // namespace mlir::quire::tile

#define GET_OP_CLASSES
#include "quire/Dialect/Tile/IR/TileOps.h.inc"

#endif // QUIRE_DIALECT_TILE_IR_TILE_H
