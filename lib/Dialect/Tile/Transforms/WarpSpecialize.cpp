//===- WarpSpecialize.cpp - Producer warps for staged copies -------------===//
//
// Two forms; loops staged with cp.async: specializeCopies below and
// docs/passes.md, "Producer warps for cp.async loops". TMA-staged loops:
//
// A kernel whose TMA-staged loop (quire-async-copies with tma and
// tma-release) is at the top level of its body
//   <scalar and index ops>
//   tile.tma_init ...                     (the loop's mbarriers)
//   tile.tma_copy ... into stage k        (prologue, k < ahead)
//   scf.for %i ... iter_args(..., %stage, %phase) {tile.tma_ahead = ahead}
//     tile.tma_acquire; tile.tma_copy (iteration i + ahead); tile.tma_wait
//     ... dots; tile.tma_release ...
//   <the rest>
// becomes, with one warp more (tile.producer_warps = 1):
//   <scalar and index ops>
//   tile.tma_init ...
//   scf.if (tile.is_producer) {
//     scf.for %j ... iter_args(%s = 0, %ph = 0) {
//       tile.tma_acquire stage %s phase %ph ^ 1 {producer}
//       tile.tma_copy (iteration j) into stage %s {producer}
//     }
//   } else {
//     scf.for %i ... { tile.tma_wait; ... dots; tile.tma_release }
//     <the rest>
//   }
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "LoopSlices.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <set>

namespace mlir::quire::tile {
#define GEN_PASS_DEF_WARPSPECIALIZE
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// True for an op the producer warp may run before the split: it touches no
/// memory and its lowering needs no shared memory, no barrier and no
/// warp-dependent layout work beyond index arithmetic (scalars, constants,
/// index tensors; not a reduction of a tensor to a scalar, which goes
/// through shared memory).
bool runsAnywhere(Operation *op) {
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  if (llvm::none_of(op->getResultTypes(), isTensor) &&
      llvm::none_of(op->getOperandTypes(), isTensor))
    return true;
  return isa<arith::ConstantOp, SplatOp, RangeOp, ExpandDimsOp, BroadcastOp,
             AddPtrOp, TensorMapBlockOp>(op) ||
         (isa<arith::ArithDialect>(op->getDialect()) &&
          !isa<arith::ExtFOp, arith::TruncFOp>(op) &&
          llvm::all_of(op->getResultTypes(), isTensor));
}

/// True if `op` (run by the consumers only once split off) writes memory,
/// synchronizes or has effects the pass cannot see: the producer's copies
/// would no longer come after it.
bool ordersCopies(Operation *op) {
  if (isa<TmaInitOp, TmaCopyOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !isMemoryEffectFree(op);
  return effects.hasEffect<MemoryEffects::Write>() ||
         effects.hasEffect<MemoryEffects::Allocate>() ||
         effects.hasEffect<MemoryEffects::Free>();
}

/// The ops of `loop`'s body that `values` are computed from, in body
/// order; fails on loop-carried values and on ops with effects.
FailureOr<SmallVector<Operation *>> valueSlice(scf::ForOp loop,
                                               SmallVector<Value> work) {
  llvm::SetVector<Operation *> slice;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar())
        return failure();
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def->getBlock() != loop.getBody() || slice.contains(def))
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions() != 0)
      return failure();
    slice.insert(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  return inBodyOrder(loop, slice);
}

/// The ops of `loop`'s body that the copies' offsets are computed from.
FailureOr<SmallVector<Operation *>> bodySlice(scf::ForOp loop,
                                              ArrayRef<Operation *> copies) {
  SmallVector<Value> work;
  for (Operation *op : copies)
    llvm::append_range(work, cast<TmaCopyOp>(op).getOffsets());
  return valueSlice(loop, std::move(work));
}

/// The registers per thread a producer warpgroup keeps (setmaxnreg's
/// least).
constexpr int32_t kProducerRegisters = 24;

/// The registers per thread of producer warps that issue cp.async copies,
/// for `sets` consumer warps a producer warp stands for: they compute the
/// copies' addresses (64-bit pointers, masks) after each stage's acquire
/// (sinkIntoGuard) and load the block-table entries the sets share once
/// (sameInThreadsAbove). 56 for one, 88 for two: the prefill kernel at
/// 128 x 128 tiles is as fast there as at 72 and spills least across its
/// forms (docs/performance.md, "The producer's registers").
int64_t copyProducerRegisters(int64_t sets) { return 32 * sets + 24; }

/// The registers a wgmma instruction needs besides its accumulators (A
/// fragments, descriptors, predicates), as ptxas counts them (a m64n256k16
/// wgmma with f32 accumulators asks for 158).
constexpr int64_t kDotOperandRegisters = 30;

/// The registers per thread of `consumerWarps` warps once `producerWarps`
/// keep `producerRegisters` each of the CTA's 64K, which its threads start
/// with in equal shares: a multiple of 8, at most 256. setmaxnreg.inc waits
/// for registers the CTA's pool has, so the consumers must not ask for
/// more.
int32_t consumerRegisters(int64_t consumerWarps, int64_t producerWarps,
                          int64_t producerRegisters) {
  int64_t threads = (consumerWarps + producerWarps) * kWarpSize;
  int64_t left = registersPerThread(threads) * threads -
                 producerWarps * kWarpSize * producerRegisters;
  return std::min<int64_t>(256, left / (consumerWarps * kWarpSize) / 8 * 8);
}

/// What the consumers take with setmaxnreg.inc when `producerWarps` warps
/// keep `keep` registers a thread (setmaxnreg.dec), or none: setmaxnreg
/// only lowers the producers' registers and raises the consumers' from
/// the count each thread starts with.
std::optional<int32_t> sharedRegisters(int64_t consumerWarps,
                                       int64_t producerWarps, int32_t keep) {
  int64_t entry =
      registersPerThread((consumerWarps + producerWarps) * kWarpSize);
  int32_t give = consumerRegisters(consumerWarps, producerWarps, keep);
  if (keep < entry && give > entry)
    return give;
  return std::nullopt;
}

/// A loop quire-async-copies staged with cp.async, at the top level of a
/// kernel:
///   <prologue: tile.async_copy of iterations 0 .. ahead-1 into stages 0..>
///   scf.for %i ... {
///     tile.async_wait (top)                  its own copies, a CTA barrier
///     ... tile.async_copy (iteration i + ahead) ...
///     ... readers of the stages (wgmma, async_local_load) ...
///   }
///   tile.async_wait (after)                  every copy landed
struct CopyLoop {
  scf::ForOp loop;
  AsyncWaitOp top, after;
  SmallVector<AsyncCopyOp> prologue, copies;
  SmallVector<int32_t> buffers; // in the order of the body's copies
  int32_t stages = 0;
  int64_t ahead = 0;
  /// The first op of the body that reads each buffer (or holds a reader),
  /// and the stage it reads.
  SmallVector<std::pair<Operation *, Value>> readers;
  /// Every copy stages the pages of a tile.tensormap_pages tile for wgmma:
  /// the producer copies them with TMA (tile.tma_copy_pages), and the
  /// consumers clear the rows TMA copied past a tile's bound.
  bool tma = false;
  /// With `tma`: the body's ops that each copy's first token and bound
  /// are computed from (for the iteration the copy fills).
  SmallVector<Operation *> boundSlice;
};

/// The tile.tensormap_pages tile `copy` stages for wgmma (nvmma, its last
/// dimension contiguous), or null.
TensorMapPagesOp pagesOf(AsyncCopyOp copy) {
  auto pages = copy.getPtrs().getDefiningOp<TensorMapPagesOp>();
  if (!pages || !copy.getNvmma() ||
      int32_t(copy.getContig()) != (copy.getTransposed() ? 0 : 1))
    return nullptr;
  return pages;
}

/// The block a copy stages: its pointers' shape, of their pointee type.
TypeAttr stagedBlock(AsyncCopyOp copy) {
  RankedTensorType ptrs = copy.getPtrs().getType();
  Type elt = cast<PointerType>(ptrs.getElementType()).getPointeeType();
  return TypeAttr::get(RankedTensorType::get(ptrs.getShape(), elt));
}

/// Marks `l` TMA-staged when every copy is of a tile.tensormap_pages tile
/// whose first token and bound the body computes from its induction
/// variable and values from before the loop.
void classifyTma(CopyLoop &l) {
  SmallVector<Value> work;
  for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies)) {
    TensorMapPagesOp pages = pagesOf(copy);
    if (!pages)
      return;
    if (llvm::is_contained(l.copies, copy))
      work.append({pages.getFirstToken(), pages.getSeqLen()});
  }
  FailureOr<SmallVector<Operation *>> slice = valueSlice(l.loop, work);
  if (failed(slice))
    return;
  l.boundSlice = std::move(*slice);
  l.tma = true;
}

/// The stage `op` reads of staging buffer `buffer`, or null.
Value stageRead(Operation *op, int32_t buffer) {
  if (auto dot = dyn_cast<WarpgroupDotOp>(op)) {
    if (int32_t(dot.getBBuffer()) == buffer)
      return dot.getBStage();
    if (dot.getAStage() && dot.getABuffer() &&
        int32_t(*dot.getABuffer()) == buffer)
      return dot.getAStage();
  }
  if (auto load = dyn_cast<AsyncLocalLoadOp>(op);
      load && int32_t(load.getBuffer()) == buffer)
    return load.getStage();
  return nullptr;
}

/// The staged loops of a kernel whose every cp.async copy and wait belongs
/// to one of them, in order; fails on any other shape.
FailureOr<SmallVector<CopyLoop, 2>> copyLoops(Block &body) {
  SmallVector<CopyLoop, 2> loops;
  SmallVector<AsyncCopyOp> pending;
  for (Operation &op : body) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      if (!loops.empty() && !loops.back().after)
        return failure();
      pending.push_back(copy);
      continue;
    }
    if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
      if (loops.empty() || loops.back().after || !pending.empty())
        return failure();
      loops.back().after = wait;
      continue;
    }
    auto loop = dyn_cast<scf::ForOp>(op);
    if (!loop || loop.getBody()->getOps<AsyncCopyOp>().empty())
      continue;
    if ((!loops.empty() && !loops.back().after) || pending.empty() ||
        loop.getUnsignedCmp() ||
        !loop.getInductionVar().getType().isInteger(32))
      return failure();
    CopyLoop l;
    l.loop = loop;
    l.prologue = std::move(pending);
    pending.clear();
    l.top = dyn_cast<AsyncWaitOp>(loop.getBody()->front());
    if (!l.top)
      return failure();
    for (Operation &inner : *loop.getBody()) {
      if (auto copy = dyn_cast<AsyncCopyOp>(inner)) {
        l.copies.push_back(copy);
        if (!llvm::is_contained(l.buffers, int32_t(copy.getBuffer())))
          l.buffers.push_back(copy.getBuffer());
      } else if (isa<AsyncWaitOp>(inner) && &inner != l.top) {
        return failure();
      }
    }
    l.stages = l.copies.front().getStages();
    for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies))
      if (int32_t(copy.getStages()) != l.stages ||
          !llvm::is_contained(l.buffers, int32_t(copy.getBuffer())))
        return failure();
    // The prologue fills stages 0 .. ahead - 1 of every buffer.
    for (AsyncCopyOp copy : l.prologue) {
      std::optional<int64_t> k = getConstantIntValue(copy.getStage());
      if (!k)
        return failure();
      l.ahead = std::max(l.ahead, *k + 1);
    }
    if (int64_t(l.prologue.size()) != l.ahead * int64_t(l.buffers.size()) ||
        l.ahead >= l.stages ||
        int64_t(l.copies.size()) != int64_t(l.buffers.size()))
      return failure();
    // Each buffer's first reader in the body, whose stage is the
    // iteration's.
    for (int32_t buffer : l.buffers) {
      std::pair<Operation *, Value> found{nullptr, nullptr};
      for (Operation &inner : *loop.getBody()) {
        inner.walk([&](Operation *nested) {
          if (Value s = stageRead(nested, buffer); s && !found.first)
            found = {&inner, s};
        });
        if (found.first)
          break;
      }
      if (!found.first)
        return failure();
      // The stage must be known where the wait goes.
      if (auto arg = dyn_cast<BlockArgument>(found.second)) {
        if (arg.getOwner() != loop.getBody())
          return failure();
      } else if (Operation *def = found.second.getDefiningOp();
                 def->getBlock() != loop.getBody() ||
                 !def->isBeforeInBlock(found.first)) {
        return failure();
      }
      l.readers.push_back(found);
    }
    // Synchronous dots only: a stage is released at the end of the
    // iteration that read it.
    bool inFlight = false;
    loop.walk([&](WarpgroupDotOp dot) { inFlight |= dot.getAsync(); });
    if (inFlight)
      return failure();
    loops.push_back(std::move(l));
  }
  if (loops.empty() || !loops.back().after || !pending.empty())
    return failure();
  return loops;
}

/// True for an op the producer may run to compute its copies' addresses:
/// index arithmetic (runsAnywhere), plain loads (block-table entries), and
/// loops of scalar such ops (the flat grid's search for its sequence).
bool producerMayRun(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
    if (llvm::any_of(loop.getResultTypes(), isTensor))
      return false;
    return llvm::all_of(loop.getBody()->without_terminator(),
                        [&](Operation &o) {
                          return llvm::none_of(o.getResultTypes(), isTensor) &&
                                 llvm::none_of(o.getOperandTypes(), isTensor) &&
                                 producerMayRun(&o);
                        });
  }
  return op->getNumRegions() == 0 && (runsAnywhere(op) || isa<LoadOp>(op));
}

/// The mbarrier inits of `l`'s buffers: full mbarriers of `arrivals`
/// arrivals and release mbarriers, each buffer its own (the consumers may
/// release one operand's stage before another's: quire-overlap-softmax).
void initBarriers(OpBuilder &b, Location loc, const CopyLoop &l,
                  int32_t arrivals, bool split) {
  for (int32_t buffer : l.buffers)
    TmaInitOp::create(b, loc, buffer, l.stages, /*release=*/true, arrivals,
                      split);
}

void invalBarriers(OpBuilder &b, Location loc, const CopyLoop &l, bool split) {
  for (int32_t buffer : l.buffers)
    TmaInvalOp::create(b, loc, buffer, l.stages, /*release=*/true, split);
}

/// The fill count of the loop's iteration `iv`: (iv - lb) / step, its
/// iterations being in order from 0 (iv >= lb, so unsigned).
Value iterationIndex(OpBuilder &b, Location loc, Value iv, Value lb,
                     Value step) {
  return arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, lb),
                                step);
}

/// The mbarrier phase parity of fill `f` of a ring of `stages`:
/// (f / stages) & 1.
Value fillParity(OpBuilder &b, Location loc, Value f, int64_t stages) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  return arith::AndIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, f, c(stages)), c(1));
}

/// The persistent loop of a kernel whose staged loop is nested: the one op
/// of its body holding cp.async copies, a signed i32 scf.for without
/// iteration arguments (each iteration a tile of the work), or null.
scf::ForOp persistentLoop(Block &body) {
  scf::ForOp outer;
  for (Operation &op : body) {
    bool copies = op.walk([](AsyncCopyOp) {
                      return WalkResult::interrupt();
                    }).wasInterrupted();
    if (!copies)
      continue;
    auto loop = dyn_cast<scf::ForOp>(op);
    if (outer || !loop || loop.getNumResults() != 0 || loop.getUnsignedCmp() ||
        !loop.getInductionVar().getType().isInteger(32))
      return nullptr;
    outer = loop;
  }
  return outer;
}

/// Moves the ops before `region` in its block that any warp may run
/// (runsAnywhere, but constants) and that `movable` takes, whose every use
/// lies in `body` (a block of `region`), to just before their first use
/// there.
void sinkToFirstUse(Operation *region, Block *body,
                    function_ref<bool(Operation *)> movable) {
  // (Backwards: an op's users move first.)
  for (Operation *op = region->getPrevNode(), *prev; op; op = prev) {
    prev = op->getPrevNode();
    if (isa<arith::ConstantOp>(op) || op->use_empty() || !runsAnywhere(op) ||
        !movable(op))
      continue;
    Operation *first = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *at = body->findAncestorOpInBlock(*user);
      if (!at) {
        first = nullptr;
        break;
      }
      if (!first || at->isBeforeInBlock(first))
        first = at;
    }
    if (first)
      op->moveBefore(first);
  }
}

/// Moves the index tensors computed before persistent loop `loop` whose
/// every use lies in it to just before their first use in its body
/// (sinkToFirstUse), so that a tile recomputes them where it needs them:
/// hoisted out of the tiles' loop (loop-invariant code motion), an
/// epilogue's offsets would hold registers through the staged loop.
void sinkIntoLoop(scf::ForOp loop) {
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  sinkToFirstUse(loop, loop.getBody(), [&](Operation *op) {
    return llvm::any_of(op->getResultTypes(), isTensor);
  });
}

/// True if in load `load` thread t + `offset` reads what thread t reads,
/// for each thread t below `threads`: in every register the two elements
/// lie in one block that reads one value (constantLoadBlocks). A producer
/// thread issuing the copies of two consumer warps then loads a
/// block-table entry both warps' rows share once.
bool sameInThreadsAbove(LoadOp load, int64_t offset, int64_t threads,
                        const AxisInfoAnalysis &info) {
  SmallVector<int64_t> block = constantLoadBlocks(info, load);
  if (block.empty() || offset % kWarpSize || threads % kWarpSize)
    return false;
  FailureOr<LinearLayout> layout =
      LinearLayout::get(cast<RankedTensorType>(load.getPtr().getType()));
  if (failed(layout))
    return false;
  int64_t shift = offset / kWarpSize;
  int64_t warps = threads / kWarpSize;
  if (warps + shift > layout->getNumWarps())
    return false;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      for (unsigned r = 0; r < layout->getNumRegs(); ++r) {
        Coord a = layout->coord(r, lane, w);
        Coord b = layout->coord(r, lane, w + shift);
        for (unsigned d = 0; d < a.size(); ++d)
          if (a[d] / block[d] != b[d] / block[d])
            return false;
      }
  return true;
}

/// Moves the index arithmetic before producer guard `guard` whose every use
/// lies in it to just before its first use there (sinkToFirstUse): each
/// copy's addresses and masks are then computed after the acquire of its
/// stage rather than held in registers through its wait, which is what
/// sets the producer's registers (docs/passes.md, "Producer warps for
/// cp.async loops").
void sinkIntoGuard(scf::IfOp guard) {
  sinkToFirstUse(guard, guard.thenBlock(), [](Operation *) { return true; });
}

/// Asks LLVM not to hoist out of persistent loop `loop` what its body
/// computes from values before it (loop-invariant code motion would keep
/// such index math in registers through every tile; the lowering puts the
/// annotation on the loop's back edge).
void keepInvariantsInside(scf::ForOp loop) {
  MLIRContext *ctx = loop.getContext();
  auto licm = LLVM::LoopLICMAttr::get(ctx, BoolAttr::get(ctx, true),
                                      BoolAttr::get(ctx, true));
  loop->setAttr("llvm.loop_annotation",
                LLVM::LoopAnnotationAttr::get(ctx, {}, {}, {}, {}, {}, licm, {},
                                              {}, {}, {}, {}, {}, {}, {}, {}));
}

/// The iterations of signed loop `loop` as an i32: ceil((ub - lb) / step),
/// 0 where ub <= lb (step > 0, as scf.for requires).
Value tripCount(OpBuilder &b, Location loc, Value lb, Value ub, Value step) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value span = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, ub, lb), c(0));
  Value up = arith::SubIOp::create(b, loc, step, c(1));
  return arith::DivUIOp::create(b, loc, arith::AddIOp::create(b, loc, span, up),
                                step);
}

/// quire-warp-specialize on a kernel whose loops are staged with cp.async
/// (see Passes.td): producer warps, as many as the consumers, each
/// mirroring the consumer warp of its index modulo their count, issue
/// every copy and complete the stage's mbarrier with
/// cp.async.mbarrier.arrive; the consumers wait on it and release the
/// stage at the end of the iteration that read it.
void specializeCopies(func::FuncOp func, bool pingpong, bool warpgroup,
                      int32_t producerRegisters) {
  if (!func.getBody().hasOneBlock())
    return;
  Block &body = func.getBody().front();
  // The staged loops at the kernel's top level, or one nested in a
  // persistent loop (`outer`): there the producer runs ahead across the
  // outer iterations, and both sides count the ring's fills from the
  // kernel's start rather than start its mbarriers over.
  scf::ForOp outer;
  FailureOr<SmallVector<CopyLoop, 2>> found = copyLoops(body);
  if (failed(found)) {
    outer = persistentLoop(body);
    if (!outer)
      return;
    found = copyLoops(*outer.getBody());
    if (failed(found) || found->size() != 1)
      return;
  }
  SmallVector<CopyLoop, 2> &loops = *found;
  for (CopyLoop &l : loops)
    classifyTma(l);
  // A producer warp for each consumer warp, or with `warpgroup` a producer
  // warpgroup (the consumers' warps where they are fewer), its warps
  // issuing the copies of consumer warps w, w + 4, ... (`sets`).
  int64_t consumerWarps = getNumWarps(func);
  int32_t producers = warpgroup
                          ? std::min<int64_t>(consumerWarps, kWarpsPerWarpgroup)
                          : consumerWarps;
  int64_t sets = consumerWarps / producers;
  int32_t setThreads = producers * kWarpSize;
  if ((consumerWarps + producers) * kWarpSize > 1024)
    return;
  // ptxas checks each instruction against the registers a thread has at
  // entry (64K / the CTA's threads), whatever setmaxnreg gives the
  // consumers later: a wgmma's f32 accumulators (N / 2 a thread) and its
  // operands must fit that.
  int64_t entry = registersPerThread((consumerWarps + producers) * kWarpSize);
  bool tooWide = false;
  func.walk([&](WarpgroupDotOp dot) {
    tooWide |= dot.getBShape()[1] / 2 + kDotOperandRegisters > entry;
  });
  if (tooWide)
    return;
  // Nothing may write memory or synchronize before the last loop ends (the
  // producer's copies would no longer come after it); no TMA staging. And
  // every copy, wait and read of a staging buffer is one of the loops' (a
  // staged loop nested in another op shares their buffers).
  llvm::SmallPtrSet<Operation *, 16> known;
  for (CopyLoop &l : loops) {
    known.insert(l.top);
    known.insert(l.after);
    for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies))
      known.insert(copy);
  }
  auto inLoop = [&](Operation *op) {
    return llvm::any_of(
        loops, [&](CopyLoop &l) { return l.loop->isProperAncestor(op); });
  };
  bool blocked = false;
  func.walk([&](Operation *op) {
    if (isa<AsyncCopyOp, AsyncWaitOp>(op) && !known.contains(op))
      blocked = true;
    if (isa<WarpgroupDotOp, AsyncLocalLoadOp>(op) && !inLoop(op))
      blocked = true;
  });
  auto check = [&](Operation &op) {
    op.walk([&](Operation *nested) {
      // (Region ops: their ops are walked.)
      if (isa<AsyncCopyOp, AsyncWaitOp, scf::YieldOp>(nested) ||
          nested->getNumRegions() != 0)
        return;
      if (isa<TmaInitOp, TmaCopyOp, LocalStoreOp, BarrierOp>(nested) ||
          ordersCopies(nested))
        blocked = true;
    });
  };
  // A persistent loop's ops after its staged loop (a tile's epilogue) come
  // before the producer's copies of the next tiles: they may store only
  // through kernel arguments the producer reads nothing from (distinct
  // arguments are taken not to overlap, as in quire-async-copies).
  SmallVector<Operation *> tail;
  for (Operation &op : body) {
    if (&op != outer.getOperation()) {
      check(op);
      if (&op == loops.back().after.getOperation())
        break;
      continue;
    }
    bool past = false;
    for (Operation &inner : outer.getBody()->without_terminator()) {
      if (past)
        tail.push_back(&inner);
      else
        check(inner);
      past |= &inner == loops.back().after.getOperation();
    }
    break;
  }
  if (blocked)
    return;
  SmallVector<Value> stored;
  if (outer) {
    bool syncs = false;
    for (Operation *op : tail)
      op->walk([&](Operation *nested) {
        syncs |= isa<TmaInitOp, TmaCopyOp, LocalStoreOp, BarrierOp>(nested);
      });
    if (syncs || !storedArguments(tail, stored))
      return;
  }

  // What the producer computes: the copies' operands, the loops' bounds,
  // and the iteration arguments they need, back to the kernel's arguments.
  llvm::SetVector<Operation *> needed;
  DenseMap<Operation *, llvm::SetVector<unsigned>> carried;
  SmallVector<Value> work;
  if (outer)
    work.append(
        {outer.getLowerBound(), outer.getUpperBound(), outer.getStep()});
  for (CopyLoop &l : loops) {
    work.append(
        {l.loop.getLowerBound(), l.loop.getUpperBound(), l.loop.getStep()});
    for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies)) {
      // A TMA copy needs the tile's tensor map, pages and bound, not its
      // pointers.
      if (TensorMapPagesOp pages = l.tma ? pagesOf(copy) : nullptr)
        work.append({pages.getTensormap(), pages.getBlockTable(),
                     pages.getFirstToken(), pages.getHead(), pages.getSeqLen(),
                     copy.getStage()});
      else
        llvm::append_range(work, copy->getOperands());
    }
  }
  auto isCopyLoop = [&](Operation *op) {
    return llvm::any_of(
        loops, [&](CopyLoop &l) { return l.loop.getOperation() == op; });
  };
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == func.getOperation() ||
          (owner == outer.getOperation() && arg == outer.getInductionVar()))
        continue;
      auto loop = dyn_cast<scf::ForOp>(owner);
      if (!loop || !isCopyLoop(loop))
        return;
      if (arg == loop.getInductionVar())
        continue;
      unsigned j = arg.getArgNumber() - 1;
      if (carried[loop].insert(j)) {
        work.push_back(loop.getInitArgs()[j]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(j));
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (needed.contains(def))
      continue;
    Operation *parent = def->getParentOp();
    if (isCopyLoop(def) || def == outer.getOperation() ||
        !(parent == func.getOperation() || parent == outer.getOperation() ||
          isCopyLoop(parent)) ||
        !producerMayRun(def))
      return;
    // Each set clones what depends on the thread; CSE may merge constants,
    // so a tensor constant must be the same in every thread.
    if (auto c = dyn_cast<arith::ConstantOp>(def))
      if (auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
          dense && !dense.isSplat())
        return;
    needed.insert(def);
    llvm::append_range(work, def->getOperands());
    // (A loop's body reads values from above it.)
    for (Region &region : def->getRegions())
      mlir::visitUsedValuesDefinedAbove(
          region, [&](OpOperand *use) { work.push_back(use->get()); });
  }

  // The prologue's copies test the loop's bounds: defined before them.
  for (CopyLoop &l : loops)
    for (Value bound :
         {l.loop.getLowerBound(), l.loop.getUpperBound(), l.loop.getStep()})
      if (Operation *def = bound.getDefiningOp();
          def && def->getBlock() == l.prologue.front()->getBlock() &&
          !def->isBeforeInBlock(l.prologue.front()))
        return;
  // In a persistent loop each reader's stage is the staged loop's stage
  // argument, which starts at 0 and steps by one (the consumers start it at
  // the tile's first fill instead), and what the producer reads for the
  // next tiles is stored by no tile's epilogue.
  if (outer) {
    for (CopyLoop &l : loops)
      for (auto &reader : l.readers)
        if (!stageArgument(l.loop, reader.second, l.stages))
          return;
    auto readsStored = [&](Value ptr) {
      Value root = pointerRoot(ptr);
      return !root || llvm::is_contained(stored, root);
    };
    bool clash = false;
    for (Operation *op : needed)
      op->walk([&](LoadOp load) { clash |= readsStored(load.getPtr()); });
    for (CopyLoop &l : loops)
      for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies))
        clash |= readsStored(copy.getPtrs());
    if (clash)
      return;
  }

  Location loc = func.getLoc();
  SmallVector<Operation *> original;
  for (Operation &op : body.without_terminator())
    original.push_back(&op);
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  auto cst = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantOp::create(ob, loc, ob.getI32IntegerAttr(v));
  };
  // Each producer thread completes one arrival of a cp.async fill
  // (tile.async_arrive); the issuing thread's expect_tx that of a TMA one.
  auto arrivals = [&](const CopyLoop &l) -> int32_t {
    return l.tma ? 1 : setThreads;
  };
  initBarriers(b, loc, loops.front(), arrivals(loops.front()),
               /*split=*/false);
  auto split =
      scf::IfOp::create(b, loc, TypeRange(), IsProducerOp::create(b, loc),
                        /*withElseRegion=*/true);

  // The producer: the loops' copies, each fill after its stage's release,
  // in the consumers' order, and between two loops the consumers' meeting
  // point where the mbarriers start over.
  OpBuilder pb = OpBuilder::atBlockBegin(split.thenBlock());
  // Producers that only issue TMA copies keep the least.
  bool allTma = llvm::all_of(loops, [](const CopyLoop &l) { return l.tma; });
  int32_t keep = producerRegisters ? producerRegisters
                 : allTma          ? kProducerRegisters
                                   : int32_t(copyProducerRegisters(sets));
  std::optional<int32_t> give =
      consumerWarps >= 2 * kWarpsPerWarpgroup
          ? sharedRegisters(consumerWarps, producers, keep)
          : std::nullopt;
  if (give)
    SetMaxRegistersOp::create(pb, loc, RegisterAction::Dec, keep);
  // (The kernel's values before the split, for the loads the sets share.)
  AxisInfoAnalysis axisInfo(func);
  // One mapping per set; what holds no tensor is the same in every thread
  // and cloned once (set 0's). Set k's clones compute the elements of the
  // threads k * setThreads above (tile.thread_offset, also in their
  // location, which the ops the lowering makes from them keep).
  SmallVector<IRMapping> maps(sets);
  auto perThread = [](Operation *op) {
    auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
    return llvm::any_of(op->getResultTypes(), isTensor) ||
           llvm::any_of(op->getOperandTypes(), isTensor);
  };
  auto cloneForSets = [&](OpBuilder &ob, Operation &op) {
    SmallVector<Operation *> clones;
    if (!perThread(&op)) {
      Operation *c = ob.clone(op, maps[0]);
      for (int64_t k = 1; k < sets; ++k)
        maps[k].map(op.getResults(), c->getResults());
      return SmallVector<Operation *>{c};
    }
    for (int64_t k = 0; k < sets; ++k) {
      auto load = dyn_cast<LoadOp>(op);
      if (k != 0 && load &&
          sameInThreadsAbove(load, k * setThreads, setThreads, axisInfo)) {
        maps[k].map(op.getResults(), clones.front()->getResults());
        continue;
      }
      Operation *c = ob.clone(op, maps[k]);
      if (k != 0)
        setThreadOffset(c, k * setThreads);
      clones.push_back(c);
    }
    return clones;
  };
  auto lookup = [&](Value v) { return maps[0].lookupOrDefault(v); };
  // The guards of cp.async fills that wait for their stages.
  SmallVector<scf::IfOp> acquiring;
  // The copies of one fill into `stage` (null: the copies' own), after the
  // stage's release where `acquireParity` is given.
  auto issue = [&](OpBuilder &ob, SmallVector<AsyncCopyOp> copies, Value runs,
                   const CopyLoop &l, Value acquireParity, Value stage) {
    auto guard = scf::IfOp::create(ob, loc, TypeRange(), runs,
                                   /*withElseRegion=*/false);
    OpBuilder gb = OpBuilder::atBlockBegin(guard.thenBlock());
    if (!stage)
      stage = lookup(copies.front().getStage());
    // Each buffer's first copy of the fill waits for that buffer's release
    // of the stage. (Only the issuing thread waits to refill with TMA.)
    std::set<int32_t> waited;
    for (AsyncCopyOp copy : copies) {
      if (acquireParity && waited.insert(copy.getBuffer()).second)
        TmaAcquireOp::create(gb, loc, stage, acquireParity, copy.getBuffer(),
                             l.stages,
                             /*producer=*/true, /*every_thread=*/!l.tma);
      if (l.tma) {
        TensorMapPagesOp pages = pagesOf(copy);
        TmaCopyPagesOp::create(
            gb, copy.getLoc(), lookup(pages.getTensormap()),
            lookup(pages.getBlockTable()), lookup(pages.getFirstToken()),
            lookup(pages.getHead()), lookup(pages.getSeqLen()), stage,
            arith::ConstantOp::create(gb, loc, gb.getBoolAttr(true)),
            stagedBlock(copy), pages.getPageSizeAttr(), copy.getBufferAttr(),
            copy.getContigAttr(), copy.getStagesAttr(),
            copy.getTransposedAttr(), gb.getUnitAttr());
        continue;
      }
      for (Operation *c : cloneForSets(gb, *copy))
        cast<AsyncCopyOp>(c).getStageMutable().assign(stage);
      AsyncArriveOp::create(gb, copy.getLoc(), stage, copy.getBuffer(),
                            copy.getStages());
    }
    if (acquireParity && !l.tma)
      acquiring.push_back(guard);
  };
  // Fill f of a ring waits for the release of fill f - stages: parity of
  // fill f's phase flipped (a fresh mbarrier passes phase 1). In a
  // persistent loop f counts from the kernel's start (`fills` before the
  // tile), and fill f goes into stage f % stages.
  auto acquireParity = [&](OpBuilder &ob, Value f, const CopyLoop &l) -> Value {
    return arith::XOrIOp::create(ob, loc, fillParity(ob, loc, f, l.stages),
                                 cst(ob, 1));
  };
  auto stageOf = [&](OpBuilder &ob, Value f, const CopyLoop &l) -> Value {
    return arith::RemUIOp::create(ob, loc, f, cst(ob, l.stages));
  };
  size_t next = 0;
  // The prologue fills (stage, buffer) waited for.
  std::set<std::pair<int64_t, int32_t>> acquired;
  // The producer's part of `op` at `ob`; in a persistent loop `fills` counts
  // the fills before the tile and `nextFills` becomes the count after it.
  auto produce = [&](OpBuilder &ob, Operation *op, Value fills,
                     Value &nextFills) {
    if (next == loops.size())
      return;
    CopyLoop &l = loops[next];
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      // Prologue fill k: the stage's first, nothing to wait for (in a
      // persistent loop, the fill of an earlier tile's release).
      int64_t k = *getConstantIntValue(copy.getStage());
      Value runs = iterationRuns(ob, loc, lookup(l.loop.getLowerBound()),
                                 lookup(l.loop.getStep()), k,
                                 lookup(l.loop.getUpperBound()), false);
      if (!fills) {
        issue(ob, {copy}, runs, l, nullptr, nullptr);
        return;
      }
      // (The fill's first copy of each buffer waits for the stage.)
      Value f = arith::AddIOp::create(ob, loc, fills, cst(ob, k));
      bool first = acquired.insert({k, int32_t(copy.getBuffer())}).second;
      issue(ob, {copy}, runs, l, first ? acquireParity(ob, f, l) : Value(),
            stageOf(ob, f, l));
      return;
    }
    if (op == l.loop.getOperation()) {
      // The carried values the copies need, per set where they hold
      // tensors.
      SmallVector<unsigned> args(carried[op].begin(), carried[op].end());
      llvm::sort(args);
      SmallVector<std::pair<unsigned, int64_t>> slots; // (arg, set)
      SmallVector<Value> inits;
      for (unsigned j : args) {
        Value init = l.loop.getInitArgs()[j];
        int64_t n = isa<RankedTensorType>(init.getType()) ? sets : 1;
        for (int64_t k = 0; k < n; ++k) {
          slots.push_back({j, k});
          inits.push_back(maps[k].lookupOrDefault(init));
        }
      }
      Value lb = lookup(l.loop.getLowerBound());
      Value step = lookup(l.loop.getStep());
      Value ub = lookup(l.loop.getUpperBound());
      auto loop = scf::ForOp::create(ob, loc, lb, ub, step, inits);
      OpBuilder lb2 = OpBuilder::atBlockBegin(loop.getBody());
      Value iv = loop.getInductionVar();
      for (IRMapping &m : maps)
        m.map(l.loop.getInductionVar(), iv);
      for (auto [n, slot] : llvm::enumerate(slots)) {
        Value arg = l.loop.getRegionIterArgs()[slot.first];
        Value mine = loop.getRegionIterArgs()[n];
        if (isa<RankedTensorType>(arg.getType()))
          maps[slot.second].map(arg, mine);
        else
          for (IRMapping &m : maps)
            m.map(arg, mine);
      }
      for (Operation &inner : l.loop.getBody()->without_terminator())
        if (needed.contains(&inner))
          cloneForSets(lb2, inner);
      // The body's copies are of fill k + ahead.
      Value f = arith::AddIOp::create(
          lb2, loc, iterationIndex(lb2, loc, iv, lb, step), cst(lb2, l.ahead));
      if (fills)
        f = arith::AddIOp::create(lb2, loc, fills, f);
      issue(lb2, l.copies, iterationRuns(lb2, loc, iv, step, l.ahead, ub, true),
            l, acquireParity(lb2, f, l), fills ? stageOf(lb2, f, l) : Value());
      SmallVector<Value> yields;
      Operation *yield = l.loop.getBody()->getTerminator();
      for (auto [j, k] : slots)
        yields.push_back(maps[k].lookupOrDefault(yield->getOperand(j)));
      scf::YieldOp::create(lb2, loc, yields);
      if (fills)
        nextFills = arith::AddIOp::create(ob, loc, fills,
                                          tripCount(ob, loc, lb, ub, step));
      return;
    }
    if (op == l.after.getOperation()) {
      if (++next < loops.size()) {
        invalBarriers(ob, loc, l, /*split=*/true);
        initBarriers(ob, loc, loops[next], arrivals(loops[next]),
                     /*split=*/true);
      }
      return;
    }
    if (needed.contains(op))
      cloneForSets(ob, *op);
  };
  for (Operation *op : original) {
    if (next == loops.size())
      break;
    if (op != outer.getOperation()) {
      Value none;
      produce(pb, op, Value(), none);
      continue;
    }
    // The persistent loop: its tiles in the consumers' order, the fills
    // counted across them.
    auto tiles = scf::ForOp::create(
        pb, loc, lookup(outer.getLowerBound()), lookup(outer.getUpperBound()),
        lookup(outer.getStep()), ValueRange{cst(pb, 0)});
    for (IRMapping &m : maps)
      m.map(outer.getInductionVar(), tiles.getInductionVar());
    OpBuilder tb = OpBuilder::atBlockBegin(tiles.getBody());
    Value fills = tiles.getRegionIterArgs()[0];
    Value nextFills = fills;
    for (Operation &inner : outer.getBody()->without_terminator())
      produce(tb, &inner, fills, nextFills);
    scf::YieldOp::create(tb, loc, nextFills);
    sinkIntoLoop(tiles);
    keepInvariantsInside(tiles);
  }
  for (scf::IfOp guard : acquiring)
    sinkIntoGuard(guard);

  // The consumers: the kernel without its copies; each loop waits for the
  // stages it reads and releases them after its iteration.
  Block *consumers = split.elseBlock();
  for (Operation *op : original)
    op->moveBefore(consumers->getTerminator());
  // A persistent loop carries the fills before each tile; the staged loop
  // starts its stages there.
  Value fills;
  if (outer) {
    CopyLoop &l = loops.front();
    IRRewriter rewriter(func.getContext());
    OpBuilder ib(outer);
    Value zero = cst(ib, 0);
    auto grown =
        cast<LoopLikeOpInterface>(outer.getOperation())
            .replaceWithAdditionalYields(
                rewriter, ValueRange{zero},
                /*replaceInitOperandUsesInLoop=*/false,
                [&](OpBuilder &yb, Location, ArrayRef<BlockArgument> args) {
                  Value n = tripCount(yb, loc, l.loop.getLowerBound(),
                                      l.loop.getUpperBound(), l.loop.getStep());
                  return SmallVector<Value>{
                      arith::AddIOp::create(yb, loc, args[0], n)};
                });
    if (failed(grown))
      llvm_unreachable("scf.for takes more iteration arguments");
    outer = cast<scf::ForOp>(grown->getOperation());
    fills = outer.getRegionIterArgs().back();
    OpBuilder sb(l.loop);
    Value first = arith::RemUIOp::create(sb, loc, fills, cst(sb, l.stages));
    for (auto &reader : l.readers) {
      unsigned j = cast<BlockArgument>(reader.second).getArgNumber() - 1;
      l.loop.getInitArgsMutable()[j].assign(first);
    }
    sinkIntoLoop(outer);
    keepInvariantsInside(outer);
  }
  for (auto [n, l] : llvm::enumerate(loops)) {
    // With TMA: the iteration's tile, its first token and bound, per buffer
    // (the body's copy fills the stage `ahead` iterations on).
    SmallVector<std::tuple<AsyncCopyOp, Value, Value>> bounds;
    if (l.tma) {
      OpBuilder bb = OpBuilder::atBlockBegin(l.loop.getBody());
      IRMapping back;
      Value ahead =
          arith::MulIOp::create(bb, loc, l.loop.getStep(), cst(bb, l.ahead));
      back.map(l.loop.getInductionVar(),
               arith::SubIOp::create(bb, loc, l.loop.getInductionVar(), ahead));
      cloneSlice(bb, l.boundSlice, back);
      for (AsyncCopyOp copy : l.copies) {
        TensorMapPagesOp pages = pagesOf(copy);
        bounds.push_back({copy, back.lookupOrDefault(pages.getFirstToken()),
                          back.lookupOrDefault(pages.getSeqLen())});
      }
    }
    auto zeroPastBound = [&](OpBuilder &zb, int32_t buffer, Value stage) {
      for (auto [copy, first, bound] : bounds) {
        if (int32_t(copy.getBuffer()) != buffer)
          continue;
        Value from = arith::SubIOp::create(zb, loc, bound, first);
        Value some = arith::CmpIOp::create(
            zb, loc, arith::CmpIPredicate::slt, from,
            cst(zb, copy.getPtrs().getType().getDimSize(0)));
        auto clear = scf::IfOp::create(zb, loc, TypeRange(), some,
                                       /*withElseRegion=*/false);
        OpBuilder tb = OpBuilder::atBlockBegin(clear.thenBlock());
        TmaZeroRowsOp::create(tb, loc, stage, from, stagedBlock(copy),
                              copy.getBufferAttr(), copy.getContigAttr(),
                              copy.getStagesAttr(), copy.getTransposedAttr());
      }
    };
    l.top->erase();
    Block *lbody = l.loop.getBody();
    OpBuilder cb = OpBuilder::atBlockBegin(lbody);
    Value fill = iterationIndex(cb, loc, l.loop.getInductionVar(),
                                l.loop.getLowerBound(), l.loop.getStep());
    if (fills)
      fill = arith::AddIOp::create(cb, loc, fills, fill);
    Value parity = fillParity(cb, loc, fill, l.stages);
    for (auto [buffer, reader] : llvm::zip(l.buffers, l.readers)) {
      cb.setInsertionPoint(reader.first);
      TmaWaitOp::create(cb, loc, reader.second, parity, buffer, l.stages,
                        /*async_proxy=*/true);
      // Rows past the tile's bound that TMA copied from its last page are
      // cleared before any warp reads them.
      if (l.tma)
        zeroPastBound(cb, buffer, reader.second);
    }
    // (The copies go once the clears have read their attributes.)
    for (AsyncCopyOp copy : llvm::concat<AsyncCopyOp>(l.prologue, l.copies))
      copy->erase();
    cb.setInsertionPoint(lbody->getTerminator());
    // The stage was read through the async proxy (wgmma) and is refilled
    // through the generic one (cp.async): the release fences first.
    Value yes = arith::ConstantOp::create(cb, loc, cb.getBoolAttr(true));
    for (auto [buffer, reader] : llvm::zip(l.buffers, l.readers))
      TmaReleaseOp::create(cb, loc, reader.second, yes, buffer, l.stages,
                           /*async_proxy=*/true);
    cb.setInsertionPoint(l.after);
    if (n + 1 < loops.size()) {
      invalBarriers(cb, loc, l, /*split=*/true);
      initBarriers(cb, loc, loops[n + 1], arrivals(loops[n + 1]),
                   /*split=*/true);
    } else {
      if (outer)
        cb.setInsertionPointAfter(outer);
      invalBarriers(cb, loc, l, /*split=*/false);
    }
    l.after->erase();
  }
  // Ping-pong: the two consumer warpgroups issue the loops' dots in turn,
  // each passing the turn once its dot is issued (it then waits for the
  // dot), so one's softmax runs beside the other's dots.
  if (pingpong && consumerWarps == 2 * kWarpsPerWarpgroup) {
    // (Around a persistent loop: every tile's turns are balanced, so the
    // alternation carries from one tile to the next, where a start and an
    // end per tile could let one warpgroup's next start pass the other's
    // end.)
    OpBuilder tb =
        outer ? OpBuilder(outer) : OpBuilder::atBlockBegin(consumers);
    WarpgroupTurnOp::create(tb, loc, TurnAction::Start);
    for (CopyLoop &l : loops) {
      l.loop->removeAttr(TileDialect::getPingpongAttrName());
      for (auto dot : llvm::make_early_inc_range(
               l.loop.getBody()->getOps<WarpgroupDotOp>())) {
        tb.setInsertionPoint(dot);
        WarpgroupTurnOp::create(tb, loc, TurnAction::Wait);
        dot.setAsync(true);
        tb.setInsertionPointAfter(dot);
        WarpgroupTurnOp::create(tb, loc, TurnAction::Pass);
        auto wait = WarpgroupWaitOp::create(
            tb, dot.getLoc(), ValueRange{dot.getD()}, /*after=*/Value(), 0);
        dot.getD().replaceAllUsesExcept(wait.getOutputs()[0], wait);
      }
    }
    tb.setInsertionPointAfter(outer ? outer.getOperation()
                                    : loops.back().loop.getOperation());
    WarpgroupTurnOp::create(tb, loc, TurnAction::End);
  }
  if (give) {
    OpBuilder rb = OpBuilder::atBlockBegin(consumers);
    SetMaxRegistersOp::create(rb, loc, RegisterAction::Inc, *give);
  }
  func->setAttr(TileDialect::getProducerWarpsAttrName(),
                Builder(func.getContext()).getI32IntegerAttr(producers));
}

struct WarpSpecializePass
    : public mlir::quire::tile::impl::WarpSpecializeBase<WarpSpecializePass> {
  using WarpSpecializeBase::WarpSpecializeBase;

  void runOnOperation() override {
    if (!isProducerRegisters(producerRegisters)) {
      mlir::emitError(getOperation().getLoc())
          << "quire-warp-specialize: producer-registers must be 0 (the "
             "estimate) or a multiple of 8 in [24, 256], got "
          << static_cast<int64_t>(producerRegisters);
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!isKernel(func) || func.isExternal())
        continue;
      if (!specialize(func))
        specializeCopies(func, pingpong, producerWarpgroup, producerRegisters);
      shareInvariantOperands(func);
    }
  }

  /// Gives a TMA-staged loop a producer warp; false if the kernel has none
  /// (it may have cp.async-staged loops).
  bool specialize(func::FuncOp func) {
    Block &body = func.getBody().front();
    scf::ForOp loop;
    for (Operation &op : body)
      if (auto f = dyn_cast<scf::ForOp>(op);
          f && f->hasAttr(TileDialect::getTmaAheadAttrName())) {
        if (loop)
          return true; // one loop per kernel
        loop = f;
      }
    // A producer warpgroup where asked and the consumers are two or more
    // whole warpgroups (with one, every thread of the CTA may hold 255
    // registers already), else a warp. The CTA takes at most 1024 threads;
    // unsigned loops are not staged.
    int64_t consumerWarps = getNumWarps(func);
    int32_t warpgroup = kWarpsPerWarpgroup;
    int32_t producers = producerWarpgroup && consumerWarps % warpgroup == 0 &&
                                consumerWarps >= 2 * warpgroup
                            ? warpgroup
                            : 1;
    if (!loop)
      return false;
    if ((consumerWarps + producers) * kWarpSize > 1024 || loop.getUnsignedCmp())
      return true;
    int64_t ahead =
        loop->getAttrOfType<IntegerAttr>(TileDialect::getTmaAheadAttrName())
            .getInt();
    // The loop's copies and acquires; every TMA op of the kernel is the
    // loop's (its init before it, its inval after).
    SmallVector<Operation *> copies;
    TmaAcquireOp acquire;
    for (Operation &op : *loop.getBody()) {
      if (isa<TmaCopyOp>(op))
        copies.push_back(&op);
      else if (auto a = dyn_cast<TmaAcquireOp>(op)) {
        if (acquire)
          return true;
        acquire = a;
      }
    }
    if (copies.empty() || !acquire)
      return true;
    FailureOr<SmallVector<Operation *>> slice = bodySlice(loop, copies);
    if (failed(slice))
      return true;
    // Before the loop: what the producer needs (the loop's bounds, the
    // copies' operands from before it) stays before the split, and must be
    // ops any warp may run; the rest moves into the consumers' branch. The
    // prologue's copies go (the producer issues every iteration's).
    llvm::SetVector<Operation *> needed;
    SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound(),
                            loop.getStep()};
    for (Operation *op : llvm::concat<Operation *const>(*slice, copies))
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && def->getBlock() == &body)
          work.push_back(v);
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def || def->getBlock() != &body || !needed.insert(def))
        continue;
      work.append(def->operand_begin(), def->operand_end());
    }
    SmallVector<Operation *> prologue, consumerOnly;
    for (Operation &op : body) {
      if (&op == loop.getOperation())
        break;
      if (isa<TmaCopyOp>(op))
        prologue.push_back(&op);
      else if (ordersCopies(&op) ||
               (needed.contains(&op) && !runsAnywhere(&op)))
        return true;
      else if (!needed.contains(&op) && !isa<TmaInitOp>(op))
        consumerOnly.push_back(&op);
    }
    bool nested = false;
    func.walk([&](Operation *op) {
      if (isa<TmaCopyOp, TmaAcquireOp, TmaInitOp>(op) &&
          op->getParentOp() != loop && op->getBlock() != &body)
        nested = true;
    });
    if (nested)
      return true;

    Location loc = loop.getLoc();
    OpBuilder b(loop);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
    };
    int32_t stages = acquire.getStages();
    // A producer warpgroup keeps `keep` registers a thread and gives the
    // rest to the consumers.
    int32_t keep = producerRegisters ? producerRegisters : kProducerRegisters;
    std::optional<int32_t> give =
        producers == warpgroup ? sharedRegisters(consumerWarps, producers, keep)
                               : std::nullopt;
    Value isProducer = IsProducerOp::create(b, loc);
    auto split = scf::IfOp::create(b, loc, TypeRange(), isProducer,
                                   /*withElseRegion=*/true);

    // The producer: every iteration's copies, each after its stage's
    // release.
    b.setInsertionPointToStart(split.thenBlock());
    if (give)
      SetMaxRegistersOp::create(b, loc, RegisterAction::Dec, keep);
    Value zero = cst(0);
    auto producerLoop =
        scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                           loop.getStep(), ValueRange{zero, zero});
    {
      OpBuilder pb = OpBuilder::atBlockBegin(producerLoop.getBody());
      Value stage = producerLoop.getRegionIterArgs()[0];
      Value phase = producerLoop.getRegionIterArgs()[1];
      auto pc = [&](int64_t v) -> Value {
        return arith::ConstantOp::create(pb, loc, pb.getI32IntegerAttr(v));
      };
      // The consumer loop's copies are of iteration i + ahead * step.
      IRMapping map;
      Value back = arith::MulIOp::create(pb, loc, loop.getStep(), pc(ahead));
      map.map(
          loop.getInductionVar(),
          arith::SubIOp::create(pb, loc, producerLoop.getInductionVar(), back));
      // Fill f of a stage waits for release f - 1: parity of this fill's
      // phase flipped (a fresh mbarrier passes phase 1).
      Value parity = arith::XOrIOp::create(pb, loc, phase, pc(1));
      TmaAcquireOp::create(pb, acquire.getLoc(), stage, parity,
                           acquire.getBufferAttr(), acquire.getStagesAttr(),
                           pb.getUnitAttr());
      cloneSlice(pb, *slice, map);
      Value yes = arith::ConstantOp::create(pb, loc, pb.getBoolAttr(true));
      for (Operation *op : copies) {
        auto copy = cast<TmaCopyOp>(op);
        SmallVector<Value> offsets;
        for (Value o : copy.getOffsets())
          offsets.push_back(map.lookupOrDefault(o));
        TmaCopyOp::create(pb, copy.getLoc(), copy.getTensormap(), offsets,
                          stage, yes, copy.getBlockAttr(), copy.getBufferAttr(),
                          copy.getContigAttr(), copy.getStagesAttr(),
                          copy.getTransposedAttr(), pb.getUnitAttr());
      }
      Value next = nextStage(pb, loc, stage, stages);
      scf::YieldOp::create(pb, loc,
                           ValueRange{next, nextPhase(pb, loc, next, phase)});
    }

    // The consumers: the loop without its copies, and the rest of the
    // kernel.
    Block *consumers = split.elseBlock();
    for (Operation *op : prologue)
      op->erase();
    for (Operation *op : consumerOnly)
      op->moveBefore(consumers->getTerminator());
    Operation *terminator = body.getTerminator();
    for (Operation *op = loop, *next; op != terminator; op = next) {
      next = op->getNextNode();
      op->moveBefore(consumers->getTerminator());
    }
    for (Operation *op : copies)
      op->erase();
    acquire->erase();
    loop->removeAttr(TileDialect::getTmaAheadAttrName());
    if (give) {
      // Each thread starts with its share of the 64K registers (the
      // lowering makes it one CTA per SM, .minnctapersm 1, so ptxas starts
      // the kernel there; at least 384 threads, so below 255); the
      // consumers take what the producer gives back on top of theirs.
      OpBuilder cb = OpBuilder::atBlockBegin(consumers);
      SetMaxRegistersOp::create(cb, loc, RegisterAction::Inc, *give);
    }
    func->setAttr(TileDialect::getProducerWarpsAttrName(),
                  b.getI32IntegerAttr(producers));
    return true;
  }
};

} // namespace
