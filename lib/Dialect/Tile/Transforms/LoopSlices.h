//===- LoopSlices.h - A loop's loads for another iteration ------*- C++ -*-===//
//
// What quire-pipeline-loads and quire-async-copies share: both issue a
// loop's loads ahead of the iteration that uses them, which is only sound
// for loads of memory the loop does not write (distinct kernel arguments
// are taken not to overlap); the ops a load's address is computed from
// are cloned for another iteration (through an IRMapping of the induction
// variable), and the load is re-issued with its mask and-ed with "that
// iteration exists". Internal to the transforms.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_LIB_DIALECT_TILE_TRANSFORMS_LOOPSLICES_H
#define QUIRE_LIB_DIALECT_TILE_TRANSFORMS_LOOPSLICES_H

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {

/// The kernel argument a pointer (tensor) is computed from through addptr,
/// splat, broadcast, expand_dims and trans, or null.
Value pointerRoot(Value p);

/// Adds to `roots` the kernel arguments the body of `loop` stores through
/// (tile.store, relaxed or releasing atomics); false if it writes memory any
/// other way (an assert, a barrier, a store whose pointer comes from no
/// argument, an atomic that acquires).
bool storedArguments(scf::ForOp loop, SmallVectorImpl<Value> &roots);

/// storedArguments of the ops `ops` (and the ops nested in them).
bool storedArguments(ArrayRef<Operation *> ops, SmallVectorImpl<Value> &roots);

/// The ops of `loop`'s body that `set` contains, in program order.
SmallVector<Operation *> inBodyOrder(scf::ForOp loop,
                                     const llvm::SetVector<Operation *> &set);

/// Clones at `b` the ops of `slice` (single-result, in program order) whose
/// results `map` does not have yet.
void cloneSlice(OpBuilder &b, ArrayRef<Operation *> slice, IRMapping &map);

/// The i1 scalar `cond` splat to the shape and layout of `ptrs` (itself for
/// scalars), and-ed with `mask` when there is one.
Value guardMask(OpBuilder &b, Location loc, Value ptrs, Value mask, Value cond);

/// `load` re-issued at `b` through `map`, its mask and-ed with `cond`; maps
/// the old result to the new one and returns it.
Value emitGuardedLoad(OpBuilder &b, LoadOp load, IRMapping &map, Value cond);

/// The stage after `stage` in a ring of `stages` (i32, 0 <= stage <
/// stages), as the staged loops step their stage argument:
/// select(stage == stages - 1, 0, stage + 1).
arith::SelectOp nextStage(OpBuilder &b, Location loc, Value stage,
                          int64_t stages);

/// Stage (stage + k) % stages of the ring (0 < k < stages), as the staged
/// loops compute the stage their copies refill:
/// select(stage < stages - k, stage + k, stage - (stages - k)). Its
/// condition is whether the ring does not wrap.
arith::SelectOp stageAhead(OpBuilder &b, Location loc, Value stage, int64_t k,
                           int64_t stages);

/// The mbarrier phase of stage `next` (nextStage of a stage whose phase is
/// `phase`): flipped when the ring wraps to stage 0,
/// select(next == 0, phase ^ 1, phase).
arith::SelectOp nextPhase(OpBuilder &b, Location loc, Value next, Value phase);

/// Whether iteration `iv + k * step` of a signed loop whose bound is `ub`
/// runs (k >= 0), also where `iv + k * step` wraps in the loop's type (an
/// upper bound near its maximum). In the loop's width where k * step is
/// known to fit it: for a constant step `iv < ub - k * step` (and that bound
/// not wrapped, a loop-invariant test), for k = 1 `ub - iv >u step`; each
/// and'ed with `iv < ub` unless the caller knows that (`ivRuns`: iv is the
/// loop's induction variable, in its body). Otherwise compared in 64 bits.
/// The pipelining passes guard the copies of later iterations with it.
Value iterationRuns(OpBuilder &b, Location loc, Value iv, Value step, int64_t k,
                    Value ub, bool ivRuns);

/// True if a staged tile of 16-bit `shape`, contiguous along `contig`, can
/// take the swizzled wgmma layout.
bool fitsNvmma(ArrayRef<int64_t> shape, unsigned contig);

/// True if `body` clears rows of a stage TMA filled (tile.tma_zero_rows,
/// quire-warp-specialize's consumers of paged tiles).
bool clearsRows(Block *body);

/// True if `dot`'s A is the same in every iteration of `loop`: registers
/// defined before it, or a one-stage buffer (shareOperandA's).
bool isInvariantA(scf::ForOp loop, WarpgroupDotOp dot);

/// Moves the loop-invariant register A operands of the wgmma dots of every
/// loop of `func` to shared memory (shareOperandA), as FlashAttention-3 and
/// Triton keep the query: ptxas has been seen to give such registers to
/// other values inside the loop, both in loops that spin on mbarriers and
/// in loops that wait on cp.async groups (docs/passes.md, "Loop-invariant A
/// operands of wgmma loops").
void shareInvariantOperands(func::FuncOp func);

/// `stage` as the stage argument of staged loop `loop`, or null: an
/// iteration argument of its body that starts at 0 and steps by one modulo
/// `stages` (the loop yields nextStage of it, as quire-async-copies builds
/// it), so iteration i reads stage i mod `stages`; with `anyStart` it may
/// start at any stage s (iteration i then reads (s + i) mod `stages`).
BlockArgument stageArgument(scf::ForOp loop, Value stage, int64_t stages,
                            bool anyStart = false);

/// The stage argument of `dot` in `loop`, or null: the dot's A invariant
/// (isInvariantA), its accumulator defined before the loop, and its B stage
/// the loop's stageArgument (`anyStart`: quire-warp-specialize's consumers
/// of a persistent loop start it at a tile's first fill).
BlockArgument stageOfInvariantDot(scf::ForOp loop, WarpgroupDotOp dot,
                                  bool anyStart = false);

/// Stores `a`, a loop-invariant 16-bit wgmma A operand, once into a
/// one-stage buffer of its own (the swizzled layout wgmma reads;
/// tile.local_store synchronizes; from the blocked tile it was converted
/// from, if it was) and makes every dot that read it from registers read
/// that buffer instead (no change where `a` has other users or its tile
/// cannot take the swizzled layout).
void shareOperandA(Value a);

/// True if `v` is nextStage(stage, stages).
bool isNextStage(Value v, Value stage, int64_t stages);

/// What the consumer warpgroups' turns (tile.warpgroup_turn start and end)
/// bracket for the dots of staged loop `loop`: the loop itself, or the
/// outermost scf.for around it (a persistent kernel's tiles). Each
/// iteration of that loop takes the same turns in both warpgroups, so the
/// alternation carries from one to the next, whereas a start and an end in
/// every iteration could let one warpgroup's next start pass the other's
/// end (the start is an arrival on the barrier the end waits on).
Operation *turnsBracket(scf::ForOp loop);

/// True if `v` is stageAhead(stage, k, stages).
bool isStageAhead(Value v, Value stage, int64_t k, int64_t stages);

} // namespace mlir::quire::tile

#endif // QUIRE_LIB_DIALECT_TILE_TRANSFORMS_LOOPSLICES_H
