//===- StridedIterArgs.cpp - Loop-carried strides as functions of the IV --===//
//
// A value a loop advances by the same amount every iteration
//   scf.for %i = %lb to %ub step %s iter_args(%p = %p0) {
//     ... use %p ...
//     %n = tile.addptr %p, %inc          // %inc defined outside the loop
//     scf.yield %n
//   }
// is, in iteration k = (%i - %lb) / %s, `%p0 + k * %inc`. The body's uses of
// %p read that instead:
//   scf.for %i = ... iter_args(%p = %p0) {
//     %k = (%i - %lb) / %s
//     %q = tile.addptr %p0, splat(ext(%k) * ext(%inc))  // 64-bit offsets
//     ... use %q ...
//   }
// so addresses no longer depend on a loop-carried value: passes that
// recompute a load's address for a later iteration from the induction
// variable (quire-async-copies, quire-pipeline-loads) can stage it, as they
// do for addresses written from the induction variable. Integer values
// advanced by `arith.addi` are rewritten the same way (in their own type:
// two's complement wraps the same). The carried value stays for uses after
// the loop; when it has none, canonicalization drops it.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_STRIDEDITERARGS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// The loop-invariant amount `yielded` adds to `arg`, or null.
Value strideOf(scf::ForOp loop, BlockArgument arg, Value yielded) {
  Operation *def = yielded.getDefiningOp();
  if (!def || def->getBlock() != loop.getBody())
    return {};
  Value inc;
  if (auto add = dyn_cast<AddPtrOp>(def)) {
    if (add.getPtr() != arg)
      return {};
    inc = add.getOffset();
  } else if (auto add = dyn_cast<arith::AddIOp>(def)) {
    if (add.getLhs() == arg)
      inc = add.getRhs();
    else if (add.getRhs() == arg)
      inc = add.getLhs();
    else
      return {};
  } else {
    return {};
  }
  return loop.isDefinedOutsideOfLoop(inc) ? inc : Value();
}

/// The scalar a splat tensor holds (tile.splat or a splat constant), or
/// `v` itself when it is a scalar; null otherwise.
Value splatScalar(OpBuilder &b, Location loc, Value v) {
  if (!isa<RankedTensorType>(v.getType()))
    return v;
  if (auto s = v.getDefiningOp<SplatOp>())
    return s.getSrc();
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat()) {
    Type elt = dense.getElementType();
    return arith::ConstantOp::create(
        b, loc, elt, b.getIntegerAttr(elt, dense.getSplatValue<APInt>()));
  }
  return {};
}

Value castInt(OpBuilder &b, Location loc, Value v, Type to) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned width = to.getIntOrFloatBitWidth();
  if (from == width)
    return v;
  if (from > width)
    return arith::TruncIOp::create(b, loc, to, v);
  return arith::ExtSIOp::create(b, loc, to, v);
}

Value splatTo(OpBuilder &b, Location loc, Value scalar, Type like) {
  auto t = dyn_cast<RankedTensorType>(like);
  if (!t)
    return scalar;
  return SplatOp::create(b, loc, t.clone(scalar.getType()), scalar);
}

/// Rewrites the body's uses of each strided iter arg of `loop`; returns
/// how many.
unsigned rewriteLoop(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  OpBuilder b(loop.getContext());
  b.setInsertionPointToStart(loop.getBody());
  Location loc = loop.getLoc();
  Value k; // the iteration number, made on first need
  unsigned rewritten = 0;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    Value inc = strideOf(loop, arg, yield.getOperand(i));
    if (!inc || arg.use_empty())
      continue;
    bool pointer = isa<PointerType>(getElementTypeOrSelf(arg.getType()));
    Value scalarInc;
    if (pointer) {
      scalarInc = splatScalar(b, loc, inc);
      // Per-element strides are multiplied elementwise below.
    }
    if (!k) {
      Value iv = loop.getInductionVar();
      if (!iv.getType().isSignlessInteger())
        return rewritten;
      Value d = arith::SubIOp::create(b, loc, iv, loop.getLowerBound());
      k = arith::DivUIOp::create(b, loc, d, loop.getStep());
    }
    Value init = loop.getInitArgs()[i];
    Value replacement;
    if (pointer) {
      Type i64 = b.getI64Type();
      Value k64 = castInt(b, loc, k, i64);
      Value off;
      if (scalarInc) {
        off =
            arith::MulIOp::create(b, loc, k64, castInt(b, loc, scalarInc, i64));
        off = splatTo(b, loc, off, arg.getType());
      } else {
        auto incType = cast<RankedTensorType>(inc.getType());
        Value wide = inc;
        if (!incType.getElementType().isInteger(64))
          wide = arith::ExtSIOp::create(b, loc, incType.clone(i64), inc);
        off = arith::MulIOp::create(b, loc, wide,
                                    splatTo(b, loc, k64, wide.getType()));
      }
      replacement = AddPtrOp::create(b, loc, arg.getType(), init, off);
    } else {
      Type elt = getElementTypeOrSelf(arg.getType());
      Value kk = splatTo(b, loc, castInt(b, loc, k, elt), arg.getType());
      Value step = arith::MulIOp::create(b, loc, kk, inc);
      replacement = arith::AddIOp::create(b, loc, init, step);
    }
    arg.replaceAllUsesExcept(replacement, replacement.getDefiningOp());
    ++rewritten;
  }
  return rewritten;
}

struct StridedIterArgsPass
    : public mlir::quire::tile::impl::StridedIterArgsBase<StridedIterArgsPass> {
  using StridedIterArgsBase::StridedIterArgsBase;

  void runOnOperation() override {
    // Inner loops first: their strides may be outer loops' values.
    getOperation().walk([](scf::ForOp loop) { rewriteLoop(loop); });
  }
};

} // namespace
