//===- SkipUnitRescale.cpp - Skip a rescale by factors that are all 1 -----===//
//
// Online softmax multiplies its running output by alpha = exp(m - m_new)
// each iteration; alpha is exactly 1 in the rows whose maximum held. The
// multiply of a loop-carried dot accumulator by such a row (or column)
// factor is guarded by tile.warp_any(alpha != 1): a warp whose factors are
// all 1 skips it, with the same result. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_SKIPUNITRESCALE
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// The factor `f` of `b = broadcast(expand_dims(f))` where f = exp2(x - y)
/// or exp(x - y) (1 where x == y), else null.
Value unitFactor(Value b) {
  auto broadcast = b.getDefiningOp<BroadcastOp>();
  if (!broadcast)
    return {};
  auto expand = broadcast.getSrc().getDefiningOp<ExpandDimsOp>();
  if (!expand)
    return {};
  Value f = expand.getSrc();
  Operation *exp = f.getDefiningOp();
  if (!isa_and_nonnull<math::Exp2Op, math::ExpOp>(exp) ||
      !exp->getOperand(0).getDefiningOp<arith::SubFOp>())
    return {};
  return f;
}

/// Whether `acc` is the accumulator (C) of a dot.
bool isDotAccumulator(Value acc) {
  return llvm::any_of(acc.getUses(), [](OpOperand &use) {
    if (auto dot = dyn_cast<DotOp>(use.getOwner()))
      return use.get() == dot.getC();
    if (auto dot = dyn_cast<WarpgroupDotOp>(use.getOwner()))
      return use.get() == dot.getC();
    return false;
  });
}

/// Whether `v`, computed in a loop's body, is a dot's accumulator there or
/// in the next iteration (yielded to an iteration argument that is).
bool feedsDot(Value v, scf::ForOp loop) {
  if (isDotAccumulator(v))
    return true;
  for (OpOperand &use : v.getUses())
    if (use.getOwner() == loop.getBody()->getTerminator() &&
        isDotAccumulator(loop.getRegionIterArgs()[use.getOperandNumber()]))
      return true;
  return false;
}

void guard(arith::MulFOp mul, unsigned factorIndex, Value factor) {
  Location loc = mul.getLoc();
  Value acc = mul->getOperand(1 - factorIndex);
  OpBuilder b(mul);
  auto type = cast<RankedTensorType>(factor.getType());
  Value one = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type, b.getFloatAttr(type.getElementType(), 1.0)));
  Value ne =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, factor, one);
  Value any = WarpAnyOp::create(b, loc, ne);
  auto guarded = scf::IfOp::create(b, loc, mul.getType(), any,
                                   /*withElseRegion=*/true);
  mul.getResult().replaceAllUsesWith(guarded.getResult(0));
  OpBuilder tb = guarded.getThenBodyBuilder();
  auto yield = scf::YieldOp::create(tb, loc, mul.getResult());
  mul->moveBefore(yield);
  OpBuilder eb = guarded.getElseBodyBuilder();
  scf::YieldOp::create(eb, loc, acc);
}

struct SkipUnitRescalePass
    : public mlir::quire::tile::impl::SkipUnitRescaleBase<SkipUnitRescalePass> {
  using SkipUnitRescaleBase::SkipUnitRescaleBase;

  void runOnOperation() override {
    SmallVector<std::tuple<arith::MulFOp, unsigned, Value>> work;
    getOperation().walk([&](arith::MulFOp mul) {
      auto func = mul->getParentOfType<func::FuncOp>();
      auto loop = dyn_cast<scf::ForOp>(mul->getParentOp());
      auto type = dyn_cast<RankedTensorType>(mul.getType());
      if (!func || !isKernel(func) || !loop || !type || type.getRank() != 2 ||
          !feedsDot(mul.getResult(), loop))
        return;
      for (unsigned i = 0; i < 2; ++i)
        if (Value factor = unitFactor(mul->getOperand(i))) {
          work.push_back({mul, i, factor});
          return;
        }
    });
    for (auto [mul, i, factor] : work)
      guard(mul, i, factor);
  }
};

} // namespace
