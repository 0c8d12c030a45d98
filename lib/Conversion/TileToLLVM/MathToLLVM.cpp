//===- MathToLLVM.cpp - Fast-math NVVM lowerings of math ops --------------===//
//
// exp, exp2, log, log2, rsqrt, tanh, sin and cos on f32 use the SFU's
// approximate PTX instructions (ex2.approx, lg2.approx, ...), as Triton's
// default math does; f16/bf16 go through f32. exp(x) = ex2(x * log2(e)),
// log(x) = lg2(x) * ln(2).
//
// arith.divf on f32 marked `fastmath<arcp>` (the frontend's `/`, as Triton's)
// is div.full.f32: full-range, within 2 ulp, without the correctly rounded
// division's refinement and slow path; `1.0 / x` so marked is rcp.approx.f32
// (full range, 1 ulp). An unmarked divf stays div.rn.
//
// arith.fptosi/fptoui to i8 are llvm.fpto{s,u}i.sat.i8: PTX converts to 16
// bits at the least, and LLVM's plain conversion keeps that result's low
// byte, so 200.0 became -56. The 16-, 32- and 64-bit cvt.rzi saturate and
// map NaN to 0 themselves, as the interpreter's conversions do.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

Value approx(OpBuilder &b, Location loc, StringRef instr, Value x) {
  std::string asmStr = (instr + " $0, $1;").str();
  return LLVM::InlineAsmOp::create(
             b, loc, b.getF32Type(), ValueRange{x}, asmStr, "=f,f",
             /*has_side_effects=*/false, /*is_align_stack=*/false,
             LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

/// math.exp %x : f32 => ex2.approx.ftz.f32 (%x * log2(e))
template <typename Op>
struct FastMathLowering : public ConvertOpToLLVMPattern<Op> {
  FastMathLowering(LLVMTypeConverter &c, StringRef instr, double preScale,
                   double postScale)
      : ConvertOpToLLVMPattern<Op>(c, /*benefit=*/10), instr(instr),
        preScale(preScale), postScale(postScale) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getOperand();
    Type t = x.getType();
    if (!(t.isF32() || t.isF16() || t.isBF16()))
      return failure();
    Type f32 = rewriter.getF32Type();
    if (!t.isF32())
      x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
    auto scale = [&](Value v, double s) -> Value {
      if (s == 1.0)
        return v;
      Value c = LLVM::ConstantOp::create(rewriter, loc, f32,
                                         rewriter.getF32FloatAttr(s));
      return LLVM::FMulOp::create(rewriter, loc, v, c);
    };
    Value y =
        scale(approx(rewriter, loc, instr, scale(x, preScale)), postScale);
    if (!t.isF32())
      y = LLVM::FPTruncOp::create(rewriter, loc, t, y);
    rewriter.replaceOp(op, y);
    return success();
  }
  std::string instr;
  double preScale, postScale;
};

/// arith.divf %a, %b fastmath<arcp> : f32 => div.full.f32 (rcp.approx.f32
/// when %a is 1.0)
struct ApproxDivLowering : public ConvertOpToLLVMPattern<arith::DivFOp> {
  ApproxDivLowering(LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern<arith::DivFOp>(c, /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::arcp))
      return failure();
    bool reciprocal = matchPattern(op.getLhs(), m_OneFloat());
    SmallVector<Value> operands{adaptor.getRhs()};
    if (!reciprocal)
      operands.insert(operands.begin(), adaptor.getLhs());
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, op.getLoc(), rewriter.getF32Type(), operands,
        reciprocal ? "rcp.approx.f32 $0, $1;" : "div.full.f32 $0, $1, $2;",
        reciprocal ? "=f,f" : "=f,f,f",
        /*has_side_effects=*/false, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        ArrayAttr());
    rewriter.replaceOp(op, asmOp.getResult(0));
    return success();
  }
};

/// arith.fptosi/fptoui %x : f16|bf16|f32|f64 to i8
///   => llvm.call_intrinsic "llvm.fpto{s,u}i.sat.i8.<type>"(%x)
template <typename Op>
struct SaturatingFPToI8Lowering : public ConvertOpToLLVMPattern<Op> {
  SaturatingFPToI8Lowering(LLVMTypeConverter &c)
      : ConvertOpToLLVMPattern<Op>(c, /*benefit=*/10) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type src = op.getIn().getType();
    if (!op.getType().isInteger(8) ||
        !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(src))
      return failure();
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "llvm." << (std::is_same_v<Op, arith::FPToSIOp> ? "fptosi" : "fptoui")
       << ".sat.i8." << src;
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getI8Type(), rewriter.getStringAttr(name),
        ValueRange{adaptor.getIn()});
    return success();
  }
};

} // namespace

void mlir::quire::populateMathToNVVMFastPatterns(LLVMTypeConverter &converter,
                                                 RewritePatternSet &patterns) {
  const double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
  patterns.add<SaturatingFPToI8Lowering<arith::FPToSIOp>,
               SaturatingFPToI8Lowering<arith::FPToUIOp>>(converter);
  patterns.add<FastMathLowering<math::ExpOp>>(converter, "ex2.approx.ftz.f32",
                                              log2e, 1.0);
  patterns.add<FastMathLowering<math::Exp2Op>>(converter, "ex2.approx.ftz.f32",
                                               1.0, 1.0);
  patterns.add<FastMathLowering<math::LogOp>>(converter, "lg2.approx.ftz.f32",
                                              1.0, ln2);
  patterns.add<FastMathLowering<math::Log2Op>>(converter, "lg2.approx.ftz.f32",
                                               1.0, 1.0);
  patterns.add<FastMathLowering<math::RsqrtOp>>(
      converter, "rsqrt.approx.ftz.f32", 1.0, 1.0);
  patterns.add<FastMathLowering<math::TanhOp>>(converter, "tanh.approx.f32",
                                               1.0, 1.0);
  patterns.add<FastMathLowering<math::SinOp>>(converter, "sin.approx.ftz.f32",
                                              1.0, 1.0);
  patterns.add<FastMathLowering<math::CosOp>>(converter, "cos.approx.ftz.f32",
                                              1.0, 1.0);
  patterns.add<ApproxDivLowering>(converter);
}
