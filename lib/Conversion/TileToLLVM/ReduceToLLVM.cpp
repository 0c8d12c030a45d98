//===- ReduceToLLVM.cpp - Reductions along one axis -----------------------===//
//
// tile.reduce over a blocked layout in three steps, each over only the
// elements that are distinct along the axis:
//  1. within a thread, registers that differ only along the axis combine;
//  2. within a warp, a butterfly of shfl.sync.bfly over the lane bits that
//     move along the axis;
//  3. across warps (when warp bits move along the axis), partials go through
//     shared memory, one slot per warp position along the axis.
// The result is in the slice layout of the source, so every thread ends with
// the reduced values of the rows it held. tile.warp_any reduces a mask
// over a warp only (vote.sync).
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

Value combine(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
              Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    return isFloat ? LLVM::FAddOp::create(b, loc, x, y).getResult()
                   : LLVM::AddOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::Max:
    return isFloat ? LLVM::MaximumOp::create(b, loc, x, y).getResult()
                   : LLVM::SMaxOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::Min:
    return isFloat ? LLVM::MinimumOp::create(b, loc, x, y).getResult()
                   : LLVM::SMinOp::create(b, loc, x, y).getResult();
  case tile::ReduceKind::Xor:
    return LLVM::XOrOp::create(b, loc, x, y).getResult();
  }
  llvm_unreachable("unknown reduce kind");
}

/// Drops dimension `axis` of `c`.
tile::Coord dropAxis(tile::Coord c, unsigned axis) {
  c.erase(c.begin() + axis);
  return c;
}

struct ReduceOpLowering : public ConvertOpToLLVMPattern<tile::ReduceOp> {
  ReduceOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType();
    if (!isa<tile::BlockedEncodingAttr, tile::MmaEncodingAttr>(
            srcType.getEncoding()))
      return op.emitOpError()
             << "not supported: reducing a tensor that is not in a blocked "
                "or mma layout";
    FailureOr<tile::LinearLayout> src = getLayout(op, srcType);
    if (failed(src))
      return failure();
    unsigned axis = op.getAxisAttr().getInt();
    tile::ReduceKind kind = op.getKind();
    ValueRange in = adaptor.getSrc();
    Type elt = in[0].getType();
    if (!elt.isIntOrFloat() || elt.isInteger(1))
      return op.emitOpError() << "not supported on the GPU: reducing " << elt;

    // 1. Within the thread: registers with the same coordinate off the axis.
    llvm::MapVector<int64_t, Value> partial; // key: reduced coord index
    llvm::MapVector<int64_t, tile::Coord> keyCoord;
    SmallVector<int64_t> reducedShape(src->getShape());
    reducedShape.erase(reducedShape.begin() + axis);
    auto keyOf = [&](const tile::Coord &c) {
      int64_t k = 0;
      for (unsigned d = 0; d < reducedShape.size(); ++d)
        k = k * reducedShape[d] + c[d];
      return k;
    };
    // Each coordinate's registers combine as a balanced tree (pairs, then
    // pairs of pairs), not a chain: log2(n) dependent steps instead of
    // n - 1, which a softmax row of 32 or 64 registers waits on twice an
    // iteration (its max and its sum). Max, min, xor and integer sums are
    // the same in any order; a float sum is summed pairwise.
    llvm::MapVector<int64_t, SmallVector<Value>> regs;
    for (unsigned r = 0; r < src->getNumRegs(); ++r) {
      tile::Coord c = dropAxis(src->regCoord(r), axis);
      int64_t k = keyOf(c);
      auto [it, inserted] = regs.try_emplace(k);
      if (inserted)
        keyCoord[k] = c;
      it->second.push_back(in[r]);
    }
    for (auto &[k, values] : regs) {
      while (values.size() > 1) {
        SmallVector<Value> next;
        for (size_t i = 0; i + 1 < values.size(); i += 2)
          next.push_back(combine(rewriter, loc, kind, values[i], values[i + 1]));
        if (values.size() % 2)
          next.push_back(values.back());
        values = std::move(next);
      }
      partial[k] = values.front();
    }
    // 2. Within the warp: lane bits that move along the axis.
    ArrayRef<tile::Coord> lanes = src->getLaneBases();
    for (unsigned bit = 0; bit < lanes.size(); ++bit)
      if (lanes[bit][axis] != 0)
        for (auto &kv : partial)
          kv.second = combine(rewriter, loc, kind, kv.second,
                              shuffleXor(rewriter, loc, kv.second, 1u << bit));
    // 3. Across warps through shared memory.
    ArrayRef<tile::Coord> warps = src->getWarpBases();
    SmallVector<unsigned> axisWarpBits;
    for (unsigned bit = 0; bit < warps.size(); ++bit)
      if (warps[bit][axis] != 0)
        axisWarpBits.push_back(bit);
    if (!axisWarpBits.empty()) {
      unsigned slots = 1u << axisWarpBits.size();
      int64_t numel = 1;
      for (int64_t d : reducedShape)
        numel *= d;
      unsigned bytes = std::max(4u, elt.getIntOrFloatBitWidth() / 8);
      unsigned buffer = state.reserveShared(slots * numel * bytes);
      ThreadIds ids = getThreadIds(rewriter, loc);
      // This warp's slot: its axis warp bits, compacted.
      Value slot = warpSlot(rewriter, loc, ids.warp, axisWarpBits);
      SmallVector<Value> thread = threadCoord(rewriter, loc, *src, ids);
      SmallVector<Value> threadOff = SmallVector<Value>(thread);
      threadOff.erase(threadOff.begin() + axis);
      auto addrOf = [&](int64_t key, Value slotIndex) {
        const tile::Coord &c = keyCoord[key];
        SmallVector<Value> coord;
        for (unsigned d = 0; d < c.size(); ++d)
          coord.push_back(
              c[d] ? LLVM::XOrOp::create(rewriter, loc, threadOff[d],
                                         i32Const(rewriter, loc, c[d]))
                         .getResult()
                   : threadOff[d]);
        Value idx = linearize(rewriter, loc, coord, reducedShape);
        Value full = LLVM::AddOp::create(
            rewriter, loc, idx,
            LLVM::MulOp::create(rewriter, loc, slotIndex,
                                i32Const(rewriter, loc, numel)));
        Value byteOff = LLVM::MulOp::create(rewriter, loc, full,
                                            i32Const(rewriter, loc, bytes));
        return sharedPtr(rewriter, loc, op, byteOff, buffer);
      };
      barrier(rewriter, loc);
      for (auto &kv : partial)
        LLVM::StoreOp::create(rewriter, loc, kv.second, addrOf(kv.first, slot));
      barrier(rewriter, loc);
      for (auto &kv : partial) {
        Value acc;
        for (unsigned s = 0; s < slots; ++s) {
          Value v = LLVM::LoadOp::create(
              rewriter, loc, elt, addrOf(kv.first, i32Const(rewriter, loc, s)));
          acc = acc ? combine(rewriter, loc, kind, acc, v) : v;
        }
        kv.second = acc;
      }
    }

    if (!isa<RankedTensorType>(op.getType())) {
      rewriter.replaceOp(op, partial.front().second);
      return success();
    }
    FailureOr<tile::LinearLayout> dst = getLayout(op, op.getType());
    if (failed(dst))
      return failure();
    SmallVector<Value> results;
    for (unsigned r = 0; r < dst->getNumRegs(); ++r) {
      auto it = partial.find(keyOf(dst->regCoord(r)));
      if (it == partial.end())
        return op.emitOpError() << "internal error: result layout is not the "
                                   "slice of the source layout";
      results.push_back(it->second);
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
  TileToLLVMState &state;
};

/// tile.warp_any %mask => the thread's elements or-ed, then
/// vote.sync.any over the full warp: one value in every lane of a warp.
struct WarpAnyOpLowering : public ConvertOpToLLVMPattern<tile::WarpAnyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::WarpAnyOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange in = adaptor.getMask();
    if (in.empty())
      return op.emitOpError() << "internal error: a mask without registers";
    Value any = in.front();
    for (Value v : in.drop_front())
      any = LLVM::OrOp::create(rewriter, loc, any, v);
    rewriter.replaceOpWithNewOp<NVVM::VoteSyncOp>(op, rewriter.getI1Type(),
                                                  i32Const(rewriter, loc, -1),
                                                  any, NVVM::VoteSyncKind::any);
    return success();
  }
};

} // namespace

void tilellvm::populateReducePatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      TileToLLVMState &state) {
  patterns.add<ReduceOpLowering>(converter, state);
  patterns.add<WarpAnyOpLowering>(converter);
}
