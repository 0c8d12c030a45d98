//===- TileToLLVM.cpp - Lower tile kernels to LLVM + NVVM -----------------===//
//
// The driver of quire-convert-tile-to-llvm and the patterns for ops that move
// no data between threads: kernels, grid ids, tensor construction, shape ops
// (which only renumber registers), pointer arithmetic and elementwise arith /
// math on tensors. Memory, reductions, dot and layout conversions live in the
// files beside this one.
//
// Three conversions run in order: (1) tile ops, tensor arith/math and scf
// types, 1:N from a tensor to its registers; (2) scf to cf; (3) scalar arith,
// math and cf to LLVM, with fast-math NVVM paths for exp/log/tanh. Before
// them, a tensor division marked `arcp` whose divisor repeats a smaller value
// becomes a multiplication by that value's reciprocal (replicatedDivisors),
// and floordivsi/ceildivsi/ceildivui become the divisions LLVM has.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::quire {
#define GEN_PASS_DEF_CONVERTTILETOLLVM
#include "quire/Conversion/Passes.h.inc"
} // namespace mlir::quire

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

void mlir::quire::populateTileToLLVMTypeConversions(
    LLVMTypeConverter &converter) {
  converter.addConversion([&converter](tile::PointerType) -> Type {
    return LLVM::LLVMPointerType::get(&converter.getContext(), 1);
  });
  // A tensor map is a kernel parameter passed by value: its generic address
  // (KernelOpLowering marks it byval and __grid_constant__).
  converter.addConversion([&converter](tile::TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(&converter.getContext());
  });
  converter.addConversion(
      [&converter](RankedTensorType type, SmallVectorImpl<Type> &results)
          -> std::optional<LogicalResult> {
        FailureOr<tile::LinearLayout> layout = tile::LinearLayout::get(type);
        if (failed(layout))
          return failure();
        Type elt = converter.convertType(type.getElementType());
        if (!elt)
          return failure();
        results.append(layout->getNumRegs(), elt);
        return success();
      });
}

/// `x / d` on tensors, marked `fastmath<arcp>` (the frontend's fp32 `/`),
/// where `d` repeats a smaller value `r` (a tile.splat of a scalar, or a
/// tile.broadcast, through expand_dims and layout conversions, of a smaller
/// tensor: the row sums of a softmax, the `l` of attention): `x * d'` with `d'`
/// the same ops applied to `1 / r` (also `arcp`: rcp.approx.f32, 1 ulp, no
/// slow path). Each thread takes one reciprocal per value of `r` it holds
/// instead of a division per element (the product is within 1.5 ulp of the
/// quotient, inside div.full.f32's 2), and the per-element cost is a
/// multiply, which keeps a softmax off the SFU that its exp already loads.
static void replicatedDivisors(ModuleOp module) {
  SmallVector<arith::DivFOp> divisions;
  module.walk([&](arith::DivFOp op) {
    if (isa<RankedTensorType>(op.getType()) &&
        bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::arcp))
      divisions.push_back(op);
  });
  for (arith::DivFOp op : divisions) {
    // The ops that build the divisor, from the division up to the value they
    // repeat.
    SmallVector<Operation *> chain;
    bool repeats = false;
    Value root = op.getRhs();
    while (Operation *def = root.getDefiningOp()) {
      if (!isa<tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp,
               tile::ConvertLayoutOp>(def))
        break;
      chain.push_back(def);
      root = def->getOperand(0);
      repeats |= isa<tile::SplatOp, tile::BroadcastOp>(def);
      if (isa<tile::SplatOp>(def))
        break;
    }
    if (!repeats)
      continue;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type rootType = root.getType();
    TypedAttr oneAttr;
    if (auto t = dyn_cast<RankedTensorType>(rootType))
      oneAttr =
          DenseElementsAttr::get(t, b.getFloatAttr(t.getElementType(), 1.0));
    else
      oneAttr = b.getFloatAttr(rootType, 1.0);
    Value one = arith::ConstantOp::create(b, loc, oneAttr);
    Value reciprocal =
        arith::DivFOp::create(b, loc, one, root, arith::FastMathFlags::arcp);
    IRMapping map;
    map.map(root, reciprocal);
    Value repeated = reciprocal;
    for (Operation *def : llvm::reverse(chain)) {
      repeated = b.clone(*def, map)->getResult(0);
      map.map(def->getResult(0), repeated);
    }
    Value product =
        arith::MulFOp::create(b, loc, op.getLhs(), repeated, op.getFastmath());
    op.replaceAllUsesWith(product);
    op.erase();
    for (Operation *def : chain)
      if (def->use_empty())
        def->erase();
  }
}

namespace {

/// The location tag of tile.thread_offset (tile::setThreadOffset), given
/// again to every op that has the attribute but not the tag (a rewrite made
/// the op anew with another location).
void tagThreadOffsets(ModuleOp module) {
  module.walk([](Operation *op) {
    auto offset = op->getAttrOfType<IntegerAttr>(
        tile::TileDialect::getThreadOffsetAttrName());
    if (offset && tile::threadOffsetOf(op->getLoc()) != offset.getInt())
      tile::setThreadOffset(op, offset.getInt());
  });
}

/// The thread index read for an op with tile.thread_offset (a producer
/// warpgroup's clone for the consumer warps above it,
/// quire-warp-specialize) is the executing thread's plus the offset: the
/// ops its lowering made carry its location, which is tagged with the
/// offset (tagThreadOffsets).
void offsetThreadIds(ModuleOp module) {
  SmallVector<NVVM::ThreadIdXOp> reads;
  module.walk([&](NVVM::ThreadIdXOp tid) { reads.push_back(tid); });
  for (NVVM::ThreadIdXOp tid : reads) {
    int64_t offset = tile::threadOffsetOf(tid.getLoc());
    if (!offset)
      continue;
    OpBuilder b(tid->getBlock(), std::next(tid->getIterator()));
    Value add = LLVM::AddOp::create(b, tid.getLoc(), tid.getResult(),
                                    i32Const(b, tid.getLoc(), offset));
    tid.getResult().replaceAllUsesExcept(add, add.getDefiningOp());
  }
}

/// Replaces `op`'s single result with `values`.
void replaceWith(ConversionPatternRewriter &rewriter, Operation *op,
                 ArrayRef<Value> values) {
  rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(values)});
}

/// Kernel entry:
///   func.func @k(%p: !tile.ptr<f16>, %n: i32) attributes {tile.kernel}
///   => llvm.func @k(%p: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel,
///        nvvm.maxntid = array<i32: 128, 1, 1>}
struct KernelOpLowering : public ConvertOpToLLVMPattern<func::FuncOp> {
  KernelOpLowering(LLVMTypeConverter &c, TileToLLVMState &state)
      : ConvertOpToLLVMPattern(c), state(state) {}
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!tile::isKernel(func))
      return rewriter.notifyMatchFailure(func, "not a kernel");
    FunctionType type = func.getFunctionType();
    TypeConverter::SignatureConversion sig(type.getNumInputs());
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      Type converted = getTypeConverter()->convertType(t);
      if (!converted)
        return func.emitOpError()
               << "not supported: kernel argument type " << t;
      sig.addInputs(i, converted);
    }
    auto llvmType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(getContext()), sig.getConvertedTypes());
    auto newFunc = LLVM::LLVMFuncOp::create(rewriter, func.getLoc(),
                                            func.getName(), llvmType);
    newFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                     rewriter.getUnitAttr());
    // Producer warps (quire-warp-specialize) run beside the consumers.
    int32_t producers = 0;
    if (auto p = func->getAttrOfType<IntegerAttr>(
            tile::TileDialect::getProducerWarpsAttrName())) {
      producers = p.getInt();
      newFunc->setAttr(kProducerWarpsAttr, p);
    }
    newFunc->setAttr(
        NVVM::NVVMDialect::getMaxntidAttrName(),
        rewriter.getDenseI32ArrayAttr(
            {int32_t((state.numWarps + producers) * tile::kWarpSize), 1, 1}));
    // A producer warpgroup (or more) moves registers with setmaxnreg,
    // which ptxas honours only where it knows each thread's count at
    // entry: one CTA per SM with .maxntid fixes it (64K / threads).
    if (producers >= int32_t(tile::kWarpsPerWarpgroup))
      newFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                       rewriter.getI32IntegerAttr(1));
    if (state.maxRegisters) {
      // A CTA has 64K registers: with producer warps, the cap of a CTA's
      // threads comes down to what still launches (multiples of 8).
      int64_t threads = (state.numWarps + producers) * tile::kWarpSize;
      int64_t cap = producers
                        ? std::min<int64_t>(state.maxRegisters,
                                            tile::registersPerThread(threads))
                        : state.maxRegisters;
      newFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                       rewriter.getI32IntegerAttr(cap));
    }
    // A tensor map (CUtensorMap, 128 bytes, 64-byte aligned) is read in
    // place from the parameter space by cp.async.bulk.tensor.
    for (auto [i, t] : llvm::enumerate(type.getInputs()))
      if (isa<tile::TensorMapType>(t)) {
        newFunc.setArgAttr(
            i, LLVM::LLVMDialect::getByValAttrName(),
            TypeAttr::get(LLVM::LLVMArrayType::get(rewriter.getI8Type(), 128)));
        newFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                           rewriter.getI64IntegerAttr(64));
        newFunc.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                           rewriter.getUnitAttr());
      }
    rewriter.inlineRegionBefore(func.getBody(), newFunc.getBody(),
                                newFunc.end());
    if (!newFunc.getBody().empty())
      rewriter.applySignatureConversion(&newFunc.getBody().front(), sig,
                                        getTypeConverter());
    rewriter.eraseOp(func);
    return success();
  }
  TileToLLVMState &state;
};

/// func.return => llvm.return
struct ReturnOpLowering : public ConvertOpToLLVMPattern<func::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getNumOperands())
      return op.emitOpError() << "not supported: kernels return nothing";
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange());
    return success();
  }
};

/// tile.program_id x => nvvm.read.ptx.sreg.ctaid.x
/// tile.num_programs x => nvvm.read.ptx.sreg.nctaid.x
template <typename SourceOp, typename X, typename Y, typename Z>
struct GridOpLowering : public ConvertOpToLLVMPattern<SourceOp> {
  using ConvertOpToLLVMPattern<SourceOp>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case tile::ProgramAxis::X:
      v = X::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramAxis::Y:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramAxis::Z:
      v = Z::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// tile.range 0, 64 : tensor<64xi32, #l> => per register r: start + coord(r)
struct RangeOpLowering : public ConvertOpToLLVMPattern<tile::RangeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::RangeOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<tile::LinearLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    Location loc = op.getLoc();
    ThreadIds ids = getThreadIds(rewriter, loc);
    SmallVector<Value> thread = threadCoord(rewriter, loc, *layout, ids);
    Value start = i32Const(rewriter, loc, op.getStartAttr().getInt());
    SmallVector<Value> regs;
    for (unsigned r = 0; r < layout->getNumRegs(); ++r) {
      Value c = regCoordValues(rewriter, loc, *layout, thread, r)[0];
      regs.push_back(LLVM::AddOp::create(rewriter, loc, start, c));
    }
    replaceWith(rewriter, op, regs);
    return success();
  }
};

/// tile.splat %x : f32 -> tensor<...> => %x in every register
struct SplatOpLowering : public ConvertOpToLLVMPattern<tile::SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::SplatOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<tile::LinearLayout> layout = getLayout(op, op.getType());
    if (failed(layout))
      return failure();
    Value src = adaptor.getSrc().front();
    replaceWith(rewriter, op, SmallVector<Value>(layout->getNumRegs(), src));
    return success();
  }
};

/// arith.constant dense<1.0> : tensor<...> => llvm.mlir.constant(1.0) in
/// every register. Non-splat constants are not supported.
struct TensorConstantLowering
    : public ConvertOpToLLVMPattern<arith::ConstantOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!dense)
      return op.emitOpError()
             << "not supported on the GPU: non-splat tensor constants";
    FailureOr<tile::LinearLayout> layout = getLayout(op, type);
    if (failed(layout))
      return failure();
    Type elt = getTypeConverter()->convertType(type.getElementType());
    Attribute value;
    if (isa<FloatType>(elt))
      value = rewriter.getFloatAttr(elt, dense.getSplatValue<APFloat>());
    else if (isa<FloatType>(type.getElementType())) // fp8: its byte
      value = rewriter.getIntegerAttr(
          elt, dense.getSplatValue<APFloat>().bitcastToAPInt());
    else
      value = rewriter.getIntegerAttr(elt, dense.getSplatValue<APInt>());
    Value c = LLVM::ConstantOp::create(rewriter, op.getLoc(), elt,
                                       cast<TypedAttr>(value));
    replaceWith(rewriter, op, SmallVector<Value>(layout->getNumRegs(), c));
    return success();
  }
};

/// Any arith/math op on tensors, register by register:
///   %c = arith.addf %a, %b : tensor<64xf32, #l>
///   => %c_r = arith.addf %a_r, %b_r : f32 for each register r
struct ElementwiseOpLowering : public ConversionPattern {
  ElementwiseOpLowering(LLVMTypeConverter &c)
      : ConversionPattern(c, MatchAnyOpTypeTag(), /*benefit=*/1,
                          &c.getContext()) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return failure();
    FailureOr<tile::LinearLayout> layout = getLayout(op, type);
    if (failed(layout))
      return failure();
    Type elt = getTypeConverter()->convertType(type.getElementType());
    SmallVector<Value> regs;
    for (unsigned r = 0; r < layout->getNumRegs(); ++r) {
      OperationState state(op->getLoc(), op->getName());
      for (ValueRange v : operands)
        state.addOperands(v.size() == 1 ? v[0] : v[r]);
      state.addTypes(elt);
      state.addAttributes(op->getAttrs());
      regs.push_back(rewriter.create(state)->getResult(0));
    }
    replaceWith(rewriter, op, regs);
    return success();
  }
};

/// Shape ops that keep every element in its thread renumber registers:
///   tile.broadcast / tile.expand_dims / tile.trans / no-op convert_layout
///   => result register r is source register map[r]
template <typename SourceOp>
struct RegisterRenumbering : public ConvertOpToLLVMPattern<SourceOp> {
  using ConvertOpToLLVMPattern<SourceOp>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(
      SourceOp op,
      typename ConvertOpToLLVMPattern<SourceOp>::OneToNOpAdaptor adaptor,
      ConversionPatternRewriter &rewriter) const override {
    Value srcValue = op->getOperand(0);
    FailureOr<tile::LinearLayout> src = getLayout(op, srcValue.getType());
    FailureOr<tile::LinearLayout> dst =
        getLayout(op, op->getResult(0).getType());
    if (failed(src) || failed(dst))
      return failure();
    auto toSrc = [&](const tile::Coord &c) { return mapCoord(op, c); };
    FailureOr<SmallVector<unsigned>> map = mapRegisters(*src, *dst, toSrc);
    if (failed(map))
      return failure(); // a data-moving conversion handles it
    ValueRange in = adaptor.getOperands()[0];
    SmallVector<Value> regs;
    for (unsigned r : *map)
      regs.push_back(in[r]);
    replaceWith(rewriter, op, regs);
    return success();
  }

  static tile::Coord mapCoord(tile::BroadcastOp op, const tile::Coord &c) {
    ArrayRef<int64_t> shape = op.getSrc().getType().getShape();
    tile::Coord s(c);
    for (unsigned d = 0; d < s.size(); ++d)
      if (shape[d] == 1)
        s[d] = 0;
    return s;
  }
  static tile::Coord mapCoord(tile::ExpandDimsOp op, const tile::Coord &c) {
    tile::Coord s(c);
    s.erase(s.begin() + op.getAxisAttr().getInt());
    return s;
  }
  static tile::Coord mapCoord(tile::TransOp op, const tile::Coord &c) {
    SmallVector<int32_t> perm = op.getPermutation();
    tile::Coord s(c.size());
    for (unsigned i = 0; i < perm.size(); ++i)
      s[perm[i]] = c[i];
    return s;
  }
  static tile::Coord mapCoord(tile::ConvertLayoutOp, const tile::Coord &c) {
    return c;
  }
};

/// tile.addptr %p, %o => llvm.getelementptr %p_r[%o_r] per register
struct AddPtrOpLowering : public ConvertOpToLLVMPattern<tile::AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::AddPtrOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto ptrType = cast<tile::PointerType>(getElementTypeOrSelf(op.getType()));
    Type elt = getTypeConverter()->convertType(ptrType.getPointeeType());
    auto llvmPtr = LLVM::LLVMPointerType::get(getContext(), 1);
    SmallVector<Value> regs;
    for (auto [p, o] : llvm::zip(adaptor.getPtr(), adaptor.getOffset()))
      regs.push_back(LLVM::GEPOp::create(rewriter, op.getLoc(), llvmPtr, elt, p,
                                         ValueRange{o}));
    replaceWith(rewriter, op, regs);
    return success();
  }
};

struct ConvertTileToLLVMPass
    : public mlir::quire::impl::ConvertTileToLLVMBase<ConvertTileToLLVMPass> {
  using ConvertTileToLLVMBase::ConvertTileToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (sm < 80) {
      module.emitError() << "not supported: sm_" << static_cast<unsigned>(sm)
                         << " (Quire targets sm_80 and newer)";
      return signalPassFailure();
    }
    if (failed(checkFp8Ops(module, sm)))
      return signalPassFailure();
    // floordivsi, ceildivsi and ceildivui in the ops LLVM has (the
    // interpreter runs them as they are).
    {
      RewritePatternSet expand(ctx);
      arith::populateCeilFloorDivExpandOpsPatterns(expand);
      walkAndApplyPatterns(module, std::move(expand));
    }
    AxisInfoAnalysis axisInfo(module);
    // The value hints have served: they describe tensors, and the lowered
    // ops (one per register) must not carry them.
    module.walk([](Operation *op) {
      op->removeDiscardableAttr(tile::TileDialect::getDivisibilityAttrName());
      op->removeDiscardableAttr(tile::TileDialect::getContiguityAttrName());
    });
    TileToLLVMState state;
    state.axisInfo = &axisInfo;
    state.numWarps = tile::getNumWarps(module);
    state.sm = sm;
    state.maxRegisters = maxRegisters;
    state.swizzleStaging = swizzleStaging;
    if (sharedBuffers < 1 || sharedBuffers > 2) {
      module.emitError() << "shared-buffers must be 1 or 2, got "
                         << static_cast<unsigned>(sharedBuffers);
      return signalPassFailure();
    }
    state.sharedBuffers = sharedBuffers;
    if (!isMaxRegisters(maxRegisters)) {
      module.emitError() << "quire-convert-tile-to-llvm: max-registers must "
                            "be 0 (no cap) or in [24, 255], got "
                         << static_cast<unsigned>(maxRegisters);
      return signalPassFailure();
    }

    // Names of the kernels, to attach the shared memory size afterwards.
    SmallVector<std::string> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!tile::isKernel(func)) {
        func.emitOpError() << "not supported on the GPU: functions that are "
                              "not kernels (mark entry points tile.kernel)";
        return signalPassFailure();
      }
      kernels.push_back(func.getName().str());
    }

    llvm::StringMap<int64_t> sharedNeed;
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    populateTileToLLVMTypeConversions(converter);

    replicatedDivisors(module);
    tagThreadOffsets(module);

    // (1) tile ops and tensors.
    {
      RewritePatternSet patterns(ctx);
      ConversionTarget target(*ctx);
      target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
      target.addIllegalDialect<tile::TileDialect>();
      target.addIllegalOp<func::FuncOp, func::ReturnOp>();
      auto scalarOnly = [](Operation *op) {
        auto ok = [](Type t) {
          return !isa<RankedTensorType, tile::PointerType>(t);
        };
        return llvm::all_of(op->getOperandTypes(), ok) &&
               llvm::all_of(op->getResultTypes(), ok);
      };
      target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>(
          scalarOnly);
      scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                           target);
      populateTileToLLVMConversionPatterns(converter, patterns, state);
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
      offsetThreadIds(module);
      sharedNeed = placeSharedBuffers(module, state);
      placeBarriers(module);
      consumerBarriers(module, state.numWarps);
      unalignedBarriers(module);
      sinkMatrixLoads(module);
    }
    // (2) structured control flow to branches.
    {
      RewritePatternSet patterns(ctx);
      populateSCFToControlFlowConversionPatterns(patterns);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<scf::SCFDialect>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    // (3) scalar arith / math / cf to LLVM.
    {
      WalkResult unsupported = module.walk([](Operation *op) {
        if (!isa<math::MathDialect>(op->getDialect()))
          return WalkResult::advance();
        bool fast =
            isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op,
                math::RsqrtOp, math::TanhOp, math::SinOp, math::CosOp>(op);
        bool native =
            isa<math::AbsFOp, math::SqrtOp, math::FmaOp, math::FloorOp,
                math::CeilOp, math::CopySignOp, math::TruncOp, math::RoundOp,
                math::RoundEvenOp, math::AbsIOp, math::CountLeadingZerosOp,
                math::CountTrailingZerosOp, math::CtPopOp>(op);
        Type t = op->getResult(0).getType();
        if (native || (fast && (t.isF32() || t.isF16() || t.isBF16())))
          return WalkResult::advance();
        op->emitOpError() << "not supported on the GPU for " << t;
        return WalkResult::interrupt();
      });
      if (unsupported.wasInterrupted())
        return signalPassFailure();
      RewritePatternSet patterns(ctx);
      populateFp8Patterns(converter, patterns);
      populateMathToNVVMFastPatterns(converter, patterns);
      arith::populateArithToLLVMConversionPatterns(converter, patterns);
      populateMathToLLVMConversionPatterns(converter, patterns);
      cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
      ub::populateUBToLLVMConversionPatterns(converter, patterns);
      LLVMConversionTarget target(*ctx);
      target.addLegalDialect<NVVM::NVVMDialect>();
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createReconcileUnrealizedCastsPass());
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
    // A loop annotation an scf.for carried (quire-warp-specialize's
    // persistent loops) reaches its back edge as a discardable attribute:
    // the branch's own annotation is what LLVM reads.
    module.walk([](LLVM::BrOp br) {
      if (auto a = br->getAttrOfType<LLVM::LoopAnnotationAttr>(
              "llvm.loop_annotation")) {
        br.setLoopAnnotationAttr(a);
        br->removeAttr("llvm.loop_annotation");
      }
    });

    auto i64 = IntegerType::get(ctx, 64);
    for (const std::string &name : kernels)
      if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
        f->setAttr(tile::TileDialect::getSharedBytesAttrName(),
                   IntegerAttr::get(i64, sharedNeed.lookup(name)));
  }
};

} // namespace

void mlir::quire::populateTileToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    TileToLLVMState &state) {
  patterns.add<KernelOpLowering>(converter, state);
  patterns.add<ReturnOpLowering, RangeOpLowering, SplatOpLowering,
               TensorConstantLowering, ElementwiseOpLowering, AddPtrOpLowering,
               RegisterRenumbering<tile::BroadcastOp>,
               RegisterRenumbering<tile::ExpandDimsOp>,
               RegisterRenumbering<tile::TransOp>,
               GridOpLowering<tile::ProgramIdOp, NVVM::BlockIdXOp,
                              NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridOpLowering<tile::NumProgramsOp, NVVM::GridDimXOp,
                              NVVM::GridDimYOp, NVVM::GridDimZOp>>(converter);
  // The renumbering pattern handles conversions that move nothing; the
  // shared-memory one (benefit 1 lower) the rest.
  patterns.add<RegisterRenumbering<tile::ConvertLayoutOp>>(converter,
                                                           /*benefit=*/2);
  populateLoadStorePatterns(converter, patterns, state);
  populateReducePatterns(converter, patterns, state);
  populateFmaDotPatterns(converter, patterns, state);
  populateMmaDotPatterns(converter, patterns);
  populateWgmmaDotPatterns(converter, patterns, state);
  populateConvertLayoutPatterns(converter, patterns, state);
  populateAsyncCopyPatterns(converter, patterns, state);
  populateTmaPatterns(converter, patterns, state);
  populateAssertPatterns(converter, patterns);
  populateBarrierPatterns(converter, patterns);
  populateFp8Patterns(converter, patterns);
}
