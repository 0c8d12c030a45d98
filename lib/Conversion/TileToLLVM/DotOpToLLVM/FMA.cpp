//===- FMA.cpp - tile.dot on the FMA units --------------------------------===//
//
// The general dot: A (MxK) is staged row-major and B (KxN) column-major in
// shared memory (rows padded by 16 bytes against bank conflicts); each thread
// then computes its accumulator registers with f32 FMAs, reading 16-byte
// vectors along K for the distinct rows and columns it holds. Works for any
// layouts and shapes, and is what a dot falls back to when no other
// lowering takes it. Small-M dots whose operands assign-layouts put in the
// register-dot layouts run on the FMA units without staging (below, tried
// first). Dots in #tile.mma layouts run on tensor cores: MMAv2.cpp
// (mma.sync) and WGMMA.cpp (wgmma).
//
//===----------------------------------------------------------------------===//

#include "../Barriers.h"
#include "../SharedMemory.h"
#include "../Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// %d = tile.dot %a, %b, %c
///   => barrier; st.shared A[m][k], B[n][k]; barrier;
///      d_r = c_r + sum_k A[m_r][k] * B[n_r][k]   (f32 FMA, K unrolled)
struct FmaDotLowering : public ConvertOpToLLVMPattern<tile::DotOp> {
  FmaDotLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    FailureOr<tile::LinearLayout> la = getLayout(op, aType),
                                  lb = getLayout(op, bType),
                                  lc = getLayout(op, op.getType());
    if (failed(la) || failed(lb) || failed(lc))
      return failure();
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    Type elt = getTypeConverter()->convertType(aType.getElementType());
    unsigned bytes = elt.getIntOrFloatBitWidth() / 8;
    unsigned vec = std::min<int64_t>(16 / bytes, K);
    int64_t ld = K + 16 / bytes; // padded row length (elements)
    int64_t aBytes = M * ld * bytes;
    unsigned buffer = state.reserveShared((M + N) * ld * bytes);

    ThreadIds ids = getThreadIds(rewriter, loc);
    auto elemPtr = [&](Value row, Value col, int64_t base) {
      Value idx = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::MulOp::create(rewriter, loc, row, i32Const(rewriter, loc, ld)),
          col);
      Value off = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::MulOp::create(rewriter, loc, idx,
                              i32Const(rewriter, loc, bytes)),
          i32Const(rewriter, loc, base));
      return sharedPtr(rewriter, loc, op, off, buffer);
    };
    barrier(rewriter, loc);
    SmallVector<Value> at = threadCoord(rewriter, loc, *la, ids);
    for (unsigned r = 0; r < la->getNumRegs(); ++r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, *la, at, r);
      LLVM::StoreOp::create(rewriter, loc, adaptor.getA()[r],
                            elemPtr(c[0], c[1], 0));
    }
    SmallVector<Value> bt = threadCoord(rewriter, loc, *lb, ids);
    for (unsigned r = 0; r < lb->getNumRegs(); ++r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, *lb, bt, r);
      LLVM::StoreOp::create(rewriter, loc, adaptor.getB()[r],
                            elemPtr(c[1], c[0], aBytes));
    }
    barrier(rewriter, loc);

    // Distinct rows and columns among this thread's accumulator registers.
    SmallVector<Value> ct = threadCoord(rewriter, loc, *lc, ids);
    llvm::MapVector<int64_t, Value> rows, cols;
    SmallVector<std::pair<int64_t, int64_t>> regRC;
    for (unsigned r = 0; r < lc->getNumRegs(); ++r) {
      tile::Coord c = lc->regCoord(r);
      SmallVector<Value> cv = regCoordValues(rewriter, loc, *lc, ct, r);
      rows.try_emplace(c[0], cv[0]);
      cols.try_emplace(c[1], cv[1]);
      regRC.push_back({c[0], c[1]});
    }
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    Type f32 = rewriter.getF32Type();
    auto vecTy = VectorType::get({vec}, elt);
    auto loadChunk = [&](Value rowOrCol, int64_t k0, int64_t base) {
      Value v = LLVM::LoadOp::create(
          rewriter, loc, vecTy,
          elemPtr(rowOrCol, i32Const(rewriter, loc, k0), base), vec * bytes);
      SmallVector<Value> out;
      for (unsigned i = 0; i < vec; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v,
                                                 i32Const(rewriter, loc, i));
        out.push_back(
            elt.isF32()
                ? e
                : LLVM::FPExtOp::create(rewriter, loc, f32, e).getResult());
      }
      return out;
    };
    for (int64_t k0 = 0; k0 < K; k0 += vec) {
      DenseMap<int64_t, SmallVector<Value>> aVals, bVals;
      for (auto &[m, v] : rows)
        aVals[m] = loadChunk(v, k0, 0);
      for (auto &[n, v] : cols)
        bVals[n] = loadChunk(v, k0, aBytes);
      for (unsigned r = 0; r < acc.size(); ++r) {
        auto &av = aVals[regRC[r].first];
        auto &bv = bVals[regRC[r].second];
        for (unsigned i = 0; i < vec; ++i)
          acc[r] = LLVM::FMAOp::create(rewriter, loc, av[i], bv[i], acc[r]);
      }
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
  TileToLLVMState &state;
};

/// A dot whose operands are in the register-dot layouts of B
/// (tile::getRegisterDotLayouts), computed without staging:
///   c[m, n] += sum over this thread's k of a[m, k] * b[k, n]   (f32 FMA)
///   then shfl.bfly over the lanes that split K, then shared memory over
///   the warps that split K.
struct RegisterDotLowering : public ConvertOpToLLVMPattern<tile::DotOp> {
  RegisterDotLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c, /*benefit=*/2), state(s) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    auto bEnc = dyn_cast<tile::BlockedEncodingAttr>(bType.getEncoding());
    if (!bEnc)
      return failure();
    int64_t M = aType.getDimSize(0);
    auto [aEnc, cEnc] = tile::getRegisterDotLayouts(bEnc, M);
    if (aType.getEncoding() != aEnc || op.getType().getEncoding() != cEnc)
      return failure();
    FailureOr<tile::LinearLayout> la = getLayout(op, aType),
                                  lb = getLayout(op, bType),
                                  lc = getLayout(op, op.getType());
    if (failed(la) || failed(lb) || failed(lc))
      return failure();
    Type f32 = rewriter.getF32Type();
    auto toF32 = [&](Value v) {
      return v.getType().isF32()
                 ? v
                 : LLVM::FPExtOp::create(rewriter, loc, f32, v).getResult();
    };
    // A registers by (m, k) and B registers grouped by column n.
    DenseMap<std::pair<int64_t, int64_t>, unsigned> aReg;
    for (unsigned r = 0; r < la->getNumRegs(); ++r) {
      tile::Coord c = la->regCoord(r);
      aReg[{c[0], c[1]}] = r;
    }
    DenseMap<int64_t, SmallVector<unsigned>> bByCol;
    for (unsigned r = 0; r < lb->getNumRegs(); ++r)
      bByCol[lb->regCoord(r)[1]].push_back(r);
    SmallVector<Value> aF32, bF32;
    for (Value v : adaptor.getA())
      aF32.push_back(toF32(v));
    for (Value v : adaptor.getB())
      bF32.push_back(toF32(v));

    SmallVector<Value> partial;
    for (unsigned r = 0; r < lc->getNumRegs(); ++r) {
      tile::Coord c = lc->regCoord(r);
      Value acc;
      for (unsigned br : bByCol[c[1]]) {
        int64_t k = lb->regCoord(br)[0];
        auto it = aReg.find({c[0], k});
        if (it == aReg.end())
          return op.emitOpError() << "internal error: register dot layouts "
                                     "do not line up";
        Value prod = aF32[it->second];
        acc = acc ? LLVM::FMAOp::create(rewriter, loc, prod, bF32[br], acc)
                        .getResult()
                  : LLVM::FMulOp::create(rewriter, loc, prod, bF32[br])
                        .getResult();
      }
      partial.push_back(acc);
    }
    // Lanes that hold other K of the same column.
    ArrayRef<tile::Coord> lanes = lb->getLaneBases();
    for (unsigned bit = 0; bit < lanes.size(); ++bit)
      if (lanes[bit][0] != 0)
        for (Value &p : partial)
          p = LLVM::FAddOp::create(rewriter, loc, p,
                                   shuffleXor(rewriter, loc, p, 1u << bit));
    // Warps that hold other K: through shared memory.
    ArrayRef<tile::Coord> warps = lb->getWarpBases();
    SmallVector<unsigned> kWarpBits;
    for (unsigned bit = 0; bit < warps.size(); ++bit)
      if (warps[bit][0] != 0)
        kWarpBits.push_back(bit);
    if (!kWarpBits.empty()) {
      int64_t numel = M * op.getType().getDimSize(1);
      unsigned slots = 1u << kWarpBits.size();
      unsigned buffer = state.reserveShared(slots * numel * 4);
      ThreadIds ids = getThreadIds(rewriter, loc);
      Value slot = warpSlot(rewriter, loc, ids.warp, kWarpBits);
      SmallVector<Value> ct = threadCoord(rewriter, loc, *lc, ids);
      auto addr = [&](unsigned r, Value s) {
        SmallVector<Value> c = regCoordValues(rewriter, loc, *lc, ct, r);
        Value idx = linearize(rewriter, loc, c, lc->getShape());
        idx = LLVM::AddOp::create(
            rewriter, loc, idx,
            LLVM::MulOp::create(rewriter, loc, s,
                                i32Const(rewriter, loc, numel)));
        return sharedPtr(
            rewriter, loc, op,
            LLVM::MulOp::create(rewriter, loc, idx, i32Const(rewriter, loc, 4)),
            buffer);
      };
      barrier(rewriter, loc);
      for (unsigned r = 0; r < partial.size(); ++r)
        LLVM::StoreOp::create(rewriter, loc, partial[r], addr(r, slot));
      barrier(rewriter, loc);
      for (unsigned r = 0; r < partial.size(); ++r) {
        Value sum;
        for (unsigned s2 = 0; s2 < slots; ++s2) {
          Value v = LLVM::LoadOp::create(rewriter, loc, f32,
                                         addr(r, i32Const(rewriter, loc, s2)));
          sum =
              sum ? LLVM::FAddOp::create(rewriter, loc, sum, v).getResult() : v;
        }
        partial[r] = sum;
      }
    }
    SmallVector<Value> results;
    for (auto [p, c] : llvm::zip(partial, adaptor.getC()))
      results.push_back(LLVM::FAddOp::create(rewriter, loc, c, p));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

void tilellvm::populateFmaDotPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      TileToLLVMState &state) {
  patterns.add<FmaDotLowering, RegisterDotLowering>(converter, state);
}
