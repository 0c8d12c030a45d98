//===- TmaToLLVM.cpp - TMA staging of tiles ------------------------------===//
//
// The ops `quire-async-copies` creates for loads through tensor maps:
// tile.tma_copy is one thread's `mbarrier.arrive.expect_tx` and one
// `cp.async.bulk.tensor.2d` per S-byte column of the block (S = the last
// dimension's bytes, at most 128; the tensor map's box is S bytes by the
// block's rows, swizzled S bytes), written where tile.async_copy with
// `nvmma` writes the same stage (NvmmaTile: column c at c * rows * S, the
// 16-byte chunks XOR-ed with the row as TMA's S-byte swizzle does, stages
// 1024-byte aligned). tile.tma_wait spins on `mbarrier.try_wait.parity`.
// tile.tma_init / tile.tma_inval bracket a staged loop. Each staging buffer
// has its own mbarriers, one per stage, in an async buffer of their own
// (kTmaBarrierBuffer + buffer), followed by its release mbarriers when it
// has them (tile.tma_release: one arrival per warp; tile.tma_acquire: the
// issuing thread's wait). The issuing thread is thread 0, or the producer
// warp's first (`producer`, tile.is_producer: quire-warp-specialize).
// tile.tensormap_block and tile.tensormap_pages are the identity.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "quire/Dialect/Tile/IR/Layout.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// Async buffer ids of the mbarriers: kTmaBarrierBuffer + the staging
/// buffer's id (staging buffer ids are small: one per staged operand).
constexpr int64_t kTmaBarrierBuffer = 1 << 16;

/// Fails with `op`'s diagnostic where the target is older than sm_90, which
/// `what` needs.
LogicalResult requireSm90(Operation *op, const TileToLLVMState &state,
                          StringRef what) {
  if (state.sm >= 90)
    return success();
  return op->emitOpError() << "not supported on the GPU: " << what
                           << " needs sm_90, compiling for sm_" << state.sm;
}

/// The 32-bit shared address of stage `stage`'s mbarrier of `buffer`: the
/// one its copies complete (`full`), or the one the warps release it on.
Value barrierAddress(OpBuilder &b, Location loc, Operation *op,
                     TileToLLVMState &state, Value stage, int32_t buffer,
                     int32_t stages, bool release = false) {
  state.reserveAsync(kTmaBarrierBuffer + buffer, 16 * int64_t(stages), 8);
  Value off = LLVM::MulOp::create(b, loc, stage, i32Const(b, loc, 8));
  if (release)
    off = LLVM::AddOp::create(b, loc, off, i32Const(b, loc, 8 * stages));
  Value ptr = asyncSharedPtr(b, loc, op, off, kTmaBarrierBuffer + buffer);
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), ptr);
}

/// The executing thread's warpgroup: thread index / 128.
Value warpgroupIndex(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return LLVM::LShrOp::create(
      b, loc, tid,
      i32Const(b, loc,
               llvm::Log2_32(tile::kWarpSize * tile::kWarpsPerWarpgroup)));
}

/// True in thread `first` of the CTA (0: the thread that initializes
/// mbarriers and, without a producer warp, issues TMA copies).
Value isFirstThread(OpBuilder &b, Location loc, int64_t first = 0) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid,
                              i32Const(b, loc, first));
}

/// The thread that issues an op's TMA work: the producer warp's first
/// (after the consumers' warps) or thread 0.
int64_t issuer(const TileToLLVMState &state, bool producer) {
  return producer ? int64_t(state.numWarps) * tile::kWarpSize : 0;
}

/// `ptx` (predicate $0, the mbarrier's address $1) in thread 0 on each of
/// the `stages` mbarriers of `buffer`.
void onEveryBarrier(OpBuilder &b, Location loc, Operation *op,
                    TileToLLVMState &state, int32_t buffer, int32_t stages,
                    StringRef ptx, bool release = false) {
  Value first = isFirstThread(b, loc);
  for (int32_t s = 0; s < stages; ++s) {
    Value bar = barrierAddress(b, loc, op, state, i32Const(b, loc, s), buffer,
                               stages, release);
    inlinePtx(b, loc, {}, {first, bar}, ptx, "b,r", /*sideEffects=*/true);
  }
}

/// tile.tma_init {buffer = b, stages = S, arrivals = A}
///   => @thread0 mbarrier.init.shared::cta.b64 [bar(b, s)], A  (s < S)
///      fence.mbarrier_init.release.cluster; fence.proxy.async.global;
///      bar.sync 0 of every thread (with split: barrier.sync 0)
struct TmaInitOpLowering : public StatefulPattern<tile::TmaInitOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaInitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    onEveryBarrier(rewriter, loc, op, state, op.getBuffer(), op.getStages(),
                   "@$0 mbarrier.init.shared::cta.b64 [$1], " +
                       std::to_string(op.getArrivals()) + ";");
    if (op.getRelease())
      onEveryBarrier(rewriter, loc, op, state, op.getBuffer(), op.getStages(),
                     "@$0 mbarrier.init.shared::cta.b64 [$1], " +
                         std::to_string(state.numWarps) + ";",
                     /*release=*/true);
    inlinePtx(rewriter, loc, {}, {}, "fence.mbarrier_init.release.cluster;", "",
              /*sideEffects=*/true);
    // Global memory this kernel wrote before (an earlier tile of a
    // persistent loop) is visible to the copies' async proxy after the
    // barrier.
    inlinePtx(rewriter, loc, {}, {}, "fence.proxy.async.global;", "",
              /*sideEffects=*/true);
    // Producer warps too wait for the initialization.
    auto bar = NVVM::Barrier0Op::create(rewriter, loc);
    bar->setAttr(kAllThreadsAttr, rewriter.getUnitAttr());
    if (op.getSplit())
      bar->setAttr(kUnalignedAttr, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_inval {buffer = b, stages = S}
///   => bar.sync 0; @thread0 mbarrier.inval.shared::cta.b64 [bar(b, s)]
/// (with split: barrier.sync 0 of every thread, producers too)
struct TmaInvalOpLowering : public StatefulPattern<tile::TmaInvalOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaInvalOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto bar = NVVM::Barrier0Op::create(rewriter, loc);
    if (op.getSplit()) {
      bar->setAttr(kAllThreadsAttr, rewriter.getUnitAttr());
      bar->setAttr(kUnalignedAttr, rewriter.getUnitAttr());
    }
    onEveryBarrier(rewriter, loc, op, state, op.getBuffer(), op.getStages(),
                   "@$0 mbarrier.inval.shared::cta.b64 [$1];");
    if (op.getRelease())
      onEveryBarrier(rewriter, loc, op, state, op.getBuffer(), op.getStages(),
                     "@$0 mbarrier.inval.shared::cta.b64 [$1];",
                     /*release=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Where a TMA staging op writes: its block's shape, element bytes and
/// swizzle (S bytes), and the 32-bit shared address of stage `stage`.
struct StagedBlock {
  int64_t rows, cols, bytes, swizzle;
  Value base;
};

template <typename Op>
StagedBlock stagedBlock(OpBuilder &b, Location loc, Op op,
                        TileToLLVMState &state, Value stage) {
  RankedTensorType block = op.getBlockType();
  StagedBlock s;
  s.bytes = block.getElementType().getIntOrFloatBitWidth() / 8;
  s.rows = block.getDimSize(0);
  s.cols = block.getDimSize(1);
  Staging st = reserveStaging(state, op.getStagedShape(), op.getContig(),
                              s.bytes, op.getBuffer(), op.getStages(),
                              /*nvmma=*/true);
  s.swizzle = st.nvmma->swizzle;
  Value off = stageOffset(b, loc, stage, st.stageBytes);
  s.base = LLVM::PtrToIntOp::create(
      b, loc, b.getI32Type(), asyncSharedPtr(b, loc, op, off, op.getBuffer()));
  return s;
}

/// The start of a TMA fill of `op`'s block into stage `stage`: the stage's
/// full mbarrier, and the issuing thread's predicate (`pred` and the
/// issuer) with which it announces the block's bytes on the mbarrier
/// (`mbarrier.arrive.expect_tx`).
template <typename Op>
std::pair<Value, Value> announceFill(OpBuilder &b, Location loc, Op op,
                                     TileToLLVMState &state, Value stage,
                                     Value pred, const StagedBlock &blk) {
  Value bar =
      barrierAddress(b, loc, op, state, stage, op.getBuffer(), op.getStages());
  Value issuing = LLVM::AndOp::create(
      b, loc, pred, isFirstThread(b, loc, issuer(state, op.getProducer())));
  inlinePtx(b, loc, {}, {issuing, bar},
            "@$0 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$1], " +
                std::to_string(blk.rows * blk.cols * blk.bytes) + ";",
            "b,r", /*sideEffects=*/true);
  return {bar, issuing};
}

/// tile.tma_copy %tm[%o0, %o1] into stage %s if %p {block = B0 x B1, ...}
///   => @(%p && thread0) mbarrier.arrive.expect_tx [bar(b, s)], B0*B1*bytes
///      @(...) cp.async.bulk.tensor.2d [smem(b, s) + c * B0 * S],
///             [%tm, {%o1 + c * S / bytes, %o0}], [bar(b, s)]   (per column c)
struct TmaCopyOpLowering : public StatefulPattern<tile::TmaCopyOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireSm90(op, state, "TMA")))
      return failure();
    Location loc = op.getLoc();
    Value stage = adaptor.getStage().front();
    StagedBlock blk = stagedBlock(rewriter, loc, op, state, stage);
    int64_t rows = blk.rows, cols = blk.cols, bytes = blk.bytes,
            swizzle = blk.swizzle;
    Value dst = blk.base;
    auto [bar, pred] = announceFill(rewriter, loc, op, state, stage,
                                    adaptor.getPred().front(), blk);
    Value tensormap = adaptor.getTensormap().front();
    Value outer = adaptor.getOffsets()[0].front();
    Value inner = adaptor.getOffsets()[1].front();
    int64_t lineElems = swizzle / bytes;
    for (int64_t c = 0; c < cols / lineElems; ++c) {
      Value to =
          c ? LLVM::AddOp::create(rewriter, loc, dst,
                                  i32Const(rewriter, loc, c * rows * swizzle))
                  .getResult()
            : dst;
      Value x = c ? LLVM::AddOp::create(rewriter, loc, inner,
                                        i32Const(rewriter, loc, c * lineElems))
                        .getResult()
                  : inner;
      inlinePtx(rewriter, loc, {}, {pred, to, tensormap, x, outer, bar},
                "@$0 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                "complete_tx::bytes [$1], [$2, {$3, $4}], [$5];",
                "b,r,l,r,r,r", /*sideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_copy_pages %tm[%bt, %first, %head] bound %len into stage %s
///     if %p {block = B0 x B1, page_size = P, ...}, R = min(P, B0):
///   => @(%p && issuer) mbarrier.arrive.expect_tx [bar(b, s)], B0*B1*bytes
///      per box k (t = %first + k * R):
///        e = -1; @(%p && issuer && t < %len) ld.global.b32 e, [%bt + t / P]
///        per column c: @(...) cp.async.bulk.tensor.4d
///          [smem(b, s) + c * B0 * S + k * R * S],
///          [%tm, {c * S / bytes, %head, t % P, e}], [bar(b, s)]
struct TmaCopyPagesOpLowering : public StatefulPattern<tile::TmaCopyPagesOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaCopyPagesOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireSm90(op, state, "TMA")))
      return failure();
    Location loc = op.getLoc();
    int64_t page = op.getPageSize(), box = op.getBoxRows();
    Value stage = adaptor.getStage().front();
    StagedBlock blk = stagedBlock(rewriter, loc, op, state, stage);
    int64_t rows = blk.rows, cols = blk.cols, bytes = blk.bytes,
            swizzle = blk.swizzle;
    Value dst = blk.base;
    auto [bar, pred] = announceFill(rewriter, loc, op, state, stage,
                                    adaptor.getPred().front(), blk);
    Value tensormap = adaptor.getTensormap().front();
    Value table = adaptor.getBlockTable().front();
    Value first = adaptor.getFirstToken().front();
    Value head = adaptor.getHead().front();
    Value bound = adaptor.getSeqLen().front();
    auto c32 = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    int64_t lineElems = swizzle / bytes;
    // Every box's entry first, so that their loads are in flight together
    // (the block table is not written while the kernel runs: the loads
    // have no side effects), then the copies.
    SmallVector<Value> entries, inPages;
    for (int64_t k = 0; k < rows / box; ++k) {
      Value t = k ? LLVM::AddOp::create(rewriter, loc, first, c32(k * box))
                        .getResult()
                  : first;
      // The entry of the box's page, or -1 (out of the tensor: zeros) at
      // or past the bound, where the table is not read.
      Value inBound = LLVM::AndOp::create(
          rewriter, loc, pred,
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, t,
                               bound));
      Value pageIdx = LLVM::UDivOp::create(rewriter, loc, t, c32(page));
      Value at = LLVM::GEPOp::create(rewriter, loc, table.getType(),
                                     rewriter.getI32Type(), table,
                                     ValueRange{pageIdx});
      entries.push_back(
          inlinePtx(rewriter, loc, {rewriter.getI32Type()}, {inBound, at},
                    "mov.b32 $0, -1;\n@$1 ld.global.b32 $0, [$2];", "=r,b,l",
                    /*sideEffects=*/false)
              .front());
      inPages.push_back(LLVM::URemOp::create(rewriter, loc, t, c32(page)));
    }
    for (int64_t k = 0; k < rows / box; ++k) {
      for (int64_t c = 0; c < cols / lineElems; ++c) {
        Value to = LLVM::AddOp::create(
            rewriter, loc, dst, c32(c * rows * swizzle + k * box * swizzle));
        inlinePtx(rewriter, loc, {},
                  {pred, to, tensormap, c32(c * lineElems), head, inPages[k],
                   entries[k], bar},
                  "@$0 cp.async.bulk.tensor.4d.shared::cluster.global."
                  "mbarrier::complete_tx::bytes [$1], [$2, {$3, $4, $5, $6}], "
                  "[$7];",
                  "b,r,l,r,r,r,r,r", /*sideEffects=*/true);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_zero_rows stage %s from %n {block = B0 x B1, ...}
///   => per 16-byte chunk of the stage, the compute threads' in turn:
///        @(its row >= %n) st.shared.v4.b32 [chunk], 0
///      fence.proxy.async.shared::cta; the compute warps' barrier
struct TmaZeroRowsOpLowering : public StatefulPattern<tile::TmaZeroRowsOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaZeroRowsOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    StagedBlock blk =
        stagedBlock(rewriter, loc, op, state, adaptor.getStage().front());
    int64_t rows = blk.rows, cols = blk.cols, bytes = blk.bytes,
            swizzle = blk.swizzle;
    Value base = blk.base;
    Value from = adaptor.getFrom().front();
    auto c32 = [&](int64_t v) { return i32Const(rewriter, loc, v); };
    // Chunk i of the stage lies in column i / (rows * S / 16), row
    // (i / (S / 16)) % rows: the swizzle moves chunks within their row.
    int64_t threads = int64_t(state.numWarps) * tile::kWarpSize;
    int64_t lineChunks = swizzle / 16;
    int64_t chunks = rows * cols * bytes / 16;
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value zero = c32(0);
    for (int64_t k = 0; k * threads < chunks; ++k) {
      Value i = LLVM::AddOp::create(rewriter, loc, tid, c32(k * threads));
      Value row = LLVM::URemOp::create(
          rewriter, loc,
          LLVM::UDivOp::create(rewriter, loc, i, c32(lineChunks)), c32(rows));
      Value clear = LLVM::ICmpOp::create(rewriter, loc,
                                         LLVM::ICmpPredicate::sge, row, from);
      if ((k + 1) * threads > chunks)
        clear = LLVM::AndOp::create(
            rewriter, loc, clear,
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, i,
                                 c32(chunks)));
      Value at = LLVM::AddOp::create(
          rewriter, loc, base, LLVM::MulOp::create(rewriter, loc, i, c32(16)));
      inlinePtx(rewriter, loc, {}, {clear, at, zero},
                "@$0 st.shared.v4.b32 [$1], {$2, $2, $2, $2};", "b,r,r",
                /*sideEffects=*/true);
    }
    // The zeros are read through the async proxy (wgmma), after every
    // compute thread wrote its own.
    fenceAsyncProxy(rewriter, loc);
    // (A CTA barrier; with producer warps, the compute warps' own: Barriers.h.)
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Spins until the mbarrier at `bar` completes the phase of parity `phase`:
/// `loop: mbarrier.try_wait.parity P, [bar], phase; @!P bra loop`. Every
/// thread waits when `onlyIf` is null; else only threads where `onlyIf`
/// holds, and the others branch around the loop. The labels are local to the
/// braces, so copies of the loop (unrolled, duplicated) do not clash.
void waitForParity(OpBuilder &b, Location loc, Value bar, Value phase,
                   Value onlyIf, StringRef label) {
  std::string l = label.str();
  std::string loop = "{\n.reg .pred done;\n";
  if (onlyIf)
    loop += "@!$2 bra skip_" + l + ";\n";
  loop += l + ":\nmbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n";
  // (Not bra.uni: PTX does not promise every lane the same `done`.)
  loop += "@!done bra " + l + ";\n";
  if (onlyIf)
    loop += "skip_" + l + ":\n";
  loop += "}";
  SmallVector<Value> operands = {bar, phase};
  if (onlyIf)
    operands.push_back(onlyIf);
  inlinePtx(b, loc, {}, operands, loop, onlyIf ? "r,r,b" : "r,r",
            /*sideEffects=*/true);
}

/// tile.tma_wait stage %s phase %p {buffer = b}
///   => loop: mbarrier.try_wait.parity.shared::cta.b64 P, [bar(b, s)], %p;
///            @!P bra loop
///      [fence.proxy.async.shared::cta with async_proxy]
struct TmaWaitOpLowering : public StatefulPattern<tile::TmaWaitOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        barrierAddress(rewriter, loc, op, state, adaptor.getStage().front(),
                       op.getBuffer(), op.getStages());
    waitForParity(rewriter, loc, bar, adaptor.getPhase().front(),
                  /*onlyIf=*/nullptr, "wait_tma");
    // cp.async wrote the stage through the generic proxy; wgmma reads it
    // through the async proxy.
    if (op.getAsyncProxy())
      fenceAsyncProxy(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_release stage %s if %p {buffer = b}
///   => bar.warp.sync; @(%p && lane 0) mbarrier.arrive [release(b, s)]
struct TmaReleaseOpLowering : public StatefulPattern<tile::TmaReleaseOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaReleaseOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        barrierAddress(rewriter, loc, op, state, adaptor.getStage().front(),
                       op.getBuffer(), op.getStages(), /*release=*/true);
    Value lane = getThreadIds(rewriter, loc).lane;
    Value pred = LLVM::AndOp::create(
        rewriter, loc, adaptor.getPred().front(),
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, lane,
                             i32Const(rewriter, loc, 0)));
    // Every lane's reads are done before the warp's one arrival (and with
    // async_proxy ordered before the generic proxy's refill).
    if (op.getAsyncProxy())
      fenceAsyncProxy(rewriter, loc);
    inlinePtx(rewriter, loc, {}, {pred, bar},
              "bar.warp.sync -1;\n"
              "@$0 mbarrier.arrive.shared::cta.b64 _, [$1];",
              "b,r", /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.tma_acquire stage %s phase %p {buffer = b}
///   => thread 0 (every thread with every_thread):
///      loop: mbarrier.try_wait.parity [release(b, s)], %p
struct TmaAcquireOpLowering : public StatefulPattern<tile::TmaAcquireOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::TmaAcquireOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value bar =
        barrierAddress(rewriter, loc, op, state, adaptor.getStage().front(),
                       op.getBuffer(), op.getStages(), /*release=*/true);
    // Only the issuing thread waits, or every thread that runs the op.
    waitForParity(
        rewriter, loc, bar, adaptor.getPhase().front(),
        op.getEveryThread()
            ? Value()
            : isFirstThread(rewriter, loc, issuer(state, op.getProducer())),
        "wait_acquire");
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.async_arrive stage %s {buffer = b}
///   => cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar(b, s)]
struct AsyncArriveOpLowering : public StatefulPattern<tile::AsyncArriveOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::AsyncArriveOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value bar = barrierAddress(rewriter, op.getLoc(), op, state,
                               adaptor.getStage().front(), op.getBuffer(),
                               op.getStages());
    inlinePtx(rewriter, op.getLoc(), {}, {bar},
              "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", "r",
              /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.setmaxnreg inc|dec {count = N}
///   => setmaxnreg.inc|dec.sync.aligned.u32 N
struct SetMaxRegistersOpLowering
    : public StatefulPattern<tile::SetMaxRegistersOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::SetMaxRegistersOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireSm90(op, state, "setmaxnreg")))
      return failure();
    std::string ptx =
        (llvm::Twine("setmaxnreg.") +
         (op.getAction() == tile::RegisterAction::Inc ? "inc" : "dec") +
         ".sync.aligned.u32 " + llvm::Twine(op.getCount()) + ";")
            .str();
    inlinePtx(rewriter, op.getLoc(), {}, {}, ptx, "", /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.is_producer => tid.x >= num_warps * 32
struct IsProducerOpLowering : public StatefulPattern<tile::IsProducerOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::IsProducerOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(
        op, LLVM::ICmpPredicate::uge, tid,
        i32Const(rewriter, loc, issuer(state, /*producer=*/true)));
    return success();
  }
};

/// tile.warpgroup_turn start|wait|pass|end, warpgroup w (0 or 1) of the
/// consumers, barrier 2 + w its turn:
///   start: @(w == 1) bar.arrive 2, 256   wait: bar.sync 2 + w, 256
///   pass:  bar.arrive 2 + (w ^ 1), 256   end:  @(w == 0) bar.sync 2, 256
struct WarpgroupTurnOpLowering : public StatefulPattern<tile::WarpgroupTurnOp> {
  using StatefulPattern::StatefulPattern;

  LogicalResult
  matchAndRewrite(tile::WarpgroupTurnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (state.numWarps != 2 * tile::kWarpsPerWarpgroup)
      return op.emitOpError()
             << "not supported on the GPU: turns of " << state.numWarps
             << " warps (needs two warpgroups, 8 warps)";
    Location loc = op.getLoc();
    Value wg = warpgroupIndex(rewriter, loc);
    std::string threads = std::to_string(state.numWarps * tile::kWarpSize);
    std::string ptx;
    switch (op.getAction()) {
    case tile::TurnAction::Start:
      ptx = "{\n.reg .pred p;\nsetp.eq.u32 p, $0, 1;\n@p bar.arrive 2, " +
            threads + ";\n}";
      break;
    case tile::TurnAction::Wait:
      ptx = "{\n.reg .b32 id;\nadd.u32 id, $0, 2;\nbar.sync id, " + threads +
            ";\n}";
      break;
    case tile::TurnAction::Pass:
      ptx = "{\n.reg .b32 id;\nxor.b32 id, $0, 3;\nbar.arrive id, " + threads +
            ";\n}";
      break;
    case tile::TurnAction::End:
      ptx = "{\n.reg .pred p;\nsetp.eq.u32 p, $0, 0;\n@p bar.sync 2, " +
            threads + ";\n}";
      break;
    }
    inlinePtx(rewriter, loc, {}, {wg}, ptx, "r", /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.warpgroup_id => shfl.sync.idx(tid.x >> 7, lane 0): uniform in each
/// warp as far as ptxas can tell, so branches on it are not divergent.
struct WarpgroupIdOpLowering
    : public ConvertOpToLLVMPattern<tile::WarpgroupIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::WarpgroupIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value wg = warpgroupIndex(rewriter, loc);
    rewriter.replaceOpWithNewOp<NVVM::ShflOp>(
        op, rewriter.getI32Type(), i32Const(rewriter, loc, -1), wg,
        i32Const(rewriter, loc, 0), i32Const(rewriter, loc, 0x1f),
        NVVM::ShflKind::idx, UnitAttr());
    return success();
  }
};

/// tile.tensormap_block %p, %tm[...] and tile.tensormap_pages %p, %tm[...]
/// bound %n => %p (the pointers themselves).
template <typename Op>
struct TensorMapPointersLowering : public ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  using OneToNOpAdaptor = typename ConvertOpToLLVMPattern<Op>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithMultiple(op, {adaptor.getPtrs()});
    return success();
  }
};

} // namespace

void tilellvm::populateTmaPatterns(LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   TileToLLVMState &state) {
  patterns.add<TmaInitOpLowering, TmaInvalOpLowering, TmaCopyOpLowering,
               TmaWaitOpLowering, TmaReleaseOpLowering, TmaAcquireOpLowering,
               IsProducerOpLowering, SetMaxRegistersOpLowering,
               AsyncArriveOpLowering, WarpgroupTurnOpLowering,
               TmaCopyPagesOpLowering, TmaZeroRowsOpLowering>(converter, state);
  patterns.add<TensorMapPointersLowering<tile::TensorMapBlockOp>,
               TensorMapPointersLowering<tile::TensorMapPagesOp>,
               WarpgroupIdOpLowering>(converter);
}
