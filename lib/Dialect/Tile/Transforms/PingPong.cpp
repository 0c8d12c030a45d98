//===- PingPong.cpp - Two warpgroups half an attention iteration apart ----===//
//
// In a loop quire-async-copies staged for ping-pong (tile.pingpong: two
// synchronous wgmma dots, scores then P V, over two warpgroups, copies S - 2
// iterations ahead), warpgroup 1 runs the loop rotated by half an
// iteration: the softmax and P V of iteration i - 1, then the scores of
// iteration i. Warpgroup 0 keeps the loop as it is, so after each loop-top
// barrier one warpgroup's softmax runs while the other's dots do. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Dialect/Tile/IR/Layout.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_PINGPONG
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// A reduction whose axis no warps split: shuffles within each warp only.
bool withinWarps(ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getSrc().getType());
  unsigned axis = op.getAxis();
  Attribute enc = type.getEncoding();
  if (auto mma = dyn_cast<MmaEncodingAttr>(enc))
    return mma.getWarpsPerCTA().size() == 2 && axis == 1 &&
           mma.getWarpsPerCTA()[1] == 1;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(enc))
    return axis < blocked.getWarpsPerCTA().size() &&
           blocked.getWarpsPerCTA()[axis] == 1;
  return false;
}

/// A conversion that moves nothing between threads: a 16-bit accumulator
/// into the wgmma register A layout of the same accumulator layout (the
/// accumulator's and the operand's fragments coincide), or no change.
bool inRegisters(ConvertLayoutOp op) {
  RankedTensorType src = op.getSrc().getType(), dst = op.getType();
  if (src.getEncoding() == dst.getEncoding())
    return true;
  auto operand = dyn_cast<DotOperandEncodingAttr>(dst.getEncoding());
  return operand && operand.getOpIdx() == 0 &&
         operand.getParent() == src.getEncoding() &&
         isa<MmaEncodingAttr>(src.getEncoding()) &&
         src.getElementType().getIntOrFloatBitWidth() == 16;
}

/// Ops one warpgroup may run while the other runs something else: nothing
/// that goes through shared memory or a barrier, which every warp of the
/// CTA must reach.
bool warpgroupLocal(Operation *op) {
  WalkResult r = op->walk([](Operation *n) {
    if (isa<arith::ArithDialect, math::MathDialect>(n->getDialect()) ||
        isa<scf::IfOp, scf::YieldOp, SplatOp, BroadcastOp, ExpandDimsOp,
            TransOp, RangeOp, AddPtrOp, LoadOp, AsyncCopyOp>(n))
      return WalkResult::advance();
    if (auto dot = dyn_cast<WarpgroupDotOp>(n))
      return dot.getAsync() ? WalkResult::interrupt() : WalkResult::advance();
    if (auto reduce = dyn_cast<ReduceOp>(n))
      return withinWarps(reduce) ? WalkResult::advance()
                                 : WalkResult::interrupt();
    if (auto convert = dyn_cast<ConvertLayoutOp>(n))
      return inRegisters(convert) ? WalkResult::advance()
                                  : WalkResult::interrupt();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// What the rotation needs of a loop.
struct Rotation {
  scf::ForOp loop;
  /// The scores dot (the first) and the stage argument both dots read.
  WarpgroupDotOp scores;
  BlockArgument stage;
  /// Iteration arguments the second half updates (m, l, acc), by number.
  SmallVector<unsigned> carried;
  /// The second half: the body's ops (in order) the updates of `carried`
  /// need, the scores dot excluded.
  llvm::SetVector<Operation *> second;
};

std::optional<Rotation> match(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto wait = dyn_cast<AsyncWaitOp>(body->front());
  if (loop.getUnsignedCmp() ||
      getNumWarps(loop) != 2 * kWarpsPerWarpgroup || !wait)
    return std::nullopt;
  SmallVector<WarpgroupDotOp> dots;
  SmallVector<AsyncCopyOp> copies;
  for (Operation &op : body->without_terminator()) {
    if (&op == wait.getOperation())
      continue;
    if (!warpgroupLocal(&op))
      return std::nullopt;
    if (auto dot = dyn_cast<WarpgroupDotOp>(op))
      dots.push_back(dot);
    if (auto copy = dyn_cast<AsyncCopyOp>(op))
      copies.push_back(copy);
  }
  unsigned nested = 0;
  body->walk([&](WarpgroupDotOp) { ++nested; });
  if (dots.size() != 2 || nested != 2)
    return std::nullopt;
  Rotation r{loop, dots[0], dyn_cast<BlockArgument>(dots[0].getBStage()),
             {}, {}};
  if (!r.stage || r.stage.getOwner() != body || r.stage.getArgNumber() == 0 ||
      dots[1].getBStage() != r.stage)
    return std::nullopt;
  // The S - 2 schedule of quire-async-copies' pingpong: the loop-top wait
  // leaves (S - 3) iterations' copies in flight, and each copy refills the
  // stage iteration i - 2 read, which neither warpgroup still reads.
  int64_t S = r.scores.getStages();
  if (S < 3 || dots[1].getStages() != S ||
      wait.getPending() != (S - 3) * int64_t(copies.size()) ||
      !llvm::all_of(copies, [&](AsyncCopyOp copy) {
        return copy.getStages() == S &&
               isStageAhead(copy.getStage(), r.stage, S - 2, S);
      }))
    return std::nullopt;

  // The ops that depend on the scores (top-level ops of the body).
  llvm::SmallPtrSet<Operation *, 32> after;
  after.insert(r.scores);
  for (Operation &op : body->without_terminator()) {
    bool uses = false;
    op.walk([&](Operation *n) {
      for (Value v : n->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (Operation *top = body->findAncestorOpInBlock(*def))
            uses |= top != &op && after.contains(top);
    });
    if (uses)
      after.insert(&op);
  }
  if (!after.contains(dots[1]))
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [k, v] : llvm::enumerate(yield.getOperands()))
    if (Operation *def = v.getDefiningOp())
      if (def->getBlock() == body && after.contains(def) && def != r.scores)
        r.carried.push_back(k);
  if (r.carried.empty())
    return std::nullopt;

  // The second half: what the carried updates need back to the scores. It
  // may read the induction variable, the stage and the carried arguments
  // (which the rotated loop has for the iteration before), nothing else of
  // the iteration.
  llvm::SmallPtrSet<Value, 8> allowed;
  allowed.insert(loop.getInductionVar());
  allowed.insert(r.stage);
  for (unsigned k : r.carried)
    allowed.insert(loop.getRegionIterArg(k));
  SmallVector<Operation *> work;
  llvm::SmallPtrSet<Operation *, 32> seen;
  bool ok = true;
  auto visit = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && !allowed.contains(v))
        ok = false;
      return;
    }
    Operation *top = body->findAncestorOpInBlock(*v.getDefiningOp());
    if (top && top != r.scores && seen.insert(top).second)
      work.push_back(top);
  };
  for (unsigned k : r.carried)
    visit(yield.getOperand(k));
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    op->walk([&](Operation *n) {
      for (Value v : n->getOperands())
        visit(v);
    });
  }
  if (!ok)
    return std::nullopt;
  for (Operation &op : body->without_terminator())
    if (seen.contains(&op))
      r.second.insert(&op);
  // The scores and the carried values are used only there: in the rotated
  // loop the rest of the iteration sees the carried values of two
  // iterations before.
  auto onlySecond = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      return r.second.contains(body->findAncestorOpInBlock(*user));
    });
  };
  if (!onlySecond(r.scores.getResult()) ||
      !llvm::all_of(r.carried, [&](unsigned k) {
        return onlySecond(loop.getRegionIterArg(k));
      }))
    return std::nullopt;
  return r;
}

struct PingPongPass
    : public mlir::quire::tile::impl::PingPongBase<PingPongPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(TileDialect::getPingpongAttrName()))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      loop->removeAttr(TileDialect::getPingpongAttrName());
      auto func = loop->getParentOfType<func::FuncOp>();
      if (!func || !isKernel(func))
        continue;
      if (std::optional<Rotation> r = match(loop))
        rotate(*r);
    }
  }

  /// Clones the second half of the iteration at `iv` (stage `stage`), on
  /// `scores` and the carried values `in`, at `b`; returns the carried
  /// values it updates and sets `dots` to its clones of wgmma dots.
  static SmallVector<Value> cloneSecondHalf(OpBuilder &b, Rotation &r,
                                            Value iv, Value stage,
                                            Value scores, ValueRange in,
                                            SmallVector<WarpgroupDotOp> *dots =
                                                nullptr) {
    scf::ForOp loop = r.loop;
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    map.map(r.stage, stage);
    map.map(r.scores.getResult(), scores);
    for (auto [k, v] : llvm::zip(r.carried, in))
      map.map(loop.getRegionIterArg(k), v);
    for (Operation *op : r.second) {
      Operation *clone = b.clone(*op, map);
      if (auto dot = dyn_cast<WarpgroupDotOp>(clone); dot && dots)
        dots->push_back(dot);
    }
    SmallVector<Value> out;
    for (unsigned k : r.carried)
      out.push_back(map.lookupOrDefault(yield.getOperand(k)));
    return out;
  }

  /// Whether the rotated loop may leave the second half's P V dot in flight
  /// while it issues the scores: its result only carried to the next
  /// iteration (read by nothing in this one).
  static bool pvCanOverlap(Rotation &r) {
    for (Operation *op : r.second)
      if (auto dot = dyn_cast<WarpgroupDotOp>(op))
        return llvm::all_of(dot->getUsers(), [&](Operation *user) {
          return user == r.loop.getBody()->getTerminator();
        });
    return false;
  }

  static void rotate(Rotation &r) {
    scf::ForOp loop = r.loop;
    Location loc = loop.getLoc();
    Block *body = loop.getBody();
    auto yield = cast<scf::YieldOp>(body->getTerminator());
    OpBuilder b(loop);
    Value first = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, WarpgroupIdOp::create(b, loc),
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0)));
    auto split = scf::IfOp::create(b, loc, loop.getResultTypes(), first,
                                   /*withElseRegion=*/true);

    // Warpgroup 1. The first iteration's first half (its wait, copies and
    // scores) when the loop runs at all; then the rotated loop over the
    // other iterations, which also carries the scores of the iteration
    // before and the induction variable and stage they belong to; then the
    // last iteration's second half.
    OpBuilder other = split.getElseBodyBuilder();
    auto scoresType = cast<RankedTensorType>(r.scores.getType());
    unsigned n = loop.getNumRegionIterArgs();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
    Value runs =
        arith::CmpIOp::create(other, loc, arith::CmpIPredicate::slt, lb, ub);
    SmallVector<Type> proTypes(loop.getResultTypes());
    proTypes.push_back(scoresType);
    proTypes.push_back(r.stage.getType());
    auto pro = scf::IfOp::create(other, loc, proTypes, runs,
                                 /*withElseRegion=*/true);
    {
      OpBuilder pb = pro.getThenBodyBuilder();
      IRMapping map;
      map.map(loop.getInductionVar(), lb);
      for (unsigned k = 0; k < n; ++k)
        map.map(loop.getRegionIterArg(k), loop.getInitArgs()[k]);
      // The whole body; its second half is left unused (the canonicalizer
      // after the pass removes it): no iteration before has scores.
      for (Operation &op : body->without_terminator())
        pb.clone(op, map);
      SmallVector<Value> yields;
      for (Value v : yield.getOperands())
        yields.push_back(map.lookupOrDefault(v));
      for (unsigned k : r.carried)
        yields[k] = loop.getInitArgs()[k];
      yields.push_back(map.lookup(r.scores.getResult()));
      yields.push_back(map.lookupOrDefault(r.stage));
      scf::YieldOp::create(pb, loc, yields);
      OpBuilder eb = pro.getElseBodyBuilder();
      SmallVector<Value> none(loop.getInitArgs());
      none.push_back(arith::ConstantOp::create(
          eb, loc, scoresType,
          DenseElementsAttr::get(scoresType,
                                 eb.getZeroAttr(scoresType.getElementType()))));
      none.push_back(loop.getInitArgs()[r.stage.getArgNumber() - 1]);
      scf::YieldOp::create(eb, loc, none);
    }
    SmallVector<Value> inits(pro.getResults());
    inits.insert(inits.begin() + n + 1, lb);
    // The rotated loop's arguments after the original ones.
    unsigned scoresArg = n, ivArg = n + 1, stageArg = n + 2;
    Value from = arith::AddIOp::create(other, loc, lb, loop.getStep());
    bool overlap = pvCanOverlap(r);
    auto rotated = scf::ForOp::create(
        other, loc, from, ub, loop.getStep(), inits,
        [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
          IRMapping map;
          map.map(loop.getInductionVar(), iv);
          for (unsigned k = 0; k < n; ++k)
            map.map(loop.getRegionIterArg(k), args[k]);
          SmallVector<Value> carried;
          for (unsigned k : r.carried)
            carried.push_back(args[k]);
          // The whole body for this iteration, with the iteration
          // before's second half right before its scores (after the wait
          // and the copies). This iteration's own second half is left
          // unused; the canonicalizer after the pass removes it.
          SmallVector<Value> updated;
          SmallVector<WarpgroupDotOp> pv;
          for (Operation &op : body->without_terminator()) {
            if (&op == r.scores.getOperation())
              updated = cloneSecondHalf(nb, r, args[ivArg], args[stageArg],
                                        args[scoresArg], carried, &pv);
            nb.clone(op, map);
          }
          SmallVector<Value> yields;
          for (Value v : yield.getOperands())
            yields.push_back(map.lookupOrDefault(v));
          for (auto [k, v] : llvm::zip(r.carried, updated))
            yields[k] = v;
          yields.push_back(map.lookup(r.scores.getResult()));
          yields.push_back(iv);
          yields.push_back(map.lookup(r.stage));
          scf::YieldOp::create(nb, loc, yields);
          // The iteration before's P V stays in flight while this
          // iteration's scores are issued (two independent wgmma groups,
          // as the two warpgroups of the unrotated loop have), and one
          // wait retires both.
          if (overlap && pv.size() == 1) {
            auto scores = cast<WarpgroupDotOp>(
                map.lookup(r.scores.getResult()).getDefiningOp());
            pv[0].setAsync(true);
            scores.setAsync(true);
            nb.setInsertionPointAfter(scores);
            auto both = WarpgroupWaitOp::create(
                nb, loc, ValueRange{pv[0].getResult(), scores.getResult()},
                /*after=*/Value(), nb.getI32IntegerAttr(0));
            pv[0].getResult().replaceAllUsesExcept(both.getResult(0), both);
            scores.getResult().replaceAllUsesExcept(both.getResult(1), both);
          }
        });
    // The last iteration's second half, if there was one.
    ValueRange res = rotated.getResults();
    auto epi = scf::IfOp::create(other, loc, loop.getResultTypes(), runs,
                                 /*withElseRegion=*/true);
    {
      OpBuilder tb = epi.getThenBodyBuilder();
      SmallVector<Value> carried;
      for (unsigned k : r.carried)
        carried.push_back(res[k]);
      SmallVector<Value> last =
          cloneSecondHalf(tb, r, res[ivArg], res[stageArg], res[scoresArg],
                          carried);
      SmallVector<Value> results(res.take_front(n));
      for (auto [k, v] : llvm::zip(r.carried, last))
        results[k] = v;
      scf::YieldOp::create(tb, loc, results);
      OpBuilder eb = epi.getElseBodyBuilder();
      scf::YieldOp::create(eb, loc, res.take_front(n));
    }
    scf::YieldOp::create(other, loc, epi.getResults());

    // Warpgroup 0: the loop as it is.
    loop->replaceAllUsesWith(split.getResults());
    OpBuilder then = split.getThenBodyBuilder();
    auto done = scf::YieldOp::create(then, loc, loop.getResults());
    loop->moveBefore(done);
    // Each side reaches its own loop-top barrier instruction.
    split.walk([](AsyncWaitOp wait) { wait.setUnaligned(true); });
  }
};

} // namespace
