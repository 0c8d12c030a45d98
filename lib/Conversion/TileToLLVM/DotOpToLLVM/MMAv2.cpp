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
/// construction of the layouts (consecutive-K pairs packed into b32; a
/// layout's mWidth, nWidth and kWidth say which elements each fragment
/// position holds). Dots
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
    // Fragment bases (row and column positions of c0) in register order;
    // the elements a position stands for come from the layout's
    // renumbering (mWidth, nWidth, kWidth: TileAttrs.td).
    llvm::SetVector<Key> tiles;
    for (unsigned r = 0; r < lc->getNumRegs(); ++r) {
      tile::Coord c = lc->regCoord(r);
      tiles.insert({cEnc.mPosition(c[0]) & ~int64_t(8),
                    cEnc.nPosition(c[1]) & ~int64_t(1)});
    }
    // Every lane must hold what the instruction reads from it: lane
    // l = 4g + t holds A rows g, g+8 at K positions 2t, +1, +8, +9, B
    // column position g at those K positions, C rows g, g+8 at column
    // positions 2t, +1 (PTX ISA, mma.m16n8k16 fragments). Checked for warp
    // 0's lanes against the layouts, which the registers are chosen from.
    bool mismatch = false;
    auto expect = [&](const tile::LinearLayout &l, unsigned r, unsigned lane,
                      int64_t row, int64_t col) {
      ArrayRef<int64_t> shape = l.getShape();
      tile::Coord c = l.coord(r, lane, 0);
      if (c[0] != (row & (shape[0] - 1)) || c[1] != (col & (shape[1] - 1)))
        mismatch = true;
    };
    // The accumulator registers of the fragment at (mp, np).
    auto fragment = [&](int64_t mp, int64_t np) {
      int64_t m = cEnc.mElement(mp), m8 = cEnc.mElement(mp + 8);
      int64_t n = cEnc.nElement(np), n1 = cEnc.nElement(np + 1);
      return std::array<unsigned, 4>{
          reg(cReg, m, n, M, N), reg(cReg, m, n1, M, N), reg(cReg, m8, n, M, N),
          reg(cReg, m8, n1, M, N)};
    };
    // Checked before any instruction is emitted: a dot whose layouts do
    // not match is left to the FMA dot.
    for (auto [mp, np] : tiles) {
      int64_t n = cEnc.nElement(np);
      std::array<unsigned, 4> c = fragment(mp, np);
      for (unsigned lane = 0; lane < tile::kWarpSize && !missing; ++lane) {
        int64_t g = lane / 4, t = lane % 4;
        for (unsigned i = 0; i < 4; ++i)
          expect(*lc, c[i], lane, cEnc.mElement(mp + 8 * (i / 2) + g),
                 cEnc.nElement(np + 2 * t + i % 2));
        for (int64_t kp = 0; kp < K; kp += 16)
          for (int64_t h : {0, 8})
            for (int64_t e : {0, 1}) {
              int64_t k = cEnc.kElement(kp + h) + e,
                      kl = cEnc.kElement(kp + h + 2 * t + e);
              for (int64_t hm : {0, 8})
                expect(*la, reg(aReg, cEnc.mElement(mp + hm), k, M, K), lane,
                       cEnc.mElement(mp + hm + g), kl);
              expect(*lb, reg(bReg, k, n, K, N), lane, kl,
                     cEnc.nElement(np + g));
            }
      }
    }
    if (missing || mismatch)
      return rewriter.notifyMatchFailure(
          op, "the layouts do not hold the mma fragments in the lanes the "
              "instruction reads them from");
    for (auto [mp, np] : tiles) {
      int64_t m = cEnc.mElement(mp), m8 = cEnc.mElement(mp + 8);
      int64_t n = cEnc.nElement(np);
      std::array<unsigned, 4> c = fragment(mp, np);
      SmallVector<Value> d{acc[c[0]], acc[c[1]], acc[c[2]], acc[c[3]]};
      for (int64_t kp = 0; kp < K; kp += 16) {
        int64_t k = cEnc.kElement(kp), k8 = cEnc.kElement(kp + 8);
        SmallVector<Value> operands{aPair(m, k),   aPair(m8, k), aPair(m, k8),
                                    aPair(m8, k8), bPair(k, n),  bPair(k8, n)};
        operands.append(d);
        d = inlinePtx(rewriter, loc, {f32, f32, f32, f32}, operands, asmStr,
                      cons, /*sideEffects=*/false);
      }
      for (unsigned i = 0; i < 4; ++i)
        acc[c[i]] = d[i];
    }
    rewriter.replaceOpWithMultiple(op, {acc});
    return success();
  }
};

} // namespace

void tilellvm::populateMmaDotPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<MmaDotLowering>(converter);
}
