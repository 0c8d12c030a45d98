//===- OverlapSoftmax.cpp - Overlap the softmax with the last P V ---------===//
//
// In a consumer loop of quire-warp-specialize with two wgmma dots (the
// scores S = Q K^T and the output O = P V + alpha O), the P V of
// iteration i - 1 is issued in iteration i right after S, both async: the
// scores are waited for with P V still running, so the tensor cores
// compute P V during the softmax (FlashAttention-3's intra-warpgroup
// overlap). The first iteration's scores and softmax are peeled before
// the loop, the last P V after it. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Dialect/Tile/IR/Layout.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_OVERLAPSOFTMAX
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// A consumer loop of the form
///   tma_wait K[%stage]; %s = dot(%q, K[%stage], 0)
///   ...softmax(%s): %p, alpha; %c = rescale(%acc, alpha)...
///   tma_wait V[%stage]; %o = dot(%p, V[%stage], %c); tma_release %stage
///   yield ..., %o, ...
struct Candidate {
  WarpgroupDotOp scores, output;
  TmaWaitOp fullK, fullV;
  /// The release of V's stage; of K's where each buffer has its own
  /// (quire-warp-specialize's), else null (`release` frees both).
  TmaReleaseOp release, releaseK;
  BlockArgument stage, acc;
  /// The ops between the dots that read %acc (the rescale), in body order.
  SmallVector<Operation *> rescale;
  /// The yield position of the output dot.
  unsigned accIndex;
};

std::optional<Candidate> match(scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<WarpgroupDotOp> dots;
  SmallVector<TmaWaitOp> fulls;
  SmallVector<TmaReleaseOp> releases;
  // (Not where the consumers clear rows of a stage after its wait: the
  // clear would have to move with the wait.)
  if (clearsRows(body))
    return std::nullopt;
  for (Operation &op : *body) {
    if (isa<AsyncCopyOp, AsyncWaitOp, WarpgroupWaitOp>(op))
      return std::nullopt;
    if (auto d = dyn_cast<WarpgroupDotOp>(op)) {
      if (d.getAsync())
        return std::nullopt;
      dots.push_back(d);
    } else if (auto w = dyn_cast<TmaWaitOp>(op)) {
      if (!w.getAsyncProxy())
        return std::nullopt;
      fulls.push_back(w);
    } else if (auto r = dyn_cast<TmaReleaseOp>(op)) {
      releases.push_back(r);
    } else if (op.getNumRegions() &&
               !isa<scf::IfOp>(op)) { // (masks: scf.if of pure ops)
      return std::nullopt;
    }
  }
  if (dots.size() != 2 || fulls.size() != 2 || releases.empty() ||
      releases.size() > 2 || loop.getUnsignedCmp())
    return std::nullopt;
  Candidate c;
  c.scores = dots[0];
  c.output = dots[1];
  c.fullK = fulls[0];
  c.fullV = fulls[1];
  c.release = releases.back();
  if (releases.size() == 2) {
    // One release per buffer, after both dots: K's and V's, in either order.
    c.releaseK = releases.front();
    if (c.releaseK.getBuffer() == c.fullV.getBuffer())
      std::swap(c.release, c.releaseK);
    if (c.releaseK.getBuffer() != c.fullK.getBuffer() ||
        c.release.getBuffer() != c.fullV.getBuffer() ||
        c.releaseK.getStage() != c.release.getStage() ||
        !matchPattern(c.releaseK.getPred(), m_One()) ||
        c.releaseK->isBeforeInBlock(c.output))
      return std::nullopt;
  }
  c.stage = stageOfInvariantDot(loop, c.scores, /*anyStart=*/true);
  if (!c.stage || c.output.getBStage() != c.stage ||
      c.release.getStage() != c.stage || !c.output.getA() ||
      c.output.getAStage())
    return std::nullopt;
  // Order: wait K, S, wait V, P V, release; each wait on its dot's buffer.
  auto before = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  if (!before(c.fullK, c.scores) || !before(c.scores, c.fullV) ||
      !before(c.fullV, c.output) || !before(c.output, c.release) ||
      c.fullK.getStage() != c.stage || c.fullV.getStage() != c.stage ||
      c.fullK.getBuffer() != c.scores.getBBuffer() ||
      c.fullV.getBuffer() != c.output.getBBuffer())
    return std::nullopt;
  // The P V result is only carried, as %acc.
  Operation *yield = body->getTerminator();
  Value o = c.output.getResult();
  if (!o.hasOneUse() || o.getUses().begin()->getOwner() != yield)
    return std::nullopt;
  c.accIndex = o.getUses().begin()->getOperandNumber();
  c.acc = loop.getRegionIterArgs()[c.accIndex];
  // The rescale: every op that reads %acc, transitively, is pure, lies
  // between the dots, and only leads to the output dot's accumulator.
  llvm::SetVector<Operation *> rescale;
  SmallVector<Value> work{c.acc};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (user == c.output && use.get() == c.output.getC())
        continue;
      if (user->getBlock() != body || !isMemoryEffectFree(user) ||
          user->getNumRegions() || !before(c.scores, user) ||
          !before(user, c.output))
        return std::nullopt;
      if (rescale.insert(user))
        work.append(user->result_begin(), user->result_end());
    }
  }
  if (c.output.getC() != c.acc &&
      !rescale.contains(c.output.getC().getDefiningOp()))
    return std::nullopt;
  c.rescale = inBodyOrder(loop, rescale);
  // The query is loop-invariant; P and V's phase are computed by the
  // iteration (not block arguments, which the rewrite replaces).
  if (!c.output.getA().getDefiningOp() ||
      isa<BlockArgument>(c.fullV.getPhase()))
    return std::nullopt;
  return c;
}

/// The row sums of the online softmax in `body`: a carried value
/// `%l * alpha + sum(p)` (an addf of a tile.reduce sum) defined before
/// `before`, or null.
Value rowSums(Block *body, Operation *before) {
  for (Value v : body->getTerminator()->getOperands()) {
    auto add = v.getDefiningOp<arith::AddFOp>();
    if (!add || add->getBlock() != body || !add->isBeforeInBlock(before) ||
        !getElementTypeOrSelf(v.getType()).isF32())
      continue;
    for (Value operand : add->getOperands())
      if (auto sum = operand.getDefiningOp<ReduceOp>();
          sum && sum.getKind() == ReduceKind::Sum)
        return v;
  }
  return Value();
}

/// The ops of `body` after `from` that only compute `p` (the operand P of
/// the output dot, carried by the loop's yield): pure ops without regions
/// each of whose results is used only by the others, by the yield or by the
/// output dot; in body order. (The softmax's exponentials, which the row
/// sums read as well, are not among them.)
SmallVector<Operation *> conversionOfP(Block *body, Value p, Operation *from) {
  Operation *def = p.getDefiningOp();
  if (!def || def->getBlock() != body || !from->isBeforeInBlock(def))
    return {};
  Operation *yield = body->getTerminator();
  llvm::SmallPtrSet<Operation *, 8> chain;
  SmallVector<Operation *> ordered;
  for (Operation *op = def; op != from; op = op->getPrevNode()) {
    if (!isMemoryEffectFree(op) || op->getNumRegions())
      continue;
    // (Used, so an unrelated op without users is not taken.)
    bool only =
        !op->use_empty() && llvm::all_of(op->getUsers(), [&](Operation *user) {
          return chain.contains(user) ||
                 (op == def && user->getBlock() == body &&
                  (user == yield || isa<WarpgroupDotOp>(user)));
        });
    if (op == def && !only)
      return {};
    if (!only)
      continue;
    chain.insert(op);
    ordered.push_back(op);
  }
  std::reverse(ordered.begin(), ordered.end());
  return ordered;
}

/// `turns`: the two consumer warpgroups issue each iteration's dots in turn
/// (tile.warpgroup_turn around them), FlashAttention-3's ping-pong.
/// `early`: K's stage is released as soon as the scores that read it retire
/// (where K and V have releases of their own), so the producer refills it an
/// iteration sooner. `ordered`: the wait for P V, and V's release after it,
/// come after the softmax's row sums (rowSums), not wherever ptxas
/// schedules them. `late`: the ops that only turn the softmax's
/// probabilities into P (their conversion to the dot's operand type and
/// layout) go after the wait for P V, so the new P and the old P in flight
/// are never live at once.
void rewrite(scf::ForOp loop, Candidate &c, bool turns, bool early,
             bool ordered, bool late) {
  Location loc = c.output.getLoc();
  auto turn = [&](OpBuilder &b, TurnAction action) -> Operation * {
    return turns ? WarpgroupTurnOp::create(b, loc, action) : nullptr;
  };
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  MLIRContext *ctx = loop.getContext();
  Value pVal = c.output.getA();
  Value phaseV = c.fullV.getPhase();
  IntegerAttr releaseBuffer = c.release.getBufferAttr();
  UnitAttr releaseProxy = c.release.getAsyncProxyAttr();
  if (c.releaseK && early) {
    // Right after the scores: in the peeled iteration they are synchronous;
    // in the loop the scores' wait goes in before it (below).
    c.releaseK->moveAfter(c.scores);
    OpBuilder kb(c.releaseK);
    c.releaseK.getPredMutable().assign(
        arith::ConstantOp::create(kb, loc, kb.getBoolAttr(true)));
  }

  // Iteration 0's first half before the loop, where it runs: its copies'
  // wait, the scores (synchronous), the softmax and the rescale of the
  // initial accumulator; its P V waits for the loop's next iteration.
  OpBuilder pre(loop);
  // The turns start before the loop, or once before a persistent loop
  // around it (turnsBracket), and end after it.
  Operation *bracket = turnsBracket(loop);
  bool nested = bracket != loop.getOperation();
  auto bracketTurn = [&](TurnAction action) -> Operation * {
    Operation *at = action == TurnAction::Start ? bracket->getPrevNode()
                                                : bracket->getNextNode();
    if (auto t = dyn_cast_or_null<WarpgroupTurnOp>(at);
        nested && t && t.getAction() == action)
      return nullptr; // (another loop in the bracket placed it)
    OpBuilder tb(bracket);
    if (action == TurnAction::End)
      tb.setInsertionPointAfter(bracket);
    return turn(tb, action);
  };
  Operation *start = bracketTurn(TurnAction::Start);
  Value runs = iterationRuns(pre, loc, loop.getLowerBound(), loop.getStep(), 0,
                             loop.getUpperBound(), /*ivRuns=*/false);
  SmallVector<Type> carried(loop.getResultTypes());
  carried.append({pVal.getType(), c.stage.getType(), phaseV.getType()});
  auto peel = scf::IfOp::create(pre, loc, carried, runs,
                                /*withElseRegion=*/true);
  {
    OpBuilder tb = peel.getThenBodyBuilder();
    IRMapping map;
    map.map(loop.getInductionVar(), loop.getLowerBound());
    for (auto [arg, init] :
         llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
      map.map(arg, init);
    for (Operation &op : body->without_terminator()) {
      if (&op == c.fullV || &op == c.output || &op == c.release)
        continue;
      if (&op == c.scores)
        turn(tb, TurnAction::Wait);
      tb.clone(op, map);
      if (&op == c.scores)
        turn(tb, TurnAction::Pass);
    }
    SmallVector<Value> results;
    for (auto [i, v] : llvm::enumerate(yield->getOperands()))
      results.push_back(i == c.accIndex ? map.lookupOrDefault(c.output.getC())
                                        : map.lookupOrDefault(v));
    results.append({map.lookupOrDefault(pVal), map.lookupOrDefault(c.stage),
                    map.lookupOrDefault(phaseV)});
    scf::YieldOp::create(tb, loc, results);
    OpBuilder eb = peel.getElseBodyBuilder();
    SmallVector<Value> inits(loop.getInitArgs());
    // (P of a loop that does not run: zeros.)
    inits.append({arith::ConstantOp::create(
                      eb, loc, cast<TypedAttr>(eb.getZeroAttr(pVal.getType()))),
                  loop.getInitArgs()[c.stage.getArgNumber() - 1],
                  arith::ConstantOp::create(eb, loc, eb.getI32IntegerAttr(0))});
    scf::YieldOp::create(eb, loc, inits);
  }

  // The loop from iteration 1, carrying the previous iteration's P, stage
  // and V phase.
  IRRewriter rewriter(ctx);
  BlockArgument pPrev, stagePrev, phasePrev;
  auto grown = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{peel.getResults().take_back(3)},
      /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        pPrev = args[0];
        stagePrev = args[1];
        phasePrev = args[2];
        // (The body has moved into the new loop: the stage is its
        // argument now.)
        Value stage = args[0].getOwner()->getArgument(c.stage.getArgNumber());
        return SmallVector<Value>{pVal, stage, phaseV};
      });
  if (failed(grown)) {
    peel->erase();
    if (start)
      start->erase();
    return;
  }
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  unsigned n = loop.getNumResults();
  // (`loop` is erased: its results are the new loop's first n.)
  OpBuilder lb(newLoop);
  newLoop.getLowerBoundMutable().assign(arith::AddIOp::create(
      lb, loc, newLoop.getLowerBound(), newLoop.getStep()));
  for (unsigned i = 0; i < n; ++i)
    newLoop.getInitArgsMutable()[i].assign(peel.getResult(i));
  body = newLoop.getBody();
  // (The body moved: its block arguments are the new loop's.)
  c.stage = body->getArgument(c.stage.getArgNumber());
  c.acc = newLoop.getRegionIterArgs()[c.accIndex];

  // Iteration i: S_i, then P V of iteration i - 1 (its stage's wait
  // first), both in flight; the scores retire first.
  OpBuilder b(ctx);
  b.setInsertionPoint(c.scores);
  turn(b, TurnAction::Wait);
  b.setInsertionPointAfter(c.scores);
  TmaWaitOp::create(b, c.fullV.getLoc(), stagePrev, phasePrev,
                    c.fullV.getBufferAttr(), c.fullV.getStagesAttr(),
                    b.getUnitAttr());
  IRMapping pv;
  pv.map(pVal, pPrev);
  pv.map(c.stage, stagePrev);
  pv.map(c.output.getC(), c.acc);
  auto prevDot = cast<WarpgroupDotOp>(b.clone(*c.output, pv));
  prevDot.setAsync(true);
  turn(b, TurnAction::Pass);
  c.scores.setAsync(true);
  auto sWait = WarpgroupWaitOp::create(b, loc, ValueRange{c.scores.getResult()},
                                       /*after=*/Value(),
                                       b.getI32IntegerAttr(1), b.getUnitAttr());
  c.scores.getResult().replaceAllUsesExcept(sWait.getResult(0), sWait);

  // Where P V was: its wait (with `ordered` after the row sums), the
  // release of its stage, then the rescale of the completed accumulator.
  b.setInsertionPoint(c.output);
  Value after = ordered ? rowSums(body, c.output) : Value();
  auto done =
      WarpgroupWaitOp::create(b, loc, ValueRange{prevDot.getResult()}, after,
                              b.getI32IntegerAttr(0), UnitAttr());
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  TmaReleaseOp::create(b, c.release.getLoc(), stagePrev, yes, releaseBuffer,
                       c.release.getStagesAttr(), releaseProxy);
  for (Operation *op : c.rescale)
    op->moveBefore(c.output);
  if (late)
    for (Operation *op : conversionOfP(body, pVal, sWait))
      op->moveBefore(c.output);
  c.acc.replaceUsesWithIf(done.getResult(0), [&](OpOperand &use) {
    return use.getOwner() != prevDot && use.getOwner() != done;
  });
  Value scaled = c.output.getC() == c.acc ? done.getResult(0) : c.output.getC();
  body->getTerminator()->setOperand(c.accIndex, scaled);
  c.fullV->erase();
  c.release->erase();
  c.output->erase();
  // After the loop, where iteration 0 ran: the last P V.
  b.setInsertionPointAfter(newLoop);
  Value accOut = newLoop.getResult(c.accIndex);
  auto last = scf::IfOp::create(b, loc, accOut.getType(), runs,
                                /*withElseRegion=*/true);
  {
    OpBuilder tb = last.getThenBodyBuilder();
    Value st = newLoop.getResult(n + 1);
    TmaWaitOp::create(tb, loc, st, newLoop.getResult(n + 2),
                      prevDot.getBBufferAttr(), prevDot.getStagesAttr(),
                      tb.getUnitAttr());
    IRMapping map;
    map.map(pPrev, newLoop.getResult(n));
    map.map(stagePrev, st);
    map.map(c.acc, accOut);
    turn(tb, TurnAction::Wait);
    auto lastDot = cast<WarpgroupDotOp>(tb.clone(*prevDot, map));
    lastDot.setAsync(false);
    turn(tb, TurnAction::Pass);
    Value always = arith::ConstantOp::create(tb, loc, tb.getBoolAttr(true));
    TmaReleaseOp::create(tb, loc, st, always, releaseBuffer,
                         prevDot.getStagesAttr(), releaseProxy);
    scf::YieldOp::create(tb, loc, lastDot.getResult());
    OpBuilder eb = last.getElseBodyBuilder();
    scf::YieldOp::create(eb, loc, accOut);
  }
  accOut.replaceUsesWithIf(last.getResult(0), [&](OpOperand &use) {
    return !last->isAncestor(use.getOwner());
  });
  // (`loop` is erased: without a persistent loop the turns end after the
  // last P V.)
  if (!nested)
    bracket = last;
  bracketTurn(TurnAction::End);
}

/// Loops one after the other each take a start and an end: between them an
/// end and then a start, which could let warpgroup 1's start (an arrival on
/// the barrier the end waits on) pass warpgroup 0's end, the alternation
/// then one turn off until a wait that never returns. An end followed in its
/// block by a start, with no turn between, goes with it: the alternation
/// carries from one loop to the next, as around a persistent loop.
void joinTurns(Block &block) {
  WarpgroupTurnOp end;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto t = dyn_cast<WarpgroupTurnOp>(&op);
    if (!t) {
      if (op.getNumRegions() && op.walk([](WarpgroupTurnOp) {
                                    return WalkResult::interrupt();
                                  }).wasInterrupted())
        end = nullptr;
      continue;
    }
    if (t.getAction() == TurnAction::Start && end) {
      end->erase();
      t->erase();
      end = nullptr;
      continue;
    }
    end = t.getAction() == TurnAction::End ? t : nullptr;
  }
}

struct OverlapSoftmaxPass
    : public mlir::quire::tile::impl::OverlapSoftmaxBase<OverlapSoftmaxPass> {
  using OverlapSoftmaxBase::OverlapSoftmaxBase;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, Candidate>> work;
    getOperation().walk([&](scf::ForOp loop) {
      auto func = loop->getParentOfType<func::FuncOp>();
      if (!func || !isKernel(func) ||
          !func->hasAttr(TileDialect::getProducerWarpsAttrName()))
        return;
      if (std::optional<Candidate> c = match(loop))
        work.push_back({loop, *c});
    });
    // (The blocks the loops' turns go in, before the rewrite erases them.)
    llvm::SetVector<Block *> blocks;
    for (auto &[loop, c] : work)
      blocks.insert(loop->getBlock());
    llvm::SetVector<Value> queries;
    for (auto &[loop, c] : work) {
      if (Value q = c.scores.getA())
        queries.insert(q);
      auto func = loop->getParentOfType<func::FuncOp>();
      loop->removeAttr(TileDialect::getPingpongAttrName());
      rewrite(loop, c, pingpong && getNumWarps(func) == 2 * kWarpsPerWarpgroup,
              earlyRelease, orderedRelease, convertAfterWait);
    }
    // The carried P takes the registers the query held: the query moves to
    // shared memory where it is still in registers.
    for (Value q : queries)
      shareOperandA(q);
    for (Block *block : blocks)
      joinTurns(*block);
  }
};

} // namespace
