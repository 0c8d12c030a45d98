//===- ConvertLayoutToLLVM.cpp - Layout conversion through shared memory -===//
//
// tile.convert_layout between layouts that place elements in different
// threads: every thread writes its registers to shared memory at the
// element's row-major index, a barrier, then every thread reads the elements
// the new layout gives it. Conversions that keep every element in its thread
// are register renumberings (TileToLLVM.cpp) and take precedence.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// %b = tile.convert_layout %a : tensor<64xf32, #l0> -> tensor<64xf32, #l1>
///   => barrier; st.shared [index(#l0, r)] = a_r; barrier;
///      b_r = ld.shared [index(#l1, r)]
struct ConvertLayoutOpLowering
    : public ConvertOpToLLVMPattern<tile::ConvertLayoutOp> {
  ConvertLayoutOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c, /*benefit=*/1), state(s) {}

  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<tile::LinearLayout> src = getLayout(op, op.getSrc().getType());
    FailureOr<tile::LinearLayout> dst = getLayout(op, op.getType());
    if (failed(src) || failed(dst))
      return failure();
    ValueRange in = adaptor.getSrc();
    Type elt = in[0].getType();
    Type mem = storageType(elt);
    int64_t bytes = std::max<int64_t>(1, mem.getIntOrFloatBitWidth() / 8);
    int64_t numel = 1;
    for (int64_t d : src->getShape())
      numel *= d;
    state.sharedBytes = std::max(state.sharedBytes, numel * bytes);
    ThreadIds ids = getThreadIds(rewriter, loc);
    auto addr = [&](const tile::LinearLayout &layout, ArrayRef<Value> thread,
                    unsigned r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, layout, thread, r);
      Value idx = linearize(rewriter, loc, c, layout.getShape());
      Value off = LLVM::MulOp::create(rewriter, loc, idx, i32Const(rewriter, loc, bytes));
      return sharedPtr(rewriter, loc, op, off);
    };
    barrier(rewriter, loc);
    SmallVector<Value> srcThread = threadCoord(rewriter, loc, *src, ids);
    for (unsigned r = 0; r < src->getNumRegs(); ++r)
      LLVM::StoreOp::create(rewriter, loc, toStorage(rewriter, loc, in[r]),
                            addr(*src, srcThread, r));
    barrier(rewriter, loc);
    SmallVector<Value> dstThread = threadCoord(rewriter, loc, *dst, ids);
    SmallVector<Value> results;
    for (unsigned r = 0; r < dst->getNumRegs(); ++r) {
      Value v = LLVM::LoadOp::create(rewriter, loc, mem, addr(*dst, dstThread, r));
      results.push_back(fromStorage(rewriter, loc, v, elt));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

void tilellvm::populateConvertLayoutPatterns(LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   TileToLLVMState &state) {
  patterns.add<ConvertLayoutOpLowering>(converter, state);
}
