//===- RaisePagedLoads.cpp - Natural paged gathers -> tile.paged_load -----===//
//
// A Triton kernel reads a paged KV tile the natural way:
//   %tok = splat(%start) + range(0, T)                   // the tile's tokens
//   %ids = tile.load (splat(%bt_row) + %tok / P), %tok < %len
//   %off = ext(%ids)[:, None] * %s0 + (%tok % P)[:, None] * %s1
//          + %h * %s2 + range(0, D)[None, :]               // any term order
//   %k   = tile.load (splat(%cache) + %off), (%tok < %len)[:, None], 0
// which is
//   %k = tile.paged_load %cache'[%bt_row, %start, 0] {page_size = P}
//          strides(%s0, %s1, 0) bound %len : tensor<T x D>
// with %cache' = %cache + %h * %s2 (the terms uniform over the tile). A
// tile laid out [D, T] (K^T read directly) becomes the paged load and a
// tile.trans. See the pass description in Passes.td for what is accepted
// and what is left alone.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Analysis/LinearForm.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_RAISEPAGEDLOADS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// One additive term of a tile's offsets: a uniform scalar (`dim` -1), or
/// a vector `factor` along dimension `dim`, times a uniform `scale` (null
/// for 1).
struct Term {
  Value factor;
  Value scale;
  int dim = -1;
};

std::optional<int64_t> splatInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  if (auto s = v.getDefiningOp<SplatOp>())
    return splatInt(s.getSrc());
  if (auto b = v.getDefiningOp<BroadcastOp>())
    return splatInt(b.getSrc());
  return std::nullopt;
}

/// The scalar a uniform tensor holds (a splat, a broadcast of one, a splat
/// constant), or the value itself for a scalar; null if not uniform.
Value uniformScalar(OpBuilder &b, Value v) {
  if (!isa<RankedTensorType>(v.getType()))
    return v;
  if (auto s = v.getDefiningOp<SplatOp>())
    return s.getSrc();
  if (auto br = v.getDefiningOp<BroadcastOp>())
    return uniformScalar(b, br.getSrc());
  if (auto e = v.getDefiningOp<ExpandDimsOp>())
    return uniformScalar(b, e.getSrc());
  if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    if (Value s = uniformScalar(b, ext.getIn()))
      return arith::ExtSIOp::create(b, ext.getLoc(),
                                    getElementTypeOrSelf(ext.getType()), s);
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat()) {
    Type elt = dense.getElementType();
    return arith::ConstantOp::create(
        b, v.getLoc(), elt,
        b.getIntegerAttr(elt, dense.getSplatValue<APInt>()));
  }
  return {};
}

bool isUniform(Value v) {
  if (!isa<RankedTensorType>(v.getType()))
    return true;
  if (v.getDefiningOp<SplatOp>())
    return true;
  if (auto br = v.getDefiningOp<BroadcastOp>())
    return isUniform(br.getSrc());
  if (auto e = v.getDefiningOp<ExpandDimsOp>())
    return isUniform(e.getSrc());
  if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    return isUniform(ext.getIn());
  DenseElementsAttr dense;
  return matchPattern(v, m_Constant(&dense)) && dense.isSplat();
}

Value peelExt(Value v) {
  while (auto ext = v.getDefiningOp<arith::ExtSIOp>())
    v = ext.getIn();
  return v;
}

/// The 1-D vector a rank-2 value broadcasts along one dimension, peeling
/// broadcasts, expand_dims and sign extensions; `dim` gets the dimension.
Value vectorOf(Value v, int &dim) {
  while (true) {
    if (auto br = v.getDefiningOp<BroadcastOp>()) {
      v = br.getSrc();
    } else if (auto ext = v.getDefiningOp<arith::ExtSIOp>()) {
      v = ext.getIn();
    } else if (auto e = v.getDefiningOp<ExpandDimsOp>()) {
      auto t = cast<RankedTensorType>(e.getSrc().getType());
      if (t.getRank() != 1)
        return {};
      dim = 1 - static_cast<int>(e.getAxisAttr().getInt());
      return peelExt(e.getSrc());
    } else {
      return {};
    }
  }
}

struct Decomposer {
  OpBuilder &b;
  SmallVector<Term> terms;
  Value base; // the cache pointer the offsets apply to

  /// Adds the terms of the 1-D integer vector `v` along `dim`.
  bool vector(Value v, int dim, Value scale) {
    v = peelExt(v);
    if (isUniform(v)) {
      Value s = uniformScalar(b, v);
      if (!s)
        return false;
      if (scale)
        s = mulScalar(s, scale);
      terms.push_back({s, {}, -1});
      return true;
    }
    if (auto add = v.getDefiningOp<arith::AddIOp>())
      return vector(add.getLhs(), dim, scale) &&
             vector(add.getRhs(), dim, scale);
    if (auto mul = v.getDefiningOp<arith::MulIOp>(); mul && !scale) {
      if (isUniform(mul.getRhs()))
        return vector(mul.getLhs(), dim, uniformScalar(b, mul.getRhs()));
      if (isUniform(mul.getLhs()))
        return vector(mul.getRhs(), dim, uniformScalar(b, mul.getLhs()));
      return false;
    }
    terms.push_back({v, scale, dim});
    return true;
  }

  Value mulScalar(Value a, Value c) {
    Type t = wider(a.getType(), c.getType());
    return arith::MulIOp::create(b, a.getLoc(), ext(a, t), ext(c, t));
  }
  Type wider(Type a, Type c) {
    return a.getIntOrFloatBitWidth() >= c.getIntOrFloatBitWidth() ? a : c;
  }
  Value ext(Value v, Type t) {
    if (v.getType() == t)
      return v;
    return arith::ExtSIOp::create(b, v.getLoc(), t, v);
  }

  /// Adds the terms of the rank-2 integer tensor `v`.
  bool tile(Value v) {
    if (isUniform(v)) {
      Value s = uniformScalar(b, v);
      if (!s)
        return false;
      terms.push_back({s, {}, -1});
      return true;
    }
    if (auto add = v.getDefiningOp<arith::AddIOp>())
      return tile(add.getLhs()) && tile(add.getRhs());
    if (auto br = v.getDefiningOp<BroadcastOp>())
      return tile(br.getSrc());
    if (auto ext = v.getDefiningOp<arith::ExtSIOp>())
      return tile(ext.getIn());
    if (auto e = v.getDefiningOp<ExpandDimsOp>()) {
      if (cast<RankedTensorType>(e.getSrc().getType()).getRank() != 1)
        return false;
      return vector(e.getSrc(), 1 - static_cast<int>(e.getAxisAttr().getInt()),
                    {});
    }
    if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
      Value x = mul.getLhs(), s = mul.getRhs();
      if (!isUniform(s))
        std::swap(x, s);
      if (!isUniform(s))
        return false;
      int dim = -1;
      Value vec = vectorOf(x, dim);
      if (!vec)
        return false;
      return vector(vec, dim, uniformScalar(b, s));
    }
    return false;
  }

  /// Adds the terms of the rank-2 pointer tensor `p`.
  bool pointers(Value p) {
    if (auto add = p.getDefiningOp<AddPtrOp>())
      return pointers(add.getPtr()) && tile(add.getOffset());
    if (auto br = p.getDefiningOp<BroadcastOp>())
      return pointers(br.getSrc());
    if (auto s = p.getDefiningOp<SplatOp>())
      return scalarPointer(s.getSrc());
    return false;
  }

  bool scalarPointer(Value p) {
    if (auto add = p.getDefiningOp<AddPtrOp>()) {
      terms.push_back({add.getOffset(), {}, -1});
      return scalarPointer(add.getPtr());
    }
    if (base)
      return false;
    base = p;
    return true;
  }
};

/// `tok = splat(start) + range(a, a + T)`: sets `start` (with a added).
bool affineTokens(OpBuilder &b, Value tok, int64_t length, Value &start) {
  tok = peelExt(tok);
  Value s;
  RangeOp range;
  if (auto add = tok.getDefiningOp<arith::AddIOp>()) {
    range = add.getRhs().getDefiningOp<RangeOp>();
    s = add.getLhs();
    if (!range) {
      range = add.getLhs().getDefiningOp<RangeOp>();
      s = add.getRhs();
    }
    if (!range || !isUniform(s))
      return false;
    s = uniformScalar(b, s);
  } else {
    range = tok.getDefiningOp<RangeOp>();
    if (!range)
      return false;
  }
  int64_t a = range.getStartAttr().getInt();
  if (range.getEndAttr().getInt() - a != length)
    return false;
  Type i32 = b.getI32Type();
  if (!s)
    s = arith::ConstantOp::create(b, tok.getLoc(), i32, b.getI32IntegerAttr(0));
  if (!s.getType().isInteger(32))
    return false;
  if (a != 0)
    s = arith::AddIOp::create(
        b, tok.getLoc(), s,
        arith::ConstantOp::create(b, tok.getLoc(), i32,
                                  b.getI32IntegerAttr(a)));
  start = s;
  return true;
}

/// `tok / P` (or `tok >> log2(P)`): the token vector, with P set.
Value pageOf(Value v, int64_t &page) {
  v = peelExt(v);
  if (auto d = v.getDefiningOp<arith::DivSIOp>()) {
    if (auto p = splatInt(d.getRhs()); p && *p > 0) {
      page = *p;
      return d.getLhs();
    }
  }
  if (auto d = v.getDefiningOp<arith::DivUIOp>()) {
    if (auto p = splatInt(d.getRhs()); p && *p > 0) {
      page = *p;
      return d.getLhs();
    }
  }
  Operation *shift = v.getDefiningOp<arith::ShRSIOp>();
  if (!shift)
    shift = v.getDefiningOp<arith::ShRUIOp>();
  if (shift)
    if (auto c = splatInt(shift->getOperand(1)); c && *c >= 0 && *c < 31) {
      page = int64_t(1) << *c;
      return shift->getOperand(0);
    }
  return {};
}

/// `q + tok / P` (q uniform, pages ahead of tok's; the form a forwarded
/// `start // P + p` takes): the token vector, with P and q set.
Value pageOf(OpBuilder &b, Value v, int64_t &page, Value &pages) {
  pages = {};
  if (Value tok = pageOf(v, page))
    return tok;
  auto add = peelExt(v).getDefiningOp<arith::AddIOp>();
  if (!add)
    return {};
  for (unsigned i = 0; i < 2; ++i)
    if (isUniform(add->getOperand(i)))
      if (Value tok = pageOf(add->getOperand(1 - i), page)) {
        pages = uniformScalar(b, add->getOperand(i));
        return pages ? tok : Value();
      }
  return {};
}

/// `tok % P` (or `tok & (P - 1)`): the token vector, with P set.
Value slotOf(Value v, int64_t &page) {
  v = peelExt(v);
  Operation *rem = v.getDefiningOp<arith::RemSIOp>();
  if (!rem)
    rem = v.getDefiningOp<arith::RemUIOp>();
  if (rem)
    if (auto p = splatInt(rem->getOperand(1)); p && *p > 0) {
      page = *p;
      return rem->getOperand(0);
    }
  if (auto a = v.getDefiningOp<arith::AndIOp>())
    for (unsigned i = 0; i < 2; ++i)
      if (auto m = splatInt(a->getOperand(1 - i));
          m && *m >= 0 && llvm::isPowerOf2_64(*m + 1)) {
        page = *m + 1;
        return a->getOperand(i);
      }
  return {};
}

/// `tok < bound` (or `bound > tok`) for the token vector `tok`: the bound.
Value boundOf(OpBuilder &b, Value mask, Value tok) {
  auto cmp = mask.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return {};
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  auto pred = cmp.getPredicate();
  if (pred == arith::CmpIPredicate::sgt || pred == arith::CmpIPredicate::ugt) {
    std::swap(lhs, rhs);
    pred = pred == arith::CmpIPredicate::sgt ? arith::CmpIPredicate::slt
                                             : arith::CmpIPredicate::ult;
  }
  if ((pred != arith::CmpIPredicate::slt &&
       pred != arith::CmpIPredicate::ult) ||
      peelExt(lhs) != peelExt(tok) || !isUniform(rhs))
    return {};
  Value bound = uniformScalar(b, rhs);
  return bound && bound.getType().isInteger(32) ? bound : Value();
}

/// The function argument a pointer value is computed from, or null.
Value rootOf(Value p) {
  while (true) {
    if (auto a = p.getDefiningOp<AddPtrOp>())
      p = a.getPtr();
    else if (auto s = p.getDefiningOp<SplatOp>())
      p = s.getSrc();
    else if (auto br = p.getDefiningOp<BroadcastOp>())
      p = br.getSrc();
    else if (auto e = p.getDefiningOp<ExpandDimsOp>())
      p = e.getSrc();
    else
      return isa<BlockArgument>(p) ? p : Value();
  }
}

/// Splits `mask` (rank 2, after peeling broadcasts) into its and-ed
/// vector conditions along each dimension; false if it is anything else.
bool maskConditions(Value mask, SmallVectorImpl<std::pair<Value, int>> &out) {
  if (auto br = mask.getDefiningOp<BroadcastOp>())
    return maskConditions(br.getSrc(), out);
  if (auto a = mask.getDefiningOp<arith::AndIOp>())
    return maskConditions(a.getLhs(), out) && maskConditions(a.getRhs(), out);
  if (auto e = mask.getDefiningOp<ExpandDimsOp>()) {
    if (cast<RankedTensorType>(e.getSrc().getType()).getRank() != 1)
      return false;
    out.push_back({e.getSrc(), 1 - static_cast<int>(e.getAxisAttr().getInt())});
    return true;
  }
  return false;
}

struct Raiser {
  func::FuncOp func;
  SmallVector<Value> storedRoots;
  Linearizer &lin;

  Raiser(func::FuncOp func, Linearizer &lin) : func(func), lin(lin) {
    func.walk([&](Operation *op) {
      if (isa<StoreOp, AtomicRMWOp, AtomicCASOp>(op))
        if (Value r = rootOf(op->getOperand(0)))
          storedRoots.push_back(r);
    });
  }

  /// The condition `x < bound` on the tile's tokens `x = tokens + d` (d
  /// uniform) as a bound on the tokens themselves: bound - d.
  Value shiftedBound(OpBuilder &b, Value mask, const LinearForm &tokens) {
    auto cmp = mask.getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
        !isUniform(cmp.getRhs()))
      return {};
    std::optional<LinearForm> x = lin.get(cmp.getLhs());
    Value bound = uniformScalar(b, cmp.getRhs());
    if (!x || !bound || !bound.getType().isInteger(32))
      return {};
    LinearForm d = *x;
    d.add(tokens, -1);
    lin.normalize(d);
    if (!d.isUniform())
      return {};
    if (d.terms.empty() && d.constant == 0)
      return bound;
    std::optional<LinearForm> shifted = lin.get(bound);
    if (!shifted)
      return {};
    shifted->add(d, -1);
    lin.normalize(*shifted);
    return lin.materialize(b, mask.getLoc(), *shifted, b.getI32Type());
  }

  /// True if the block-table mask `btMask` reads an entry wherever the
  /// tile's token mask `loadMask` (along `tokDim`) holds a token of its
  /// page: it is that token condition itself, or the same comparison on
  /// the page's first token `P * index`.
  bool readsEntriesOf(Value btMask, Value loadMask, int tokDim, Value index,
                      int64_t page) {
    SmallVector<std::pair<Value, int>> conds;
    if (!loadMask || !maskConditions(loadMask, conds))
      return false;
    for (auto [c, dim] : conds) {
      if (dim != tokDim)
        continue;
      if (c == btMask)
        return true;
      auto tokCmp = c.getDefiningOp<arith::CmpIOp>();
      auto btCmp = btMask.getDefiningOp<arith::CmpIOp>();
      if (!tokCmp || !btCmp ||
          tokCmp.getPredicate() != arith::CmpIPredicate::slt ||
          btCmp.getPredicate() != arith::CmpIPredicate::slt)
        return false;
      std::optional<LinearForm> bound = lin.get(tokCmp.getRhs());
      std::optional<LinearForm> btBound = lin.get(btCmp.getRhs());
      std::optional<LinearForm> x = lin.get(btCmp.getLhs());
      std::optional<LinearForm> tok = lin.get(tokCmp.getLhs());
      std::optional<LinearForm> first = lin.get(index);
      if (!bound || !btBound || !x || !tok || !first)
        return false;
      lin.normalize(*bound);
      lin.normalize(*btBound);
      if (!(*bound == *btBound))
        return false;
      lin.normalize(*x);
      lin.normalize(*tok);
      if (*x == *tok)
        return true;
      first->multiply(page);
      lin.normalize(*first);
      return *x == *first;
    }
    return false;
  }

  /// Rewrites `load` if it is a natural paged gather; true if it did.
  bool raise(LoadOp load) {
    auto type = dyn_cast<RankedTensorType>(load.getResult().getType());
    if (!type || type.getRank() != 2)
      return false;
    OpBuilder b(load);
    Location loc = load.getLoc();
    // Everything built while matching is erased if the match fails.
    Block *block = load->getBlock();
    Operation *before = load->getPrevNode();
    auto fail = [&] {
      for (Operation *op = before ? before->getNextNode() : &block->front();
           op && op != load.getOperation();) {
        Operation *next = op->getNextNode();
        if (op->use_empty())
          op->erase();
        op = next;
      }
      return false;
    };

    Decomposer d{b, {}, {}};
    if (!d.pointers(load.getPtr()) || !d.base)
      return fail();
    Term *entry = nullptr, *slot = nullptr, *column = nullptr;
    SmallVector<Value> uniform;
    LoadOp ids;
    for (Term &t : d.terms) {
      if (t.dim < 0) {
        uniform.push_back(t.factor);
        continue;
      }
      Value f = peelExt(t.factor);
      if (auto l = f.getDefiningOp<LoadOp>(); l && !entry) {
        entry = &t;
        ids = l;
      } else if (auto r = f.getDefiningOp<RangeOp>();
                 r && !column && r.getStartAttr().getInt() == 0 &&
                 (!t.scale || splatInt(t.scale) == 1)) {
        column = &t;
      } else if (!slot) {
        slot = &t;
      } else {
        return fail();
      }
    }
    if (!entry || !slot || !column || entry->dim != slot->dim ||
        entry->dim == column->dim || !entry->scale)
      return fail();
    int tokDim = entry->dim, colDim = column->dim;
    int64_t T = type.getDimSize(tokDim), D = type.getDimSize(colDim);
    auto colRange = peelExt(column->factor).getDefiningOp<RangeOp>();
    if (colRange.getEndAttr().getInt() != D)
      return fail();

    // The entries: bt_row[tok / P], tok the same vector as in tok % P.
    int64_t page = 0, page2 = 0;
    Value tok = slotOf(slot->factor, page);
    if (!tok ||
        ids.getResult().getType() != RankedTensorType::get({T}, b.getI32Type()))
      return fail();
    Decomposer bt{b, {}, {}};
    auto btAdd = ids.getPtr().getDefiningOp<AddPtrOp>();
    if (!btAdd || !btAdd.getPtr().getDefiningOp<SplatOp>())
      return fail();
    Value btRow = btAdd.getPtr().getDefiningOp<SplatOp>().getSrc();
    Value pagesAhead;
    if (pageOf(b, btAdd.getOffset(), page2, pagesAhead) != tok || page2 != page)
      return fail();
    if (Value root = rootOf(btRow);
        !root || llvm::is_contained(storedRoots, root))
      return fail();
    Value start;
    if (!affineTokens(b, tok, T, start))
      return fail();
    // Pages ahead of the token vector's own: the tile's tokens start q * P
    // further (q * P is start itself when start is a multiple of P).
    std::optional<LinearForm> startForm = lin.get(start);
    if (!startForm)
      return fail();
    if (pagesAhead) {
      std::optional<LinearForm> q = lin.get(pagesAhead);
      if (!q)
        return fail();
      startForm->add(*q, page);
      lin.normalize(*startForm);
      start = lin.materialize(b, loc, *startForm, b.getI32Type());
      if (!start)
        return fail();
    }
    // The tokens, for comparing masks written on other token vectors.
    LinearForm tokens = *startForm;
    tokens.lanes = {1};

    // Masks: tokens below one bound, columns below a constant.
    Value bound;
    std::optional<int64_t> cols;
    if (Value m = load.getMask()) {
      SmallVector<std::pair<Value, int>> conds;
      if (!maskConditions(m, conds))
        return fail();
      for (auto [c, dim] : conds) {
        if (dim == tokDim && !bound) {
          bound = pagesAhead ? Value() : boundOf(b, c, tok);
          if (!bound)
            bound = shiftedBound(b, c, tokens);
          if (!bound)
            return fail();
        } else if (dim == colDim && !cols) {
          auto cmp = c.getDefiningOp<arith::CmpIOp>();
          if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
              peelExt(cmp.getLhs()).getDefiningOp<RangeOp>() !=
                  peelExt(column->factor).getDefiningOp<RangeOp>())
            return fail();
          cols = splatInt(cmp.getRhs());
          if (!cols || *cols < 1 || *cols > D)
            return fail();
        } else {
          return fail();
        }
      }
    }
    // The block table may be read only where the original read it: the
    // op reads the entries of pages that hold a token of the tile below
    // the bound.
    if (Value m = ids.getMask()) {
      if (!bound ||
          !readsEntriesOf(m, load.getMask(), tokDim, btAdd.getOffset(), page))
        return fail();
    }
    if (!bound)
      bound = arith::AddIOp::create(
          b, loc, start,
          arith::ConstantOp::create(b, loc, b.getI32Type(),
                                    b.getI32IntegerAttr(T)));

    // `other`: zero is what the op gives masked elements; any other
    // uniform value is put back with a select.
    Value other = load.getOther();
    bool zeroOther = true;
    if (other) {
      if (!isUniform(other))
        return fail();
      DenseElementsAttr dense;
      zeroOther = matchPattern(other, m_Constant(&dense)) && dense.isSplat() &&
                  (isa<FloatType>(dense.getElementType())
                       ? dense.getSplatValue<APFloat>().isPosZero()
                       : dense.getSplatValue<APInt>().isZero());
    }

    // Build: the uniform terms move into the cache pointer.
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    auto to64 = [&](Value v) { return d.ext(v, i64); };
    Value cache = d.base;
    Value headOff;
    for (Value u : uniform)
      headOff =
          headOff ? arith::AddIOp::create(b, loc, headOff, to64(u)) : to64(u);
    if (headOff)
      cache = AddPtrOp::create(b, loc, cache.getType(), cache, headOff);
    Value s0 = to64(entry->scale);
    Value s1 = slot->scale ? to64(slot->scale)
                           : arith::ConstantOp::create(b, loc, i64,
                                                       b.getI64IntegerAttr(1));
    Value zero32 =
        arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0));
    Value zero64 =
        arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
    auto tileType = RankedTensorType::get({T, D}, type.getElementType());
    Value result = PagedLoadOp::create(
        b, loc, tileType, cache, btRow, start, zero32, s0, s1, zero64, bound,
        /*numBlocks=*/Value(), /*tensormap=*/Value(), b.getI32IntegerAttr(page),
        cols && *cols < D ? b.getI32IntegerAttr(*cols) : IntegerAttr());
    if (tokDim == 1)
      result = TransOp::create(b, loc, type, result, DenseI32ArrayAttr());
    if (other && !zeroOther)
      result = arith::SelectOp::create(b, loc, load.getMask(), result, other);
    load.getResult().replaceAllUsesWith(result);
    load.erase();
    if (ids.getResult().use_empty())
      ids.erase();
    return true;
  }
};

struct RaisePagedLoadsPass
    : public mlir::quire::tile::impl::RaisePagedLoadsBase<RaisePagedLoadsPass> {
  using RaisePagedLoadsBase::RaisePagedLoadsBase;

  void runOnOperation() override {
    AxisInfoAnalysis info(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func))
        continue;
      Linearizer lin([&](Value v) { return info.get(v).getDivisibility(0); });
      Raiser raiser(func, lin);
      SmallVector<LoadOp> loads;
      func.walk([&](LoadOp l) { loads.push_back(l); });
      for (LoadOp l : loads) {
        raiser.raise(l);
        lin.clear(); // forms are cached by value; ops were erased
      }
    }
  }
};

} // namespace
