//===- AsyncCopyToLLVM.cpp - cp.async staging of tiles --------------------===//
//
// The ops `quire-async-copies` creates: tile.async_copy issues one
// `cp.async` per run of a thread's contiguous elements (16 bytes where
// AxisInfo proves it, .cg; 4 or 8 bytes .ca otherwise) into a stage of a
// dedicated staging buffer, masked elements as zero fill (src-size 0, no
// global access); tile.async_wait is `cp.async.wait_group` + `bar.sync`;
// tile.async_local_load reads a stage with ldmatrix like a layout
// conversion to a dot operand reads its staging tile. The buffers live after
// the conversion staging slots (placeSharedBuffers), `stages` copies of the
// padded tile each; the barrier analysis sees their reads under their own
// slot ids and leaves their synchronization to tile.async_wait.
//
// Buffers staged `nvmma` hold the swizzled layout wgmma reads through a
// matrix descriptor; tile.warpgroup_dot reads them (DotOpToLLVM/WGMMA.cpp).
// tile.local_store writes a register tile into such a buffer between two
// barriers.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// tile.async_copy %ptrs mask %m into stage %s {buffer = b, ...}
///   => per run of `vec` elements of a thread:
///        cp.async.cg.shared.global [smem(b, s, coord)], [%ptr], 16,
///            %m ? 16 : 0
///      cp.async.commit_group
struct AsyncCopyOpLowering : public ConvertOpToLLVMPattern<tile::AsyncCopyOp> {
  AsyncCopyOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::AsyncCopyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ptrType = op.getPtrs().getType();
    Type elt =
        cast<tile::PointerType>(ptrType.getElementType()).getPointeeType();
    if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() < 8)
      return op.emitOpError()
             << "not supported on the GPU: async copies of " << elt;
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    FailureOr<tile::LinearLayout> layout = getLayout(op, ptrType);
    if (failed(layout))
      return failure();
    unsigned vec =
        accessVectorWidth(*state.axisInfo, op.getPtrs(), op.getMask(), elt);
    // The run must lie along the staged tile's contiguous dimension, and
    // cp.async moves 4, 8 or 16 bytes.
    auto blocked = dyn_cast<tile::BlockedEncodingAttr>(ptrType.getEncoding());
    unsigned runDim = blocked ? blocked.getOrder()[0] : ptrType.getRank() - 1;
    unsigned stagedRunDim = op.getTransposed() ? 1 - runDim : runDim;
    if (vec * bytes < 4 || stagedRunDim != op.getContig())
      return op.emitOpError()
             << "not supported on the GPU: a cp.async run of " << vec * bytes
             << " bytes along staged dimension " << stagedRunDim
             << " (needs 4, 8 or 16 bytes along dimension " << op.getContig()
             << ")";
    SmallVector<int64_t> shape = op.getStagedShape();
    if (op.getNvmma() && !llvm::isPowerOf2_64(shape[op.getContig()]))
      return op.emitOpError()
             << "not supported on the GPU: nvmma staging of "
             << shape[op.getContig()] << " contiguous elements";
    Staging st = reserveStaging(state, shape, op.getContig(), bytes,
                                op.getBuffer(), op.getStages(), op.getNvmma());
    Value stageOff =
        stageOffset(rewriter, loc, adaptor.getStage().front(), st.stageBytes);
    ValueRange ptrs = adaptor.getPtrs();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    ThreadIds ids = getThreadIds(rewriter, loc);
    SmallVector<Value> thread = threadCoord(rewriter, loc, *layout, ids);
    int64_t size = vec * bytes;
    auto modifier = size == 16 ? NVVM::LoadCacheModifierKind::CG
                               : NVVM::LoadCacheModifierKind::CA;
    // A run whose staged offset is register 0's plus the same constant in
    // every thread is addressed from register 0's: one swizzled offset per
    // copy op, an immediate per cp.async.
    auto stagedOffset = [&](unsigned reg, unsigned lane, unsigned warp) {
      tile::Coord c = layout->coord(reg, lane, warp);
      if (op.getTransposed())
        std::swap(c[0], c[1]);
      return st.offsetOf(c);
    };
    auto constantDelta = [&](unsigned r) -> std::optional<int64_t> {
      int64_t delta = stagedOffset(r, 0, 0) - stagedOffset(0, 0, 0);
      for (unsigned w = 0; w < layout->getNumWarps(); ++w)
        for (unsigned l = 0; l < tile::kWarpSize; ++l)
          if (stagedOffset(r, l, w) - stagedOffset(0, l, w) != delta)
            return std::nullopt;
      return delta;
    };
    auto offsetAt = [&](unsigned r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, *layout, thread, r);
      if (op.getTransposed())
        std::swap(c[0], c[1]);
      return LLVM::AddOp::create(rewriter, loc, st.at(rewriter, loc, c),
                                 stageOff)
          .getResult();
    };
    Value base0;
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      Value off;
      if (std::optional<int64_t> delta = constantDelta(r)) {
        if (!base0)
          base0 = offsetAt(0);
        off = *delta ? LLVM::AddOp::create(rewriter, loc, base0,
                                           i32Const(rewriter, loc, *delta))
                           .getResult()
                     : base0;
      } else {
        off = offsetAt(r);
      }
      Value dst = asyncSharedPtr(rewriter, loc, op, off, op.getBuffer());
      Value srcSize;
      if (!masks.empty())
        srcSize = LLVM::SelectOp::create(rewriter, loc, masks[r],
                                         i32Const(rewriter, loc, size),
                                         i32Const(rewriter, loc, 0));
      NVVM::CpAsyncOp::create(
          rewriter, loc, dst, ptrs[r], rewriter.getI32IntegerAttr(size),
          NVVM::LoadCacheModifierKindAttr::get(rewriter.getContext(), modifier),
          srcSize);
    }
    NVVM::CpAsyncCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
  TileToLLVMState &state;
};

/// tile.local_store %v into stage %s {buffer = b, ...}
///   => bar.sync 0; st.shared [smem(b, s, coord)] per run of a thread's
///      elements along the staged contiguous dimension (up to 16 bytes);
///      fence.proxy.async.shared::cta; bar.sync 0
/// (barriers of their own: the analysis of the staging slots keeps them).
struct LocalStoreOpLowering
    : public ConvertOpToLLVMPattern<tile::LocalStoreOp> {
  LocalStoreOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::LocalStoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getValue().getType();
    Type elt = type.getElementType();
    if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() < 8)
      return op.emitOpError() << "not supported on the GPU: staged " << elt;
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    FailureOr<tile::LinearLayout> layout = getLayout(op, type);
    if (failed(layout))
      return failure();
    SmallVector<int64_t> shape = op.getStagedShape();
    Staging st = reserveStaging(state, shape, op.getContig(), bytes,
                                op.getBuffer(), op.getStages(), op.getNvmma());
    Value stageOff =
        stageOffset(rewriter, loc, adaptor.getStage().front(), st.stageBytes);
    auto ptrAt = [&](ArrayRef<Value> coord) {
      SmallVector<Value> c(coord);
      if (op.getTransposed())
        std::swap(c[0], c[1]);
      Value off =
          LLVM::AddOp::create(rewriter, loc, st.at(rewriter, loc, c), stageOff);
      return asyncSharedPtr(rewriter, loc, op, off, op.getBuffer());
    };
    NVVM::Barrier0Op::create(rewriter, loc);
    // Runs along the value's dimension that is the staged tile's contiguous
    // one.
    storeStagedTile(rewriter, loc, adaptor.getValue(), *layout,
                    op.getTransposed() ? 1 - op.getContig() : op.getContig(),
                    getThreadIds(rewriter, loc), ptrAt);
    fenceAsyncProxy(rewriter, loc);
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
  TileToLLVMState &state;
};

/// tile.async_wait {pending = n} => cp.async.wait_group n;
///   [fence.proxy.async.shared::cta with async_proxy;] bar.sync 0
/// (a barrier of its own: the analysis of the staging slots keeps it;
/// barrier.sync 0 with unaligned, unalignedBarriers).
struct AsyncWaitOpLowering : public ConvertOpToLLVMPattern<tile::AsyncWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AsyncWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    if (op.getAsyncProxy())
      fenceAsyncProxy(rewriter, op.getLoc());
    auto bar = NVVM::Barrier0Op::create(rewriter, op.getLoc());
    if (op.getUnaligned())
      bar->setAttr(kUnalignedAttr, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

/// %x = tile.async_local_load %s {buffer = b, ...} : tensor<..., #dot_op>
///   => ldmatrix.x4 from smem(b, s, ...), as a conversion to #dot_op reads
///      its staging tile; element loads for other layouts.
struct AsyncLocalLoadOpLowering
    : public ConvertOpToLLVMPattern<tile::AsyncLocalLoadOp> {
  AsyncLocalLoadOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::AsyncLocalLoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elt = type.getElementType();
    if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() < 8)
      return op.emitOpError() << "not supported on the GPU: staged " << elt;
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    FailureOr<tile::LinearLayout> dst = getLayout(op, type);
    if (failed(dst))
      return failure();
    Staging st = reserveStaging(state, type.getShape(), op.getContig(), bytes,
                                op.getBuffer(), op.getStages());
    Value stageOff =
        stageOffset(rewriter, loc, adaptor.getStage().front(), st.stageBytes);
    auto ptrAt = [&](ArrayRef<Value> c) {
      Value off =
          LLVM::AddOp::create(rewriter, loc, st.at(rewriter, loc, c), stageOff);
      return asyncSharedPtr(rewriter, loc, op, off, op.getBuffer());
    };
    SmallVector<Value> results =
        loadStagedTile(rewriter, loc, type, *dst, op.getContig(),
                       getThreadIds(rewriter, loc), ptrAt);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

void tilellvm::populateAsyncCopyPatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         TileToLLVMState &state) {
  patterns
      .add<AsyncCopyOpLowering, AsyncLocalLoadOpLowering, LocalStoreOpLowering>(
          converter, state);
  patterns.add<AsyncWaitOpLowering>(converter);
}
