//===- MMAv2.cpp - tile.dot on tensor cores with mma.sync -----------------===//
//
// Dots with a #tile.mma accumulator and #tile.dot_op operands, as
// assign-layouts gives f16/bf16 dots of at least one 16x8x16 fragment: each
// warp runs mma.sync on the fragments its registers hold (sm_80+). On sm_90
// the dots whose B operand quire-async-copies stages in shared memory become
// tile.warpgroup_dot instead (WGMMA.cpp).
//
//===----------------------------------------------------------------------===//

#include "../Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// A dot with a #tile.mma accumulator and #tile.dot_op operands: for every
/// 16x8 accumulator fragment this thread's warp holds and every 16-deep K
/// step, one
///   mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16}.{f16|bf16}.f32
/// over the operand registers, which hold the instruction's fragments by
/// construction of the layouts (consecutive-K pairs packed into b32). Dots
/// it does not take (other types, smaller shapes, operands in other
/// layouts) fall back to the FMA dot (FMA.cpp), which reads any layout.
struct MmaDotLowering : public ConvertOpToLLVMPattern<tile::DotOp> {
  MmaDotLowering(LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern(c, /*benefit=*/3) {}

  LogicalResult
  matchAndRewrite(tile::DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto cEnc = dyn_cast<tile::MmaEncodingAttr>(op.getType().getEncoding());
    if (!cEnc)
      return failure();
    auto aType = op.getA().getType(), bType = op.getB().getType();
    if (aType.getEncoding() !=
            tile::DotOperandEncodingAttr::get(getContext(), 0, cEnc) ||
        bType.getEncoding() !=
            tile::DotOperandEncodingAttr::get(getContext(), 1, cEnc))
      return rewriter.notifyMatchFailure(op, "operands not in the dot_op "
                                             "layouts of the accumulator");
    Type elt = aType.getElementType();
    if (!(elt.isF16() || elt.isBF16()) || bType.getElementType() != elt ||
        !op.getType().getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not f16/bf16 into f32");
    int64_t M = aType.getDimSize(0), K = aType.getDimSize(1),
            N = bType.getDimSize(1);
    if (M < 16 || N < 8 || K < 16)
      return rewriter.notifyMatchFailure(op, "smaller than one mma fragment");
    FailureOr<tile::LinearLayout> la = getLayout(op, aType),
                                  lb = getLayout(op, bType),
                                  lc = getLayout(op, op.getType());
    if (failed(la) || failed(lb) || failed(lc))
      return failure();
    using Key = std::pair<int64_t, int64_t>;
    auto index = [](const tile::LinearLayout &l) {
      DenseMap<Key, unsigned> m;
      for (unsigned r = 0; r < l.getNumRegs(); ++r) {
        tile::Coord c = l.regCoord(r);
        m.try_emplace({c[0], c[1]}, r);
      }
      return m;
    };
    DenseMap<Key, unsigned> aReg = index(*la), bReg = index(*lb),
                            cReg = index(*lc);
    bool missing = false;
    auto reg = [&](DenseMap<Key, unsigned> &m, int64_t r, int64_t c,
                   int64_t rows, int64_t cols) -> unsigned {
      auto it = m.find({r & (rows - 1), c & (cols - 1)});
      if (it == m.end()) {
        missing = true;
        return 0;
      }
      return it->second;
    };
    // A b32 register of two consecutive-K elements.
    auto pack = [&](ValueRange regs, unsigned lo, unsigned hi) {
      return packPair(rewriter, loc, regs[lo], regs[hi]);
    };
    DenseMap<Key, Value> aPacked, bPacked;
    auto aPair = [&](int64_t m, int64_t k) {
      Key key{m & (M - 1), k};
      Value &v = aPacked[key];
      if (!v)
        v = pack(adaptor.getA(), reg(aReg, m, k, M, K),
                 reg(aReg, m, k + 1, M, K));
      return v;
    };
    auto bPair = [&](int64_t k, int64_t n) {
      Key key{k, n & (N - 1)};
      Value &v = bPacked[key];
      if (!v)
        v = pack(adaptor.getB(), reg(bReg, k, n, K, N),
                 reg(bReg, k + 1, n, K, N));
      return v;
    };
    std::string ty = elt.isF16() ? "f16" : "bf16";
    std::string asmStr = "mma.sync.aligned.m16n8k16.row.col.f32." + ty + "." +
                         ty +
                         ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                         "{$10,$11,$12,$13};";
    StringRef cons = "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    // Fragment bases (row, column of c0) in register order.
    llvm::SetVector<Key> tiles;
    for (unsigned r = 0; r < lc->getNumRegs(); ++r) {
      tile::Coord c = lc->regCoord(r);
      tiles.insert({c[0] & ~int64_t(8), c[1] & ~int64_t(1)});
    }
    for (auto [m, n] : tiles) {
      unsigned c[4] = {reg(cReg, m, n, M, N), reg(cReg, m, n + 1, M, N),
                       reg(cReg, m + 8, n, M, N),
                       reg(cReg, m + 8, n + 1, M, N)};
      SmallVector<Value> d{acc[c[0]], acc[c[1]], acc[c[2]], acc[c[3]]};
      for (int64_t k = 0; k < K; k += 16) {
        SmallVector<Value> operands{aPair(m, k),     aPair(m + 8, k),
                                    aPair(m, k + 8), aPair(m + 8, k + 8),
                                    bPair(k, n),     bPair(k + 8, n)};
        operands.append(d);
        d = inlinePtx(rewriter, loc, {f32, f32, f32, f32}, operands, asmStr,
                      cons, /*sideEffects=*/false);
      }
      for (unsigned i = 0; i < 4; ++i)
        acc[c[i]] = d[i];
    }
    if (missing)
      return op.emitOpError()
             << "internal error: mma fragments not found in the layouts";
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

} // namespace

void tilellvm::populateMmaDotPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<MmaDotLowering>(converter);
}
