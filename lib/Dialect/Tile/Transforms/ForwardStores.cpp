//===- ForwardStores.cpp - A program's own stores forwarded to its loads --===//
//
// A kernel that builds values in global scratch memory and reads them back
// (the classic first PagedAttention attempt in Triton) loads what it has
// just stored:
//   scf.for %p = 0 to 4 step 1 {                       // one page a step
//     %e = tile.load (%bt + %start / 16 + %p)          // its block
//     tile.store (%scratch + %p * 16 + range(0, 16)),
//                ext(%e) * %s0 + range(0, 16) * %s1, %tok < %len
//   }
//   tile.barrier
//   %rows = tile.load (%scratch + range(0, 64)), %tok64 < %len, 0
// Every element of %rows is an element some store of this program wrote
// last, with its mask true wherever %rows' mask is true, so %rows is the
// stored expression evaluated for each element: the piece and the lane an
// element came from (here %p = j / 16, lane j % 16) replace the loop's
// induction variable and the stores' lane index:
//   %e'   = tile.load (%bt + %start / 16 + range(0, 64) / 16)   // a gather
//   %rows = select(%tok64 < %len, ext(%e') * %s0 + (range(0, 64) % 16) * %s1,
//   0)
// which is the natural gather quire-raise-paged-loads recognizes. The stores
// stay (the memory is a kernel argument: someone may read it later), as one
// store of %rows under the reload's mask when they wrote exactly its
// elements; the barrier, once nothing reads what it ordered, goes.
//
// What is proven, per element j of the load, by enumerating the addresses
// (offsets and trip counts are constants relative to a common base):
//  - the last store of this region to j's address is known (a direct store
//    of the same block, or one iteration of a loop of constant trip count
//    in the same block), and no store between it and the load may write
//    that address (stores through other kernel arguments are taken not to
//    overlap, as Triton's pipelining takes them);
//  - the store's mask holds wherever the load's does (comparisons of
//    linear forms, LinearForm.h); elements no store wrote are masked off;
//  - the stored value is an expression of the piece index and the lane the
//    rematerialization can evaluate per element (arith and math ops, splat,
//    range, addptr, loads of memory no store of the kernel writes), and the
//    element -> (piece, lane) map has a closed form (one piece; blocks of M
//    lanes, j -> ((j + o) / M, (j + o) % M); or interleaved).
// Unrolled stores (tl.static_range) are pieces of the same block; their
// expressions are unified (equal structure, integers that differ by an
// affine function of the piece index).
//
// Memory model: like Triton, Quire orders nothing between programs without
// atomics; a value another program stored between this program's store and
// its load is a data race the kernel already had. Within a program, the
// store -> barrier -> load order is what the forwarding honours.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Analysis/LinearForm.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "LoopSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace mlir::quire::tile {
#define GEN_PASS_DEF_FORWARDSTORES
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// Elements enumerated per load at most (load lanes plus stored lanes over
/// every piece): the proof is by enumeration.
constexpr int64_t kMaxEnumerated = int64_t(1) << 16;

std::optional<int64_t> constantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// Lanes of a rank-0 or rank-1 value (1 for scalars); nullopt otherwise.
std::optional<int64_t> lanesOf(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor)
    return 1;
  if (tensor.getRank() != 1)
    return std::nullopt;
  return tensor.getDimSize(0);
}

/// The kernel argument `p` is computed from, or null.
Value argumentRoot(Value root) {
  auto arg = dyn_cast_or_null<BlockArgument>(root);
  if (arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return arg;
  return {};
}

/// Adds to `stored` the kernel arguments the stores of `func` write through
/// (and the stores to `stores`); false if an op of `func` accesses memory
/// other than through tile loads and stores of a known argument (barriers
/// and asserts access nothing the program reads).
bool collectStores(func::FuncOp func, llvm::SmallPtrSetImpl<Value> &stored,
                   SmallVectorImpl<StoreOp> *stores = nullptr) {
  bool known = true;
  func.walk([&](Operation *op) {
    if (auto s = dyn_cast<StoreOp>(op)) {
      Value r = pointerRoot(s.getPtr());
      if (!r)
        known = false;
      else
        stored.insert(r);
      if (stores)
        stores->push_back(s);
      return;
    }
    if (op == func.getOperation() ||
        isa<BarrierOp, AssertOp, PrintOp, LoadOp, PagedLoadOp>(op) ||
        op->hasTrait<OpTrait::IsTerminator>() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(op))
      return;
    known = false;
  });
  return known;
}

//===----------------------------------------------------------------------===//
// Masks as conjunctions of `form <= 0`
//===----------------------------------------------------------------------===//

/// One and-ed condition of a mask: `form <= 0` element by element, or an
/// opaque i1 value matched only by identity.
struct Condition {
  std::optional<LinearForm> form;
  Value opaque;
};

void conditions(Linearizer &lin, Value mask, SmallVectorImpl<Condition> &out) {
  if (auto a = mask.getDefiningOp<arith::AndIOp>()) {
    conditions(lin, a.getLhs(), out);
    conditions(lin, a.getRhs(), out);
    return;
  }
  if (auto s = mask.getDefiningOp<SplatOp>())
    return conditions(lin, s.getSrc(), out);
  if (auto c = constantInt(mask)) {
    if (*c == 0) // false: 1 <= 0
      out.push_back({LinearForm::constantOf(1), {}});
    return;
  }
  if (auto cmp = mask.getDefiningOp<arith::CmpIOp>()) {
    std::optional<LinearForm> x = lin.get(cmp.getLhs());
    std::optional<LinearForm> y = lin.get(cmp.getRhs());
    if (x && y) {
      using P = arith::CmpIPredicate;
      std::optional<LinearForm> d;
      auto diff = [](LinearForm a, const LinearForm &b, int64_t plus) {
        a.add(b, -1);
        a.constant += plus;
        return a;
      };
      switch (cmp.getPredicate()) {
      case P::slt:
        d = diff(*x, *y, 1);
        break;
      case P::sle:
        d = diff(*x, *y, 0);
        break;
      case P::sgt:
        d = diff(*y, *x, 1);
        break;
      case P::sge:
        d = diff(*y, *x, 0);
        break;
      default:
        break;
      }
      if (d) {
        lin.normalize(*d);
        out.push_back({d, {}});
        return;
      }
    }
  }
  out.push_back({std::nullopt, mask});
}

/// `form` with the loop's induction variable `iv` replaced by `value`.
LinearForm substitute(Linearizer &lin, LinearForm f, Value iv,
                      const LinearForm &value) {
  if (!iv)
    return f;
  int64_t k = f.coefficient(iv);
  if (k) {
    f.setCoefficient(iv, 0);
    f.add(value, k);
    lin.normalize(f);
  }
  return f;
}

//===----------------------------------------------------------------------===//
// The stores a load may read
//===----------------------------------------------------------------------===//

/// The stores that wrote, last, the addresses a load reads: direct stores
/// of the load's block (`loop` null), or the one store of a loop of the
/// block with a constant trip count.
struct Writers {
  SmallVector<StoreOp> stores; // program order
  scf::ForOp loop;
  int64_t trips = 0;
  int64_t step = 0;
  LinearForm lowerBound;
};

/// True if `op` may write memory a load through `root` reads, looking into
/// its regions; `stores` gets the stores through `root` it holds.
bool mayWrite(Operation *op, Value root, SmallVectorImpl<StoreOp> *stores,
              Linearizer &lin, bool &unknown) {
  bool writes = false;
  op->walk([&](Operation *inner) {
    if (inner->hasTrait<OpTrait::IsTerminator>() || isa<BarrierOp>(inner) ||
        isa<AssertOp, PrintOp>(inner))
      return;
    if (auto store = dyn_cast<StoreOp>(inner)) {
      Value r = pointerRoot(store.getPtr());
      if (!r) {
        unknown = true;
        writes = true;
      } else if (r == root) {
        writes = true;
        if (stores)
          stores->push_back(store);
      }
      return;
    }
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto mem = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!mem || mem.hasEffect<MemoryEffects::Write>() ||
        mem.hasEffect<MemoryEffects::Free>() ||
        mem.hasEffect<MemoryEffects::Allocate>()) {
      unknown = true;
      writes = true;
    }
  });
  return writes;
}

std::optional<Writers> findWriters(LoadOp load, Value root, Linearizer &lin) {
  Writers w;
  SmallVector<StoreOp> direct; // reverse program order
  for (Operation *op = load->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto store = dyn_cast<StoreOp>(op)) {
      Value r = pointerRoot(store.getPtr());
      if (!r)
        break; // may write anything
      if (r == root)
        direct.push_back(store);
      continue;
    }
    if (isa<BarrierOp, AssertOp, PrintOp>(op))
      continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<StoreOp> stores;
      bool unknown = false;
      if (!mayWrite(op, root, &stores, lin, unknown))
        continue;
      if (unknown || !direct.empty() || stores.size() != 1 ||
          stores[0]->getBlock() != loop.getBody())
        break;
      auto step = constantInt(loop.getStep());
      std::optional<LinearForm> lb = lin.get(loop.getLowerBound());
      std::optional<LinearForm> ub = lin.get(loop.getUpperBound());
      if (!step || *step <= 0 || !lb || !ub)
        break;
      LinearForm span = *ub;
      span.add(*lb, -1);
      lin.normalize(span);
      if (!span.isConstant())
        break;
      w.loop = loop;
      w.step = *step;
      w.trips = span.constant > 0 ? llvm::divideCeil(span.constant, *step) : 0;
      w.lowerBound = *lb;
      w.stores = stores;
      return w.trips > 0 ? std::optional<Writers>(w) : std::nullopt;
    }
    bool unknown = false;
    if (op->getNumRegions() && mayWrite(op, root, nullptr, lin, unknown))
      break;
    if (op->getNumRegions())
      continue;
    if (isMemoryEffectFree(op))
      continue;
    auto mem = dyn_cast<MemoryEffectOpInterface>(op);
    if (mem && mem.onlyHasEffect<MemoryEffects::Read>())
      continue;
    break; // may write anything
  }
  if (direct.empty())
    return std::nullopt;
  w.stores.assign(direct.rbegin(), direct.rend());
  w.trips = 1;
  return w;
}

//===----------------------------------------------------------------------===//
// Where each element of the load comes from
//===----------------------------------------------------------------------===//

/// The element -> (piece, lane) map in closed form: one piece (`piece`,
/// lane j + offset), blocks (piece (j + offset) / width, lane (j + offset)
/// % width) or interleaved pieces (piece (j + offset) % pieces, lane
/// (j + offset) / pieces).
struct LaneMap {
  enum Kind { Single, Blocks, Interleaved } kind = Single;
  int64_t piece = 0, offset = 0, width = 1, pieces = 1;

  std::pair<int64_t, int64_t> at(int64_t j) const {
    int64_t x = j + offset;
    switch (kind) {
    case Single:
      return {piece, x};
    case Blocks:
      return {x / width, x % width};
    case Interleaved:
      return {x % pieces, x / pieces};
    }
    return {0, 0};
  }
};

struct Origin {
  int64_t piece = -1; // index into the ordered pieces; -1: no writer
  int64_t lane = 0;
};

std::optional<LaneMap> closedForm(ArrayRef<Origin> origins, int64_t width,
                                  int64_t pieces) {
  int64_t first = -1;
  for (unsigned j = 0; j < origins.size(); ++j)
    if (origins[j].piece >= 0) {
      first = j;
      break;
    }
  if (first < 0)
    return std::nullopt;
  const Origin &o = origins[first];
  SmallVector<LaneMap> candidates;
  candidates.push_back({LaneMap::Single, o.piece, o.lane - first, 1, 1});
  candidates.push_back(
      {LaneMap::Blocks, 0, o.piece * width + o.lane - first, width, 1});
  candidates.push_back(
      {LaneMap::Interleaved, 0, o.lane * pieces + o.piece - first, 1, pieces});
  for (const LaneMap &m : candidates) {
    bool ok = m.offset + first >= 0;
    for (unsigned j = 0; ok && j < origins.size(); ++j) {
      if (origins[j].piece < 0)
        continue;
      if (int64_t(j) + m.offset < 0 ||
          m.at(j) != std::make_pair(origins[j].piece, origins[j].lane))
        ok = false;
    }
    if (ok)
      return m;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Rematerialization: the stored expression, per element of the load
//===----------------------------------------------------------------------===//

/// A rebuilt value: a scalar every element shares (`vector` false), or a
/// value of the load's shape.
struct Rep {
  Value value;
  bool vector = false;
};

class Remat {
public:
  Remat(OpBuilder &b, LoadOp load, Writers w, const LaneMap &map,
        ArrayRef<StoreOp> pieces, int64_t width, Value guard, Linearizer &lin,
        DominanceInfo &dom, const llvm::SmallPtrSetImpl<Value> &readOnlyRoots)
      : b(b), load(load), w(w), map(map), pieces(pieces), width(width),
        guard(guard), lin(lin), dom(dom), readOnlyRoots(readOnlyRoots),
        loc(load.getLoc()) {
    if (auto t = dyn_cast<RankedTensorType>(load.getType()))
      shape.assign(t.getShape().begin(), t.getShape().end());
  }

  /// The stored values of the pieces, rebuilt per element.
  Value build() {
    SmallVector<Value> values;
    for (StoreOp s : pieces)
      values.push_back(s.getValue());
    std::optional<Rep> r = gen(values);
    if (!r)
      return {};
    return widen(*r);
  }

private:
  Type vectorType(Type elt) {
    return shape.empty() ? elt : RankedTensorType::get(shape, elt);
  }
  Value widen(Rep r) {
    if (r.vector || shape.empty())
      return r.value;
    auto type = cast<RankedTensorType>(vectorType(r.value.getType()));
    Attribute c;
    if (matchPattern(r.value, m_Constant(&c)) && isa<IntegerAttr, FloatAttr>(c))
      return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, c));
    return SplatOp::create(b, loc, type, r.value);
  }
  Value constI32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32Type(),
                                     b.getI32IntegerAttr(v));
  }
  Value vecI32(int64_t v) { return widen({constI32(v), false}); }

  /// The load's element index j (a range for a tensor load).
  Value index() {
    if (!j)
      j = shape.empty()
              ? constI32(0)
              : RangeOp::create(b, loc,
                                RankedTensorType::get(shape, b.getI32Type()), 0,
                                shape[0])
                    .getResult();
    return j;
  }
  Value shifted() {
    if (map.offset == 0)
      return index();
    return arith::AddIOp::create(b, loc, index(), vecI32(map.offset));
  }
  /// Per element: the piece (as an i32) and the lane it came from.
  Rep pieceIndex() {
    if (map.kind == LaneMap::Single)
      return {constI32(map.piece), false};
    if (!pieceVec)
      pieceVec =
          map.kind == LaneMap::Blocks
              ? arith::DivSIOp::create(b, loc, shifted(), vecI32(map.width))
                    .getResult()
              : arith::RemSIOp::create(b, loc, shifted(), vecI32(map.pieces))
                    .getResult();
    return {pieceVec, true};
  }
  Rep laneIndex() {
    if (!laneVec)
      laneVec =
          map.kind == LaneMap::Single ? shifted()
          : map.kind == LaneMap::Blocks
              ? arith::RemSIOp::create(b, loc, shifted(), vecI32(map.width))
                    .getResult()
              : arith::DivSIOp::create(b, loc, shifted(), vecI32(map.pieces))
                    .getResult();
    return {laneVec, !shape.empty()};
  }

  using Key = std::vector<const void *>;

  std::optional<Rep> gen(ArrayRef<Value> vs) {
    Key key;
    for (Value v : vs)
      key.push_back(v.getAsOpaquePointer());
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    std::optional<Rep> r = compute(vs);
    if (r)
      memo[key] = *r;
    return r;
  }

  bool allSame(ArrayRef<Value> vs) { return llvm::all_equal(vs); }

  /// True if `v` is a value of the stores' lane shape.
  bool isLaneTensor(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() == 1 && t.getDimSize(0) == width;
  }

  /// A scalar usable at the load as it is: not computed inside the loop
  /// of the stores (it may depend on the iteration), visible at the load.
  bool usable(Value v) {
    if (isa<ShapedType>(v.getType()))
      return false;
    if (w.loop) {
      Operation *owner = v.getDefiningOp();
      if (!owner)
        owner = cast<BlockArgument>(v).getOwner()->getParentOp();
      if (w.loop->isAncestor(owner))
        return false;
    }
    return dom.properlyDominates(v, load);
  }

  std::optional<Rep> compute(ArrayRef<Value> vs) {
    Value v0 = vs.front();
    // The induction variable: lb + step * piece.
    if (w.loop && v0 == w.loop.getInductionVar()) {
      if (!v0.getType().isInteger(32))
        return std::nullopt;
      Rep p = pieceIndex();
      Value lb = lin.materialize(b, loc, w.lowerBound, b.getI32Type());
      if (!lb)
        return std::nullopt;
      Value v = p.value;
      if (p.vector) {
        if (w.step != 1)
          v = arith::MulIOp::create(b, loc, v, vecI32(w.step));
        if (!w.lowerBound.isConstant() || w.lowerBound.constant != 0)
          v = arith::AddIOp::create(b, loc, v, widen({lb, false}));
        return Rep{v, true};
      }
      v = arith::AddIOp::create(
          b, loc, lb, arith::MulIOp::create(b, loc, v, constI32(w.step)));
      return Rep{v, false};
    }
    // A scalar every piece shares, visible at the load.
    if (allSame(vs) && usable(v0))
      return Rep{v0, false};
    if (!allSame(vs) && !w.loop && v0.getType().isIntOrIndex()) {
      if (auto r = unifyIntegers(vs))
        return r;
    }
    // Everything else is rebuilt from its definition.
    SmallVector<Operation *> defs;
    for (Value v : vs) {
      Operation *d = v.getDefiningOp();
      if (!d || d->getNumResults() != 1 || d->getNumRegions() != 0)
        return std::nullopt;
      defs.push_back(d);
    }
    Type type = v0.getType();
    if (isa<RankedTensorType>(type) && !isLaneTensor(v0))
      return std::nullopt;
    for (Operation *d : defs)
      if (d->getName() != defs[0]->getName() ||
          d->getNumOperands() != defs[0]->getNumOperands() ||
          d->getAttrDictionary() != defs[0]->getAttrDictionary() ||
          d->getPropertiesAsAttribute() !=
              defs[0]->getPropertiesAsAttribute() ||
          d->getResult(0).getType() != type)
        return std::nullopt;
    Operation *def = defs[0];
    if (isa<arith::ConstantOp>(def)) {
      // Equal constants (unequal integers were unified above).
      auto cst = cast<arith::ConstantOp>(def);
      if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue())) {
        if (!dense.isSplat())
          return std::nullopt;
        return Rep{
            arith::ConstantOp::create(b, loc, dense.getSplatValue<TypedAttr>()),
            false};
      }
      return Rep{b.clone(*def)->getResult(0), false};
    }
    if (auto range = dyn_cast<RangeOp>(def)) {
      if (!isLaneTensor(range.getResult()))
        return std::nullopt;
      Rep lane = laneIndex();
      int64_t start = range.getStartAttr().getInt();
      if (start == 0)
        return lane;
      Value c = lane.vector ? vecI32(start) : constI32(start);
      return Rep{arith::AddIOp::create(b, loc, lane.value, c), lane.vector};
    }
    if (isa<SplatOp>(def)) {
      SmallVector<Value> srcs;
      for (Operation *d : defs)
        srcs.push_back(d->getOperand(0));
      return gen(srcs);
    }
    bool elementwise =
        def->hasTrait<OpTrait::Elementwise>() || isa<AddPtrOp, LoadOp>(def);
    if (!elementwise)
      return std::nullopt;
    if (auto l = dyn_cast<LoadOp>(def)) {
      Value r = pointerRoot(l.getPtr());
      if (!r || !readOnlyRoots.contains(r))
        return std::nullopt;
    } else if (!isMemoryEffectFree(def)) {
      return std::nullopt;
    }
    SmallVector<Rep> operands;
    bool anyVector = false;
    for (unsigned i = 0; i < def->getNumOperands(); ++i) {
      SmallVector<Value> ops;
      for (Operation *d : defs)
        ops.push_back(d->getOperand(i));
      std::optional<Rep> r = gen(ops);
      if (!r)
        return std::nullopt;
      anyVector |= r->vector;
      operands.push_back(*r);
    }
    bool isLoad = isa<LoadOp>(def);
    if (isLoad && guard && !shape.empty())
      anyVector = true;
    SmallVector<Value> newOperands;
    for (Rep r : operands)
      newOperands.push_back(anyVector ? widen(r) : r.value);
    Operation *copy = b.clone(*def);
    copy->setOperands(newOperands);
    Type elt = getElementTypeOrSelf(type);
    copy->getResult(0).setType(anyVector ? vectorType(elt) : elt);
    if (auto l = dyn_cast<LoadOp>(copy); l && guard && anyVector) {
      // Elements whose piece was never stored (masked off in the load)
      // must not read memory the program never read.
      Value m =
          l.getMask()
              ? arith::AndIOp::create(b, loc, l.getMask(), guard).getResult()
              : guard;
      l.getMaskMutable().assign(m);
    }
    return Rep{copy->getResult(0), anyVector};
  }

  /// Integers that differ per piece by an affine function of the piece
  /// index: c_i = c_0 + d * i over the same atoms and lane coefficients.
  std::optional<Rep> unifyIntegers(ArrayRef<Value> vs) {
    SmallVector<LinearForm> forms;
    for (Value v : vs) {
      if (isa<ShapedType>(v.getType()) && !isLaneTensor(v))
        return std::nullopt;
      std::optional<LinearForm> f = lin.get(v);
      if (!f)
        return std::nullopt;
      lin.normalize(*f);
      forms.push_back(*f);
    }
    LinearForm f0 = forms.front();
    int64_t d = forms.size() > 1 ? forms[1].constant - f0.constant : 0;
    for (unsigned i = 0; i < forms.size(); ++i)
      if (!forms[i].sameTerms(f0) || forms[i].lanes != f0.lanes ||
          forms[i].constant != f0.constant + d * int64_t(i))
        return std::nullopt;
    for (auto [a, k] : f0.terms)
      if (isa<ShapedType>(a.getType()) || !dom.properlyDominates(a, load))
        return std::nullopt;
    Type elt = getElementTypeOrSelf(vs.front().getType());
    if (!elt.isInteger(32) && !elt.isInteger(64))
      return std::nullopt;
    int64_t laneCoeff = f0.lanes.empty() ? 0 : f0.lanes[0];
    f0.lanes.clear();
    Value base = lin.materialize(b, loc, f0, elt);
    if (!base)
      return std::nullopt;
    auto cst = [&](int64_t c) {
      return widen(
          {arith::ConstantOp::create(b, loc, elt, b.getIntegerAttr(elt, c)),
           false});
    };
    auto toElt = [&](Rep r) -> Rep {
      if (elt.isInteger(32))
        return r;
      return {arith::ExtSIOp::create(b, loc, r.vector ? vectorType(elt) : elt,
                                     r.value),
              r.vector};
    };
    Rep sum{base, false};
    auto addScaled = [&](Rep x, int64_t k) {
      if (k == 0)
        return;
      x = toElt(x);
      bool vec = x.vector || sum.vector;
      Value xv = vec ? widen(x) : x.value;
      if (k != 1)
        xv = arith::MulIOp::create(
            b, loc, xv,
            vec ? cst(k)
                : arith::ConstantOp::create(b, loc, elt,
                                            b.getIntegerAttr(elt, k))
                      .getResult());
      Value sv = vec ? widen(sum) : sum.value;
      sum = {arith::AddIOp::create(b, loc, sv, xv), vec};
    };
    addScaled(pieceIndex(), d);
    if (laneCoeff)
      addScaled(laneIndex(), laneCoeff);
    return sum;
  }

  OpBuilder &b;
  LoadOp load;
  Writers w;
  const LaneMap &map;
  ArrayRef<StoreOp> pieces;
  int64_t width;
  Value guard;
  Linearizer &lin;
  DominanceInfo &dom;
  const llvm::SmallPtrSetImpl<Value> &readOnlyRoots;
  Location loc;
  SmallVector<int64_t> shape;
  Value j, pieceVec, laneVec;
  std::map<Key, Rep> memo;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct Forwarder {
  func::FuncOp func;
  Linearizer &lin;
  DominanceInfo dom;
  /// Kernel arguments no store of the kernel writes through (and no op
  /// writes memory in an unknown way): loads of them can be re-issued
  /// anywhere.
  llvm::SmallPtrSet<Value, 8> readOnlyRoots;
  /// The stores whose values a forwarded load now reads.
  llvm::SmallPtrSet<Operation *, 8> forwarded;
  /// A forwarded load whose stores wrote exactly its elements under its
  /// mask: the stores can become one store of the rebuilt value at the
  /// load's addresses (sinkUnreadStores makes it when nothing reads them).
  struct Merge {
    SmallVector<StoreOp> stores;
    Value ptr, value, mask;
  };
  SmallVector<Merge> merges;

  Forwarder(func::FuncOp func, Linearizer &lin)
      : func(func), lin(lin), dom(func) {
    llvm::SmallPtrSet<Value, 8> stored;
    if (collectStores(func, stored))
      for (BlockArgument a : func.getArguments())
        if (isa<PointerType>(a.getType()) && !stored.contains(a))
          readOnlyRoots.insert(a);
  }

  bool forward(LoadOp load);
};

bool Forwarder::forward(LoadOp load) {
  std::optional<int64_t> n = lanesOf(load.getType());
  if (!n)
    return false;
  Value root;
  std::optional<LinearForm> addrL = lin.pointer(load.getPtr(), root);
  if (!addrL || !argumentRoot(root))
    return false;
  lin.normalize(*addrL);
  std::optional<Writers> w = findWriters(load, root, lin);
  if (!w)
    return false;
  Value iv = w->loop ? w->loop.getInductionVar() : Value();
  Type elt = getElementTypeOrSelf(load.getType());

  // The pieces in program order, each with its addresses relative to the
  // load's, and the lanes they store.
  struct Piece {
    StoreOp store;
    int64_t iteration;
    LinearForm address; // relative to the load's first element
  };
  SmallVector<Piece> pieces;
  std::optional<int64_t> width;
  LinearForm uniformL = *addrL;
  for (int64_t &l : uniformL.lanes)
    l = 0;
  for (StoreOp s : w->stores) {
    std::optional<int64_t> m = lanesOf(s.getValue().getType());
    if (!m || getElementTypeOrSelf(s.getValue().getType()) != elt ||
        (width && *width != *m))
      return false;
    width = m;
    Value r;
    std::optional<LinearForm> a = lin.pointer(s.getPtr(), r);
    if (!a || r != root)
      return false;
    lin.normalize(*a);
    for (int64_t k = 0; k < w->trips; ++k) {
      LinearForm at = *a;
      if (iv) {
        LinearForm ivValue = w->lowerBound;
        ivValue.constant += w->step * k;
        at = substitute(lin, at, iv, ivValue);
      }
      at.add(uniformL, -1);
      lin.normalize(at);
      // The addresses must differ from the load's by known constants.
      if (!at.terms.empty())
        return false;
      pieces.push_back({s, k, at});
    }
  }
  if (*n + int64_t(pieces.size()) * *width > kMaxEnumerated)
    return false;
  // For each element of the load, the last piece that stored its address.
  std::map<int64_t, Origin> last;
  for (unsigned p = 0; p < pieces.size(); ++p)
    for (int64_t r = 0; r < *width; ++r)
      last[pieces[p].address.at({r}).constant] = {int64_t(p), r};
  SmallVector<Origin> origins;
  for (int64_t jj = 0; jj < *n; ++jj) {
    auto it = last.find(addrL->at({jj}).constant - addrL->constant);
    origins.push_back(it == last.end() ? Origin() : it->second);
  }

  // Masks: every element the load may read was stored, under a mask its
  // own mask implies.
  SmallVector<Condition> loadConds;
  if (Value m = load.getMask())
    conditions(lin, m, loadConds);
  // `a <= b` for every value of the terms (so `b <= 0` follows from
  // `a <= 0`), and `f <= 0` always.
  auto atMost = [&](LinearForm a, const LinearForm &b) {
    a.add(b, -1);
    lin.normalize(a);
    return a.isConstant() && a.constant <= 0;
  };
  auto alwaysTrue = [](const LinearForm &f) {
    return f.isConstant() && f.constant <= 0;
  };
  // A load's condition at element jj.
  auto loadForm = [&](const Condition &l, int64_t jj) {
    LinearForm f = l.form->at({jj});
    lin.normalize(f);
    return f;
  };
  // A piece's condition at one of its lanes.
  auto pieceForm = [&](const Condition &c, int64_t lane, const Piece &p) {
    LinearForm s = *c.form;
    if (iv) {
      LinearForm ivValue = w->lowerBound;
      ivValue.constant += w->step * p.iteration;
      s = substitute(lin, s, iv, ivValue);
    }
    s = s.at({lane});
    lin.normalize(s);
    return s;
  };
  auto impliedAt = [&](const Condition &c, int64_t jj, int64_t lane, Piece &p,
                       bool identity) {
    if (!c.form)
      return identity && llvm::any_of(loadConds, [&](const Condition &l) {
               return l.opaque == c.opaque;
             });
    LinearForm s = pieceForm(c, lane, p);
    return alwaysTrue(s) || llvm::any_of(loadConds, [&](const Condition &l) {
             return l.form && atMost(s, loadForm(l, jj));
           });
  };
  auto maskedOff = [&](int64_t jj) {
    return llvm::any_of(loadConds, [&](const Condition &l) {
      if (!l.form)
        return false;
      LinearForm f = loadForm(l, jj);
      return f.isConstant() && f.constant > 0;
    });
  };
  bool identity = pieces.size() == 1 && *width == *n;
  for (int64_t jj = 0; jj < *n; ++jj)
    identity &= origins[jj].piece == 0 && origins[jj].lane == jj;
  bool allStored = true;
  for (int64_t jj = 0; jj < *n; ++jj) {
    const Origin &o = origins[jj];
    if (o.piece < 0) {
      if (!maskedOff(jj))
        return false;
      allStored = false;
      origins[jj] = Origin();
      continue;
    }
    Piece &p = pieces[o.piece];
    if (Value m = p.store.getMask()) {
      SmallVector<Condition> conds;
      conditions(lin, m, conds);
      for (const Condition &c : conds)
        if (!impliedAt(c, jj, o.lane, p, identity))
          return false;
    }
  }

  // The value: the stored one itself, or rebuilt per element.
  OpBuilder b(load);
  Location loc = load.getLoc();
  Value value;
  if (identity && !w->loop) {
    value = pieces[0].store.getValue();
  } else {
    std::optional<LaneMap> map = closedForm(origins, *width, pieces.size());
    if (!map)
      return false;
    // Elements whose piece index falls outside the stored pieces are
    // masked off; loads rebuilt for them must not touch memory.
    bool inRange = true;
    for (int64_t jj = 0; jj < *n; ++jj) {
      if (jj + map->offset < 0) {
        inRange = false;
        break;
      }
      auto [p, lane] = map->at(jj);
      inRange &=
          p >= 0 && p < int64_t(pieces.size()) && lane >= 0 && lane < *width;
    }
    Value guard = inRange ? Value() : load.getMask();
    if (!inRange && !guard)
      return false;
    SmallVector<StoreOp> stores;
    if (w->loop)
      stores.push_back(w->stores[0]);
    else
      for (const Piece &p : pieces)
        stores.push_back(p.store);
    Block *block = load->getBlock();
    Operation *before = load->getPrevNode();
    Remat remat(b, load, *w, *map, stores, *width, guard, lin, dom,
                readOnlyRoots);
    value = remat.build();
    if (!value) {
      // Erase what a failed rebuild left behind.
      for (Operation *op = load->getPrevNode(); op && op != before;) {
        Operation *prev = op->getPrevNode();
        if (op->use_empty())
          op->erase();
        op = prev;
      }
      (void)block;
      return false;
    }
  }
  if (value.getType() != load.getType())
    return false;
  (void)allStored;
  if (pieces.size() > 1 || w->loop) {
    // The stores wrote exactly the load's elements under its mask (every
    // lane they store is an element of the load, and the load's mask holds
    // wherever theirs does): one store of the rebuilt value under the
    // load's mask writes what they wrote.
    std::map<int64_t, int64_t> element;
    for (int64_t jj = 0; jj < *n; ++jj)
      element[addrL->at({jj}).constant - addrL->constant] = jj;
    auto storesOnlyLoaded = [&](Piece &p) {
      SmallVector<Condition> conds;
      if (Value m = p.store.getMask())
        conditions(lin, m, conds);
      if (llvm::any_of(conds, [](const Condition &c) { return !c.form; }))
        return false;
      for (int64_t r = 0; r < *width; ++r) {
        auto it = element.find(p.address.at({r}).constant);
        if (it == element.end())
          return false;
        int64_t jj = it->second;
        for (const Condition &l : loadConds) {
          if (!l.form)
            return false;
          LinearForm f = loadForm(l, jj);
          if (!alwaysTrue(f) && llvm::none_of(conds, [&](const Condition &c) {
                return atMost(f, pieceForm(c, r, p));
              }))
            return false;
        }
      }
      return true;
    };
    if (llvm::all_of(pieces, storesOnlyLoaded))
      merges.push_back({SmallVector<StoreOp>(w->stores), load.getPtr(), value,
                        load.getMask()});
  }
  if (load.getMask() && load.getOther())
    value =
        arith::SelectOp::create(b, loc, load.getMask(), value, load.getOther());
  load.getResult().replaceAllUsesWith(value);
  load.erase();
  for (StoreOp s : w->stores)
    forwarded.insert(s);
  return true;
}

//===----------------------------------------------------------------------===//
// Selects in addresses the load's mask decides
//===----------------------------------------------------------------------===//

/// The mask's and-ed conditions as (1-D value, dimension) pairs (or the
/// whole-shape value with dimension -1).
void maskVectors(Value mask, SmallVectorImpl<std::pair<Value, int>> &out) {
  if (auto a = mask.getDefiningOp<arith::AndIOp>()) {
    maskVectors(a.getLhs(), out);
    maskVectors(a.getRhs(), out);
    return;
  }
  out.push_back({mask, -1});
  if (auto br = mask.getDefiningOp<BroadcastOp>()) {
    if (auto e = br.getSrc().getDefiningOp<ExpandDimsOp>())
      if (cast<RankedTensorType>(e.getSrc().getType()).getRank() == 1) {
        out.push_back(
            {e.getSrc(), 1 - static_cast<int>(e.getAxisAttr().getInt())});
        maskVectors(e.getSrc(), out);
      }
  }
}

/// Rebuilds `v` (a pointer or offset feeding a load whose mask holds the
/// conditions `conds`) without the selects those conditions decide;
/// `dims[d]` is the load dimension dimension d of `v` runs along.
Value dropSelects(OpBuilder &b, Value v, ArrayRef<int> dims,
                  ArrayRef<std::pair<Value, int>> conds) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return v;
  if (auto sel = dyn_cast<arith::SelectOp>(def)) {
    Value c = sel.getCondition();
    auto t = dyn_cast<RankedTensorType>(c.getType());
    bool decided = false;
    for (auto [m, d] : conds) {
      if (m != c)
        continue;
      if (d < 0 && t && t.getRank() == int64_t(dims.size()) &&
          llvm::equal(dims, llvm::seq<int>(0, dims.size())))
        decided = true;
      if (d >= 0 && t && t.getRank() == 1 && dims.size() == 1 && dims[0] == d)
        decided = true;
    }
    if (decided)
      return dropSelects(b, sel.getTrueValue(), dims, conds);
    return v;
  }
  SmallVector<int> inner(dims);
  if (auto e = dyn_cast<ExpandDimsOp>(def)) {
    inner.erase(inner.begin() + e.getAxisAttr().getInt());
  } else if (!isa<BroadcastOp, AddPtrOp>(def) &&
             !(def->hasTrait<OpTrait::Elementwise>() &&
               isa<arith::ArithDialect>(def->getDialect()))) {
    return v;
  }
  SmallVector<Value> operands;
  bool changed = false;
  for (Value o : def->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(o.getType());
    Value n = o;
    if (t && t.getRank() == int64_t(inner.size()))
      n = dropSelects(b, o, inner, conds);
    changed |= n != o;
    operands.push_back(n);
  }
  if (!changed)
    return v;
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPoint(def);
  Operation *copy = b.clone(*def);
  copy->setOperands(operands);
  return copy->getResult(0);
}

void simplifyMaskedSelects(LoadOp load) {
  Value mask = load.getMask();
  auto t = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!mask || !t)
    return;
  SmallVector<std::pair<Value, int>> conds;
  maskVectors(mask, conds);
  SmallVector<int> dims;
  for (int d = 0; d < int(t.getRank()); ++d)
    dims.push_back(d);
  OpBuilder b(load);
  Value ptr = dropSelects(b, load.getPtr(), dims, conds);
  if (ptr != load.getPtr())
    load.getPtrMutable().assign(ptr);
}

//===----------------------------------------------------------------------===//
// Barriers that order nothing
//===----------------------------------------------------------------------===//

/// True if `v` takes the same value in every iteration of every loop
/// around `anchor` (of every loop when `anchor` is null): no loop-carried
/// value or induction variable of such a loop, and nothing read from
/// memory inside one, feeds it.
bool invariantAround(Value v, Operation *anchor) {
  auto matters = [&](Operation *loop) {
    return !anchor || loop->isAncestor(anchor);
  };
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (!isa<func::FuncOp>(owner) && matters(owner))
        return false;
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (def->getNumRegions())
      return false;
    if (!isMemoryEffectFree(def))
      for (Operation *p = def->getParentOp(); p; p = p->getParentOp())
        if (isa<LoopLikeOpInterface>(p) && matters(p))
          return false;
    work.append(def->operand_begin(), def->operand_end());
  }
  return true;
}

/// True if, without `barrier`, the threads that write an address through
/// `store` still write it in program order: the store's addresses are the
/// same in every iteration of the loops around the barrier (the same
/// threads write them each time), or they move with one such loop's
/// induction variable by more than their own span each iteration (no
/// address is written twice).
bool writesInOrder(StoreOp store, BarrierOp barrier, Linearizer &lin) {
  if (invariantAround(store.getPtr(), barrier))
    return true;
  Value root;
  std::optional<LinearForm> f = lin.pointer(store.getPtr(), root);
  if (!f)
    return false;
  lin.normalize(*f);
  scf::ForOp loop;
  int64_t coeff = 0;
  for (auto [a, k] : f->terms) {
    auto arg = dyn_cast<BlockArgument>(a);
    auto owner = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp())
                     : scf::ForOp();
    if (owner && arg == owner.getInductionVar() && owner->isAncestor(barrier)) {
      if (loop)
        return false;
      loop = owner;
      coeff = k;
      continue;
    }
    if (isa<ShapedType>(a.getType()) || !invariantAround(a, barrier))
      return false;
  }
  std::optional<int64_t> step =
      loop ? constantInt(loop.getStep()) : std::nullopt;
  if (!step)
    return false;
  int64_t span = 1;
  if (auto t = dyn_cast<RankedTensorType>(store.getPtr().getType()))
    for (unsigned d = 0; d < f->lanes.size(); ++d)
      span += (t.getDimSize(d) - 1) * std::abs(f->lanes[d]);
  return span <= std::abs(coeff * *step);
}

/// True if no two store ops write the same address: stores through one
/// kernel argument have offsets that differ by known constants (atoms that
/// no loop changes), and their address sets do not meet. Two store ops
/// writing one address could be ordered by a barrier between them.
bool storesDisjoint(ArrayRef<StoreOp> stores, Linearizer &lin) {
  llvm::DenseMap<Value, SmallVector<StoreOp>> byRoot;
  for (StoreOp s : stores) {
    byRoot[pointerRoot(s.getPtr())].push_back(s);
  }
  for (auto &[root, group] : byRoot) {
    if (group.size() < 2)
      continue;
    std::map<int64_t, Operation *> written;
    std::optional<LinearForm> base;
    for (StoreOp s : group) {
      Value r;
      std::optional<LinearForm> f = lin.pointer(s.getPtr(), r);
      if (!f)
        return false;
      lin.normalize(*f);
      for (auto [a, k] : f->terms)
        if (isa<ShapedType>(a.getType()) || !invariantAround(a, nullptr))
          return false; // changes with a loop
      LinearForm uniform = *f;
      for (int64_t &l : uniform.lanes)
        l = 0;
      uniform.constant = 0;
      if (!base)
        base = uniform;
      else if (!base->sameTerms(uniform))
        return false;
      SmallVector<int64_t> shape;
      if (auto t = dyn_cast<RankedTensorType>(s.getPtr().getType()))
        shape.assign(t.getShape().begin(), t.getShape().end());
      int64_t count = 1;
      for (int64_t d : shape)
        count *= d;
      if (count > kMaxEnumerated)
        return false;
      SmallVector<int64_t> index(shape.size(), 0);
      for (int64_t e = 0; e < count; ++e) {
        int64_t rest = e;
        for (int d = int(shape.size()) - 1; d >= 0; --d) {
          index[d] = rest % shape[d];
          rest /= shape[d];
        }
        int64_t at = f->at(index).constant;
        auto [it, inserted] = written.try_emplace(at, s);
        if (!inserted && it->second != s.getOperation())
          return false;
      }
    }
  }
  return true;
}

/// Removes the kernel's barriers when they order nothing: no load reads
/// memory a store of the kernel writes, no two store ops write one
/// address, and every store writes its addresses in order without the
/// barrier (`writesInOrder`).
void removeBarriers(func::FuncOp func, Linearizer &lin) {
  SmallVector<BarrierOp> barriers;
  func.walk([&](BarrierOp b) { barriers.push_back(b); });
  if (barriers.empty())
    return;
  SmallVector<StoreOp> stores;
  llvm::SmallPtrSet<Value, 8> stored;
  if (!collectStores(func, stored, &stores))
    return;
  bool readsStored = false;
  func.walk([&](Operation *op) {
    Value ptr;
    if (auto l = dyn_cast<LoadOp>(op))
      ptr = l.getPtr();
    else if (auto l = dyn_cast<PagedLoadOp>(op))
      ptr = l.getCache();
    else
      return;
    Value r = pointerRoot(ptr);
    if (!r || stored.contains(r))
      readsStored = true;
    if (auto l = dyn_cast<PagedLoadOp>(op)) {
      Value bt = pointerRoot(l.getBlockTable());
      if (!bt || stored.contains(bt))
        readsStored = true;
    }
  });
  if (readsStored)
    return;
  if (!storesDisjoint(stores, lin))
    return;
  for (BarrierOp barrier : barriers) {
    if (llvm::all_of(stores,
                     [&](StoreOp s) { return writesInOrder(s, barrier, lin); }))
      barrier.erase();
  }
}

//===----------------------------------------------------------------------===//
// Stores nothing reads, at the end of their block
//===----------------------------------------------------------------------===//

/// Loops of at most this many iterations whose stores nothing reads are
/// unrolled, so their stores can move apart from their loads.
constexpr int64_t kMaxUnroll = 16;

/// Moves the pure ops of `user`'s block that only `user` (directly or
/// through other such ops) uses to just before it, keeping their order.
/// Loads stay where they are: a sunk store's value arithmetic then no longer
/// waits for its loads at the top of the block, and the loads' latency is
/// hidden by the work between them and the store.
void sinkOperands(Operation *user) {
  Block *block = user->getBlock();
  llvm::SetVector<Operation *> candidates;
  SmallVector<Value> worklist(user->getOperands());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != block || def->getNumRegions() ||
        !isMemoryEffectFree(def) || def->hasTrait<OpTrait::ConstantLike>() ||
        !candidates.insert(def))
      continue;
    worklist.append(def->operand_begin(), def->operand_end());
  }
  // Latest first: an op moves when every user of its results is `user` or
  // an op that moves.
  SmallVector<Operation *> order(candidates.begin(), candidates.end());
  llvm::sort(order,
             [](Operation *a, Operation *b) { return b->isBeforeInBlock(a); });
  llvm::SmallPtrSet<Operation *, 16> moving;
  for (Operation *op : order)
    if (llvm::all_of(op->getUsers(), [&](Operation *u) {
          return u == user || moving.contains(u);
        }))
      moving.insert(op);
  for (Operation *op : llvm::reverse(order))
    if (moving.contains(op))
      op->moveBefore(user);
}

/// A store whose values were forwarded, and that no load of the kernel
/// reads any more (the pieces of a scratch buffer), still writes memory
/// someone may read after the kernel; where it stands, it waits for its
/// value's loads (block-table entries) before the work after it can issue.
/// It is moved to the end of its block, with the pure arithmetic only it
/// uses (sinkOperands), so that nothing waits for those loads until an
/// iteration's work after they are issued: past ops that neither access its
/// memory nor order memory (no barrier, no assert), keeping the order of
/// stores through one argument. A loop of a constant trip count of at most
/// kMaxUnroll that only loads read-only memory and makes such stores is
/// unrolled first. Other stores stay where they are (moving one later keeps
/// its value live longer).
void sinkUnreadStores(func::FuncOp func,
                      const llvm::SmallPtrSetImpl<Operation *> &forwarded,
                      ArrayRef<Forwarder::Merge> merges) {
  llvm::SmallPtrSet<Value, 8> stored;
  SmallVector<StoreOp> stores;
  if (!collectStores(func, stored, &stores))
    return;
  llvm::SmallPtrSet<Value, 8> read;
  func.walk([&](Operation *op) {
    if (auto l = dyn_cast<LoadOp>(op))
      read.insert(pointerRoot(l.getPtr()));
    else if (auto l = dyn_cast<PagedLoadOp>(op))
      read.insert(pointerRoot(l.getCache()));
  });
  auto unread = [&](StoreOp s) {
    Value r = pointerRoot(s.getPtr());
    return forwarded.contains(s) && r && !read.contains(r);
  };
  // The pieces of a forwarded load that wrote exactly its elements become
  // one store of the value rebuilt for it, where the load was: one
  // element per thread and lane instead of a store per piece.
  llvm::SmallPtrSet<Operation *, 8> erased, mergedStores;
  for (const Forwarder::Merge &m : merges) {
    Operation *def = m.value.getDefiningOp();
    if (!def || llvm::any_of(m.stores, [&](StoreOp s) {
          return erased.contains(s) || !unread(s);
        }))
      continue;
    OpBuilder b(def->getContext());
    b.setInsertionPointAfter(def);
    auto merged = StoreOp::create(b, m.value.getLoc(), m.ptr, m.value, m.mask);
    for (StoreOp s : m.stores) {
      erased.insert(s);
      s->erase();
    }
    mergedStores.insert(merged);
  }
  // Unroll the small loops that only produce such stores.
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) {
    auto lb = constantInt(loop.getLowerBound());
    auto ub = constantInt(loop.getUpperBound());
    auto step = constantInt(loop.getStep());
    if (!lb || !ub || !step || *step <= 0 || loop.getNumResults() ||
        llvm::divideCeil(std::max<int64_t>(*ub - *lb, 0), *step) > kMaxUnroll)
      return;
    bool onlyUnreadStores = true, anyStore = false;
    for (Operation &op : *loop.getBody()) {
      if (auto s = dyn_cast<StoreOp>(op)) {
        anyStore = true;
        onlyUnreadStores &= unread(s);
      } else if (auto l = dyn_cast<LoadOp>(op)) {
        onlyUnreadStores &= !stored.contains(pointerRoot(l.getPtr()));
      } else if (op.getNumRegions() || !(isMemoryEffectFree(&op) ||
                                         isa<scf::YieldOp>(op))) {
        onlyUnreadStores = false;
      }
    }
    if (anyStore && onlyUnreadStores)
      loops.push_back(loop);
  });
  llvm::SmallPtrSet<Operation *, 8> pieces(forwarded.begin(),
                                            forwarded.end());
  pieces.insert(mergedStores.begin(), mergedStores.end());
  for (scf::ForOp loop : loops) {
    // The unrolled copies of a forwarded store are forwarded stores.
    Block *block = loop->getBlock();
    Operation *prev = loop->getPrevNode(), *next = loop->getNextNode();
    if (failed(loopUnrollFull(loop)))
      continue;
    for (Operation *op = prev ? prev->getNextNode() : &block->front();
         op && op != next; op = op->getNextNode())
      if (isa<StoreOp>(op))
        pieces.insert(op);
  }
  auto sinkable = [&](StoreOp s) {
    Value r = pointerRoot(s.getPtr());
    return pieces.contains(s) && r && !read.contains(r);
  };
  // Sink them, the last first, so that stores through one argument keep
  // their order (each stops before the next one through its argument).
  stores.clear();
  func.walk([&](StoreOp s) {
    if (sinkable(s))
      stores.push_back(s);
  });
  auto blocks = [](Operation *op, Value root) {
    bool found = false;
    op->walk([&](Operation *inner) {
      if (auto t = dyn_cast<StoreOp>(inner))
        found |= pointerRoot(t.getPtr()) == root;
      else if (isa<BarrierOp, AssertOp>(inner))
        found = true;
      else if (!isa<LoadOp, PagedLoadOp, PrintOp>(inner) &&
               !isMemoryEffectFree(inner) &&
               !inner->hasTrait<OpTrait::IsTerminator>() &&
               !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        found = true; // writes memory in a way not known here
    });
    return found;
  };
  for (StoreOp s : llvm::reverse(stores)) {
    Value root = pointerRoot(s.getPtr());
    Operation *end = s->getBlock()->getTerminator();
    Operation *last = s;
    for (Operation *op = s->getNextNode(); op != end && !blocks(op, root);
         op = op->getNextNode())
      last = op;
    if (last == s)
      continue;
    s->moveAfter(last);
    sinkOperands(s);
  }
}

struct ForwardStoresPass
    : public mlir::quire::tile::impl::ForwardStoresBase<ForwardStoresPass> {
  using ForwardStoresBase::ForwardStoresBase;

  void runOnOperation() override {
    AxisInfoAnalysis info(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func))
        continue;
      Linearizer lin([&](Value v) { return info.get(v).getDivisibility(0); });
      Forwarder fw(func, lin);
      {
        SmallVector<LoadOp> loads;
        func.walk([&](LoadOp l) { loads.push_back(l); });
        for (LoadOp l : loads) {
          fw.forward(l);
          lin.clear(); // forms are cached by value; ops were erased
        }
      }
      SmallVector<LoadOp> loads;
      func.walk([&](LoadOp l) { loads.push_back(l); });
      for (LoadOp l : loads)
        simplifyMaskedSelects(l);
      lin.clear();
      if (removeBarriers)
        ::removeBarriers(func, lin);
      if (sinkStores)
        sinkUnreadStores(func, fw.forwarded, fw.merges);
    }
  }
};

} // namespace
