//===- AssertToLLVM.cpp - Device-side assertions --------------------------===//
//
// tile.assert becomes what CUDA's assert and Triton's tl.device_assert are:
// a branch, taken only by a thread that holds a false element, to a vprintf
// of the message and a trap, which ends the kernel with a launch error. Each
// element is reported by one thread: threads that only hold copies of
// elements another thread holds (replicated layouts, and every thread but 0
// for a scalar) stay silent, so a bad element prints one line, not one per
// copy.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// The module's `vprintf(format, args)` declaration (the CUDA system call).
LLVM::LLVMFuncOp getVprintf(ConversionPatternRewriter &rewriter,
                            ModuleOp module) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>("vprintf"))
    return f;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
  return LLVM::LLVMFuncOp::create(
      rewriter, module.getLoc(), "vprintf",
      LLVM::LLVMFunctionType::get(rewriter.getI32Type(), {ptr, ptr}));
}

/// A NUL-terminated constant string global named `quire_assert_<n>`.
StringRef createFormat(ConversionPatternRewriter &rewriter, ModuleOp module,
                       Location loc, StringRef text) {
  std::string name;
  for (unsigned n = 0;; ++n) {
    name = "quire_assert_" + std::to_string(n);
    if (!module.lookupSymbol(name))
      break;
  }
  std::string value = text.str();
  value.push_back('\0');
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto type = LLVM::LLVMArrayType::get(rewriter.getI8Type(), value.size());
  auto global = LLVM::GlobalOp::create(
      rewriter, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name,
      rewriter.getStringAttr(value), /*alignment=*/1);
  return global.getSymName();
}

/// tile.assert %ok, "msg %d", %x : tensor<64xi1, #l>, tensor<64xi32, #l>
///   => bad_r = !ok_r; the first bad register's x is selected;
///      scf.if (any bad_r && this thread owns its elements) {
///        vprintf("msg %d in program (%d, %d, %d)\n", {x, ctaid.x, .y, .z})
///        llvm.intr.trap
///      }
struct AssertOpLowering : public ConvertOpToLLVMPattern<tile::AssertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto func = op->getParentOfType<FunctionOpInterface>();
    if (!module || !func || func.getFunctionBody().empty())
      return op.emitOpError() << "not supported outside a kernel";
    Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(getContext());

    FailureOr<Value> owner = ownerPredicate(rewriter, loc, op,
                                            op.getCond().getType());
    if (failed(owner))
      return failure();

    // The arguments of the first false element this thread holds.
    ValueRange conds = adaptor.getCond();
    SmallVector<Value> selected(op.getArgs().size(),
                                i32Const(rewriter, loc, 0));
    Value found = LLVM::ConstantOp::create(rewriter, loc, i1,
                                           rewriter.getBoolAttr(false));
    Value yes =
        LLVM::ConstantOp::create(rewriter, loc, i1, rewriter.getBoolAttr(true));
    for (unsigned r = 0; r < conds.size(); ++r) {
      Value bad = LLVM::XOrOp::create(rewriter, loc, conds[r], yes);
      Value take = LLVM::AndOp::create(
          rewriter, loc, bad, LLVM::XOrOp::create(rewriter, loc, found, yes));
      for (auto [k, regs] : llvm::enumerate(adaptor.getArgs()))
        selected[k] = LLVM::SelectOp::create(
            rewriter, loc, take, regs[regs.size() == 1 ? 0 : r], selected[k]);
      found = LLVM::OrOp::create(rewriter, loc, found, bad);
    }
    Value fire = found;
    if (*owner)
      fire = LLVM::AndOp::create(rewriter, loc, fire, *owner);

    // vprintf's argument buffer, in the entry block so that an assert in a
    // loop does not grow the stack.
    SmallVector<Type> fields(selected.size() + 3, i32);
    auto bufferType = LLVM::LLVMStructType::getLiteral(getContext(), fields);
    Value buffer;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
      Value one = i32Const(rewriter, loc, 1);
      buffer = LLVM::AllocaOp::create(rewriter, loc, ptr, bufferType, one,
                                      /*alignment=*/4);
    }
    LLVM::LLVMFuncOp vprintf = getVprintf(rewriter, module);
    StringRef format =
        createFormat(rewriter, module, loc,
                     (op.getMessage() + " in program (%d, %d, %d)\n").str());

    auto ifOp =
        scf::IfOp::create(rewriter, loc, fire, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      SmallVector<Value> values(selected);
      values.push_back(NVVM::BlockIdXOp::create(rewriter, loc, i32));
      values.push_back(NVVM::BlockIdYOp::create(rewriter, loc, i32));
      values.push_back(NVVM::BlockIdZOp::create(rewriter, loc, i32));
      for (auto [k, v] : llvm::enumerate(values)) {
        Value field = LLVM::GEPOp::create(
            rewriter, loc, ptr, bufferType, buffer,
            ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(k)});
        LLVM::StoreOp::create(rewriter, loc, v, field);
      }
      Value text = LLVM::AddressOfOp::create(rewriter, loc, ptr, format);
      LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{text, buffer});
      LLVM::Trap::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilellvm::populateAssertPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<AssertOpLowering>(converter);
}
