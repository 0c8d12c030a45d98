//===- DotToLLVM.cpp - tile.dot on the FMA units --------------------------===//
//
// The general dot: A (MxK) is staged row-major and B (KxN) column-major in
// shared memory (rows padded by 16 bytes against bank conflicts); each thread
// then computes its accumulator registers with f32 FMAs, reading 16-byte
// vectors along K for the distinct rows and columns it holds. Works for any
// layouts and shapes; tensor-core (mma) lowering is separate work.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

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
struct DotOpLowering : public ConvertOpToLLVMPattern<tile::DotOp> {
  DotOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
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
    state.sharedBytes = std::max<int64_t>(state.sharedBytes, (M + N) * ld * bytes);

    ThreadIds ids = getThreadIds(rewriter, loc);
    auto elemPtr = [&](Value row, Value col, int64_t base) {
      Value idx = LLVM::AddOp::create(rewriter, loc,
                                      LLVM::MulOp::create(rewriter, loc, row, i32Const(rewriter, loc, ld)), col);
      Value off = LLVM::AddOp::create(rewriter, loc,
                                      LLVM::MulOp::create(rewriter, loc, idx, i32Const(rewriter, loc, bytes)),
                                      i32Const(rewriter, loc, base));
      return sharedPtr(rewriter, loc, op, off);
    };
    barrier(rewriter, loc);
    SmallVector<Value> at = threadCoord(rewriter, loc, *la, ids);
    for (unsigned r = 0; r < la->getNumRegs(); ++r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, *la, at, r);
      LLVM::StoreOp::create(rewriter, loc, adaptor.getA()[r], elemPtr(c[0], c[1], 0));
    }
    SmallVector<Value> bt = threadCoord(rewriter, loc, *lb, ids);
    for (unsigned r = 0; r < lb->getNumRegs(); ++r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, *lb, bt, r);
      LLVM::StoreOp::create(rewriter, loc, adaptor.getB()[r], elemPtr(c[1], c[0], aBytes));
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
      Value v = LLVM::LoadOp::create(rewriter, loc, vecTy,
                                     elemPtr(rowOrCol, i32Const(rewriter, loc, k0), base),
                                     vec * bytes);
      SmallVector<Value> out;
      for (unsigned i = 0; i < vec; ++i) {
        Value e = LLVM::ExtractElementOp::create(rewriter, loc, v, i32Const(rewriter, loc, i));
        out.push_back(elt.isF32() ? e : LLVM::FPExtOp::create(rewriter, loc, f32, e).getResult());
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

} // namespace

void tilellvm::populateDotPatterns(LLVMTypeConverter &converter,
                         RewritePatternSet &patterns, TileToLLVMState &state) {
  patterns.add<DotOpLowering>(converter, state);
}
