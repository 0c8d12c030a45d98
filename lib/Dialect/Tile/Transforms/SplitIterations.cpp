//===- SplitIterations.cpp - Split a loop where a branch on it turns ------===//
//
// A dot loop whose body branches on `%i + c <pred> %x` (%x loop-invariant,
// signed <, <=, >, >=) takes one side of the branch up to some iteration and
// the other after it. The loop is split there: the iterations before run a
// copy of the body with that side inlined, the rest run the body as it was,
// carrying the first loop's results. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_SPLITITERATIONS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// A branch of a loop's body on `%i + offset <pred> bound`, `pred` one of
/// slt, sle, sgt, sge with the induction variable's side on the left.
struct Split {
  scf::IfOp branch;
  arith::CmpIPredicate pred;
  int64_t offset;
  Value bound;
};

/// The constant c of `v = %i + c` (0 for %i itself).
std::optional<int64_t> offsetFrom(Value v, Value iv) {
  if (v == iv)
    return 0;
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    APInt c;
    if (add->getOperand(i) == iv &&
        matchPattern(add->getOperand(1 - i), m_ConstantInt(&c)))
      return c.getSExtValue();
  }
  return std::nullopt;
}

/// The predicate of the compare with its operands swapped.
arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  default:
    return P::sle;
  }
}

std::optional<Split> findSplit(scf::ForOp loop) {
  Value iv = loop.getInductionVar();
  for (Operation &op : *loop.getBody()) {
    auto branch = dyn_cast<scf::IfOp>(op);
    if (!branch)
      continue;
    auto cmp = branch.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp)
      continue;
    arith::CmpIPredicate pred = cmp.getPredicate();
    using P = arith::CmpIPredicate;
    if (pred != P::slt && pred != P::sle && pred != P::sgt && pred != P::sge)
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      Value bound = cmp->getOperand(1 - side);
      std::optional<int64_t> offset = offsetFrom(cmp->getOperand(side), iv);
      if (!offset || !loop.isDefinedOutsideOfLoop(bound))
        continue;
      // `bound <pred> %i + c` is `%i + c <swapped pred> bound`.
      if (side == 1)
        pred = swapped(pred);
      return Split{branch, pred, *offset, bound};
    }
  }
  return std::nullopt;
}

/// Whether `loop` is one the pass splits: in a kernel, a dot in its body, a
/// constant positive step, a signed induction variable of at most 32 bits.
bool isCandidate(scf::ForOp loop) {
  auto func = loop->getParentOfType<func::FuncOp>();
  auto type = dyn_cast<IntegerType>(loop.getInductionVar().getType());
  APInt step;
  if (!func || !isKernel(func) || !type || type.getWidth() > 32 ||
      loop.getUnsignedCmp() ||
      !matchPattern(loop.getStep(), m_ConstantInt(&step)) ||
      !step.isStrictlyPositive())
    return false;
  return llvm::any_of(*loop.getBody(), [](Operation &op) {
    return isa<DotOp, WarpgroupDotOp>(op);
  });
}

/// Replaces `branch` by the ops of its then (`taken`) or else region, and
/// erases its condition's compare (and the compare's `%i + c`) when
/// nothing else reads them.
void inlineSide(scf::IfOp branch, bool taken) {
  Operation *cmp = branch.getCondition().getDefiningOp();
  Region &region = taken ? branch.getThenRegion() : branch.getElseRegion();
  if (!region.empty()) {
    Block *block = &region.front();
    auto yield = cast<scf::YieldOp>(block->getTerminator());
    SmallVector<Value> results(yield.getOperands());
    branch->getBlock()->getOperations().splice(
        branch->getIterator(), block->getOperations(), block->begin(),
        yield->getIterator());
    branch.replaceAllUsesWith(results);
  }
  branch.erase();
  if (!cmp->use_empty())
    return;
  SmallVector<Operation *> operands;
  for (Value v : cmp->getOperands())
    if (auto add = v.getDefiningOp<arith::AddIOp>())
      operands.push_back(add);
  cmp->erase();
  for (Operation *op : operands)
    if (op->use_empty())
      op->erase();
}

void split(scf::ForOp loop, Split s) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  Type ivType = loop.getInductionVar().getType();
  unsigned width = ivType.getIntOrFloatBitWidth();
  Type i64 = b.getI64Type();
  auto wide = [&](Value v) -> Value {
    return arith::ExtSIOp::create(b, loc, i64, v);
  };
  SmallVector<std::pair<int64_t, Value>> constants;
  auto constant = [&](int64_t c) -> Value {
    for (auto &[value, op] : constants)
      if (value == c)
        return op;
    Value op = arith::ConstantIntOp::create(b, loc, i64, c);
    constants.push_back({c, op});
    return op;
  };
  Value lb = wide(loop.getLowerBound()), ub = wide(loop.getUpperBound());
  Value x = wide(s.bound);
  int64_t step = *getConstantIntValue(loop.getStep()); // isCandidate's
  // The first %i whose condition differs from the iterations' before it:
  // %i + c > x (>= x) first at x - c + 1 (x - c), likewise %i + c <= x
  // (< x) last true just before.
  using P = arith::CmpIPredicate;
  bool plusOne = s.pred == P::sgt || s.pred == P::sle;
  bool prefix = s.pred == P::slt || s.pred == P::sle;
  Value k = arith::SubIOp::create(b, loc, x, constant(s.offset));
  if (plusOne)
    k = arith::AddIOp::create(b, loc, k, constant(1));
  // On the loop's grid: lb + ceil((max(k, lb) - lb) / step) * step, within
  // [lb, ub] (ub when the loop runs no iteration).
  k = arith::MaxSIOp::create(b, loc, k, lb);
  Value n = arith::SubIOp::create(b, loc, k, lb);
  n = arith::AddIOp::create(b, loc, n, constant(step - 1));
  n = arith::DivSIOp::create(b, loc, n, constant(step));
  k = arith::AddIOp::create(b, loc, lb,
                            arith::MulIOp::create(b, loc, n, constant(step)));
  k = arith::MinSIOp::create(b, loc, k, ub);
  // Up to k, %i + c <= x (or < x) cannot wrap above; below, it wraps only
  // where lb + c underflows the induction variable's type: no first loop.
  if (s.offset < 0) {
    int64_t min = APInt::getSignedMinValue(width).getSExtValue();
    Value low = arith::AddIOp::create(b, loc, lb, constant(s.offset));
    Value fits = arith::CmpIOp::create(b, loc, P::sge, low, constant(min));
    k = arith::SelectOp::create(b, loc, fits, k, lb);
  }
  k = arith::TruncIOp::create(b, loc, ivType, k);

  IRMapping map;
  auto first = cast<scf::ForOp>(b.clone(*loop, map));
  first.getUpperBoundMutable().assign(k);
  inlineSide(cast<scf::IfOp>(map.lookup(s.branch.getOperation())), prefix);
  loop.getLowerBoundMutable().assign(k);
  loop.getInitArgsMutable().assign(first.getResults());
}

struct SplitIterationsPass
    : public mlir::quire::tile::impl::SplitIterationsBase<SplitIterationsPass> {
  using SplitIterationsBase::SplitIterationsBase;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, Split>> work;
    getOperation().walk([&](scf::ForOp loop) {
      if (!isCandidate(loop))
        return;
      if (std::optional<Split> s = findSplit(loop))
        work.push_back({loop, *s});
    });
    for (auto [loop, s] : work)
      split(loop, s);
  }
};

} // namespace
