//===- Barriers.h - Barriers of the tile-to-LLVM patterns -------*- C++ -*-===//
//
// The lowerings ask for barriers around their shared-memory accesses
// (`barrier`); once every op is lowered, `placeBarriers` replaces those by
// the ones the accesses actually need, and keeps the barriers a kernel asks
// for itself (tile.barrier). Internal to the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_LIB_CONVERSION_TILETOLLVM_BARRIERS_H
#define QUIRE_LIB_CONVERSION_TILETOLLVM_BARRIERS_H

#include "Utility.h"

namespace mlir::quire::tilellvm {

/// Marks the barriers the lowerings ask for (removed by placeBarriers).
constexpr llvm::StringLiteral kAutoBarrierAttr = "quire.requested_barrier";

/// A barrier a lowering asks for; `placeBarriers` replaces these by the
/// ones the shared-memory accesses actually need.
void barrier(OpBuilder &b, Location loc);

/// After the tile ops are lowered: drops the lowerings' barriers and inserts
/// one before every shared-memory access that conflicts (read after write,
/// write after read, by slot) with an access since the last barrier, through
/// loops (to a fixed point) and branches. Barriers of their own (those of
/// tile.barrier and tile.async_wait) stay and end what is pending. Removes
/// the slot tags of the shared-memory addresses (kSlotAttr) it reads.
void placeBarriers(ModuleOp module);

/// Marks a barrier every thread of the CTA takes, producer warps included
/// (the one after a tile.tma_init).
constexpr llvm::StringLiteral kAllThreadsAttr = "quire.all_threads";
/// On a kernel's llvm.func: the warps beyond the consumers' (see
/// tile.producer_warps).
constexpr llvm::StringLiteral kProducerWarpsAttr = "quire.producer_warps";

/// In kernels with producer warps: every barrier but those marked
/// kAllThreadsAttr becomes named barrier 1 of the consumer warps'
/// `consumerWarps` * 32 threads (the producer warps take no part in them).
void consumerBarriers(ModuleOp module, unsigned consumerWarps);

/// Marks a barrier that only some warps reach at this instruction, the
/// others at another (tile.async_wait unaligned).
constexpr llvm::StringLiteral kUnalignedAttr = "quire.unaligned";

/// After placeBarriers and consumerBarriers: the barriers marked
/// kUnalignedAttr become PTX `barrier.sync 0` (bar.sync is
/// barrier.sync.aligned, which every thread of the CTA must reach at the
/// same instruction).
void unalignedBarriers(ModuleOp module);

/// tile.barrier.
void populateBarrierPatterns(LLVMTypeConverter &converter,
                             RewritePatternSet &patterns);

} // namespace mlir::quire::tilellvm

#endif // QUIRE_LIB_CONVERSION_TILETOLLVM_BARRIERS_H
