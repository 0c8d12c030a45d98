//===- LowerPagedLoads.cpp - Paged tile loads to plain tile ops -----------===//
//
// tile.paged_load %cache[%bt, %first, %head] {page_size = P} strides(...)
//   bound %len : tensor<N x D x T>
// becomes
//   tok     = splat(first) + range(N)                          [N] i32
//   entries = load(bt + tok / P, mask: (tok / P) * P < len)    [N] i32
//             (or one scalar load when the tile lies in one page)
//   rows    = ext(entries) * ps + ext(tok % P) * ts + ext(head) * hs   [N] i64
//   offs    = broadcast(rows[:, None]) + broadcast(range(D)[None, :])  [N x D]
//   tile    = load(splat(cache) + offs, mask: tok < len, other: 0)
//             (mask &= range(D) < cols when `cols` is given)
// with the entries of a loop's next iteration prefetched one iteration
// ahead. In checked mode the row mask also requires 0 <= entry < num_blocks,
// and a tile.assert reports the first bad entry of each page:
//   ok   = !(tok < len && (tok % P == 0 || tok == first)) || entry in range
//   tile.assert ok, "quire: block table entry %d out of range [0, %d) ...",
//               entries, num_blocks, tok / P, tok
// See the pass description in Passes.td for the contract.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Analysis/AxisInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir::quire::tile {
#define GEN_PASS_DEF_LOWERPAGEDLOADS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// Emits the small tile programs the rewrite is made of.
struct Emitter {
  OpBuilder &b;
  Location loc;
  bool shifts;

  Type i32() { return b.getI32Type(); }
  Type i64() { return b.getI64Type(); }
  RankedTensorType vec(int64_t n, Type t) {
    return RankedTensorType::get({n}, t);
  }

  Value cst(Type t, int64_t v) {
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(tensor,
                                 b.getIntegerAttr(tensor.getElementType(), v)));
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
  }
  Value splat(Value v, int64_t n) {
    return SplatOp::create(b, loc, vec(n, v.getType()), v);
  }
  /// x / p and x % p for unsigned x (token indices are never negative).
  Value div(Value x, int64_t p) {
    if (shifts && llvm::isPowerOf2_64(p))
      return arith::ShRUIOp::create(b, loc, x,
                                    cst(x.getType(), llvm::Log2_64(p)));
    return arith::DivUIOp::create(b, loc, x, cst(x.getType(), p));
  }
  Value rem(Value x, int64_t p) {
    if (shifts && llvm::isPowerOf2_64(p))
      return arith::AndIOp::create(b, loc, x, cst(x.getType(), p - 1));
    return arith::RemUIOp::create(b, loc, x, cst(x.getType(), p));
  }
  Value ext64(Value x) {
    Type t = isa<RankedTensorType>(x.getType())
                 ? Type(cast<RankedTensorType>(x.getType()).clone(i64()))
                 : i64();
    return arith::ExtUIOp::create(b, loc, t, x);
  }
  /// tok = splat(first) + range(N)
  Value tokens(Value first, int64_t n) {
    Value r = RangeOp::create(b, loc, vec(n, i32()), 0, n);
    return arith::AddIOp::create(b, loc, splat(first, n), r);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value and_(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value or_(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value not_(Value x) {
    return arith::XOrIOp::create(b, loc, x, cst(x.getType(), 1));
  }
};

/// "file:line:col" of `loc` (its first file location), with `%` escaped for
/// a printf format.
std::string formatForMessage(Location loc) {
  std::string where;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColRange>(l)) {
      where = llvm::formatv("{0}:{1}:{2}", f.getFilename().getValue(),
                            f.getStartLine(), f.getStartColumn());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (where.empty())
    return "an unknown location";
  std::string escaped;
  for (char c : where) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

/// What a group of paged loads with the same block table, first token, bound,
/// page size and tile height shares.
struct GroupKey {
  Value blockTable, first, seqLen;
  int64_t pageSize, blockN;
  Block *block;
  bool operator==(const GroupKey &o) const {
    return blockTable == o.blockTable && first == o.first &&
           seqLen == o.seqLen && pageSize == o.pageSize && blockN == o.blockN &&
           block == o.block;
  }
};

struct LowerPagedLoadsPass
    : public mlir::quire::tile::impl::LowerPagedLoadsBase<LowerPagedLoadsPass> {
  using LowerPagedLoadsBase::LowerPagedLoadsBase;

  /// The paged loads with a tensor map whose first token AxisInfo knows to
  /// be a multiple of the box, min(page_size, BLOCK_N) tokens (found
  /// before the rewrites: prefetching replaces loops).
  llvm::DenseSet<Operation *> boxAligned;

  /// True if the tile [first, first + N) provably lies in one page.
  bool inOnePage(PagedLoadOp op, const AxisInfoAnalysis &info) {
    int64_t p = op.getPageSizeAttr().getInt(), n = op.getBlockN();
    return singlePage && n <= p && p % n == 0 &&
           info.get(op.getFirstToken()).scalarDivisibility % n == 0;
  }

  /// Block-table entries for the tile starting at `first`: a scalar i32 when
  /// `onePage`, else a [N] i32 vector (one per row, constant over a page).
  Value emitEntries(Emitter &e, Value bt, Value first, Value seqLen, int64_t p,
                    int64_t n, bool onePage) {
    if (onePage) {
      Value page = e.div(first, p);
      Value ptr = AddPtrOp::create(e.b, e.loc, bt.getType(), bt, page);
      Value valid = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt,
                                          first, seqLen);
      Value zero = e.cst(e.i32(), 0);
      return LoadOp::create(e.b, e.loc, ptr, valid, zero);
    }
    Value tok = e.tokens(first, n);
    Value page = e.div(tok, p);
    // A page is read if its first token is below seq_len.
    Value pageStart =
        arith::MulIOp::create(e.b, e.loc, page, e.cst(page.getType(), p));
    Value valid = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt,
                                        pageStart, e.splat(seqLen, n));
    Value ptrs = AddPtrOp::create(e.b, e.loc, e.vec(n, bt.getType()),
                                  e.splat(bt, n), page);
    return LoadOp::create(e.b, e.loc, ptrs, valid, e.cst(e.vec(n, e.i32()), 0));
  }

  /// Checked mode: reports the bad entries of `op` with a tile.assert and
  /// returns `valid` (the rows below seq_len) restricted to rows whose entry
  /// lies in [0, num_blocks). A page's entry is reported at the first row
  /// of the tile in that page, so one element (not one per row) says so.
  Value emitCheck(Emitter &e, PagedLoadOp op, Value entries, Value tok,
                  Value valid) {
    using arith::CmpIPredicate;
    int64_t p = op.getPageSizeAttr().getInt(), n = op.getBlockN();
    Value first = op.getFirstToken(), numBlocks = op.getNumBlocks();
    std::string message =
        "quire: block table entry %d out of range [0, %d) at page %d (token "
        "%d) of tile.paged_load at " +
        formatForMessage(op.getLoc());
    if (!isa<RankedTensorType>(entries.getType())) {
      // One page: row 0 (token first) is the first row using the entry.
      Value inRange =
          e.and_(e.cmp(CmpIPredicate::sge, entries, e.cst(e.i32(), 0)),
                 e.cmp(CmpIPredicate::slt, entries, numBlocks));
      Value used = e.cmp(CmpIPredicate::slt, first, op.getSeqLen());
      AssertOp::create(e.b, e.loc, e.or_(e.not_(used), inRange), message,
                       ValueRange{entries, numBlocks, e.div(first, p), first});
      return e.and_(valid, e.splat(inRange, n));
    }
    Value inRange =
        e.and_(e.cmp(CmpIPredicate::sge, entries, e.cst(entries.getType(), 0)),
               e.cmp(CmpIPredicate::slt, entries, e.splat(numBlocks, n)));
    Value lead =
        e.or_(e.cmp(CmpIPredicate::eq, e.rem(tok, p), e.cst(tok.getType(), 0)),
              e.cmp(CmpIPredicate::eq, tok, e.splat(first, n)));
    Value report = e.and_(valid, lead);
    AssertOp::create(
        e.b, e.loc, e.or_(e.not_(report), inRange), message,
        ValueRange{entries, e.splat(numBlocks, n), e.div(tok, p), tok});
    return e.and_(valid, inRange);
  }

  /// The cache tile, from the entries.
  Value emitTile(Emitter &e, PagedLoadOp op, Value entries) {
    int64_t p = op.getPageSizeAttr().getInt(), n = op.getBlockN(),
            d = op.getHeadDim();
    Value first = op.getFirstToken();
    Value tok = e.tokens(first, n);
    RankedTensorType rowsTy = e.vec(n, e.i64());
    Value headOff = arith::MulIOp::create(e.b, e.loc, e.ext64(op.getHead()),
                                          op.getHeadStride());
    Value rows;
    if (!isa<RankedTensorType>(entries.getType())) {
      // One page: base = entry * ps + (first % P) * ts + head * hs, then
      // rows = base + r * ts.
      Value base = arith::MulIOp::create(e.b, e.loc, e.ext64(entries),
                                         op.getPageStride());
      Value inPage = arith::MulIOp::create(e.b, e.loc, e.ext64(e.rem(first, p)),
                                           op.getTokenStride());
      base = arith::AddIOp::create(e.b, e.loc, base, inPage);
      base = arith::AddIOp::create(e.b, e.loc, base, headOff);
      Value r = e.ext64(RangeOp::create(e.b, e.loc, e.vec(n, e.i32()), 0, n));
      Value step =
          arith::MulIOp::create(e.b, e.loc, r, e.splat(op.getTokenStride(), n));
      rows = arith::AddIOp::create(e.b, e.loc, e.splat(base, n), step);
    } else {
      Value pageOff = arith::MulIOp::create(e.b, e.loc, e.ext64(entries),
                                            e.splat(op.getPageStride(), n));
      Value inPage = arith::MulIOp::create(e.b, e.loc, e.ext64(e.rem(tok, p)),
                                           e.splat(op.getTokenStride(), n));
      rows = arith::AddIOp::create(e.b, e.loc, pageOff, inPage);
      rows = arith::AddIOp::create(e.b, e.loc, rows, e.splat(headOff, n));
    }
    (void)rowsTy;
    auto tile2 = [&](Type t) { return RankedTensorType::get({n, d}, t); };
    auto col2 = [&](Type t) { return RankedTensorType::get({1, d}, t); };
    auto row2 = [&](Type t) { return RankedTensorType::get({n, 1}, t); };
    Value rowsB = BroadcastOp::create(
        e.b, e.loc, tile2(e.i64()),
        ExpandDimsOp::create(e.b, e.loc, row2(e.i64()), rows, 1));
    Value cols = e.ext64(RangeOp::create(e.b, e.loc, e.vec(d, e.i32()), 0, d));
    Value colsB = BroadcastOp::create(
        e.b, e.loc, tile2(e.i64()),
        ExpandDimsOp::create(e.b, e.loc, col2(e.i64()), cols, 0));
    Value offs = arith::AddIOp::create(e.b, e.loc, rowsB, colsB);
    Type ptrTy = op.getCache().getType();
    Value ptrs = AddPtrOp::create(
        e.b, e.loc, tile2(ptrTy),
        SplatOp::create(e.b, e.loc, tile2(ptrTy), op.getCache()), offs);
    // A tensor map of the cache: TMA may copy the tile's pages where its
    // first token starts a box (quire-warp-specialize). Checked mode keeps
    // the checks of its entries.
    int64_t page = op.getPageSizeAttr().getInt();
    if (Value tm = op.getTensormap();
        tm && !checked && !op.getNumBlocks() &&
        tmaPagesFit(n, d, op.getType().getElementTypeBitWidth(), page) &&
        boxAligned.contains(op))
      ptrs = TensorMapPagesOp::create(e.b, e.loc, ptrs, tm, op.getBlockTable(),
                                      op.getFirstToken(), op.getHead(),
                                      op.getSeqLen(), op.getPageSizeAttr());
    Value valid = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt,
                                        tok, e.splat(op.getSeqLen(), n));
    if (checked)
      valid = emitCheck(e, op, entries, tok, valid);
    Value mask = BroadcastOp::create(
        e.b, e.loc, tile2(e.b.getI1Type()),
        ExpandDimsOp::create(e.b, e.loc, row2(e.b.getI1Type()), valid, 1));
    if (int64_t c = op.getValidCols(); c < d) {
      // Columns past `cols` issue no access: mask &= cols < c.
      Value inCols =
          arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::slt, cols,
                                e.cst(cols.getType(), c));
      Value colMask = BroadcastOp::create(
          e.b, e.loc, tile2(e.b.getI1Type()),
          ExpandDimsOp::create(e.b, e.loc, col2(e.b.getI1Type()), inCols, 0));
      mask = arith::AndIOp::create(e.b, e.loc, mask, colMask);
    }
    Type elt = op.getType().getElementType();
    Value zero = arith::ConstantOp::create(
        e.b, e.loc, DenseElementsAttr::get(tile2(elt), e.b.getZeroAttr(elt)));
    return LoadOp::create(e.b, e.loc, ptrs, mask, zero);
  }

  /// If `first` is `iv` or `iv + invariant` of the loop around `op`, the loop
  /// and the invariant addend.
  std::optional<std::pair<scf::ForOp, Value>> loopToken(Value first) {
    Value iv = first, addend;
    if (auto add = first.getDefiningOp<arith::AddIOp>()) {
      for (unsigned i = 0; i < 2; ++i) {
        auto arg = dyn_cast<BlockArgument>(add->getOperand(i));
        if (arg && isa<scf::ForOp>(arg.getOwner()->getParentOp())) {
          iv = arg;
          addend = add->getOperand(1 - i);
        }
      }
    }
    auto arg = dyn_cast<BlockArgument>(iv);
    if (!arg)
      return std::nullopt;
    auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!forOp || forOp.getInductionVar() != arg)
      return std::nullopt;
    if (addend && !forOp.isDefinedOutsideOfLoop(addend))
      return std::nullopt;
    return std::make_pair(forOp, addend);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (checked) {
      bool missing = false;
      module.walk([&](PagedLoadOp op) {
        if (op.getNumBlocks())
          return;
        op.emitError() << "checked mode needs num_blocks on tile.paged_load "
                          "(`bound %seq_len num_blocks %n`)";
        missing = true;
      });
      if (missing)
        return signalPassFailure();
    }
    AxisInfoAnalysis info(module);
    boxAligned.clear();
    module.walk([&](PagedLoadOp op) {
      int64_t box =
          std::min<int64_t>(op.getPageSizeAttr().getInt(), op.getBlockN());
      if (op.getTensormap() &&
          info.get(op.getFirstToken()).scalarDivisibility % box == 0)
        boxAligned.insert(op);
    });
    // Group before rewriting: prefetching replaces loops (and their
    // induction variables), which would change the keys.
    SmallVector<std::pair<GroupKey, SmallVector<PagedLoadOp>>> groups;
    module.walk([&](PagedLoadOp op) {
      GroupKey key{op.getBlockTable(), op.getFirstToken(),
                   op.getSeqLen(),     op.getPageSizeAttr().getInt(),
                   op.getBlockN(),     op->getBlock()};
      for (auto &[k, members] : groups)
        if (k == key) {
          members.push_back(op);
          return;
        }
      groups.push_back({key, {op}});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[key, members] : groups) {
      PagedLoadOp op = members.front();
      int64_t p = key.pageSize, n = key.blockN;
      bool onePage = inOnePage(op, info);
      Value entries;
      auto loop = prefetch ? loopToken(op.getFirstToken()) : std::nullopt;
      bool invariant = loop &&
                       loop->first.isDefinedOutsideOfLoop(op.getBlockTable()) &&
                       loop->first.isDefinedOutsideOfLoop(op.getSeqLen()) &&
                       op->getParentOp() == loop->first.getOperation();
      if (invariant) {
        entries = prefetchEntries(rewriter, op, loop->first, loop->second, p, n,
                                  onePage);
      } else {
        OpBuilder b(op);
        Emitter e{b, op.getLoc(), shifts};
        entries = emitEntries(e, op.getBlockTable(), op.getFirstToken(),
                              op.getSeqLen(), p, n, onePage);
      }
      for (PagedLoadOp member : members) {
        OpBuilder b(member);
        Emitter e{b, member.getLoc(), shifts};
        Value tile = emitTile(e, member, entries);
        member.replaceAllUsesWith(tile);
        member.erase();
      }
    }
  }

  /// Adds a loop-carried value holding the entries of the current iteration:
  /// initialised before the loop for the first iteration, and computed for
  /// iteration i+1 at the end of iteration i. Returns the block argument.
  Value prefetchEntries(IRRewriter &rewriter, PagedLoadOp op, scf::ForOp loop,
                        Value addend, int64_t p, int64_t n, bool onePage) {
    Location loc = op.getLoc();
    Value bt = op.getBlockTable(), len = op.getSeqLen();
    auto firstOf = [&](OpBuilder &b, Value iv) -> Value {
      return addend ? arith::AddIOp::create(b, loc, iv, addend).getResult()
                    : iv;
    };
    rewriter.setInsertionPoint(loop);
    Emitter pre{rewriter, loc, shifts};
    Value init = emitEntries(pre, bt, firstOf(rewriter, loop.getLowerBound()),
                             len, p, n, onePage);
    unsigned index = loop.getNumRegionIterArgs();
    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, ValueRange{init}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &b, Location,
            ArrayRef<BlockArgument>) -> SmallVector<Value> {
          Emitter in{b, loc, shifts};
          Value next = arith::AddIOp::create(b, loc, loop.getInductionVar(),
                                             loop.getStep());
          // Past the last iteration `next` may wrap to a negative token
          // below seq_len: no row of that prefetch is read.
          Value runs =
              iterationRuns(b, loc, loop.getInductionVar(), loop.getStep(), 1,
                            loop.getUpperBound(), /*ivRuns=*/true);
          Value none = in.cst(in.i32(), std::numeric_limits<int32_t>::min());
          Value bound = arith::SelectOp::create(b, loc, runs, len, none);
          return {emitEntries(in, bt, firstOf(b, next), bound, p, n, onePage)};
        }));
    return newLoop.getRegionIterArgs()[index];
  }
};

} // namespace
