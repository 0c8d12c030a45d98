//===- PipelineLoads.cpp - Issue a loop's loads one iteration ahead -------===//
//
// In
//   scf.for %i = %lb to %ub step %s {
//     %x = tile.load %p(%i), %m(%i), %o     // addresses from %i and invariants
//     ... use %x ...
//   }
// the load of iteration i+1 is issued at the top of iteration i, so its
// latency overlaps iteration i's compute (a register double buffer):
//   %x0 = tile.load %p(%lb), %m(%lb) & (%lb < %ub), %o
//   scf.for %i = ... iter_args(%x = %x0) {
//     %n  = %i + %s
//     %xn = tile.load %p(%n), %m(%n) & (%n < %ub), %o
//     ... use %x ...
//     scf.yield ..., %xn
//   }
// The bound check is folded into the mask, so the prefetch past the last
// iteration touches no memory. A load whose address comes from another
// pipelined load (a paged tile from its block-table entries) is prefetched
// from that load's prefetched value. Loads whose addresses or masks depend
// on loop-carried values or on ops with side effects stay, and so do all
// loads of a loop whose body may write memory (a store there could write
// what a load moved ahead of it reads).
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Analysis/AxisInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_PIPELINELOADS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// The ops of `loop`'s body that `v` is computed from; fails if any of them
/// is not pure (other than a load already in `pipelined`, whose next value
/// is available when this one is issued) or reads a loop-carried value.
LogicalResult collectSlice(scf::ForOp loop, Value v,
                           const llvm::SetVector<Operation *> &pipelined,
                           llvm::SetVector<Operation *> &slice) {
  if (v == loop.getInductionVar())
    return success();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return success(arg.getOwner()->getParentOp()->isProperAncestor(loop));
  Operation *def = v.getDefiningOp();
  if (!loop->isProperAncestor(def))
    return success(); // invariant
  if (pipelined.contains(def))
    return success();
  if (def->getBlock() != loop.getBody() || !isPure(def) ||
      def->getNumRegions() != 0)
    return failure();
  if (slice.contains(def))
    return success();
  for (Value operand : def->getOperands())
    if (failed(collectSlice(loop, operand, pipelined, slice)))
      return failure();
  slice.insert(def);
  return success();
}

/// True if `load`'s value reaches a tile.dot operand directly or through a
/// tile.trans.
/// The dot `op`'s value reaches as an operand (directly, or through a
/// transpose and a conversion of fp8, which is staged as bytes), and the
/// value that reaches it; null when there is none.
std::pair<DotOp, Value> dotFed(Operation *op, int depth = 0) {
  for (Operation *user : op->getUsers()) {
    if (auto dot = dyn_cast<DotOp>(user))
      return {dot, op->getResult(0)};
    if (depth < 2 && isa<TransOp, arith::ExtFOp>(user))
      if (auto fed = dotFed(user, depth + 1); fed.first)
        return fed;
  }
  return {};
}

bool feedsDot(LoadOp load) { return dotFed(load).first != nullptr; }

/// True if no two warps will read the same elements of the fp8 operand
/// `load` feeds: quire-async-copies converts a staged fp8 operand where it
/// reads it, so it stages one only then. Predicts quire-assign-layouts'
/// warp split of the accumulator: one warp, or an operand whose dot is too
/// small along its other dimension for the warps to split it.
bool fp8OperandUnreplicated(LoadOp load, unsigned numWarps) {
  auto [dot, operand] = dotFed(load);
  if (!dot)
    return false;
  if (numWarps == 1)
    return true;
  int64_t m = dot.getType().getDimSize(0), n = dot.getType().getDimSize(1);
  return operand == dot.getA() ? n < 16 : m < 32;
}

/// True if quire-async-copies will be able to stage `load`, as far as the
/// IR before layouts tells: a 2-D tile of 16-bit or fp8 elements, `other`
/// absent or zero, and runs of at least 4 bytes along the last dimension (where
/// quire-assign-layouts puts a loaded tile's consecutive elements) that
/// AxisInfo proves contiguous, aligned and under a uniform mask. A dot
/// operand it cannot stage is better prefetched in registers than not at
/// all.
bool stageable(LoadOp load, const AxisInfoAnalysis &info, bool tma) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2)
    return false;
  Type elt = type.getElementType();
  bool fp8 = isFp8Type(elt);
  if (!fp8 && (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() != 16))
    return false;
  if (Value other = load.getOther())
    if (!matchPattern(other, m_AnyZeroFloat()) &&
        !matchPattern(other, m_Zero()))
      return false;
  // A tensor map's block: TMA stages it whatever its runs' width.
  if (tma && !fp8 && load.getPtr().getDefiningOp<TensorMapBlockOp>())
    return true;
  unsigned vec = accessVectorWidth(info, load.getPtr(), load.getMask(),
                                   type.getElementType(), /*dim=*/1,
                                   /*run=*/8);
  return vec * (fp8 ? 1 : 2) >= 4;
}

/// Adds `load` and every op of `loop`'s body its pointers and mask are
/// computed from to `ops`.
void addressSources(scf::ForOp loop, LoadOp load,
                    llvm::SetVector<Operation *> &ops) {
  SmallVector<Operation *> work{load};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (op->getBlock() != loop.getBody() || !ops.insert(op))
      continue;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp())
        work.push_back(def);
  }
}

/// Re-emits the slice and the load at `b` through `map` (which maps the
/// induction variable and the loads emitted before), masked by `inBounds`
/// (an i1 scalar).
Value emitLoad(OpBuilder &b, LoadOp load, ArrayRef<Operation *> slice,
               IRMapping &map, Value inBounds) {
  cloneSlice(b, slice, map);
  return emitGuardedLoad(b, load, map, inBounds);
}

struct PipelineLoadsPass
    : public mlir::quire::tile::impl::PipelineLoadsBase<PipelineLoadsPass> {
  using PipelineLoadsBase::PipelineLoadsBase;

  void runOnOperation() override {
    if (!isNumWarps(numWarps)) {
      getOperation().emitError()
          << "quire-pipeline-loads: num-warps must be a power of two in "
             "[1, 32], got "
          << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      auto func = loop->getParentOfType<func::FuncOp>();
      if (func && isKernel(func))
        loops.push_back(loop);
    });
    // The facts of the input: a loop's body is still as it was when it is
    // pipelined (inner loops go first and only the loop itself is rebuilt).
    AxisInfoAnalysis info(getOperation());
    for (scf::ForOp loop : loops)
      pipeline(loop, info);
  }

  void pipeline(scf::ForOp loop, const AxisInfoAnalysis &info) {
    // Iteration i+1's loads move above iteration i's stores: only loads
    // from kernel arguments the loop does not store through (distinct
    // arguments are taken not to overlap, as Triton's pipelining takes
    // them; see the pass description).
    SmallVector<Value> stored;
    if (!loop.getInductionVar().getType().isSignlessInteger() ||
        loop.getUnsignedCmp() || !storedArguments(loop, stored))
      return;
    // Loads of the body itself (not of nested regions), in program order; a
    // load may use the value of one pipelined before it (a block-table
    // entry, say): its prefetch then uses that load's prefetched value.
    SmallVector<std::pair<LoadOp, SmallVector<Operation *>>> loads;
    llvm::SetVector<Operation *> pipelined;
    int64_t budget = 0;
    // With skipDotOperands, loads feeding dots that quire-async-copies can
    // stage, and the loads their addresses come from (block-table entries),
    // are quire-async-copies'.
    llvm::SetVector<Operation *> skipped;
    if (skipDotOperands)
      for (auto load : loop.getBody()->getOps<LoadOp>())
        if (feedsDot(load) && stageable(load, info, tmaOperands) &&
            (!isFp8Type(getElementTypeOrSelf(load.getType())) ||
             fp8OperandUnreplicated(load, numWarps)))
          addressSources(loop, load, skipped);
    for (auto load : loop.getBody()->getOps<LoadOp>()) {
      if (skipped.contains(load))
        continue;
      if (!stored.empty()) {
        Value root = pointerRoot(load.getPtr());
        if (!root || llvm::is_contained(stored, root))
          continue;
      }
      llvm::SetVector<Operation *> slice;
      if (failed(collectSlice(loop, load.getPtr(), pipelined, slice)) ||
          (load.getMask() &&
           failed(collectSlice(loop, load.getMask(), pipelined, slice))) ||
          (load.getOther() &&
           failed(collectSlice(loop, load.getOther(), pipelined, slice))))
        continue;
      // Registers per thread the carried value takes.
      int64_t regs = 1;
      if (auto t = dyn_cast<RankedTensorType>(load.getType())) {
        int64_t bits = t.getNumElements() *
                       std::max(8u, t.getElementType().getIntOrFloatBitWidth());
        regs = llvm::divideCeil(bits, 32 * 32 * int64_t(numWarps));
      }
      if (budget + regs > maxRegisters)
        continue;
      budget += regs;
      loads.push_back({load, inBodyOrder(loop, slice)});
      pipelined.insert(load);
    }
    // Worth it only when a tile is among them.
    bool anyTile = llvm::any_of(loads, [](auto &l) {
      return isa<RankedTensorType>(l.first.getType());
    });
    if (!anyTile)
      return;
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();

    // The first iteration's loads, before the loop.
    OpBuilder before(loop);
    Value firstIn =
        arith::CmpIOp::create(before, loc, arith::CmpIPredicate::slt, lb, ub);
    IRMapping pre;
    pre.map(loop.getInductionVar(), lb);
    SmallVector<Value> inits;
    for (auto &[load, slice] : loads)
      inits.push_back(emitLoad(before, load, slice, pre, firstIn));

    // The next iteration's loads, at the top of the body.
    OpBuilder top = OpBuilder::atBlockBegin(loop.getBody());
    Value next = arith::AddIOp::create(top, loc, loop.getInductionVar(), step);
    Value nextIn =
        iterationRuns(top, loc, loop.getInductionVar(), step, 1, ub,
                      /*ivRuns=*/true);
    IRMapping ahead;
    ahead.map(loop.getInductionVar(), next);
    SmallVector<Value> nexts;
    for (auto &[load, slice] : loads)
      nexts.push_back(emitLoad(top, load, slice, ahead, nextIn));

    // Carry them: the body uses the value loaded one iteration earlier.
    IRRewriter rewriter(loop.getContext());
    auto yieldNexts = [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
      return SmallVector<Value>(nexts);
    };
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, inits,
        /*replaceInitOperandUsesInLoop=*/false, yieldNexts);
    if (failed(grown))
      return;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    unsigned first = newLoop.getNumRegionIterArgs() - loads.size();
    for (unsigned i = 0; i < loads.size(); ++i) {
      LoadOp load = loads[i].first;
      load.getResult().replaceAllUsesWith(
          newLoop.getRegionIterArgs()[first + i]);
      load.erase();
    }
  }
};

} // namespace
