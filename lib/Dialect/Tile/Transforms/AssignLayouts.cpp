//===- AssignLayouts.cpp - Give every tensor a distributed layout ---------===//
//
// Values that must share a layout (operands and results of elementwise ops,
// loop-carried values, a load's pointers, mask and result) are grouped with
// union-find. Memory accesses and dot results anchor their group to the
// default blocked layout of the shape; layouts then flow along the ops that
// relate two groups without moving data (expand_dims <-> slice, reduce ->
// slice, broadcast, trans). Groups still without a layout get the default.
// Where a relation does not hold between the chosen layouts, a
// tile.convert_layout is inserted.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_ASSIGNLAYOUTS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

/// The most elements a tensor holds (Triton's TRITON_MAX_TENSOR_NUMEL):
/// every element is registers of the CTA's threads, and LLVM's time on the
/// unrolled registers grows faster than their count past it.
constexpr int64_t kMaxTensorElements = int64_t(1) << 20;

namespace {

bool isTensor(Value v) { return isa<RankedTensorType>(v.getType()); }
RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Ops whose tensor operands and results all share one layout.
bool isElementwise(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         !isa<arith::ConstantOp>(op);
}

/// Vector width (elements per thread along the contiguous dimension) that
/// makes accesses of `elementType` 16 bytes wide.
unsigned vectorWidth(Type elementType) {
  if (auto ptr = dyn_cast<PointerType>(elementType))
    elementType = ptr.getPointeeType();
  unsigned bits = std::max(8u, elementType.getIntOrFloatBitWidth());
  return std::max(1u, 128 / bits);
}

/// Dots computed on tensor cores (mma.sync m16n8k16, f16/bf16 -> f32).
bool isMmaDot(DotOp d, bool enabled) {
  if (!enabled)
    return false;
  Type a = d.getA().getType().getElementType();
  if (!(a.isF16() || a.isBF16()) || d.getB().getType().getElementType() != a ||
      !d.getType().getElementType().isF32())
    return false;
  int64_t m = d.getType().getDimSize(0), n = d.getType().getDimSize(1),
          k = d.getA().getType().getDimSize(1);
  return llvm::isPowerOf2_64(m) && llvm::isPowerOf2_64(n) &&
         llvm::isPowerOf2_64(k) && m >= 16 && n >= 8 && k >= 16;
}

/// Dots computed in registers (see kRegisterDotMaxM).
bool isRegisterDot(DotOp d, bool mma) {
  int64_t m = d.getType().getDimSize(0);
  return !isMmaDot(d, mma) && m <= kRegisterDotMaxM && llvm::isPowerOf2_64(m);
}

/// True if `v` reaches, through elementwise ops only, the A operand of a dot
/// (forward) or comes from a dot result (backward, `fromDot`).
bool reachesDotA(Value v, unsigned depth = 0) {
  if (depth > 16)
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto d = dyn_cast<DotOp>(user); d && use.getOperandNumber() == 0)
      return true;
    if (isElementwise(user) && user->getNumResults() == 1 &&
        reachesDotA(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}
bool comesFromDot(Value v, unsigned depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return false;
  if (isa<DotOp>(def))
    return true;
  if (!isElementwise(def))
    return false;
  return llvm::any_of(def->getOperands(), [&](Value o) {
    return isTensor(o) && comesFromDot(o, depth + 1);
  });
}

/// The fp8 load a dot operand is converted from in the dot's block
/// (`load [-> tile.trans] -> arith.extf [-> tile.trans]`, one use each), and
/// whether the chain transposes it; null if there is none.
std::pair<LoadOp, bool> fp8Source(Value operand, Operation *dot) {
  bool transposed = false, extended = false;
  Value v = operand;
  for (int i = 0; i < 3; ++i) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != dot->getBlock() || !def->hasOneUse())
      return {};
    if (auto load = dyn_cast<LoadOp>(def)) {
      if (!extended || !isFp8Type(getElementTypeOrSelf(load.getType())) ||
          tensorType(load.getResult()).getRank() != 2 ||
          !isa<scf::ForOp>(dot->getParentOp()))
        return {};
      return {load, transposed};
    }
    if (auto t = dyn_cast<TransOp>(def); t && !transposed) {
      transposed = true;
      v = t.getSrc();
    } else if (auto e = dyn_cast<arith::ExtFOp>(def); e && !extended) {
      extended = true;
      v = e.getIn();
    } else {
      return {};
    }
  }
  return {};
}

/// The #tile.mma layout of a tensor-core dot's accumulator.
MmaEncodingAttr mmaLayout(DotOp d, unsigned numWarps, bool warpgroup,
                          bool wideFp8) {
  int64_t m = d.getType().getDimSize(0), n = d.getType().getDimSize(1);
  if (warpgroup &&
      isWarpgroupShape(m, n, d.getA().getType().getDimSize(1), numWarps))
    return MmaEncodingAttr::get(d.getContext(), {numWarps, 1}, 2, 1, 1);
  unsigned wm = 1, wn = 1;
  bool chain = reachesDotA(d.getResult()) || comesFromDot(d.getA());
  while (wm * wn < numWarps) {
    bool mRoom = 16 * wm * 2 <= m, nRoom = 8 * wn * 2 <= n;
    // Split the larger per-warp extent (rows of A vs columns of B); in a
    // chain keep every warp on its own rows.
    if (mRoom && (chain || !nRoom || m / wm >= n / wn))
      wm *= 2;
    else if (nRoom)
      wn *= 2;
    else
      wm *= 2; // more warps than fragments: they replicate
  }
  // A staged fp8 operand (one the warps along the other dimension do not
  // share) read 16 bytes at a time: its loaded tile is contiguous along
  // its last dimension, which is K of A unless the chain transposes it (M
  // then) and N of B unless it transposes it (K then). K is renumbered in
  // both operands, so the other one must not come from a dot in the loop;
  // M or N in the accumulator, which then must not feed a dot's A.
  unsigned kWidth = 2, nWidth = 1, mWidth = 1;
  if (wideFp8) {
    int64_t k = d.getA().getType().getDimSize(1);
    unsigned wide = unsigned(std::min<int64_t>(16, k / 4));
    bool accFree = !reachesDotA(d.getResult());
    if (auto [load, transposed] = fp8Source(d.getA(), d); load && wn == 1) {
      if (!transposed && !comesFromDot(d.getB()))
        kWidth = wide;
      else if (transposed && accFree)
        mWidth = unsigned(std::clamp<int64_t>(m / (8 * wm), 1, 16));
    }
    if (auto [load, transposed] = fp8Source(d.getB(), d); load && wm == 1) {
      if (transposed && !comesFromDot(d.getA()))
        kWidth = wide;
      else if (!transposed && accFree)
        nWidth = unsigned(std::clamp<int64_t>(n / (8 * wn), 1, 16));
    }
  }
  return MmaEncodingAttr::get(d.getContext(), {wm, wn}, kWidth, nWidth, mWidth);
}

struct Solver {
  MLIRContext *ctx;
  unsigned numWarps;
  llvm::EquivalenceClasses<Value> groups;
  /// Insertion-ordered so defaults are picked in program order.
  DenseMap<Value, Attribute> layouts; // leader -> layout
  SmallVector<Operation *> relations;
  SmallVector<Value> values;

  Value leader(Value v) { return groups.getLeaderValue(v); }
  void add(Value v) {
    if (isTensor(v) && !groups.contains(v)) {
      groups.insert(v);
      values.push_back(v);
    }
  }
  void unite(ValueRange vs) {
    Value first;
    for (Value v : vs) {
      if (!isTensor(v))
        continue;
      add(v);
      if (first)
        groups.unionSets(first, v);
      else
        first = v;
    }
  }
  /// `weak` anchors (stores, dot accumulators) only apply to groups the
  /// strong ones (loads) and the relations did not reach.
  /// A weak anchor's vector is at most what gives every thread of the CTA
  /// one element (as Triton's coalescing chooses): a vector smaller than
  /// the CTA then spreads over more threads rather than putting several
  /// elements, each its own access when they cannot be one vector (a mask
  /// not uniform over them), on fewer threads.
  /// `rows` > 1 asks for that many consecutive rows per thread
  /// (gatheredRowsOf).
  void hint(Value v, unsigned vec, bool weak = false, unsigned rows = 1) {
    if (!isTensor(v))
      return;
    if (weak) {
      int64_t perThread =
          tensorType(v).getNumElements() / (int64_t(32) * numWarps);
      vec = unsigned(std::clamp<int64_t>(perThread, 1, vec));
    }
    (weak ? weakAnchors : anchors).push_back({v, vec, rows});
  }
  struct Anchor {
    Value value;
    unsigned vec, rows;
  };
  SmallVector<Anchor> anchors, weakAnchors;
  /// Tensor-core dot accumulators: decided before anything else.
  SmallVector<std::pair<Value, Attribute>> mmaAnchors;
  bool mma = true;

  Attribute get(Value v) {
    auto it = layouts.find(leader(v));
    return it == layouts.end() ? Attribute() : it->second;
  }
  bool set(Value v, Attribute layout) {
    if (!layout || get(v))
      return false;
    layouts[leader(v)] = layout;
    return true;
  }
  Attribute defaultLayout(Value v, unsigned vec, unsigned rows = 1) {
    return getDefaultBlockedLayout(ctx, tensorType(v).getShape(), numWarps,
                                   vec, rows);
  }

  /// Fills in one side of a relation from the other; true if it did.
  bool propagate(Operation *op) {
    if (auto e = dyn_cast<ExpandDimsOp>(op)) {
      unsigned axis = e.getAxisAttr().getInt();
      if (Attribute r = get(e.getResult()))
        return set(e.getSrc(), SliceEncodingAttr::get(ctx, axis, r));
      if (auto s = dyn_cast_or_null<SliceEncodingAttr>(get(e.getSrc())))
        if (s.getDim() == axis)
          return set(e.getResult(), s.getParent());
      return false;
    }
    if (auto r = dyn_cast<ReduceOp>(op)) {
      if (!isTensor(r.getResult()))
        return false;
      unsigned axis = r.getAxisAttr().getInt();
      Attribute src = get(r.getSrc());
      if (isa_and_nonnull<BlockedEncodingAttr, MmaEncodingAttr>(src))
        return set(r.getResult(), SliceEncodingAttr::get(ctx, axis, src));
      if (auto s = dyn_cast_or_null<SliceEncodingAttr>(get(r.getResult())))
        if (s.getDim() == axis &&
            isa<BlockedEncodingAttr, MmaEncodingAttr>(s.getParent()))
          return set(r.getSrc(), s.getParent());
      return false;
    }
    if (auto b = dyn_cast<BroadcastOp>(op)) {
      if (Attribute l = get(b.getResult()))
        return set(b.getSrc(), l);
      if (Attribute l = get(b.getSrc()))
        return set(b.getResult(), l);
      return false;
    }
    if (auto d = dyn_cast<DotOp>(op)) {
      if (isMmaDot(d, mma))
        return false;
      // Register dot: the accumulator follows B.
      if (auto b = dyn_cast_or_null<BlockedEncodingAttr>(get(d.getB())))
        return set(d.getResult(),
                   getRegisterDotLayouts(b, d.getType().getDimSize(0)).second);
      return false;
    }
    if (auto t = dyn_cast<TransOp>(op)) {
      SmallVector<int32_t> perm = t.getPermutation(), inverse(perm.size());
      for (unsigned i = 0; i < perm.size(); ++i)
        inverse[perm[i]] = i;
      if (Attribute l = get(t.getSrc()))
        return set(t.getResult(), permuteLayout(l, perm));
      if (Attribute l = get(t.getResult()))
        return set(t.getSrc(), permuteLayout(l, inverse));
      return false;
    }
    return false;
  }

  void applyAnchors(ArrayRef<Anchor> list) {
    llvm::MapVector<Value, std::pair<unsigned, unsigned>> hints;
    for (const Anchor &a : list) {
      auto &[vec, rows] = hints[leader(a.value)];
      vec = std::max(vec, a.vec);
      rows = std::max(rows, a.rows);
    }
    for (auto [l, h] : hints)
      set(l, defaultLayout(l, h.first, h.second));
  }
  /// Register-dot accumulators take their layout from the dot before any
  /// other relation reaches their group: elsewhere in a loop (the running
  /// scale of an online softmax, say) a mismatch costs a small conversion,
  /// on the accumulator a whole tile's each iteration. So after every
  /// relation that fires, the dots that can fire do.
  void propagateDots() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : relations)
        if (isa<DotOp>(op))
          changed |= propagate(op);
    }
  }
  void propagateAll() {
    propagateDots();
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *op : relations)
        if (!isa<DotOp>(op) && propagate(op)) {
          changed = true;
          propagateDots();
        }
    }
  }

  void solve() {
    for (auto [v, layout] : mmaAnchors)
      set(v, layout);
    propagateAll();
    applyAnchors(anchors);
    propagateAll();
    applyAnchors(weakAnchors);
    while (true) {
      propagateAll();
      auto it = llvm::find_if(values, [&](Value v) { return !get(v); });
      if (it == values.end())
        break;
      Type elt = tensorType(*it).getElementType();
      set(*it,
          defaultLayout(*it, isa<PointerType>(elt) ? vectorWidth(elt) : 4));
    }
  }
};

/// Walks back from `v` through the ops that keep one element's value in one
/// element (elementwise ops, addptr, broadcast) and loop iteration
/// arguments (their initial and yielded values), collecting the loads it
/// reaches and, into `rowVectors` when given, the row-vector expand_dims
/// (axis 1), where it stops, as it does at any other op.
void sources(Value v, SmallVectorImpl<LoadOp> &loads,
             SmallVectorImpl<ExpandDimsOp> *rowVectors) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Value, 16> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!isTensor(x) || !seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0)
        continue;
      unsigned k = arg.getArgNumber() - 1;
      work.push_back(loop.getInitArgs()[k]);
      work.push_back(loop.getBody()->getTerminator()->getOperand(k));
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (auto l = dyn_cast<LoadOp>(def)) {
      loads.push_back(l);
    } else if (auto e = dyn_cast<ExpandDimsOp>(def)) {
      if (rowVectors && e.getAxisAttr().getInt() == 1)
        rowVectors->push_back(e);
    } else if (isElementwise(def) || isa<AddPtrOp, BroadcastOp>(def)) {
      for (Value operand : def->getOperands())
        work.push_back(operand);
    }
  }
}

/// Consecutive rows per thread for a 2-D load whose row offsets are
/// gathered: computed from a loaded index vector (a paged tile's block
/// table entries) that is constant over c consecutive rows, 1 < c < the
/// tile's rows (pages of c rows). A thread holding c consecutive rows loads
/// the index once for them, and their offsets share its products, where
/// rows the lanes and warps apart each fall in a page of their own; the
/// warp's accesses stay whole rows. 1 for other loads.
unsigned gatheredRowsOf(LoadOp load, const AxisInfoAnalysis &info) {
  auto type = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!type || type.getRank() != 2)
    return 1;
  SmallVector<LoadOp> none;
  SmallVector<ExpandDimsOp> rowVectors;
  sources(load.getPtr(), none, &rowVectors);
  int64_t rows = 0;
  for (ExpandDimsOp e : rowVectors) {
    SmallVector<LoadOp> indices;
    sources(e.getSrc(), indices, nullptr);
    for (LoadOp index : indices) {
      if (tensorType(index.getPtr()).getRank() != 1)
        continue;
      int64_t c = info.get(index.getPtr()).constancy[0];
      if (index.getMask())
        c = std::min(c, info.get(index.getMask()).constancy[0]);
      rows = rows ? std::min(rows, c) : c;
    }
  }
  if (rows <= 1 || rows >= type.getDimSize(0))
    return 1;
  return unsigned(rows);
}

/// Index arithmetic that is free to recompute: ranges, scalar splats,
/// tensor constants, and integer / pointer / mask elementwise ops, shape
/// ops and addptr over such values.
bool isFree(Operation *op) {
  if (!op || op->getNumResults() != 1 || !isTensor(op->getResult(0)))
    return false;
  if (isa<RangeOp, arith::ConstantOp>(op))
    return true;
  if (auto splat = dyn_cast<SplatOp>(op))
    return !isTensor(splat.getSrc());
  Type elt = tensorType(op->getResult(0)).getElementType();
  bool index = isa<IntegerType, PointerType>(elt);
  if (!index ||
      !(isElementwise(op) || isa<ExpandDimsOp, BroadcastOp, AddPtrOp,
                                 TensorMapBlockOp, TensorMapPagesOp>(op)))
    return false;
  return llvm::all_of(op->getOperands(), [](Value v) {
    return !isTensor(v) || isFree(v.getDefiningOp());
  });
}

RankedTensorType withLayout(Value v, Attribute layout) {
  return tensorType(v).cloneWithEncoding(layout);
}

/// A tensor constant's value attribute retyped to its result's (laid-out)
/// type, which the two must share.
void retypeConstant(arith::ConstantOp cst) {
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
    cst.setValueAttr(dense.reshape(cast<ShapedType>(cst.getType())));
}

/// The free expression `v` (isFree) computed directly in `layout`: each op
/// cloned right after its original (loop-invariant parts stay outside
/// loops) with its result in `layout` and its tensor operands in what the
/// op then needs (elementwise, addptr, broadcast: the same layout;
/// expand_dims: its slice). Null where an op cannot be (a tensor-map
/// block). A few integer ops per element cost less than a conversion
/// through shared memory, which needs barriers, in a loop above all (a
/// range shared by a tile's rows and columns).
Value rematerialize(Value v, Attribute layout) {
  if (!isTensor(v) || tensorType(v).getEncoding() == layout)
    return v;
  Operation *op = v.getDefiningOp();
  if (!isFree(op) || isa<TensorMapBlockOp, TensorMapPagesOp>(op))
    return nullptr;
  Attribute operandLayout = layout;
  if (auto e = dyn_cast<ExpandDimsOp>(op))
    operandLayout = SliceEncodingAttr::get(v.getContext(),
                                           e.getAxisAttr().getInt(), layout);
  IRMapping map;
  for (Value operand : op->getOperands()) {
    if (!isTensor(operand))
      continue;
    Value r = rematerialize(operand, operandLayout);
    if (!r)
      return nullptr;
    map.map(operand, r);
  }
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Operation *c = b.clone(*op, map);
  Value result = c->getResult(0);
  result.setType(withLayout(v, layout));
  if (auto cst = dyn_cast<arith::ConstantOp>(c))
    retypeConstant(cst);
  return result;
}

/// Converts `operand` of `op` to `layout` in place (if it is not already).
void convertOperand(OpOperand &operand, Attribute layout) {
  Value v = operand.get();
  if (tensorType(v).getEncoding() == layout)
    return;
  if (Value r = rematerialize(v, layout)) {
    operand.set(r);
    return;
  }
  OpBuilder b(operand.getOwner());
  // Convert once, next to the definition, when the user sits in a loop the
  // value comes from outside of.
  if (v.getParentRegion() != operand.getOwner()->getParentRegion())
    b.setInsertionPointAfterValue(v);
  Value c = ConvertLayoutOp::create(b, v.getLoc(), withLayout(v, layout), v);
  operand.set(c);
}

/// Gives `result` the layout `layout` and converts it back to the layout its
/// users were given.
void convertResult(Value result, Attribute layout) {
  Attribute wanted = tensorType(result).getEncoding();
  if (wanted == layout)
    return;
  result.setType(withLayout(result, layout));
  OpBuilder b(result.getContext());
  b.setInsertionPointAfterValue(result);
  auto c = ConvertLayoutOp::create(b, result.getLoc(),
                                   withLayout(result, wanted), result);
  result.replaceAllUsesExcept(c, c);
}

struct AssignLayoutsPass
    : public mlir::quire::tile::impl::AssignLayoutsBase<AssignLayoutsPass> {
  using AssignLayoutsBase::AssignLayoutsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!isNumWarps(numWarps)) {
      module.emitError() << "quire-assign-layouts: num-warps must be a power "
                            "of two in [1, 32], got "
                         << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    module->setAttr(
        TileDialect::getNumWarpsAttrName(),
        IntegerAttr::get(IntegerType::get(&getContext(), 32), numWarps));
    for (auto func : module.getOps<func::FuncOp>())
      if (isKernel(func) && failed(runOnKernel(func)))
        return signalPassFailure();
  }

  /// A copy of the free expression `v` (each op cloned right after its
  /// original, so dominance holds and loop-invariant parts stay outside).
  static Value cloneFree(Value v, DenseMap<Value, Value> &copies) {
    if (!isTensor(v))
      return v;
    if (Value c = copies.lookup(v))
      return c;
    Operation *op = v.getDefiningOp();
    IRMapping map;
    for (Value operand : op->getOperands())
      map.map(operand, cloneFree(operand, copies));
    OpBuilder b(op->getContext());
    b.setInsertionPointAfter(op);
    Value c = b.clone(*op, map)->getResult(0);
    copies[v] = c;
    return c;
  }

  /// Every consumer of a free expression gets its own copy, so each copy can
  /// take the layout its consumer wants (the offsets of a load and of a store
  /// computed from the same ranges, say) instead of converting a shared
  /// value. CSE merges copies that end up identical.
  static void rematerializeFreeOps(func::FuncOp func) {
    SmallVector<OpOperand *> uses;
    func.walk([&](Operation *op) {
      if (isFree(op))
        return;
      for (OpOperand &use : op->getOpOperands())
        if (isTensor(use.get()) && isFree(use.get().getDefiningOp()))
          uses.push_back(&use);
    });
    for (OpOperand *use : uses) {
      DenseMap<Value, Value> copies;
      use->set(cloneFree(use->get(), copies));
    }
    // The originals are dead now.
    bool erased = true;
    while (erased) {
      erased = false;
      func.walk([&](Operation *op) {
        if (isFree(op) && op->use_empty()) {
          op->erase();
          erased = true;
        }
      });
    }
  }

  LogicalResult runOnKernel(func::FuncOp func) {
    rematerializeFreeOps(func);
    // Only gathered rows need AxisInfo.
    std::optional<AxisInfoAnalysis> info;
    if (gatheredRows)
      info.emplace(func);
    Solver s;
    s.ctx = &getContext();
    s.numWarps = numWarps;
    s.mma = mma;
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (isa<PagedLoadOp>(op))
        return op->emitOpError()
               << "must be lowered before layouts are assigned (run "
                  "quire-lower-paged-loads)";
      for (Value r : op->getResults())
        if (auto t = dyn_cast<RankedTensorType>(r.getType());
            t && t.getNumElements() > kMaxTensorElements)
          return op->emitOpError()
                 << "result #" << cast<OpResult>(r).getResultNumber() << " has "
                 << t.getNumElements() << " elements; tensors hold at most "
                 << kMaxTensorElements << " (2^20, as Triton's)";
      for (Value r : op->getResults())
        s.add(r);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            s.add(arg);
      if (isElementwise(op)) {
        SmallVector<Value> vs(op->getOperands());
        vs.append(op->result_begin(), op->result_end());
        s.unite(vs);
      } else if (auto a = dyn_cast<AddPtrOp>(op)) {
        s.unite({a.getPtr(), a.getOffset(), a.getResult()});
      } else if (auto t = dyn_cast<TensorMapBlockOp>(op)) {
        s.unite({t.getPtrs(), t.getResult()});
      } else if (auto t = dyn_cast<TensorMapPagesOp>(op)) {
        s.unite({t.getPtrs(), t.getResult()});
      } else if (auto l = dyn_cast<LoadOp>(op)) {
        SmallVector<Value> vs{l.getPtr(), l.getResult()};
        if (l.getMask())
          vs.push_back(l.getMask());
        if (l.getOther())
          vs.push_back(l.getOther());
        s.unite(vs);
        // Tiles (rank >= 2) decide layouts; vectors take theirs from the
        // tiles they index into when they can.
        s.hint(l.getPtr(), vectorWidth(getElementTypeOrSelf(l.getResult())),
               /*weak=*/!isTensor(l.getPtr()) ||
                   tensorType(l.getPtr()).getRank() < 2,
               info ? gatheredRowsOf(l, *info) : 1);
      } else if (auto st = dyn_cast<StoreOp>(op)) {
        SmallVector<Value> vs{st.getPtr(), st.getValue()};
        if (st.getMask())
          vs.push_back(st.getMask());
        s.unite(vs);
        s.hint(st.getPtr(), vectorWidth(getElementTypeOrSelf(st.getValue())),
               /*weak=*/true);
      } else if (isa<AssertOp>(op)) {
        // Lowered register by register over all operands at once.
        s.unite(op->getOperands());
      } else if (isa<AtomicRMWOp, AtomicCASOp>(op)) {
        // Element by element: pointers, values, mask and result alike.
        SmallVector<Value> vs(op->getOperands());
        vs.push_back(op->getResult(0));
        s.unite(vs);
      } else if (auto d = dyn_cast<DotOp>(op)) {
        s.unite({d.getC(), d.getResult()});
        if (isMmaDot(d, mma)) {
          s.mmaAnchors.push_back(
              {d.getResult(),
               mmaLayout(d, numWarps, warpgroup, wideFp8Operands)});
          s.relations.push_back(op);
        } else if (isRegisterDot(d, mma)) {
          s.relations.push_back(op);
        } else {
          s.hint(d.getResult(), 4, /*weak=*/true);
        }
      } else if (auto f = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(f.getBody()->getTerminator());
        for (unsigned i = 0; i < f.getNumResults(); ++i)
          s.unite({f.getInitArgs()[i], f.getRegionIterArgs()[i],
                   yield.getOperand(i), f.getResult(i)});
      } else if (auto w = dyn_cast<scf::WhileOp>(op)) {
        // What enters the condition region (the inits, what the body
        // yields) and what leaves it (into the body and the results).
        for (unsigned k = 0; k < w.getInits().size(); ++k)
          s.unite({w.getInits()[k], w.getBeforeArguments()[k],
                   w.getYieldOp().getOperand(k)});
        for (unsigned k = 0; k < w.getNumResults(); ++k)
          s.unite({w.getConditionOp().getArgs()[k], w.getAfterArguments()[k],
                   w.getResult(k)});
      } else if (auto i = dyn_cast<scf::IfOp>(op)) {
        for (unsigned k = 0; k < i.getNumResults(); ++k) {
          SmallVector<Value> vs{i.getResult(k), i.thenYield().getOperand(k)};
          if (!i.getElseRegion().empty())
            vs.push_back(i.elseYield().getOperand(k));
          s.unite(vs);
        }
      } else if (isa<ExpandDimsOp, ReduceOp, BroadcastOp, TransOp>(op)) {
        s.relations.push_back(op);
      } else if (isa<ConvertLayoutOp>(op)) {
        return op->emitOpError() << "layouts are already assigned";
      } else if (isa<AsyncCopyOp, AsyncWaitOp, AsyncLocalLoadOp, LocalStoreOp,
                     WarpgroupDotOp, WarpgroupWaitOp, TmaInitOp, TmaCopyOp,
                     TmaWaitOp, TmaInvalOp, TmaReleaseOp, TmaAcquireOp>(op)) {
        // Made by quire-async-copies from laid-out loads, never written.
        return op->emitOpError() << "not supported in a kernel's source: "
                                    "quire-async-copies makes these ops";
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    s.solve();

    // Retype every tensor value with its group's layout.
    for (Value v : s.values)
      v.setType(withLayout(v, s.get(v)));
    func.walk([&](arith::ConstantOp cst) { retypeConstant(cst); });

    // Repair relations the chosen layouts do not satisfy.
    for (Operation *op : s.relations) {
      if (auto e = dyn_cast<ExpandDimsOp>(op)) {
        convertOperand(
            e.getSrcMutable(),
            SliceEncodingAttr::get(&getContext(), e.getAxisAttr().getInt(),
                                   tensorType(e.getResult()).getEncoding()));
      } else if (auto b = dyn_cast<BroadcastOp>(op)) {
        convertOperand(b.getSrcMutable(),
                       tensorType(b.getResult()).getEncoding());
      } else if (auto r = dyn_cast<ReduceOp>(op)) {
        Attribute src = tensorType(r.getSrc()).getEncoding();
        if (!isa<BlockedEncodingAttr, MmaEncodingAttr>(src)) {
          src = s.defaultLayout(r.getSrc(), 4);
          convertOperand(r.getSrcMutable(), src);
        }
        if (isTensor(r.getResult()))
          convertResult(r.getResult(),
                        SliceEncodingAttr::get(&getContext(),
                                               r.getAxisAttr().getInt(), src));
      } else if (auto d = dyn_cast<DotOp>(op); d && isMmaDot(d, mma)) {
        Attribute c = tensorType(d.getResult()).getEncoding();
        MmaEncodingAttr own =
            mmaLayout(d, numWarps, warpgroup, wideFp8Operands);
        if (auto shared = dyn_cast<MmaEncodingAttr>(c)) {
          // Dots sharing an accumulator share its layout, which another
          // dot may have chosen. kWidth renumbers the operands only (the
          // accumulator's layout is the same under any), so each dot takes
          // its own, which fits its K.
          unsigned kWidth = own.getWarpsPerCTA() == shared.getWarpsPerCTA()
                                ? own.getKWidth()
                                : 2;
          c = MmaEncodingAttr::get(&getContext(), shared.getWarpsPerCTA(),
                                   kWidth, shared.getNWidth(),
                                   shared.getMWidth());
        } else {
          c = own;
        }
        convertOperand(d.getAMutable(),
                       DotOperandEncodingAttr::get(&getContext(), 0, c));
        convertOperand(d.getBMutable(),
                       DotOperandEncodingAttr::get(&getContext(), 1, c));
        convertOperand(d.getCMutable(), c);
        convertResult(d.getResult(), c);
      } else if (auto d = dyn_cast<DotOp>(op)) {
        auto b =
            dyn_cast<BlockedEncodingAttr>(tensorType(d.getB()).getEncoding());
        if (!b) {
          b = cast<BlockedEncodingAttr>(s.defaultLayout(d.getB(), 4));
          convertOperand(d.getBMutable(), b);
        }
        auto [aLayout, cLayout] =
            getRegisterDotLayouts(b, d.getType().getDimSize(0));
        convertOperand(d.getAMutable(), aLayout);
        convertOperand(d.getCMutable(), cLayout);
        convertResult(d.getResult(), cLayout);
      } else if (auto t = dyn_cast<TransOp>(op)) {
        Attribute src = tensorType(t.getSrc()).getEncoding();
        if (!isa<BlockedEncodingAttr>(src)) {
          src = s.defaultLayout(t.getSrc(), 4);
          convertOperand(t.getSrcMutable(), src);
        }
        convertResult(t.getResult(), permuteLayout(src, t.getPermutation()));
      }
    }
    return success();
  }
};

} // namespace
