//===- AssertToLLVM.cpp - Device-side assertions and prints ---------------===//
//
// tile.assert becomes what CUDA's assert and Triton's tl.device_assert are:
// a branch, taken only by a thread that holds a false element, to a vprintf
// of the message and a trap, which ends the kernel with a launch error. Each
// element is reported by one thread: threads that only hold copies of
// elements another thread holds (replicated layouts, and every thread but 0
// for a scalar) stay silent, so a bad element prints one line, not one per
// copy. tile.print is a vprintf per element, by the thread that owns it.
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

/// A NUL-terminated constant string global named `quire_<what>_<n>`.
StringRef createFormat(ConversionPatternRewriter &rewriter, ModuleOp module,
                       Location loc, StringRef text,
                       StringRef what = "assert") {
  std::string name;
  for (unsigned n = 0;; ++n) {
    name = ("quire_" + what + "_" + Twine(n)).str();
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

/// vprintf calls of one op's lowering: each stores its values into an
/// argument buffer (one per struct of value types, allocated in the entry
/// block so that a call in a loop does not grow the stack) and passes it
/// with a format global (one per text).
struct Printer {
  ModuleOp module;
  FunctionOpInterface func;
  LLVM::LLVMFuncOp vprintf;
  StringRef what;
  llvm::DenseMap<Type, Value> buffers;
  llvm::StringMap<StringRef> formats;

  /// Null with a located error when `op` is not inside a kernel.
  static std::optional<Printer>
  in(Operation *op, ConversionPatternRewriter &rewriter, StringRef what) {
    auto module = op->getParentOfType<ModuleOp>();
    auto func = op->getParentOfType<FunctionOpInterface>();
    if (!module || !func || func.getFunctionBody().empty()) {
      op->emitOpError() << "not supported outside a kernel";
      return std::nullopt;
    }
    return Printer{module, func, getVprintf(rewriter, module), what,
                   llvm::DenseMap<Type, Value>(), llvm::StringMap<StringRef>()};
  }

  /// vprintf(format, {values}) at the rewriter's insertion point.
  void call(ConversionPatternRewriter &rewriter, Location loc,
            const std::string &format, ArrayRef<Value> values) {
    MLIRContext *ctx = rewriter.getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    SmallVector<Type> fields;
    unsigned alignment = 1; // the widest field's: vprintf's packing
    for (Value v : values) {
      fields.push_back(v.getType());
      alignment = std::max(alignment, v.getType().getIntOrFloatBitWidth() / 8);
    }
    auto bufferType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    Value &buffer = buffers[bufferType];
    if (!buffer) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
      buffer = LLVM::AllocaOp::create(rewriter, loc, ptr, bufferType,
                                      i32Const(rewriter, loc, 1), alignment);
    }
    StringRef &name = formats[format];
    if (name.empty())
      name = createFormat(rewriter, module, loc, format, what);
    for (auto [k, v] : llvm::enumerate(values)) {
      Value field = LLVM::GEPOp::create(
          rewriter, loc, ptr, bufferType, buffer,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(k)});
      LLVM::StoreOp::create(rewriter, loc, v, field);
    }
    Value text = LLVM::AddressOfOp::create(rewriter, loc, ptr, name);
    LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{text, buffer});
  }
};

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
    std::optional<Printer> printer = Printer::in(op, rewriter, "assert");
    if (!printer)
      return failure();
    Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();

    FailureOr<Value> owner =
        ownerPredicate(rewriter, loc, op, op.getCond().getType());
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

    auto ifOp =
        scf::IfOp::create(rewriter, loc, fire, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      SmallVector<Value> values(selected);
      values.push_back(NVVM::BlockIdXOp::create(rewriter, loc, i32));
      values.push_back(NVVM::BlockIdYOp::create(rewriter, loc, i32));
      values.push_back(NVVM::BlockIdZOp::create(rewriter, loc, i32));
      printer->call(rewriter, loc,
                    (op.getMessage() + " in program (%d, %d, %d)\n").str(),
                    values);
      LLVM::Trap::create(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.print "x", %v : tensor<4xf32, #l>
///   => per register r of a distinct element, in the thread that owns it:
///      vprintf("pid (%d, %d, %d) idx (%d) x: %f\n",
///              {ctaid.x, .y, .z, coordinate of r, fpext(v_r)})
/// Integers go as i64 (%lld; 0x%llx of their bits with `hex`), floats as
/// double (%f), as C's varargs promote them.
struct PrintOpLowering : public ConvertOpToLLVMPattern<tile::PrintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Printer> printer = Printer::in(op, rewriter, "print");
    if (!printer)
      return failure();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type(),
         f64 = rewriter.getF64Type();
    SmallVector<Value> program = {NVVM::BlockIdXOp::create(rewriter, loc, i32),
                                  NVVM::BlockIdYOp::create(rewriter, loc, i32),
                                  NVVM::BlockIdZOp::create(rewriter, loc, i32)};

    // One line when `when` (null: always).
    auto print = [&](Value when, const std::string &format,
                     ArrayRef<Value> values) {
      OpBuilder::InsertionGuard guard(rewriter);
      if (when) {
        auto ifOp = scf::IfOp::create(rewriter, loc, when, false);
        rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      printer->call(rewriter, loc, format, values);
    };

    std::string pidFormat = "pid (%d, %d, %d) ";
    // The prefix is text: a '%' in it is printed, not a directive.
    std::string prefix;
    for (char c : op.getPrefix())
      prefix += c == '%' ? "%%" : std::string(1, c);
    if (op.getArgs().empty()) {
      FailureOr<Value> owner = ownerPredicate(rewriter, loc, op, i32);
      if (failed(owner))
        return failure();
      print(*owner, pidFormat + prefix + "\n", program);
    }
    for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
      Type type = arg.getType();
      Type elt = getElementTypeOrSelf(type);
      std::string label = prefix;
      if (op.getArgs().size() > 1)
        label += " (operand " + std::to_string(k) + ")";
      bool isFloat = isa<FloatType>(elt);
      std::string valueFormat = isFloat       ? "%f"
                                : op.getHex() ? "0x%llx"
                                              : "%lld";
      FailureOr<Value> owner = ownerPredicate(rewriter, loc, op, type);
      if (failed(owner))
        return failure();
      ValueRange regs = adaptor.getArgs()[k];
      auto widened = [&](Value v) -> Value {
        if (isFloat)
          return v.getType() == f64
                     ? v
                     : LLVM::FPExtOp::create(rewriter, loc, f64, v);
        if (v.getType() == i64)
          return v;
        if (op.getHex() || v.getType().isInteger(1))
          return LLVM::ZExtOp::create(rewriter, loc, i64, v);
        return LLVM::SExtOp::create(rewriter, loc, i64, v);
      };
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor) {
        SmallVector<Value> values(program);
        values.push_back(widened(regs.front()));
        print(*owner, pidFormat + label + ": " + valueFormat + "\n", values);
        continue;
      }
      FailureOr<tile::LinearLayout> layout = getLayout(op, type);
      if (failed(layout))
        return failure();
      std::string format = pidFormat + "idx (";
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        format += d ? ", %d" : "%d";
      format += ") " + label + ": " + valueFormat + "\n";
      ThreadIds ids = getThreadIds(rewriter, loc);
      SmallVector<Value> thread = threadCoord(rewriter, loc, *layout, ids);
      llvm::SmallDenseSet<int64_t> printed;
      for (unsigned r = 0; r < regs.size(); ++r) {
        if (!printed.insert(regKey(*layout, r)).second)
          continue; // another register of this thread holds the element
        SmallVector<Value> values(program);
        llvm::append_range(values,
                           regCoordValues(rewriter, loc, *layout, thread, r));
        values.push_back(widened(regs[r]));
        print(*owner, format, values);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void tilellvm::populateAssertPatterns(LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<AssertOpLowering, PrintOpLowering>(converter);
}
