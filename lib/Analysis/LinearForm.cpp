//===- LinearForm.cpp - Integers as sums of scaled atoms ------------------===//
//
// The forms follow the ops kernels build offsets and masks with: constants,
// range, splat, broadcast, expand_dims, add, sub, multiplication and left
// shifts by constants, sign and zero extensions, and exact divisions by
// constants. Everything else is an atom.
//
//===----------------------------------------------------------------------===//

#include "quire/Analysis/LinearForm.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::quire;

namespace {

bool lessAtom(const std::pair<Value, int64_t> &a,
              const std::pair<Value, int64_t> &b) {
  return a.first.getAsOpaquePointer() < b.first.getAsOpaquePointer();
}

unsigned rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return 0;
}

bool isIntegerLike(Type t) {
  return getElementTypeOrSelf(t).isIntOrIndex() &&
         (!isa<ShapedType>(t) || isa<RankedTensorType>(t));
}

/// A constant integer (or splat integer tensor) operand, or nullopt.
std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

bool hasTensorAtoms(const LinearForm &f) {
  return llvm::any_of(f.terms, [](const std::pair<Value, int64_t> &t) {
    return isa<ShapedType>(t.first.getType());
  });
}

} // namespace

LinearForm LinearForm::constantOf(int64_t c, unsigned rank) {
  LinearForm f;
  f.constant = c;
  f.lanes.assign(rank, 0);
  return f;
}

LinearForm LinearForm::atomOf(Value atom, unsigned rank) {
  LinearForm f = constantOf(0, rank);
  f.terms.push_back({atom, 1});
  return f;
}

int64_t LinearForm::coefficient(Value atom) const {
  for (auto [a, c] : terms)
    if (a == atom)
      return c;
  return 0;
}

void LinearForm::setCoefficient(Value atom, int64_t coeff) {
  auto it = llvm::find_if(terms, [&](auto &t) { return t.first == atom; });
  if (it != terms.end()) {
    if (coeff == 0)
      terms.erase(it);
    else
      it->second = coeff;
    return;
  }
  if (coeff == 0)
    return;
  terms.push_back({atom, coeff});
  llvm::sort(terms, lessAtom);
}

void LinearForm::add(const LinearForm &other, int64_t scale) {
  constant += scale * other.constant;
  for (auto [a, c] : other.terms)
    setCoefficient(a, coefficient(a) + scale * c);
  if (lanes.empty())
    lanes.assign(other.lanes.size(), 0);
  for (unsigned d = 0; d < other.lanes.size() && d < lanes.size(); ++d)
    lanes[d] += scale * other.lanes[d];
}

void LinearForm::multiply(int64_t factor) {
  constant *= factor;
  if (factor == 0) {
    terms.clear();
  } else {
    for (auto &t : terms)
      t.second *= factor;
  }
  for (int64_t &l : lanes)
    l *= factor;
}

bool LinearForm::isUniform() const {
  return llvm::all_of(lanes, [](int64_t l) { return l == 0; }) &&
         !hasTensorAtoms(*this);
}

LinearForm LinearForm::at(ArrayRef<int64_t> index) const {
  LinearForm f;
  f.constant = constant;
  f.terms = terms;
  for (unsigned d = 0; d < lanes.size() && d < index.size(); ++d)
    f.constant += lanes[d] * index[d];
  return f;
}

//===----------------------------------------------------------------------===//
// Linearizer
//===----------------------------------------------------------------------===//

int64_t Linearizer::divisorOf(Value v) {
  if (auto s = v.getDefiningOp<tile::SplatOp>())
    return divisorOf(s.getSrc());
  if (isa<ShapedType>(v.getType()) || !divisor)
    return 1;
  return std::max<int64_t>(1, divisor(v));
}

bool Linearizer::divides(const LinearForm &f, int64_t c) {
  if (c <= 0)
    return false;
  if (f.constant % c != 0)
    return false;
  for (int64_t l : f.lanes)
    if (l % c != 0)
      return false;
  for (auto [a, k] : f.terms) {
    int64_t rest = c / std::gcd(c, k < 0 ? -k : k);
    if (rest != 1 && divisorOf(a) % rest != 0)
      return false;
  }
  return true;
}

/// `v` as (x, c) when it is x / c or x >> log2(c) for a constant c > 0.
static std::optional<std::pair<Value, int64_t>> exactDivision(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (isa<arith::DivSIOp, arith::DivUIOp>(op))
    if (auto c = constantOf(op->getOperand(1)); c && *c > 0)
      return std::make_pair(op->getOperand(0), *c);
  if (isa<arith::ShRSIOp, arith::ShRUIOp>(op))
    if (auto k = constantOf(op->getOperand(1)); k && *k >= 0 && *k < 62)
      return std::make_pair(op->getOperand(0), int64_t(1) << *k);
  return std::nullopt;
}

void Linearizer::normalize(LinearForm &f) {
  for (unsigned round = 0; round < 16; ++round) {
    bool changed = false;
    for (auto [a, k] : SmallVector<std::pair<Value, int64_t>, 4>(f.terms)) {
      auto div = exactDivision(a);
      if (!div || k % div->second != 0)
        continue;
      std::optional<LinearForm> x = get(div->first);
      if (!x || !divides(*x, div->second))
        continue;
      f.setCoefficient(a, 0);
      f.add(*x, k / div->second);
      changed = true;
    }
    if (!changed)
      return;
  }
}

std::optional<LinearForm> Linearizer::get(Value v) {
  if (!isIntegerLike(v.getType()))
    return std::nullopt;
  auto it = cache.find(v);
  if (it != cache.end())
    return it->second;
  std::optional<LinearForm> f = compute(v);
  cache[v] = f;
  return f;
}

/// `f` (of a value of `srcShape`) seen through a broadcast to as many
/// dimensions: a broadcast dimension's index no longer counts.
static std::optional<LinearForm> broadcastForm(LinearForm f,
                                               ArrayRef<int64_t> srcShape) {
  if (hasTensorAtoms(f))
    return std::nullopt;
  for (unsigned d = 0; d < f.lanes.size() && d < srcShape.size(); ++d)
    if (srcShape[d] == 1)
      f.lanes[d] = 0;
  return f;
}

static std::optional<LinearForm> expandForm(LinearForm f, unsigned axis) {
  if (hasTensorAtoms(f) || axis > f.lanes.size())
    return std::nullopt;
  f.lanes.insert(f.lanes.begin() + axis, 0);
  return f;
}

static LinearForm splatForm(LinearForm f, unsigned rank) {
  f.lanes.assign(rank, 0);
  return f;
}

std::optional<LinearForm> Linearizer::compute(Value v) {
  unsigned rank = rankOf(v);
  LinearForm atom = LinearForm::atomOf(v, rank);
  Operation *op = v.getDefiningOp();
  if (!op)
    return atom;
  if (auto c = constantOf(v))
    return LinearForm::constantOf(*c, rank);
  if (auto r = dyn_cast<tile::RangeOp>(op)) {
    LinearForm f = LinearForm::constantOf(r.getStartAttr().getInt(), 1);
    f.lanes[0] = 1;
    return f;
  }
  if (auto s = dyn_cast<tile::SplatOp>(op)) {
    if (std::optional<LinearForm> f = get(s.getSrc()))
      return splatForm(*f, rank);
    return atom;
  }
  if (auto b = dyn_cast<tile::BroadcastOp>(op)) {
    std::optional<LinearForm> f = get(b.getSrc());
    if (!f)
      return atom;
    auto src = cast<RankedTensorType>(b.getSrc().getType());
    if (auto g = broadcastForm(*f, src.getShape()))
      return g;
    return atom;
  }
  if (auto e = dyn_cast<tile::ExpandDimsOp>(op)) {
    std::optional<LinearForm> f = get(e.getSrc());
    if (!f)
      return atom;
    if (auto g = expandForm(*f, e.getAxisAttr().getInt()))
      return g;
    return atom;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(op)) {
    if (std::optional<LinearForm> f = get(op->getOperand(0)))
      return f;
    return atom;
  }
  if (isa<arith::AddIOp, arith::SubIOp>(op)) {
    std::optional<LinearForm> l = get(op->getOperand(0));
    std::optional<LinearForm> r = get(op->getOperand(1));
    if (!l || !r)
      return atom;
    l->add(*r, isa<arith::AddIOp>(op) ? 1 : -1);
    return l;
  }
  if (isa<arith::MulIOp>(op)) {
    std::optional<LinearForm> l = get(op->getOperand(0));
    std::optional<LinearForm> r = get(op->getOperand(1));
    if (l && r && r->isConstant()) {
      l->multiply(r->constant);
      return l;
    }
    if (l && r && l->isConstant()) {
      r->multiply(l->constant);
      return r;
    }
    return atom;
  }
  if (isa<arith::ShLIOp>(op)) {
    std::optional<LinearForm> l = get(op->getOperand(0));
    auto k = constantOf(op->getOperand(1));
    if (l && k && *k >= 0 && *k < 62) {
      l->multiply(int64_t(1) << *k);
      return l;
    }
    return atom;
  }
  if (auto div = exactDivision(v)) {
    // Exact when every coefficient is a multiple of the divisor; when only
    // an atom's divisibility makes x a multiple, x / c stays an atom and
    // `normalize` takes c * (x / c) back to x.
    int64_t c = div->second;
    std::optional<LinearForm> x = get(div->first);
    if (x && x->constant % c == 0 &&
        llvm::all_of(x->terms, [&](auto &t) { return t.second % c == 0; }) &&
        llvm::all_of(x->lanes, [&](int64_t l) { return l % c == 0; })) {
      x->constant /= c;
      for (auto &t : x->terms)
        t.second /= c;
      for (int64_t &l : x->lanes)
        l /= c;
      return x;
    }
  }
  return atom;
}

std::optional<LinearForm> Linearizer::pointer(Value p, Value &root) {
  unsigned rank = rankOf(p);
  if (auto a = p.getDefiningOp<tile::AddPtrOp>()) {
    std::optional<LinearForm> base = pointer(a.getPtr(), root);
    std::optional<LinearForm> off = get(a.getOffset());
    if (!base || !off)
      return std::nullopt;
    base->add(*off);
    return base;
  }
  if (auto s = p.getDefiningOp<tile::SplatOp>()) {
    std::optional<LinearForm> f = pointer(s.getSrc(), root);
    if (!f)
      return std::nullopt;
    return splatForm(*f, rank);
  }
  if (auto b = p.getDefiningOp<tile::BroadcastOp>()) {
    std::optional<LinearForm> f = pointer(b.getSrc(), root);
    if (!f)
      return std::nullopt;
    return broadcastForm(
        *f, cast<RankedTensorType>(b.getSrc().getType()).getShape());
  }
  if (auto e = p.getDefiningOp<tile::ExpandDimsOp>()) {
    std::optional<LinearForm> f = pointer(e.getSrc(), root);
    if (!f)
      return std::nullopt;
    return expandForm(*f, e.getAxisAttr().getInt());
  }
  if (rank != 0)
    return std::nullopt;
  root = p;
  return LinearForm::constantOf(0, 0);
}

Value Linearizer::materialize(OpBuilder &b, Location loc, const LinearForm &f,
                              Type type) {
  if (!f.isUniform())
    return {};
  auto cast = [&](Value v) -> Value {
    Type from = v.getType();
    if (from == type)
      return v;
    if (from.isIndex() || type.isIndex())
      return arith::IndexCastOp::create(b, loc, type, v);
    if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
      return arith::ExtSIOp::create(b, loc, type, v);
    return arith::TruncIOp::create(b, loc, type, v);
  };
  auto constant = [&](int64_t c) -> Value {
    return arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, c));
  };
  Value sum;
  for (auto [a, k] : f.terms) {
    Value term = cast(a);
    if (k != 1 && k != -1)
      term = arith::MulIOp::create(b, loc, term, constant(k));
    if (!sum)
      sum = k == -1
                ? arith::SubIOp::create(b, loc, constant(0), term).getResult()
                : term;
    else
      sum = k == -1 ? arith::SubIOp::create(b, loc, sum, term).getResult()
                    : arith::AddIOp::create(b, loc, sum, term).getResult();
  }
  if (!sum)
    return constant(f.constant);
  if (f.constant != 0)
    sum = arith::AddIOp::create(b, loc, sum, constant(f.constant));
  return sum;
}
