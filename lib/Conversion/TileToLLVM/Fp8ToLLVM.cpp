//===- Fp8ToLLVM.cpp - fp8 conversions ------------------------------------===//
//
// f8E4M3FN and f8E5M2 live in i8 registers (LLVM has no fp8 type). A kernel
// loads, stores and moves them as bytes and converts them with the sm_89+
// `cvt` instructions, two at a time:
//   arith.extf  f8 -> f16: cvt.rn.f16x2.{e4m3x2,e5m2x2} (exact), and on to
//               f32 (exact) or bf16 (through f32, exact)
//   arith.truncf f32 -> f8: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32
//                f16 -> f8: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2
//                bf16 -> f8: through f32 (exact first step)
// rounding to nearest even and saturating at the largest finite value, NaN
// kept, as the interpreter's fp8 does. Any other op on fp8 values (an add,
// a reduction, a compare) is a located error: convert first.
// `checkFp8Ops` runs before the conversion and reports them.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

static bool isFp8(Type t) { return tile::isFp8Type(getElementTypeOrSelf(t)); }

static StringRef fp8Name(Type t) {
  return isa<Float8E4M3FNType>(getElementTypeOrSelf(t)) ? "e4m3" : "e5m2";
}

LogicalResult tilellvm::checkFp8Ops(ModuleOp module, unsigned sm) {
  WalkResult result = module.walk([&](Operation *op) {
    bool anyFp8 = llvm::any_of(op->getOperandTypes(), isFp8) ||
                  llvm::any_of(op->getResultTypes(), isFp8);
    if (!anyFp8)
      return WalkResult::advance();
    Type src = op->getNumOperands() ? op->getOperand(0).getType() : Type();
    Type dst = op->getNumResults() ? op->getResult(0).getType() : Type();
    bool conversion = (isa<arith::ExtFOp>(op) && isFp8(src) &&
                       isa<Float16Type, BFloat16Type, Float32Type>(
                           getElementTypeOrSelf(dst))) ||
                      (isa<arith::TruncFOp>(op) && isFp8(dst) &&
                       isa<Float16Type, BFloat16Type, Float32Type>(
                           getElementTypeOrSelf(src)));
    if (conversion) {
      if (sm < 89) {
        op->emitOpError() << "not supported on the GPU: fp8 conversions need "
                             "sm_89 or later (cvt with e4m3x2/e5m2x2), got sm_"
                          << sm;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    }
    // Ops that only move bytes.
    if (isa<arith::ConstantOp, arith::SelectOp, tile::LoadOp, tile::StoreOp,
            tile::PagedLoadOp, tile::AsyncLocalLoadOp, tile::SplatOp,
            tile::BroadcastOp, tile::ExpandDimsOp, tile::TransOp,
            tile::ConvertLayoutOp, scf::ForOp, scf::YieldOp, scf::IfOp,
            scf::WhileOp, scf::ConditionOp>(op))
      return WalkResult::advance();
    Type t = isFp8(dst) ? dst : src;
    op->emitOpError() << "not supported on the GPU on "
                      << getElementTypeOrSelf(t)
                      << " values: fp8 is loaded, stored and converted "
                         "(arith.extf to f16, bf16 or f32 first)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

namespace {

/// Packs two i8 into an i16 (the low byte first), zero-extended.
Value packBytes(OpBuilder &b, Location loc, Value lo, Value hi) {
  Type i16 = b.getI16Type();
  Value l = LLVM::ZExtOp::create(b, loc, i16, lo);
  Value h = LLVM::ShlOp::create(
      b, loc, LLVM::ZExtOp::create(b, loc, i16, hi),
      LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(8)));
  return LLVM::OrOp::create(b, loc, l, h);
}

/// The two bytes of an i16, the low one first.
std::pair<Value, Value> unpackBytes(OpBuilder &b, Location loc, Value half) {
  Type i8 = b.getI8Type();
  Value lo = LLVM::TruncOp::create(b, loc, i8, half);
  Value hi = LLVM::TruncOp::create(
      b, loc, i8,
      LLVM::LShrOp::create(b, loc, half,
                           LLVM::ConstantOp::create(b, loc, b.getI16Type(),
                                                    b.getI16IntegerAttr(8))));
  return {lo, hi};
}

/// Where a byte was extracted from: a vector of bytes and a constant index.
std::optional<std::pair<Value, int32_t>> byteSource(Value v) {
  auto ext = v.getDefiningOp<LLVM::ExtractElementOp>();
  IntegerAttr index;
  if (!ext || !matchPattern(ext.getPosition(), m_Constant(&index)))
    return std::nullopt;
  return std::pair(ext.getVector(), int32_t(index.getInt()));
}

/// Four bytes as one i32, `bytes[0]` the lowest. Bytes extracted from at
/// most two vectors of one type (a thread's wide shared-memory loads) are
/// gathered by one shufflevector, which NVPTX selects as a `prmt`.
Value packWord(OpBuilder &b, Location loc, ArrayRef<Value> bytes) {
  SmallVector<Value, 2> vectors;
  SmallVector<int32_t, 4> mask;
  for (Value byte : bytes) {
    std::optional<std::pair<Value, int32_t>> src = byteSource(byte);
    if (!src)
      break;
    auto it = llvm::find(vectors, src->first);
    if (it == vectors.end()) {
      if (vectors.size() == 2 ||
          (!vectors.empty() && vectors[0].getType() != src->first.getType()))
        break;
      vectors.push_back(src->first);
      it = vectors.end() - 1;
    }
    int32_t width = cast<VectorType>(src->first.getType()).getNumElements();
    mask.push_back(int32_t(it - vectors.begin()) * width + src->second);
  }
  Type i32 = b.getI32Type();
  if (mask.size() == bytes.size()) {
    Value v0 = vectors[0], v1 = vectors.size() > 1 ? vectors[1] : vectors[0];
    Value quad = LLVM::ShuffleVectorOp::create(b, loc, v0, v1, mask);
    return LLVM::BitcastOp::create(b, loc, i32, quad);
  }
  Value word =
      LLVM::ZExtOp::create(b, loc, i32, packBytes(b, loc, bytes[0], bytes[1]));
  Value high =
      LLVM::ZExtOp::create(b, loc, i32, packBytes(b, loc, bytes[2], bytes[3]));
  high = LLVM::ShlOp::create(b, loc, high, i32Const(b, loc, 16));
  return LLVM::OrOp::create(b, loc, word, high);
}

/// Four fp8 bytes to four f16: the two pairs (bytes 0, 1 and 2, 3) of one
/// word, each by cvt.rn.f16x2.<fmt>x2.
SmallVector<Value, 4> fp8x4ToF16(OpBuilder &b, Location loc, StringRef fmt,
                                 ArrayRef<Value> bytes) {
  Value word = packWord(b, loc, bytes);
  Type i16 = b.getI16Type();
  Value halves[2] = {
      LLVM::TruncOp::create(b, loc, i16, word),
      LLVM::TruncOp::create(
          b, loc, i16,
          LLVM::LShrOp::create(b, loc, word, i32Const(b, loc, 16)))};
  std::string asmStr = ("cvt.rn.f16x2." + fmt + "x2 $0, $1;").str();
  auto v2 = VectorType::get({2}, b.getF16Type());
  SmallVector<Value, 4> out;
  for (Value half : halves) {
    Value pair = inlinePtx(b, loc, b.getI32Type(), half, asmStr, "=r,h",
                           /*sideEffects=*/false)[0];
    Value vec = LLVM::BitcastOp::create(b, loc, v2, pair);
    for (int i = 0; i < 2; ++i)
      out.push_back(
          LLVM::ExtractElementOp::create(b, loc, vec, i32Const(b, loc, i)));
  }
  return out;
}

/// Two f32 to two fp8 bytes (cvt.rn.satfinite.<fmt>x2.f32: the first
/// operand goes to the high byte).
std::pair<Value, Value> f32x2ToFp8(OpBuilder &b, Location loc, StringRef fmt,
                                   Value lo, Value hi) {
  std::string asmStr = ("cvt.rn.satfinite." + fmt + "x2.f32 $0, $1, $2;").str();
  Value half = inlinePtx(b, loc, b.getI16Type(), ValueRange{hi, lo}, asmStr,
                         "=h,f,f", /*sideEffects=*/false)[0];
  return unpackBytes(b, loc, half);
}

/// Two f16 to two fp8 bytes (cvt.rn.satfinite.<fmt>x2.f16x2).
std::pair<Value, Value> f16x2ToFp8(OpBuilder &b, Location loc, StringRef fmt,
                                   Value lo, Value hi) {
  auto v2 = VectorType::get({2}, b.getF16Type());
  Value vec = LLVM::UndefOp::create(b, loc, v2);
  vec = LLVM::InsertElementOp::create(b, loc, vec, lo, i32Const(b, loc, 0));
  vec = LLVM::InsertElementOp::create(b, loc, vec, hi, i32Const(b, loc, 1));
  Value word = LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
  std::string asmStr = ("cvt.rn.satfinite." + fmt + "x2.f16x2 $0, $1;").str();
  Value half = inlinePtx(b, loc, b.getI16Type(), word, asmStr, "=h,r",
                         /*sideEffects=*/false)[0];
  return unpackBytes(b, loc, half);
}

/// The register pairs a conversion of `n` registers converts together:
/// (0, 1), (2, 3), ..., except that a tensor in a #tile.dot_op layout pairs
/// the registers of consecutive K elements, which are the halves of the
/// 32-bit registers mma.sync takes (an operand whose registers run along N
/// first, #tile.mma nWidth, would otherwise pair across columns and need
/// its halves regrouped).
static SmallVector<std::pair<unsigned, unsigned>> conversionPairs(Operation *op,
                                                                  unsigned n) {
  unsigned bit = 0;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (auto enc = dyn_cast_or_null<tile::DotOperandEncodingAttr>(
          type ? type.getEncoding() : Attribute())) {
    FailureOr<tile::LinearLayout> layout = tile::LinearLayout::get(type);
    if (succeeded(layout) && layout->getNumRegs() == n) {
      tile::Coord kUnit(2, 0);
      kUnit[enc.getOpIdx() == 0 ? 1 : 0] = 1;
      auto bases = layout->getRegBases();
      auto it = llvm::find(bases, kUnit);
      if (it != bases.end())
        bit = it - bases.begin();
    }
  }
  SmallVector<std::pair<unsigned, unsigned>> pairs;
  for (unsigned r = 0; r < n; ++r)
    if (!(r & (1u << bit)))
      pairs.push_back({r, r | (1u << bit)});
  return pairs;
}

/// arith.extf / arith.truncf with an fp8 side, on a tensor (per register
/// pair) or a scalar:
///   %y = arith.extf %x : tensor<64xf8E4M3FN, #l> to tensor<64xf16, #l>
///   => cvt.rn.f16x2.e4m3x2 on registers (0, 1), (2, 3), ...
struct Fp8ConversionLowering : public ConversionPattern {
  Fp8ConversionLowering(LLVMTypeConverter &c)
      : ConversionPattern(c, MatchAnyOpTypeTag(), /*benefit=*/10,
                          &c.getContext()) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      return failure();
    Type src = getElementTypeOrSelf(op->getOperand(0).getType());
    Type dst = getElementTypeOrSelf(op->getResult(0).getType());
    if (!isFp8(src) && !isFp8(dst))
      return failure();
    Location loc = op->getLoc();
    SmallVector<Value> in(operands[0].begin(), operands[0].end());
    if (in.size() % 2)
      in.push_back(
          isFp8(src)
              ? LLVM::ConstantOp::create(rewriter, loc, rewriter.getI8Type(),
                                         rewriter.getI8IntegerAttr(0))
                    .getResult()
              : LLVM::UndefOp::create(rewriter, loc, in.front().getType())
                    .getResult());
    SmallVector<Value> out(in.size());
    Type f32 = rewriter.getF32Type();
    auto widen = [&](Value h) -> Value {
      if (dst.isF16())
        return h;
      Value w = LLVM::FPExtOp::create(rewriter, loc, f32, h);
      return dst.isF32()
                 ? w
                 : LLVM::FPTruncOp::create(rewriter, loc, dst, w).getResult();
    };
    SmallVector<std::pair<unsigned, unsigned>> pairs =
        conversionPairs(op, in.size());
    if (isFp8(src)) {
      // Two pairs per word: the bytes of one 32-bit register, or gathered
      // from two by one prmt.
      for (unsigned p = 0; p < pairs.size(); p += 2) {
        unsigned regs[4] = {pairs[p].first, pairs[p].second, 0, 0};
        SmallVector<Value, 4> bytes{in[regs[0]], in[regs[1]]};
        bool two = p + 1 < pairs.size();
        if (two) {
          regs[2] = pairs[p + 1].first;
          regs[3] = pairs[p + 1].second;
          bytes.append({in[regs[2]], in[regs[3]]});
        } else {
          bytes.append({bytes[0], bytes[1]});
        }
        SmallVector<Value, 4> y =
            fp8x4ToF16(rewriter, loc, fp8Name(src), bytes);
        for (unsigned i = 0; i < (two ? 4u : 2u); ++i)
          out[regs[i]] = widen(y[i]);
      }
    } else {
      for (auto [r, r1] : pairs) {
        Value a = in[r], b = in[r1];
        std::pair<Value, Value> y;
        if (src.isF16()) {
          y = f16x2ToFp8(rewriter, loc, fp8Name(dst), a, b);
        } else {
          if (!src.isF32()) { // bf16: exact in f32
            a = LLVM::FPExtOp::create(rewriter, loc, f32, a);
            b = LLVM::FPExtOp::create(rewriter, loc, f32, b);
          }
          y = f32x2ToFp8(rewriter, loc, fp8Name(dst), a, b);
        }
        out[r] = y.first;
        out[r1] = y.second;
      }
    }
    out.resize(operands[0].size());
    if (isa<RankedTensorType>(op->getResult(0).getType()))
      rewriter.replaceOpWithMultiple(op, {out});
    else
      rewriter.replaceOp(op, out.front());
    return success();
  }
};

/// A scalar fp8 constant: its byte.
struct Fp8ScalarConstantLowering
    : public ConvertOpToLLVMPattern<arith::ConstantOp> {
  Fp8ScalarConstantLowering(LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern(c, /*benefit=*/10) {}
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !isFp8(value.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(
        op, rewriter.getI8Type(),
        rewriter.getIntegerAttr(rewriter.getI8Type(),
                                value.getValue().bitcastToAPInt()));
    return success();
  }
};

} // namespace

void tilellvm::populateFp8Patterns(LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  patterns.add<Fp8ConversionLowering, Fp8ScalarConstantLowering>(converter);
}
