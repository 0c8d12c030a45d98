//===- WarpSpecialize.cpp - A producer warp for TMA copies -----------------===//
//
// A kernel whose TMA-staged loop (quire-async-copies with tma and
// tma-release) is at the top level of its body
//   <scalar and index ops>
//   tile.tma_init ...                     (the loop's mbarriers)
//   tile.tma_copy ... into stage k        (prologue, k < ahead)
//   scf.for %i ... iter_args(..., %stage, %phase) {tile.tma_ahead = ahead}
//     tile.tma_acquire; tile.tma_copy (iteration i + ahead); tile.tma_wait
//     ... dots; tile.tma_release ...
//   <the rest>
// becomes, with one warp more (tile.producer_warps = 1):
//   <scalar and index ops>
//   tile.tma_init ...
//   scf.if (tile.is_producer) {
//     scf.for %j ... iter_args(%s = 0, %ph = 0) {
//       tile.tma_acquire stage %s phase %ph ^ 1 {producer}
//       tile.tma_copy (iteration j) into stage %s {producer}
//     }
//   } else {
//     scf.for %i ... { tile.tma_wait; ... dots; tile.tma_release }
//     <the rest>
//   }
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_WARPSPECIALIZE
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// True for an op the producer warp may run before the split: it touches no
/// memory and its lowering needs no shared memory, no barrier and no
/// warp-dependent layout work beyond index arithmetic (scalars, constants,
/// index tensors; not a reduction of a tensor to a scalar, which goes
/// through shared memory).
bool runsAnywhere(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  if (llvm::none_of(op->getResultTypes(), isTensor) &&
      llvm::none_of(op->getOperandTypes(), isTensor))
    return true;
  return isa<arith::ConstantOp, SplatOp, RangeOp, ExpandDimsOp, BroadcastOp,
             AddPtrOp, TensorMapBlockOp>(op) ||
         (isa<arith::ArithDialect>(op->getDialect()) &&
          !isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          llvm::all_of(op->getResultTypes(), isTensor));
}

/// True if `op` (run by the consumers only once split off) writes memory,
/// synchronizes or has effects the pass cannot see: the producer's copies
/// would no longer come after it.
bool ordersCopies(Operation *op) {
  if (isa<TmaInitOp, TmaCopyOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isMemoryEffectFree(op);
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Allocate>() ||
         effects.hasEffect<MemoryEffects::Free>();
}

/// The ops of `loop`'s body that the copies' offsets are computed from, in
/// body order; fails on loop-carried values and on ops with effects.
FailureOr<SmallVector<Operation *>> bodySlice(scf::ForOp loop,
                                              ArrayRef<Operation *> copies) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work;
  for (Operation *op : copies)
    llvm::append_range(work, cast<TmaCopyOp>(op).getOffsets());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar())
        return failure();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != loop.getBody() || slice.contains(def))
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return failure();
    slice.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  return inBodyOrder(loop, slice);
}

/// The registers per thread a producer warpgroup keeps (setmaxnreg's
/// least).
constexpr int32_t kProducerRegisters = 24;

struct WarpSpecializePass
    : public mlir::quire::tile::impl::WarpSpecializeBase<WarpSpecializePass> {
  using WarpSpecializeBase::WarpSpecializeBase;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isKernel(func) && !func.isExternal())
        specialize(func);
  }

  void specialize(func::FuncOp func) {
    Block &body = func.getBody().front();
    scf::ForOp loop;
    for (Operation &op : body)
      if (auto f = dyn_cast<scf::ForOp>(op);
          f && f->hasAttr(TileDialect::getTmaAheadAttrName())) {
        if (loop)
          return; // one loop per kernel
        loop = f;
      }
    // A producer warpgroup where asked and the consumers are two or more
    // whole warpgroups (with one, every thread of the CTA may hold 255
    // registers already), else a warp. The CTA takes at most 1024 threads;
    // unsigned loops are not staged.
    int64_t consumerWarps = getNumWarps(func);
    int32_t warpgroup = kWarpsPerWarpgroup;
    int32_t producers = producerWarpgroup && consumerWarps % warpgroup == 0 &&
                                consumerWarps >= 2 * warpgroup
                            ? warpgroup
                            : 1;
    if (!loop || (consumerWarps + producers) * kWarpSize > 1024 ||
        loop.getUnsignedCmp())
      return;
    int64_t ahead =
        loop->getAttrOfType<IntegerAttr>(TileDialect::getTmaAheadAttrName())
            .getInt();
    // The loop's copies and acquires; every TMA op of the kernel is the
    // loop's (its init before it, its inval after).
    SmallVector<Operation *> copies;
    TmaAcquireOp acquire;
    for (Operation &op : *loop.getBody()) {
      if (isa<TmaCopyOp>(op))
        copies.push_back(&op);
      else if (auto a = dyn_cast<TmaAcquireOp>(op)) {
        if (acquire)
          return;
        acquire = a;
      }
    }
    if (copies.empty() || !acquire)
      return;
    FailureOr<SmallVector<Operation *>> slice = bodySlice(loop, copies);
    if (failed(slice))
      return;
    // Before the loop: what the producer needs (the loop's bounds, the
    // copies' operands from before it) stays before the split, and must be
    // ops any warp may run; the rest moves into the consumers' branch. The
    // prologue's copies go (the producer issues every iteration's).
    llvm::SetVector<Operation *> needed;
    SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound(),
                            loop.getStep()};
    for (Operation *op : llvm::concat<Operation *const>(*slice, copies))
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && def->getBlock() == &body)
          work.push_back(v);
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body || !needed.insert(def))
        continue;
      work.append(def->operand_begin(), def->operand_end());
    }
    SmallVector<Operation *> prologue, consumerOnly;
    for (Operation &op : body) {
      if (&op == loop.getOperation())
        break;
      if (isa<TmaCopyOp>(op))
        prologue.push_back(&op);
      else if (ordersCopies(&op) ||
               (needed.contains(&op) && !runsAnywhere(&op)))
        return;
      else if (!needed.contains(&op) && !isa<TmaInitOp>(op))
        consumerOnly.push_back(&op);
    }
    bool nested = false;
    func.walk([&](Operation *op) {
      if (isa<TmaCopyOp, TmaAcquireOp, TmaInitOp>(op) &&
          op->getParentOp() != loop && op->getBlock() != &body)
        nested = true;
    });
    if (nested)
      return;

    Location loc = loop.getLoc();
    OpBuilder b(loop);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    int32_t stages = acquire.getStages();
    Value isProducer = IsProducerOp::create(b, loc);
    auto split = scf::IfOp::create(b, loc, TypeRange(), isProducer,
                                   /*withElseRegion=*/true);

    // The producer: every iteration's copies, each after its stage's
    // release.
    b.setInsertionPointToStart(split.thenBlock());
    if (producers == warpgroup)
      SetMaxRegistersOp::create(b, loc, RegisterAction::Dec,
                                kProducerRegisters);
    Value zero = cst(0);
    auto producerLoop = scf::ForOp::create(
        b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
        ValueRange{zero, zero});
    {
      OpBuilder pb = OpBuilder::atBlockBegin(producerLoop.getBody());
      Value stage = producerLoop.getRegionIterArgs()[0];
      Value phase = producerLoop.getRegionIterArgs()[1];
      auto pc = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(pb, loc, pb.getI32IntegerAttr(v));
      };
      // The consumer loop's copies are of iteration i + ahead * step.
      IRMapping map;
      Value back = arith::MulIOp::create(pb, loc, loop.getStep(), pc(ahead));
      map.map(loop.getInductionVar(),
              arith::SubIOp::create(pb, loc, producerLoop.getInductionVar(),
                                    back));
      // Fill f of a stage waits for release f - 1: parity of this fill's
      // phase flipped (a fresh mbarrier passes phase 1).
      Value parity = arith::XOrIOp::create(pb, loc, phase, pc(1));
      TmaAcquireOp::create(pb, acquire.getLoc(), stage, parity,
                           acquire.getBufferAttr(), acquire.getStagesAttr(),
                           pb.getUnitAttr());
      cloneSlice(pb, *slice, map);
      Value yes = arith::ConstantOp::create(pb, loc, pb.getBoolAttr(true));
      for (Operation *op : copies) {
        auto copy = cast<TmaCopyOp>(op);
        SmallVector<Value> offsets;
        for (Value o : copy.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        TmaCopyOp::create(pb, copy.getLoc(), copy.getTensormap(), offsets,
                          stage, yes, copy.getBlockAttr(),
                          copy.getBufferAttr(), copy.getContigAttr(),
                          copy.getStagesAttr(), copy.getTransposedAttr(),
                          pb.getUnitAttr());
      }
      Value next = nextStage(pb, loc, stage, stages);
      scf::YieldOp::create(pb, loc,
                           ValueRange{next, nextPhase(pb, loc, next, phase)});
    }

    // The consumers: the loop without its copies, and the rest of the
    // kernel.
    Block *consumers = split.elseBlock();
    for (Operation *op : prologue)
      op->erase();
    for (Operation *op : consumerOnly)
      op->moveBefore(consumers->getTerminator());
    Operation *terminator = body.getTerminator();
    for (Operation *op = loop, *next; op != terminator; op = next) {
      next = op->getNextNode();
      op->moveBefore(consumers->getTerminator());
    }
    for (Operation *op : copies)
      op->erase();
    acquire->erase();
    loop->removeAttr(TileDialect::getTmaAheadAttrName());
    if (producers == warpgroup) {
      // Each thread starts with its share of the 64K registers (the
      // lowering makes it one CTA per SM, .minnctapersm 1, so ptxas starts
      // the kernel there; at least 384 threads, so below 255); the
      // consumers take what the producer gives back on top of theirs (a
      // multiple of 8, at most 256). setmaxnreg.inc waits for registers the
      // CTA's pool has, so they must not ask for more.
      int64_t threads = (consumerWarps + producers) * kWarpSize;
      int64_t left = registersPerThread(threads) * threads -
                     producers * kWarpSize * int64_t(kProducerRegisters);
      int64_t each = std::min<int64_t>(
          256, left / (consumerWarps * kWarpSize) / 8 * 8);
      OpBuilder cb = OpBuilder::atBlockBegin(consumers);
      SetMaxRegistersOp::create(cb, loc, RegisterAction::Inc, each);
    }
    func->setAttr(TileDialect::getProducerWarpsAttrName(),
                  b.getI32IntegerAttr(producers));
  }
};

} // namespace
