//===- EarlyDots.cpp - Issue a staged loop's first wgmma dot early --------===//
//
// In a loop staged by quire-async-copies for wgmma, the first dot (scores
// S = Q K^T: A loop-invariant registers, B a staged stage, a loop-invariant
// accumulator) of iteration i + 1 is issued asynchronously at the top of
// iteration i and retired at its end, so the tensor cores compute it while
// iteration i runs its softmax on the scores the iteration before issued.
// The first iteration's scores come from a synchronous copy of the dot
// before the loop. The early dots' loop-invariant register A (the query)
// moves to shared memory, stored once, to make room for the scores in
// flight. Loops whose copies producer warps issue (quire-warp-specialize)
// get the same transformation with the mbarrier wait of iteration i + 1's
// stage before the early dot. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_EARLYDOTS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// The loop's early-issue candidate: its first warpgroup_dot, when the
/// loop has the shape quire-async-copies gives a wgmma-staged loop with the
/// default schedule (or quire-warp-specialize's consumer loop) and the dot
/// qualifies; its loop-top wait (or the mbarrier wait for its B); the
/// stage block argument; copies per iteration.
struct Candidate {
  WarpgroupDotOp dot;
  AsyncWaitOp wait;
  /// The consumer loop of producer warps: the wait for the dot's B stage.
  TmaWaitOp full;
  BlockArgument stage;
  int64_t stages, perIter;
  /// Copies (commit groups) of an iteration issued after the one of the
  /// dot's B: they may stay in flight when the dot's B has landed.
  int64_t after;
};

/// quire-warp-specialize's consumer loop: no copies, an mbarrier wait
/// (`tile.tma_wait {async_proxy}`) on the first dot's B stage before it,
/// and a release of the stage, 3 or more stages. The producer refills a
/// stage only once it is released, so iteration i + 1's stage is never the
/// one refilled while iteration i runs; but with 2 stages its fill starts
/// only when iteration i - 1 releases that stage, and the early dot waits
/// for the whole copy (docs/passes.md, quire-early-dots).
std::optional<Candidate> matchProducerFed(scf::ForOp loop) {
  Block *body = loop.getBody();
  WarpgroupDotOp first;
  TmaWaitOp full;
  bool released = false;
  // (Not where the consumers clear rows of a stage after its wait: the
  // early dot would read the stage before the clear.)
  if (clearsRows(body))
    return std::nullopt;
  for (Operation &op : *body) {
    if (isa<AsyncCopyOp, AsyncWaitOp, WarpgroupWaitOp>(op))
      return std::nullopt;
    released |= isa<TmaReleaseOp>(op);
    if (auto w = dyn_cast<TmaWaitOp>(op); w && !first && w.getAsyncProxy())
      full = w;
    if (auto d = dyn_cast<WarpgroupDotOp>(op)) {
      if (d.getAsync())
        return std::nullopt;
      if (!first)
        first = d;
    }
  }
  if (!first || !full || !released || loop.getUnsignedCmp() ||
      first.getStages() < 3 || full.getBuffer() != first.getBBuffer() ||
      full.getStage() != first.getBStage() ||
      full.getStages() != first.getStages())
    return std::nullopt;
  BlockArgument stage = stageOfInvariantDot(loop, first);
  if (!stage)
    return std::nullopt;
  return Candidate{first, AsyncWaitOp(), full, stage, first.getStages(), 0, 0};
}

std::optional<Candidate> match(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto wait = dyn_cast<AsyncWaitOp>(&body->front());
  if (!wait)
    return matchProducerFed(loop);
  if (!wait.getAsyncProxy())
    return std::nullopt;
  WarpgroupDotOp first;
  SmallVector<AsyncCopyOp> copies;
  for (Operation &op : *body) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op))
      copies.push_back(copy);
    // Async dots (async-wgmma) or a second top-level wait: another
    // schedule than the default one this pass rewrites.
    if (isa<WarpgroupWaitOp>(op) || (isa<AsyncWaitOp>(op) && &op != wait))
      return std::nullopt;
    if (auto d = dyn_cast<WarpgroupDotOp>(op)) {
      if (d.getAsync())
        return std::nullopt;
      if (!first)
        first = d;
    }
  }
  if (!first)
    return std::nullopt;
  int64_t perIter = copies.size();
  // The last copy into the dot's B buffer: the copies after it may stay in
  // flight.
  auto bCopy = llvm::find_if(llvm::reverse(copies), [&](AsyncCopyOp copy) {
    return copy.getBuffer() == first.getBBuffer();
  });
  if (bCopy == copies.rend())
    return std::nullopt;
  int64_t after = bCopy - copies.rbegin();
  int64_t S = first.getStages();
  if (S < 3 || wait.getPending() != (S - 2) * perIter)
    return std::nullopt;
  BlockArgument stage = stageOfInvariantDot(loop, first);
  if (!stage)
    return std::nullopt;
  return Candidate{first, wait, TmaWaitOp(), stage, S, perIter, after};
}

struct EarlyDotsPass
    : public mlir::quire::tile::impl::EarlyDotsBase<EarlyDotsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, Candidate>> work;
    getOperation().walk([&](scf::ForOp loop) {
      auto func = loop->getParentOfType<func::FuncOp>();
      if (!func || !isKernel(func))
        return;
      if (std::optional<Candidate> c = match(loop))
        work.push_back({loop, *c});
    });
    for (auto [loop, c] : work)
      rewrite(loop, c);
    // The early dots' loop-invariant register A, the query, moves to shared
    // memory where quire-async-copies left it in registers
    // (shared-invariant-operands off): the scores issued early need a
    // second tile of registers.
    llvm::SetVector<Value> operands;
    for (auto [loop, c] : work)
      if (Value a = c.dot.getA())
        operands.insert(a);
    for (Value a : operands)
      shareOperandA(a);
  }

  static void rewrite(scf::ForOp loop, Candidate c) {
    Location loc = c.dot.getLoc();
    auto cst = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    // Before the loop: iteration 0's copies, then its dot, synchronously.
    OpBuilder pre(loop);
    Value stage0 = cst(pre, 0);
    Value firstScores;
    if (c.full) {
      // The producer fills stage 0 only if iteration 0 runs, tested as it
      // tests its fills.
      Value runs = iterationRuns(pre, loc, loop.getLowerBound(), loop.getStep(),
                                 0, loop.getUpperBound(),
                                 /*ivRuns=*/false);
      auto guard = scf::IfOp::create(pre, loc, c.dot.getType(), runs,
                                     /*withElseRegion=*/true);
      OpBuilder tb = guard.getThenBodyBuilder();
      TmaWaitOp::create(tb, loc, stage0, cst(tb, 0), c.full.getBufferAttr(),
                        c.full.getStagesAttr(), tb.getUnitAttr());
      auto first = cast<WarpgroupDotOp>(tb.clone(*c.dot));
      first.getBStageMutable().assign(stage0);
      scf::YieldOp::create(tb, loc, first.getResult());
      OpBuilder eb = guard.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, c.dot.getC());
      firstScores = guard.getResult(0);
    } else {
      AsyncWaitOp::create(pre, loc, pre.getI32IntegerAttr(c.wait.getPending()),
                          pre.getUnitAttr());
      auto first = cast<WarpgroupDotOp>(pre.clone(*c.dot));
      first.getBStageMutable().assign(stage0);
      firstScores = first.getResult();
    }

    // The new loop has the body's arguments at the same positions, with the
    // scores appended.
    unsigned stageArg = c.stage.getArgNumber();
    IRRewriter rewriter(loop.getContext());
    Value scores;
    auto grown = loop.replaceWithAdditionalYields(
        rewriter, ValueRange{firstScores},
        /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          scores = args.front();
          return SmallVector<Value>{c.dot.getResult()};
        });
    if (failed(grown))
      return;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    Block *body = newLoop.getBody();
    Operation *yield = body->getTerminator();
    Value stage = body->getArgument(stageArg);
    // This iteration reads the scores the one before issued.
    c.dot.getResult().replaceUsesWithIf(
        scores, [&](OpOperand &use) { return use.getOwner() != yield; });
    OpBuilder b(loop.getContext());
    arith::SelectOp next;
    if (c.full) {
      // Iteration i + 1's dot after the wait for its stage, which the
      // producer fills only if that iteration runs. In the last iteration
      // the dot reads the stage unwaited (nothing refills it before the
      // loop ends) and its result is unused.
      b.setInsertionPointAfter(c.full);
      next = nextStage(b, loc, stage, c.stages);
      Value phase = nextPhase(b, loc, next, c.full.getPhase());
      Value runs =
          iterationRuns(b, loc, newLoop.getInductionVar(), newLoop.getStep(), 1,
                        newLoop.getUpperBound(), /*ivRuns=*/true);
      auto guard = scf::IfOp::create(b, loc, TypeRange(), runs,
                                     /*withElseRegion=*/false);
      OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
      TmaWaitOp::create(gb, loc, next, phase, c.full.getBufferAttr(),
                        c.full.getStagesAttr(), gb.getUnitAttr());
      c.dot->moveAfter(guard);
    } else {
      // The loop-top wait also completes iteration i + 1's copies up to the
      // dot's B; those issued after it (V, for attention) stay in flight.
      c.wait.setPending((c.stages - 3) * c.perIter + c.after);
      // Iteration i + 1's dot, right after the wait: stage (stage + 1) % S.
      b.setInsertionPointAfter(c.wait);
      next = nextStage(b, loc, stage, c.stages);
      c.dot->moveAfter(next);
    }
    c.dot.getBStageMutable().assign(next.getResult());
    c.dot.setAsync(true);
    // Retired at the end of the iteration (after the other dots, whose own
    // waits already retire it; this wait ties its registers).
    b.setInsertionPoint(yield);
    auto done =
        WarpgroupWaitOp::create(b, loc, ValueRange{c.dot.getResult()},
                                /*after=*/Value(), b.getI32IntegerAttr(0));
    yield->getOpOperands().back().set(done.getResult(0));
  }
};

} // namespace
