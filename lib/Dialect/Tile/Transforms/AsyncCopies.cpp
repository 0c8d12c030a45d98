//===- AsyncCopies.cpp - Stage dot operands with cp.async -----------------===//
//
// In a loop (laid-out IR)
//   scf.for %i = %lb to %ub step %s {
//     %x = tile.load %p(%i), %m(%i)          // 2-D, 16-bit, blocked
//     %t = tile.trans %x                     // optional
//     %y = tile.convert_layout %t -> #dot_op
//   }
// becomes, with S = stages,
//   tile.async_copy %p(%lb + j*%s) ... into stage j     (j = 0 .. S-2)
//   scf.for %i ... iter_args(..., %stage = 0) {
//     tile.async_wait {pending = (S-2) x copies per iteration}
//     tile.async_copy %p(%i + (S-1)*%s) ... into stage (%stage + S-1) % S
//     ...
//     %y = tile.async_local_load %stage
//     scf.yield ..., (%stage + 1) % S
//   }
//   tile.async_wait {pending = 0}
// Loads through tensor maps (tile.tensormap_block pointers) feeding wgmma
// are staged with TMA instead (tile.tma_init/copy/wait/inval, the mbarrier
// phase carried beside the stage), and with tma-release the stages are
// released through mbarriers (tile.tma_release/acquire) instead of a
// barrier per iteration. See the pass description in Passes.td for the
// contract.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quire::tile {
#define GEN_PASS_DEF_ASYNCCOPIES
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// A load staged through shared memory, and where its value was used.
struct Candidate {
  LoadOp load;
  TransOp trans;           // null when the load feeds the conversion directly
  ConvertLayoutOp convert; // to a #tile.dot_op layout
  unsigned contig;         // staged tile's contiguous dimension
  DotOp dot;               // the conversion's only user, if a dot
  bool nvmma = false;      // staged for wgmma (tile.warpgroup_dot)
  arith::ExtFOp ext;       // fp8 to f16/bf16 between the load and the
                           // conversion (fp8 is staged as bytes)
  bool tmaOnly = false;    // a tensor map's block only TMA can stage (its
                           // runs are too narrow for cp.async)
};

/// True for the element types a load may have to be staged: 16-bit, or fp8
/// converted after the staging.
bool isStagedElement(Type t) {
  return (t.isIntOrFloat() && t.getIntOrFloatBitWidth() == 16) || isFp8Type(t);
}

/// True if `d` (laid out) is a dot wgmma computes: f16/bf16 into f32, a
/// warpgroup accumulator layout (#tile.mma [4k, 1]), M a multiple of 16
/// rows per warp, N a multiple of 8 up to 256, K of 16.
bool isWarpgroupDot(DotOp d) {
  RankedTensorType a = d.getA().getType(), c = d.getType();
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(c.getEncoding());
  Type elt = a.getElementType();
  if (!mma || !mma.isPlain() || !(elt.isF16() || elt.isBF16()) ||
      !c.getElementType().isF32())
    return false;
  return mma.getWarpsPerCTA()[1] == 1 &&
         isWarpgroupShape(c.getDimSize(0), c.getDimSize(1), a.getDimSize(1),
                          mma.getWarpsPerCTA()[0]);
}

/// True if `c` is the B (or A) operand of its dot staged for wgmma.
bool stagesB(Candidate c) {
  return c.nvmma && c.dot.getB() == c.convert.getResult();
}
bool stagesA(Candidate c) {
  return c.nvmma && c.dot.getA() == c.convert.getResult();
}

bool fitsNvmma(Candidate c) {
  return tile::fitsNvmma(c.convert.getType().getShape(), c.contig);
}

/// The ops of the loop body a value is computed from: pure ops (`pure`)
/// and loads (`loads`, whose own operands must come from pure ops, the
/// induction variable and invariants: they are issued ahead and carried).
struct Slice {
  llvm::SetVector<Operation *> pure, loads;
};

bool isZeroConstant(Value v) {
  return matchPattern(v, m_AnyZeroFloat()) || matchPattern(v, m_Zero());
}

/// Adds what `v` is computed from in `loop`'s body to `slice`; fails on
/// loop-carried values, impure ops, nested regions, and loads below loads.
LogicalResult collect(scf::ForOp loop, Value v, Slice &slice,
                      bool underLoad = false) {
  if (v == loop.getInductionVar())
    return success();
  if (auto arg = dyn_cast<BlockArgument>(v))
    return success(arg.getOwner()->getParentOp()->isProperAncestor(loop));
  Operation *def = v.getDefiningOp();
  if (!loop->isProperAncestor(def))
    return success(); // invariant
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      def->getNumResults() != 1)
    return failure();
  if (slice.pure.contains(def) || slice.loads.contains(def))
    return success();
  bool isLoad = isa<LoadOp>(def);
  if (isLoad && underLoad)
    return failure();
  if (!isLoad && !isPure(def))
    return failure();
  for (Value operand : def->getOperands())
    if (failed(collect(loop, operand, slice, underLoad || isLoad)))
      return failure();
  (isLoad ? slice.loads : slice.pure).insert(def);
  return success();
}

/// The candidate `load` stands for, if it is one. With `allowTma`, a block
/// of a tensor map whose runs are too narrow for cp.async is one too
/// (tmaOnly): TMA reads it whole, zero-filling what lies outside the tensor.
std::optional<Candidate> match(LoadOp load, const AxisInfoAnalysis &info,
                               bool allowTma) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || type.getRank() != 2 || !load->hasOneUse() ||
      !isStagedElement(type.getElementType()))
    return std::nullopt;
  auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(type.getEncoding());
  if (!blocked || (load.getOther() && !isZeroConstant(load.getOther())))
    return std::nullopt;
  Candidate c{load, nullptr, nullptr, 0, nullptr};
  // load [-> tile.trans] [-> arith.extf of fp8], in either order, each with
  // one use, then the conversion.
  Operation *user = *load->getUsers().begin();
  bool fp8 = isFp8Type(type.getElementType());
  for (int i = 0; i < 2; ++i) {
    if (auto trans = dyn_cast<TransOp>(user); trans && !c.trans) {
      if (!trans->hasOneUse())
        return std::nullopt;
      c.trans = trans;
      user = *trans->getUsers().begin();
      continue;
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(user); ext && fp8 && !c.ext) {
      Type to = getElementTypeOrSelf(ext.getType());
      if (!ext->hasOneUse() || !(to.isF16() || to.isBF16()))
        return std::nullopt;
      c.ext = ext;
      user = *ext->getUsers().begin();
    }
  }
  if (fp8 && !c.ext)
    return std::nullopt;
  c.convert = dyn_cast<ConvertLayoutOp>(user);
  if (!c.convert || c.convert->getBlock() != load->getBlock() ||
      !isa<DotOperandEncodingAttr>(c.convert.getType().getEncoding()))
    return std::nullopt;
  auto staged = dyn_cast_or_null<BlockedEncodingAttr>(
      c.convert.getSrc().getType().getEncoding());
  if (!staged)
    return std::nullopt;
  // An fp8 operand is converted where it is read: only when no other warp
  // reads (and converts) the same elements, i.e. the operand is not
  // replicated over the warps along the dot's other dimension. Otherwise
  // the conversion before the layout change does each element once.
  if (c.ext) {
    auto enc = cast<DotOperandEncodingAttr>(c.convert.getType().getEncoding());
    auto mma = dyn_cast<MmaEncodingAttr>(enc.getParent());
    if (!mma || mma.getWarpsPerCTA()[enc.getOpIdx() == 0 ? 1 : 0] != 1)
      return std::nullopt;
  }
  c.contig = staged.getOrder()[0];
  if (c.convert->hasOneUse())
    c.dot = dyn_cast<DotOp>(*c.convert->getUsers().begin());
  // Each thread's run of contiguous elements must be at least 4 bytes and
  // lie along the staged tile's contiguous dimension.
  unsigned vec = accessVectorWidth(info, load.getPtr(), load.getMask(),
                                   type.getElementType());
  unsigned runDim = blocked.getOrder()[0];
  unsigned bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  if (vec * bytes < 4 || (c.trans ? 1 - runDim : runDim) != c.contig) {
    // TMA stages the block with its last dimension contiguous.
    if (!allowTma || c.ext || c.contig != (c.trans ? 0u : 1u) ||
        !load.getPtr().getDefiningOp<TensorMapBlockOp>())
      return std::nullopt;
    c.tmaOnly = true;
  }
  return c;
}

struct AsyncCopiesPass
    : public mlir::quire::tile::impl::AsyncCopiesBase<AsyncCopiesPass> {
  using AsyncCopiesBase::AsyncCopiesBase;
  /// Staged loops so far and the buffer ids after theirs. A loop's buffers
  /// are live from its prologue to the wait after it, so only loops nested
  /// in one another need distinct ids; sequential loops reuse them (the
  /// lowering gives an id the largest tile staged under it).
  SmallVector<std::pair<scf::ForOp, int32_t>> staged;

  int32_t firstBuffer(scf::ForOp loop) {
    int32_t first = 0;
    for (auto [other, end] : staged)
      if (other->isAncestor(loop) || loop->isAncestor(other))
        first = std::max(first, end);
    return first;
  }

  void runOnOperation() override {
    if (stages < 2 || stages > 8) {
      getOperation().emitError()
          << "quire-async-copies: stages must be in [2, 8], got "
          << static_cast<unsigned>(stages);
      return signalPassFailure();
    }
    AxisInfoAnalysis info(getOperation());
    for (scf::ForOp loop : kernelLoops())
      stage(loop, info);
    if (!warpgroup)
      return;
    // The loops again: staging replaced the ones it staged.
    for (scf::ForOp loop : kernelLoops())
      storeConvertedOperands(loop);
    if (!sharedInvariantOperands)
      return;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isKernel(func) && !func.isExternal())
        shareInvariantOperands(func);
  }

  /// The loops of the module's kernels.
  SmallVector<scf::ForOp> kernelLoops() {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      auto func = loop->getParentOfType<func::FuncOp>();
      if (func && isKernel(func))
        loops.push_back(loop);
    });
    return loops;
  }

  /// wgmma for the dots of `loop` whose B is an fp8 tile converted in
  /// registers (a tile the warps along M share, which `stage` leaves to
  /// the conversion before the layout change): each iteration stores the
  /// converted tile into a one-stage swizzled buffer (tile.local_store,
  /// between barriers) that a tile.warpgroup_dot reads, instead of
  /// converting it to the mma.sync operand layout.
  void storeConvertedOperands(scf::ForOp loop) {
    SmallVector<DotOp> dots;
    for (DotOp d : loop.getBody()->getOps<DotOp>())
      dots.push_back(d);
    int32_t buffer = firstBuffer(loop);
    int32_t next = buffer;
    for (DotOp d : dots) {
      auto cv = d.getB().getDefiningOp<ConvertLayoutOp>();
      if (!isWarpgroupDot(d) || !cv || !cv->hasOneUse() ||
          cv->getBlock() != loop.getBody() ||
          !isa<DotOperandEncodingAttr>(cv.getType().getEncoding()))
        continue;
      Value x = cv.getSrc();
      auto trans = x.getDefiningOp<TransOp>();
      if (trans) {
        if (!trans->hasOneUse())
          continue;
        x = trans.getSrc();
      }
      auto ext = x.getDefiningOp<arith::ExtFOp>();
      auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(
          cast<RankedTensorType>(x.getType()).getEncoding());
      if (!ext || !isFp8Type(getElementTypeOrSelf(ext.getIn().getType())) ||
          !blocked)
        continue;
      // The staged tile is B (K x N): contiguous along the dimension the
      // value's registers run along.
      unsigned run = blocked.getOrder()[0];
      int32_t contig = int32_t(trans ? 1 - run : run);
      if (!tile::fitsNvmma(cv.getType().getShape(), contig))
        continue;
      OpBuilder b(cv);
      Location loc = cv.getLoc();
      Value stage = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
      LocalStoreOp::create(b, loc, x, stage, b.getI32IntegerAttr(next),
                           b.getI32IntegerAttr(contig), b.getI32IntegerAttr(1),
                           trans ? b.getUnitAttr() : UnitAttr(),
                           b.getUnitAttr());
      b.setInsertionPoint(d);
      auto w = WarpgroupDotOp::create(
          b, d.getLoc(), d.getType(), d.getA(), Value(), stage, d.getC(),
          IntegerAttr(), IntegerAttr(), b.getI32IntegerAttr(next),
          b.getI32IntegerAttr(contig), b.getI32IntegerAttr(1),
          b.getI64IntegerAttr(d.getA().getType().getDimSize(1)),
          TypeAttr::get(d.getA().getType().getElementType()), UnitAttr(),
          IntegerAttr());
      d.replaceAllUsesWith(w.getResult());
      d.erase();
      cv.erase();
      if (trans)
        trans.erase();
      ++next;
    }
    if (next == buffer)
      return;
    staged.push_back({loop, next});
    // A later loop may stage into the same buffers (sequential loops share
    // ids): a barrier after this one orders every warpgroup's last reads
    // before those writes, as the wait after a staged loop does.
    OpBuilder after(loop->getContext());
    after.setInsertionPointAfter(loop);
    BarrierOp::create(after, loop.getLoc());
  }

  /// The pure ops the slice loads depend on (a subset of slice.pure).
  static SmallVector<Operation *> loadDeps(scf::ForOp loop, const Slice &s) {
    llvm::SetVector<Operation *> deps;
    SmallVector<Value> work;
    for (Operation *l : s.loads)
      work.append(l->operand_begin(), l->operand_end());
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || !s.pure.contains(def) || !deps.insert(def))
        continue;
      work.append(def->operand_begin(), def->operand_end());
    }
    return inBodyOrder(loop, deps);
  }

  void stage(scf::ForOp loop, const AxisInfoAnalysis &info) {
    // The loop's own depth (tl.range(..., num_stages=N)) over the pass's.
    int64_t S = stages;
    if (auto own = loop->getAttrOfType<IntegerAttr>(
            TileDialect::getNumStagesAttrName()))
      S = own.getInt();
    if (S < 2)
      return;
    // Copies of later iterations are issued above this iteration's stores:
    // only loads (and the loads their addresses come from) through kernel
    // arguments the loop does not store through (distinct arguments are
    // taken not to overlap, as in quire-pipeline-loads).
    SmallVector<Value> stored;
    if (!loop.getInductionVar().getType().isSignlessInteger(32) ||
        loop.getUnsignedCmp() || !storedArguments(loop, stored))
      return;
    auto readsStored = [&](Operation *load) {
      Value root = pointerRoot(cast<LoadOp>(load).getPtr());
      return !root || llvm::is_contained(stored, root);
    };
    SmallVector<Candidate> cands;
    Slice slice;
    bool useTma = false;
    // First with the blocks only TMA can stage; again without them when the
    // loop does not come out TMA-staged.
    for (bool allowTma : {tma && warpgroup, false}) {
      cands.clear();
      slice = Slice();
      for (LoadOp load : loop.getBody()->getOps<LoadOp>()) {
        std::optional<Candidate> c = match(load, info, allowTma);
        if (!c || (!stored.empty() && readsStored(load)))
          continue;
        Slice s = slice;
        if (failed(collect(loop, load.getPtr(), s)) ||
            (load.getMask() && failed(collect(loop, load.getMask(), s))))
          continue;
        if (!stored.empty() && llvm::any_of(s.loads, readsStored))
          continue;
        slice = std::move(s);
        cands.push_back(*c);
      }
      // wgmma reads B (and a staged A of the same dot) from the buffers.
      if (warpgroup) {
        // (Not fp8 tiles: wgmma reads f16/bf16 operands from shared memory
        // as they are, and fp8 only when both operands are fp8.)
        for (Candidate &c : cands)
          c.nvmma = c.dot && !c.ext &&
                    c.dot.getB() == c.convert.getResult() &&
                    isWarpgroupDot(c.dot) && fitsNvmma(c);
        for (Candidate &a : cands)
          if (a.dot && !a.ext && a.dot.getA() == a.convert.getResult() &&
              fitsNvmma(a))
            a.nvmma = llvm::any_of(cands, [&](Candidate b) {
              return stagesB(b) && b.dot == a.dot;
            });
      }
      // TMA when every staged load is a wgmma operand read through a
      // tensor map: the copies and their waits are then mbarrier-based
      // throughout.
      useTma = tma && !cands.empty() && llvm::all_of(cands, [](Candidate c) {
                 return c.nvmma &&
                        c.load.getPtr().getDefiningOp<TensorMapBlockOp>();
               });
      if (useTma || llvm::none_of(cands, [](Candidate c) { return c.tmaOnly; }))
        break;
    }
    if (cands.empty())
      return;
    // Slice loads must not be staged loads themselves.
    for (const Candidate &c : cands)
      if (slice.loads.contains(c.load))
        return;
    SmallVector<Operation *> pureOps, sliceLoads;
    for (Operation &op : *loop.getBody()) {
      if (slice.pure.contains(&op))
        pureOps.push_back(&op);
      if (slice.loads.contains(&op))
        sliceLoads.push_back(&op);
    }
    bool anyNvmma =
        llvm::any_of(cands, [](const Candidate &c) { return c.nvmma; });
    // The dots' results stay in flight across iterations when every wgmma
    // dot only carries its accumulator (iter_arg k in, yield k out) and
    // reads an A that no later iteration rewrites while the group runs
    // (staged, or registers defined before the loop: the waits tie only the
    // accumulators).
    SmallVector<std::pair<DotOp, unsigned>> asyncDots;
    if (asyncWgmma && anyNvmma) {
      Operation *yield = loop.getBody()->getTerminator();
      for (Candidate c : cands) {
        if (!stagesB(c))
          continue;
        auto acc = dyn_cast<BlockArgument>(c.dot.getC());
        unsigned k = acc ? acc.getArgNumber() - 1 : 0;
        if (!acc || acc.getOwner() != loop.getBody() ||
            k >= loop.getNumRegionIterArgs() ||
            c.dot->getBlock() != loop.getBody() || !acc.hasOneUse() ||
            !c.dot->hasOneUse() || *c.dot->getUsers().begin() != yield ||
            yield->getOperand(k) != c.dot.getResult() ||
            !(loop.isDefinedOutsideOfLoop(c.dot.getA()) ||
              llvm::any_of(cands, [&](Candidate a) {
                return stagesA(a) && a.dot == c.dot;
              }))) {
          asyncDots.clear();
          break;
        }
        asyncDots.push_back({c.dot, k});
      }
    }
    SmallVector<Operation *> depOps = loadDeps(loop, slice);
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
          step = loop.getStep();
    SmallVector<int32_t> buffers;
    int32_t first = firstBuffer(loop);
    for (size_t k = 0; k < cands.size(); ++k)
      buffers.push_back(first + k);

    auto cst = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    // iv + k * step, and whether that iteration runs (iterationRuns: the
    // sum may wrap past the last iteration).
    auto ahead = [&](OpBuilder &b, Value iv,
                     int64_t k) -> std::pair<Value, Value> {
      Value j = k == 0 ? iv
                       : arith::AddIOp::create(
                             b, loc, iv,
                             arith::MulIOp::create(b, loc, step, cst(b, k)))
                             .getResult();
      return {j, iterationRuns(b, loc, iv, step, k, ub,
                               /*ivRuns=*/iv != lb)};
    };
    auto emitCopies = [&](OpBuilder &b, IRMapping &map, Value in,
                          Value stageIdx) {
      cloneSlice(b, pureOps, map);
      for (auto [c, buffer] : llvm::zip(cands, buffers)) {
        Value ptrs = map.lookupOrDefault(c.load.getPtr());
        if (useTma) {
          // The block's offsets at this iteration (the slice clone's).
          auto block = ptrs.getDefiningOp<TensorMapBlockOp>();
          auto type = cast<RankedTensorType>(c.load.getType());
          TmaCopyOp::create(
              b, c.load.getLoc(), block.getTensormap(), block.getOffsets(),
              stageIdx, in,
              TypeAttr::get(RankedTensorType::get(type.getShape(),
                                                  type.getElementType())),
              b.getI32IntegerAttr(buffer), b.getI32IntegerAttr(c.contig),
              b.getI32IntegerAttr(S), c.trans ? b.getUnitAttr() : UnitAttr());
          continue;
        }
        Value mask =
            c.load.getMask() ? map.lookupOrDefault(c.load.getMask()) : Value();
        AsyncCopyOp::create(
            b, c.load.getLoc(), ptrs, guardMask(b, loc, ptrs, mask, in),
            stageIdx, b.getI32IntegerAttr(buffer),
            b.getI32IntegerAttr(c.contig), b.getI32IntegerAttr(S),
            c.trans ? b.getUnitAttr() : UnitAttr(),
            c.nvmma ? b.getUnitAttr() : UnitAttr());
      }
    };
    // The slice loads of iteration iv + k * step, guarded.
    auto emitSliceLoads = [&](OpBuilder &b, Value iv, int64_t k) {
      auto [j, in] = ahead(b, iv, k);
      IRMapping map;
      map.map(loop.getInductionVar(), j);
      cloneSlice(b, depOps, map);
      SmallVector<Value> values;
      for (Operation *l : sliceLoads)
        values.push_back(emitGuardedLoad(b, cast<LoadOp>(l), map, in));
      return values;
    };

    // Eager refill: iteration i refills the stage it read at its end, with
    // iteration i + S, so S iterations' copies are in flight while it waits
    // (one more than the default for the same buffers). Not with wgmma,
    // whose async-proxy reads of a stage are not ordered before a
    // generic-proxy refill by a barrier alone.
    //
    // With async dots, iteration i - 1's dots may still read their stage
    // while iteration i's run. With 4 or more stages, iteration i refills at
    // its top the stage iteration i - 2 read (the top barrier comes after
    // every warpgroup's wait in iteration i - 1): S - 2 iterations ahead,
    // one barrier. With fewer, that would leave one iteration or none in
    // flight, so iteration i refills iteration i - 1's stage (with
    // iteration i + S - 1, as by default) at the end of its body, after the
    // wait that retires iteration i - 1's dots and a barrier that makes
    // every warpgroup's wait precede the copies (late refill): S - 1 ahead,
    // two barriers. docs/performance.md has the measurements.
    //
    // For quire-pingpong (a loop of two synchronous wgmma dots over two
    // warpgroups, S >= 3): S - 2 ahead as well, so the stage iteration i - 1
    // read is not refilled before iteration i + 1, and a warpgroup may still
    // read it in iteration i.
    bool eager = eagerRefill && !anyNvmma;
    bool late = !asyncDots.empty() && S < 4;
    llvm::SmallPtrSet<Operation *, 2> dots;
    for (const Candidate &c : cands)
      dots.insert(c.dot);
    bool pingpongLoop =
        pingpong && warpgroup && asyncDots.empty() && !useTma && !eager &&
        S >= 3 && dots.size() == 2 &&
        getNumWarps(loop) == 2 * kWarpsPerWarpgroup &&
        llvm::all_of(cands, [](const Candidate &c) { return c.nvmma; });
    int64_t ahead0 = eager          ? S
                     : pingpongLoop ? S - 2
                     : asyncDots.empty() || late ? S - 1
                                                 : S - 2;

    // Prologue: iterations 0 .. ahead0-1 into stages 0 .. ahead0-1; the
    // slice loads of iteration ahead0 start the carried values.
    // With tma-release the first buffer's release mbarriers stand for the
    // stage of every buffer (one dot group reads them all).
    bool useRelease = useTma && tmaRelease;
    auto releaseAttr = [&](OpBuilder &b, int32_t buffer) {
      return useRelease && buffer == buffers.front() ? b.getUnitAttr()
                                                     : UnitAttr();
    };
    OpBuilder pre(loop);
    if (useTma)
      for (int32_t buffer : buffers)
        TmaInitOp::create(pre, loc, pre.getI32IntegerAttr(buffer),
                          pre.getI32IntegerAttr(S), releaseAttr(pre, buffer));
    for (int64_t k = 0; k < ahead0; ++k) {
      auto [j, in] = ahead(pre, lb, k);
      IRMapping map;
      map.map(loop.getInductionVar(), j);
      cloneSlice(pre, depOps, map);
      for (Operation *l : sliceLoads)
        emitGuardedLoad(pre, cast<LoadOp>(l), map, in);
      emitCopies(pre, map, in, cst(pre, k));
    }
    SmallVector<Value> inits = emitSliceLoads(pre, lb, ahead0);
    inits.push_back(cst(pre, 0));
    // With TMA the loop also carries the mbarrier phase of its stage.
    if (useTma)
      inits.push_back(cst(pre, 0));
    unsigned extra = useTma ? 2 : 1;

    IRRewriter rewriter(loop.getContext());
    Value stageArg;
    Operation *refillBegin = nullptr, *refillEnd = nullptr;
    auto body = [&](OpBuilder &b, Location,
                    ArrayRef<BlockArgument> args) -> SmallVector<Value> {
      Block *block = args.front().getOwner();
      OpBuilder top = OpBuilder::atBlockBegin(block);
      stageArg = args[args.size() - extra];
      Value phaseArg = useTma ? Value(args.back()) : Value();
      Value iv = loop.getInductionVar();
      int64_t perIter = cands.size();
      // Every thread waits for this iteration's stage: its TMA copies'
      // mbarrier phase, or its own cp.async groups and a barrier.
      auto waitTma = [&] {
        for (int32_t buffer : buffers)
          TmaWaitOp::create(top, loc, stageArg, phaseArg,
                            top.getI32IntegerAttr(buffer),
                            top.getI32IntegerAttr(S));
      };
      if (!useTma)
        AsyncWaitOp::create(top, loc,
                            top.getI32IntegerAttr((ahead0 - 1) * perIter),
                            anyNvmma ? top.getUnitAttr() : UnitAttr());
      else if (late)
        waitTma();
      // By default iteration i + S - 1 goes, after the wait, to stage
      // (stage + S - 1) % S, which iteration i - 1 read (the wait's barrier
      // orders those reads first). Eagerly, iteration i + S goes to this
      // iteration's stage; late, iteration i + S - 1 to iteration i - 1's:
      // both at the end of the body, after a barrier (a wait that completes
      // nothing: the later iterations' copies stay pending).
      OpBuilder issue = top;
      Value issueStage;
      if ((eager || late) && !useRelease)
        // Built here, after the wait; moved below the body once the loop
        // holds it (the original body is merged in after this callback).
        refillBegin =
            useTma ? BarrierOp::create(issue, loc).getOperation()
                   : AsyncWaitOp::create(
                         issue, loc,
                         issue.getI32IntegerAttr((ahead0 - 1) * perIter),
                         UnitAttr())
                         .getOperation();
      else if (useTma && !useRelease)
        // Every thread's reads of the stage refilled below came first.
        BarrierOp::create(issue, loc);
      if (eager) {
        issueStage = stageArg;
      } else {
        // (stage + ahead0) % S, stage < S.
        arith::SelectOp refilled = stageAhead(issue, loc, stageArg, ahead0, S);
        Value stays = refilled.getCondition();
        if (late && useRelease)
          refillBegin = stays.getDefiningOp();
        issueStage = refilled;
        if (useRelease) {
          // Iteration j = i + ahead0 fills stage j % S for the (j / S)-th
          // time: it waits for release phase (j / S) - 1, whose parity is
          // that of j's fill phase flipped (phase 1 passes on a fresh
          // mbarrier). j's fill phase is this iteration's, flipped when
          // the stage index wraps: the wait's parity is this phase's,
          // flipped where the stage does not wrap.
          Value flipped =
              arith::XOrIOp::create(issue, loc, phaseArg, cst(issue, 1));
          Value parity =
              arith::SelectOp::create(issue, loc, stays, flipped, phaseArg);
          TmaAcquireOp::create(issue, loc, issueStage, parity,
                               issue.getI32IntegerAttr(buffers.front()),
                               issue.getI32IntegerAttr(S));
        }
      }
      auto [j, in] = ahead(issue, iv, ahead0);
      IRMapping map;
      map.map(iv, j);
      for (auto [l, carried] : llvm::zip(sliceLoads, args.drop_back(extra)))
        map.map(l->getResult(0), carried);
      emitCopies(issue, map, in, issueStage);
      SmallVector<Value> yields = emitSliceLoads(issue, iv, ahead0 + 1);
      Value next = nextStage(issue, loc, stageArg, S);
      refillEnd = next.getDefiningOp();
      yields.push_back(next);
      if (useTma) {
        arith::SelectOp phase = nextPhase(issue, loc, next, phaseArg);
        refillEnd = phase;
        yields.push_back(phase);
        if (!late)
          waitTma();
      }
      return yields;
    };
    FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
        rewriter, inits, /*replaceInitOperandUsesInLoop=*/false, body);
    if (failed(grown))
      return;
    auto newLoop = cast<scf::ForOp>(grown->getOperation());
    if (useRelease)
      newLoop->setAttr(TileDialect::getTmaAheadAttrName(),
                       rewriter.getI32IntegerAttr(ahead0));
    if (pingpongLoop)
      newLoop->setAttr(TileDialect::getPingpongAttrName(),
                       rewriter.getUnitAttr());
    if (refillBegin) {
      // The eager or late refill (barrier, copies, next slice loads, next
      // stage) goes after the body's last read of the stage (and, late,
      // after the wgmma wait placed below after the last dot).
      Operation *yield = newLoop.getBody()->getTerminator();
      for (Operation *op = refillBegin, *next; op; op = next) {
        next = op == refillEnd ? nullptr : op->getNextNode();
        op->moveBefore(yield);
      }
    }
    staged.push_back({newLoop, first + int32_t(cands.size())});
    for (auto [c, buffer] : llvm::zip(cands, buffers)) {
      if (c.nvmma)
        continue;
      OpBuilder b(c.convert);
      RankedTensorType type = c.convert.getType();
      if (c.ext)
        type = type.clone(
            cast<RankedTensorType>(c.load.getType()).getElementType());
      Value staged = AsyncLocalLoadOp::create(
          b, c.convert.getLoc(), type, stageArg, b.getI32IntegerAttr(buffer),
          b.getI32IntegerAttr(c.contig), b.getI32IntegerAttr(S));
      // fp8 is converted in the operand's layout, after the shared memory.
      if (c.ext)
        staged = arith::ExtFOp::create(b, c.ext.getLoc(), c.convert.getType(),
                                       staged);
      c.convert.replaceAllUsesWith(staged);
    }
    // Dots whose B is staged for wgmma; A from its buffer too when staged.
    SmallVector<std::pair<WarpgroupDotOp, unsigned>> asyncResults;
    // Which operand each candidate stages, read before the loop below
    // replaces and erases the dots.
    SmallVector<bool> isB, isA;
    for (const Candidate &c : cands) {
      isB.push_back(stagesB(c));
      isA.push_back(stagesA(c));
    }
    for (auto [bc, bBuffer, bStaged] : llvm::zip(cands, buffers, isB)) {
      if (!bStaged)
        continue;
      DotOp dot = bc.dot;
      OpBuilder b(dot);
      Value a = dot.getA(), aStage;
      IntegerAttr aBuffer, aContig;
      for (auto [ac, buffer, aStaged] : llvm::zip(cands, buffers, isA))
        if (aStaged && ac.dot == dot) {
          a = Value();
          aStage = stageArg;
          aBuffer = b.getI32IntegerAttr(buffer);
          aContig = b.getI32IntegerAttr(ac.contig);
        }
      auto inFlight =
          llvm::find_if(asyncDots, [&](auto &p) { return p.first == dot; });
      auto d = WarpgroupDotOp::create(
          b, dot.getLoc(), dot.getType(), a, aStage, stageArg, dot.getC(),
          aBuffer, aContig, b.getI32IntegerAttr(bBuffer),
          b.getI32IntegerAttr(bc.contig), b.getI32IntegerAttr(S),
          b.getI64IntegerAttr(dot.getA().getType().getDimSize(1)),
          TypeAttr::get(dot.getA().getType().getElementType()),
          inFlight != asyncDots.end() ? b.getUnitAttr() : UnitAttr(),
          IntegerAttr());
      dot.replaceAllUsesWith(d.getResult());
      dot.erase();
      if (inFlight != asyncDots.end())
        asyncResults.push_back({d, inFlight->second});
    }
    // After the last async dot, a wait retires the previous iteration's
    // groups (this iteration's stay pending) and the loop carries its
    // results; after the loop, a wait retires every group.
    Operation *afterLoop = newLoop;
    if (useRelease && asyncResults.empty()) {
      // Synchronous dots: this iteration's stage is read no more at the
      // end of the body.
      OpBuilder b(newLoop.getBody()->getTerminator());
      Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      TmaReleaseOp::create(b, loc, stageArg, yes,
                           b.getI32IntegerAttr(buffers.front()),
                           b.getI32IntegerAttr(S));
    }
    if (!asyncResults.empty()) {
      WarpgroupDotOp last = asyncResults.front().first;
      for (auto [d, k] : asyncResults)
        if (last->isBeforeInBlock(d))
          last = d;
      OpBuilder b(last->getContext());
      b.setInsertionPointAfter(last);
      SmallVector<Value> inFlight, results;
      for (auto [d, k] : asyncResults) {
        inFlight.push_back(d.getResult());
        results.push_back(newLoop.getResult(k));
      }
      auto wait =
          WarpgroupWaitOp::create(b, loc, inFlight, /*after=*/Value(),
                                  b.getI32IntegerAttr(asyncResults.size()));
      for (auto [d, v] : llvm::zip(inFlight, wait.getResults()))
        d.replaceAllUsesExcept(v, wait);
      if (useRelease) {
        // The wait retired the previous iteration's dots: their stage is
        // read no more (none before the first iteration).
        Value iv = newLoop.getInductionVar();
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            iv, newLoop.getLowerBound());
        Value atZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             stageArg, cst(b, 0));
        Value prev = arith::SelectOp::create(
            b, loc, atZero, cst(b, S - 1),
            arith::SubIOp::create(b, loc, stageArg, cst(b, 1)));
        TmaReleaseOp::create(b, loc, prev, first,
                             b.getI32IntegerAttr(buffers.front()),
                             b.getI32IntegerAttr(S));
      }
      b.setInsertionPointAfter(newLoop);
      auto done = WarpgroupWaitOp::create(b, loc, results, /*after=*/Value(),
                                          b.getI32IntegerAttr(0));
      for (auto [r, v] : llvm::zip(results, done.getResults()))
        r.replaceAllUsesExcept(v, done);
      afterLoop = done;
    }
    for (Candidate &c : cands) {
      // Users first: the chain is load [-> trans] [-> ext] in some order.
      c.convert.erase();
      Operation *chain[] = {c.trans, c.ext};
      if (c.trans && c.ext && c.ext->isBeforeInBlock(c.trans))
        std::swap(chain[0], chain[1]);
      for (Operation *op : llvm::reverse(chain))
        if (op)
          op->erase();
      c.load.erase();
    }
    // After the loop (and after the wgmma wait, when there is one: its
    // barrier then orders every warpgroup's last reads of the stages before
    // a later loop's copies into them).
    OpBuilder after(newLoop->getContext());
    after.setInsertionPointAfter(afterLoop);
    if (useTma) {
      // Every copy was waited for; the barrier in tile.tma_inval orders
      // the last reads before a later loop's copies into the buffers.
      for (int32_t buffer : buffers)
        TmaInvalOp::create(after, loc, after.getI32IntegerAttr(buffer),
                           after.getI32IntegerAttr(S),
                           releaseAttr(after, buffer));
      return;
    }
    AsyncWaitOp::create(after, loc, after.getI32IntegerAttr(0));
  }
};

} // namespace
