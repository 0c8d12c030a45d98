//===- TileOps.cpp - Tile dialect operations ------------------------------===//
//
// Verifiers and helpers of the tile ops. Each verifier message names the
// relation that failed and the values involved; test/Dialect/Tile/invalid.mlir
// has one case per message.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::quire::tile;

Type mlir::quire::tile::getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (auto ptr = dyn_cast<PointerType>(tensor.getElementType()))
      return tensor.clone(ptr.getPointeeType());
    return type;
  }
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return type;
}

Type mlir::quire::tile::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

void mlir::quire::tile::setThreadOffset(Operation *op, int64_t offset) {
  Builder b(op->getContext());
  NamedAttribute tag = b.getNamedAttr(TileDialect::getThreadOffsetAttrName(),
                                      b.getI32IntegerAttr(offset));
  op->setAttr(tag.getName(), tag.getValue());
  op->setLoc(FusedLoc::get(op->getContext(), {op->getLoc()},
                           b.getDictionaryAttr(tag)));
}

int64_t mlir::quire::tile::threadOffsetOf(Location loc) {
  int64_t offset = 0;
  loc->walk([&](Location l) {
    auto fused = dyn_cast<FusedLoc>(l);
    if (auto tag = fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata())
                         : DictionaryAttr())
      if (auto value =
              tag.getAs<IntegerAttr>(TileDialect::getThreadOffsetAttrName()))
        offset = value.getInt();
    return offset ? WalkResult::interrupt() : WalkResult::advance();
  });
  return offset;
}

bool mlir::quire::tile::isKernel(func::FuncOp func) {
  return func->hasAttr(TileDialect::getKernelAttrName());
}

LogicalResult mlir::quire::tile::verifyTensorShapes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<ShapedType>(type);
    if (!tensor || !tensor.hasRank())
      return success();
    if (!tensor.hasStaticShape())
      return op->emitOpError() << kind << " #" << index
                               << " must have a static shape, got " << type;
    if (llvm::is_contained(tensor.getShape(), 0))
      return op->emitOpError()
             << kind << " #" << index
             << " must not have a zero-size dimension, got " << type;
    return success();
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(check(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(check(type, "result", i)))
      return failure();
  return success();
}

/// Prints a shape as `64x128` for messages.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

//===----------------------------------------------------------------------===//
// RangeOp
//===----------------------------------------------------------------------===//

LogicalResult RangeOp::verify() {
  // I32Attr getters are unsigned: read the signed value.
  int64_t start = getStartAttr().getInt(), end = getEndAttr().getInt();
  if (end <= start)
    return emitOpError() << "end (" << end << ") must be greater than start ("
                         << start << ")";
  RankedTensorType type = getResult().getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be a 1-D tensor, got rank "
                         << type.getRank();
  if (type.getDimSize(0) != end - start)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range " << start << ".." << end
                         << " has " << end - start;
  return success();
}

//===----------------------------------------------------------------------===//
// SplatOp, BroadcastOp, ExpandDimsOp, TransOp
//===----------------------------------------------------------------------===//

LogicalResult SplatOp::verify() {
  auto type = cast<RankedTensorType>(getResult().getType());
  if (type.getElementType() != getSrc().getType())
    return emitOpError() << "result element type " << type.getElementType()
                         << " does not match source type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "result element type " << dst.getElementType()
                         << " does not match source element type "
                         << src.getElementType();
  if (src.getRank() != dst.getRank())
    return emitOpError() << "source rank " << src.getRank()
                         << " does not match result rank " << dst.getRank()
                         << " (use tile.expand_dims to add dimensions)";
  for (int64_t i = 0; i < src.getRank(); ++i)
    if (src.getDimSize(i) != dst.getDimSize(i) && src.getDimSize(i) != 1)
      return emitOpError() << "cannot broadcast dimension " << i << " of size "
                           << src.getDimSize(i) << " to " << dst.getDimSize(i)
                           << " (only size-1 dimensions broadcast)";
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getResult().getType());
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, "
                         << src.getRank() << "]";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (dst.getElementType() != src.getElementType() ||
      dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result type " << dst << " does not match "
                         << RankedTensorType::get(expected,
                                                  src.getElementType())
                         << " (source with a size-1 dimension at axis " << axis
                         << ")";
  return success();
}

SmallVector<int32_t> TransOp::getPermutation() {
  if (std::optional<ArrayRef<int32_t>> order = getOrder())
    return SmallVector<int32_t>(*order);
  int32_t rank = cast<RankedTensorType>(getSrc().getType()).getRank();
  SmallVector<int32_t> perm;
  for (int32_t i = rank - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

LogicalResult TransOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getResult().getType());
  SmallVector<int32_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != src.getRank())
    return emitOpError() << "order has " << perm.size()
                         << " entries but the source has rank "
                         << src.getRank();
  SmallVector<bool> seen(perm.size(), false);
  for (int32_t p : perm) {
    if (p < 0 || p >= src.getRank() || seen[p])
      return emitOpError() << "order must be a permutation of 0.."
                           << src.getRank() - 1;
    seen[p] = true;
  }
  SmallVector<int64_t> expected;
  for (int32_t p : perm)
    expected.push_back(src.getDimSize(p));
  if (dst.getElementType() != src.getElementType() ||
      dst.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "result type " << dst << " does not match "
                         << RankedTensorType::get(expected,
                                                  src.getElementType())
                         << " (source permuted by the order)";
  return success();
}

//===----------------------------------------------------------------------===//
// AddPtrOp, LoadOp, StoreOp
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  auto ptrTensor = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTensor = dyn_cast<RankedTensorType>(getOffset().getType());
  if (!ptrTensor != !offTensor)
    return emitOpError() << "ptr and offset must both be scalars or both be "
                            "tensors, got "
                         << getPtr().getType() << " and "
                         << getOffset().getType();
  if (ptrTensor && ptrTensor.getShape() != offTensor.getShape())
    return emitOpError() << "offset shape " << shapeStr(offTensor.getShape())
                         << " does not match ptr shape "
                         << shapeStr(ptrTensor.getShape());
  return success();
}

void LoadOp::build(OpBuilder &builder, OperationState &state, Value ptr,
                   Value mask, Value other) {
  build(builder, state, getPointeeType(ptr.getType()), ptr, mask, other);
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' requires a 'mask'";
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicRMWOp, AtomicCASOp
//===----------------------------------------------------------------------===//

/// 32- or 64-bit integers and floats: what the GPU's atom instructions take.
static LogicalResult checkAtomicElement(Operation *op, Type elt) {
  unsigned bits = elt.isIntOrFloat() ? elt.getIntOrFloatBitWidth() : 0;
  if ((isa<IntegerType>(elt) || elt.isF32() || elt.isF64()) &&
      (bits == 32 || bits == 64))
    return success();
  return op->emitOpError() << "element type " << elt
                           << " is not supported: atomics take 32- or 64-bit "
                              "integers and f32/f64";
}

LogicalResult AtomicRMWOp::verify() {
  Type elt = getElementTypeOrSelf(getVal().getType());
  if (failed(checkAtomicElement(*this, elt)))
    return failure();
  bool isFloat = isa<FloatType>(elt);
  switch (getKind()) {
  case AtomicKind::Add:
  case AtomicKind::Xchg:
    return success();
  case AtomicKind::Max:
  case AtomicKind::Min:
    if (isFloat && !elt.isF32())
      return emitOpError() << stringifyAtomicKind(getKind())
                           << " of floats takes f32, got " << elt;
    return success();
  default:
    if (isFloat)
      return emitOpError() << stringifyAtomicKind(getKind())
                           << " takes integers, got " << elt;
    return success();
  }
}

LogicalResult AtomicCASOp::verify() {
  return checkAtomicElement(*this, getElementTypeOrSelf(getVal().getType()));
}

//===----------------------------------------------------------------------===//
// DotOp, ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError() << "operands must be 2-D tensors, got ranks "
                         << a.getRank() << ", " << b.getRank() << " and "
                         << c.getRank();
  if (a.getDimSize(1) != b.getDimSize(0))
    return emitOpError() << "contraction sizes differ: a is "
                         << shapeStr(a.getShape()) << " and b is "
                         << shapeStr(b.getShape());
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != b.getDimSize(1))
    return emitOpError() << "accumulator shape " << shapeStr(c.getShape())
                         << " must be " << a.getDimSize(0) << "x"
                         << b.getDimSize(1);
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "a and b element types differ: "
                         << a.getElementType() << " vs " << b.getElementType();
  if (a.getElementType().isF64() ||
      a.getElementType().getIntOrFloatBitWidth() < 16)
    return emitOpError() << "operand element type must be f16, bf16 or f32, "
                         << "got " << a.getElementType()
                         << " (convert fp8 operands with arith.extf first)";
  if (!c.getElementType().isF32())
    return emitOpError() << "accumulator element type must be f32, got "
                         << c.getElementType();
  return success();
}

namespace {
/// x + dot(a, b, 0) => dot(a, b, x), the dot used only there.
struct AddIntoDot : public OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).getDefiningOp<DotOp>();
      Value x = add->getOperand(1 - i);
      // (In the add's block: the dot is rebuilt at the add, and must not
      // move into a loop.)
      if (!dot || !dot->hasOneUse() || x.getType() != dot.getType() ||
          dot->getBlock() != add->getBlock() ||
          !matchPattern(dot.getC(), m_AnyZeroFloat()))
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getType(), dot.getA(),
                                         dot.getB(), x);
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};
} // namespace

void DotOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AddIntoDot>(context);
}

LogicalResult MakeDescriptorOp::verify() {
  RankedTensorType block = getResult().getType().getBlockType();
  int64_t rank = block.getRank();
  if (int64_t(getShape().size()) != rank ||
      int64_t(getStrides().size()) != rank)
    return emitOpError() << "needs one shape and one stride per dimension of "
                         << block << ", got " << getShape().size() << " and "
                         << getStrides().size();
  Type pointee = cast<PointerType>(getBase().getType()).getPointeeType();
  if (pointee != block.getElementType())
    return emitOpError() << "base points to " << pointee << ", the block holds "
                         << block.getElementType();
  if (getTensormap()) {
    // What tile.tma_copy (2-D) and tile.tma_copy_pages (a 4-D cache's
    // [1, R, 1, D] boxes) stage: the swizzled wgmma layout of 16-bit rows,
    // one TMA box (at most 256 rows) per column of up to 128 bytes. The
    // rows run along at most one dimension before the last.
    Type elt = block.getElementType();
    ArrayRef<int64_t> lead = block.getShape().drop_back();
    int64_t rows = 1, long_ = 0;
    for (int64_t d : lead) {
      rows *= d;
      long_ += d > 1;
    }
    if (long_ > 1 || elt.getIntOrFloatBitWidth() != 16 || rows > 256 ||
        block.getShape().back() * 2 < 32)
      return emitOpError()
             << "a tensor map needs a block of 16-bit elements, its rows "
                "along one dimension before the last (at most 256) and at "
                "least 16 columns, got "
             << block;
    if (getNanPadding())
      return emitOpError() << "a tensor map reads zero padding, not NaN";
  }
  return success();
}

/// The descriptor's block type, checked against `offsets`; fails (with a
/// located error) when the descriptor is not made in this kernel.
static FailureOr<RankedTensorType>
verifyDescriptorAccess(Operation *op, Value desc, ValueRange offsets) {
  RankedTensorType block = cast<TensorDescType>(desc.getType()).getBlockType();
  if (int64_t(offsets.size()) != block.getRank())
    return op->emitOpError()
           << "needs " << block.getRank() << " offsets, one per dimension, got "
           << offsets.size();
  if (!desc.getDefiningOp<MakeDescriptorOp>())
    return op->emitOpError() << "descriptor must be made by "
                                "'tile.make_descriptor' in this kernel";
  return block;
}

LogicalResult DescriptorLoadOp::verify() {
  FailureOr<RankedTensorType> block =
      verifyDescriptorAccess(*this, getDesc(), getOffsets());
  if (failed(block))
    return failure();
  if (getResult().getType() != *block)
    return emitOpError() << "result type " << getResult().getType()
                         << " must be the descriptor's block " << *block;
  return success();
}

LogicalResult DescriptorStoreOp::verify() {
  FailureOr<RankedTensorType> block =
      verifyDescriptorAccess(*this, getDesc(), getOffsets());
  if (failed(block))
    return failure();
  if (getValue().getType() != *block)
    return emitOpError() << "value type " << getValue().getType()
                         << " must be the descriptor's block " << *block;
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  if (getKind() == ReduceKind::Xor && !isa<IntegerType>(src.getElementType()))
    return emitOpError() << "xor reduces integers, got " << src;
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, "
                         << src.getRank() - 1 << "]";
  Type expected = src.getElementType();
  if (src.getRank() > 1) {
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    expected = RankedTensorType::get(shape, src.getElementType());
  }
  // Compare shape and element type: layouts (encodings) may differ.
  auto resultTensor = dyn_cast<RankedTensorType>(getResult().getType());
  auto expectedTensor = dyn_cast<RankedTensorType>(expected);
  bool matches =
      resultTensor && expectedTensor
          ? resultTensor.getShape() == expectedTensor.getShape() &&
                resultTensor.getElementType() == expectedTensor.getElementType()
          : getResult().getType() == expected;
  if (!matches)
    return emitOpError() << "result type " << getResult().getType()
                         << " must be " << expected
                         << " (the source without dimension " << axis << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getResult().getType());
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError() << "source " << src << " and result " << dst
                         << " must differ in layout only";
  return success();
}

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  for (auto [i, arg] : llvm::enumerate(getArgs())) {
    Type elt = getElementTypeOrSelf(arg.getType());
    bool tensor = isa<RankedTensorType>(arg.getType());
    bool integer = isa<IntegerType>(elt) && elt.getIntOrFloatBitWidth() <= 64;
    bool floating = elt.isF16() || elt.isBF16() || elt.isF32() || elt.isF64();
    if ((!tensor && arg.getType() != elt) || !(integer || floating))
      return emitOpError() << "operand #" << i
                           << " must be an integer (up to 64 bits) or f16, "
                              "bf16, f32 or f64 scalar or tensor, got "
                           << arg.getType();
    if (getHex() && !isa<IntegerType>(elt))
      return emitOpError() << "hex prints integers; operand #" << i << " is "
                           << arg.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AssertOp
//===----------------------------------------------------------------------===//

LogicalResult AssertOp::verify() {
  // The message reaches vprintf as a format: each directive must match an
  // i32 argument, or the device would read garbage off the argument buffer.
  StringRef message = getMessage();
  unsigned directives = 0;
  for (size_t i = 0; i < message.size(); ++i) {
    if (message[i] != '%')
      continue;
    if (i + 1 < message.size() && message[i + 1] == '%') {
      ++i;
      continue;
    }
    if (i + 1 < message.size() && message[i + 1] == 'd') {
      ++directives;
      ++i;
      continue;
    }
    return emitOpError() << "message may only use %d and %%, got '"
                         << message.substr(i, 2) << "' at offset " << i;
  }
  if (directives != getArgs().size())
    return emitOpError() << "message has " << directives
                         << " %d directive(s) but " << getArgs().size()
                         << " argument(s) were given";
  auto cond = dyn_cast<RankedTensorType>(getCond().getType());
  for (auto [i, arg] : llvm::enumerate(getArgs())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!cond != !type || (cond && (type.getShape() != cond.getShape() ||
                                    type.getEncoding() != cond.getEncoding())))
      return emitOpError() << "argument #" << i << " must be i32 shaped like "
                           << "cond (" << getCond().getType() << "), got "
                           << arg.getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// PagedLoadOp
//===----------------------------------------------------------------------===//

LogicalResult PagedLoadOp::verify() {
  int64_t pageSize = getPageSizeAttr().getInt();
  if (pageSize <= 0)
    return emitOpError() << "page_size must be positive, got " << pageSize;
  RankedTensorType type = getResult().getType();
  if (type.getRank() != 2)
    return emitOpError() << "result must be a 2-D tile (tokens x head_dim), "
                            "got rank "
                         << type.getRank();
  if (auto cols = getColsAttr()) {
    int64_t c = cols.getInt(), width = type.getDimSize(1);
    if (c <= 0 || c > width)
      return emitOpError() << "cols must be in [1, " << width
                           << "] (the tile width), got " << c;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

/// What async_copy and async_local_load share: a 2-D staged tile, a valid
/// contiguous dimension and stage count, a buffer id.
static LogicalResult verifyStaging(Operation *op, ArrayRef<int64_t> shape,
                                   int32_t buffer, int32_t contig,
                                   int32_t stages) {
  if (shape.size() != 2)
    return op->emitOpError() << "stages 2-D tiles, got rank " << shape.size();
  if (buffer < 0)
    return op->emitOpError() << "buffer must be >= 0, got " << buffer;
  if (contig != 0 && contig != 1)
    return op->emitOpError() << "contig must be 0 or 1, got " << contig;
  if (stages < 1)
    return op->emitOpError() << "stages must be >= 1, got " << stages;
  return success();
}

SmallVector<int64_t> AsyncCopyOp::getStagedShape() {
  SmallVector<int64_t> shape(getPtrs().getType().getShape());
  if (getTransposed())
    std::reverse(shape.begin(), shape.end());
  return shape;
}

/// The swizzled (`nvmma`) staging: 16-bit elements, rows of 32 bytes or
/// more along the contiguous dimension, at least 8 rows.
static LogicalResult verifyNvmma(Operation *op, ArrayRef<int64_t> shape,
                                 Type elt, int64_t contig) {
  if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() != 16)
    return op->emitOpError()
           << "nvmma staging needs 16-bit elements, got " << elt;
  if (shape.size() != 2 || shape[contig] * 2 < 32 || shape[1 - contig] < 8)
    return op->emitOpError()
           << "nvmma staging needs at least 16 elements along the contiguous "
              "dimension and 8 along the other, got "
           << shapeStr(shape);
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  if (Value mask = getMask()) {
    auto ptrs = getPtrs().getType();
    if (mask.getType() != ptrs.clone(IntegerType::get(getContext(), 1)))
      return emitOpError() << "mask type " << mask.getType()
                           << " must have the shape and layout of ptrs "
                           << ptrs;
  }
  if (failed(verifyStaging(*this, getStagedShape(), getBuffer(), getContig(),
                           getStages())))
    return failure();
  if (getNvmma())
    return verifyNvmma(*this, getStagedShape(),
                       cast<PointerType>(getPtrs().getType().getElementType())
                           .getPointeeType(),
                       getContig());
  return success();
}

LogicalResult AsyncWaitOp::verify() {
  int64_t pending = getPendingAttr().getInt(); // signed; getPending() is not
  if (pending < 0)
    return emitOpError() << "pending must be >= 0, got " << pending;
  return success();
}

SmallVector<int64_t> LocalStoreOp::getStagedShape() {
  SmallVector<int64_t> shape(getValue().getType().getShape());
  if (getTransposed())
    std::reverse(shape.begin(), shape.end());
  return shape;
}

LogicalResult LocalStoreOp::verify() {
  if (failed(verifyStaging(*this, getStagedShape(), getBuffer(), getContig(),
                           getStages())))
    return failure();
  if (getNvmma())
    return verifyNvmma(*this, getStagedShape(),
                       getValue().getType().getElementType(), getContig());
  return success();
}

LogicalResult TensorMapBlockOp::verify() {
  if (getPtrs().getType().getRank() != 2 || getOffsets().size() != 2)
    return emitOpError() << "needs a 2-D block and 2 offsets, got "
                         << getPtrs().getType() << " and "
                         << getOffsets().size() << " offsets";
  return success();
}

static LogicalResult verifyTmaBuffer(Operation *op, int32_t buffer,
                                     int32_t stages) {
  if (buffer < 0)
    return op->emitOpError() << "buffer must be >= 0, got " << buffer;
  if (stages < 1)
    return op->emitOpError() << "stages must be >= 1, got " << stages;
  return success();
}

LogicalResult TmaInitOp::verify() {
  // An mbarrier counts at most 2^20 - 1 arrivals; a CTA has at most 1024
  // threads.
  if (getArrivals() < 1 || getArrivals() > 1024)
    return emitOpError() << "arrivals must be in [1, 1024], got "
                         << getArrivals();
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult AsyncArriveOp::verify() {
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult TmaInvalOp::verify() {
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult TmaWaitOp::verify() {
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult TmaReleaseOp::verify() {
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult TmaAcquireOp::verify() {
  return verifyTmaBuffer(*this, getBuffer(), getStages());
}

LogicalResult SetMaxRegistersOp::verify() {
  uint32_t count = getCount();
  if (count < 24 || count > 256 || count % 8 != 0)
    return emitOpError() << "count must be a multiple of 8 in [24, 256], got "
                         << count;
  return success();
}

/// The block's shape, reversed when `transposed` (empty if not a tensor).
static SmallVector<int64_t> stagedShapeOf(Type blockType, bool transposed) {
  auto block = dyn_cast<RankedTensorType>(blockType);
  SmallVector<int64_t> shape(block ? block.getShape() : ArrayRef<int64_t>());
  if (transposed)
    std::reverse(shape.begin(), shape.end());
  return shape;
}

SmallVector<int64_t> TmaCopyOp::getStagedShape() {
  return stagedShapeOf(getBlock(), getTransposed());
}

SmallVector<int64_t> TmaCopyPagesOp::getStagedShape() {
  return stagedShapeOf(getBlock(), getTransposed());
}

SmallVector<int64_t> TmaZeroRowsOp::getStagedShape() {
  return stagedShapeOf(getBlock(), getTransposed());
}

/// What the TMA staging ops share: a static 2-D block of 16-bit elements
/// staged swizzled, its last dimension the contiguous one, at most `maxRows`
/// rows to a box.
static LogicalResult verifyTmaBlock(Operation *op, Type blockType,
                                    ArrayRef<int64_t> staged, bool transposed,
                                    int32_t buffer, int32_t contig,
                                    int32_t stages, int64_t boxRows) {
  auto block = dyn_cast<RankedTensorType>(blockType);
  if (!block || block.getRank() != 2 || !block.hasStaticShape())
    return op->emitOpError()
           << "block must be a 2-D tensor type, got " << blockType;
  if (failed(verifyStaging(op, staged, buffer, contig, stages)))
    return failure();
  // The block's last dimension is the one TMA writes contiguously.
  int32_t last = transposed ? 0 : 1;
  if (contig != last)
    return op->emitOpError()
           << "contig must be " << last << " (the block's last dimension"
           << (transposed ? ", transposed" : "") << "), got " << contig;
  if (boxRows > 256)
    return op->emitOpError()
           << "a TMA box has at most 256 rows, got " << boxRows;
  return verifyNvmma(op, staged, block.getElementType(), contig);
}

LogicalResult TmaCopyOp::verify() {
  auto block = dyn_cast<RankedTensorType>(getBlock());
  if (block && getOffsets().size() != 2)
    return emitOpError() << "needs 2 offsets, got " << getOffsets().size();
  return verifyTmaBlock(*this, getBlock(), getStagedShape(), getTransposed(),
                        getBuffer(), getContig(), getStages(),
                        block && block.getRank() == 2 ? block.getDimSize(0)
                                                      : 0);
}

bool mlir::quire::tile::tmaPagesFit(int64_t rows, int64_t cols, int64_t bits,
                                    int64_t pageSize) {
  if (bits != 16 || pageSize <= 0 || cols * 2 < 32)
    return false;
  int64_t box = std::min(pageSize, rows);
  int64_t line = std::min<int64_t>(128, cols * 2);
  return rows % box == 0 && pageSize % box == 0 && box <= 256 &&
         box * line % 1024 == 0;
}

/// A page size, and a tile of `rows` token rows made of whole boxes of
/// min(page_size, rows) tokens.
static LogicalResult verifyPages(Operation *op, int64_t pageSize,
                                 int64_t rows) {
  if (pageSize <= 0)
    return op->emitOpError() << "page_size must be positive, got " << pageSize;
  int64_t box = std::min(pageSize, rows);
  if (rows % box != 0 || pageSize % box != 0)
    return op->emitOpError()
           << "the tile's " << rows << " rows and page_size " << pageSize
           << " must be multiples of the box, min of the two";
  return success();
}

LogicalResult TmaCopyPagesOp::verify() {
  auto block = dyn_cast<RankedTensorType>(getBlock());
  if (failed(verifyTmaBlock(*this, getBlock(), getStagedShape(),
                            getTransposed(), getBuffer(), getContig(),
                            getStages(), 0)))
    return failure();
  if (failed(verifyPages(*this, getPageSize(), block.getDimSize(0))))
    return failure();
  if (getBoxRows() > 256)
    return emitOpError() << "a TMA box has at most 256 rows, got "
                         << getBoxRows();
  if (!tmaPagesFit(block.getDimSize(0), block.getDimSize(1),
                   block.getElementType().getIntOrFloatBitWidth(),
                   getPageSize()))
    return emitOpError() << "a box of " << getBoxRows()
                         << " rows must fill whole 1024-byte swizzle periods "
                            "of the staged tile";
  return success();
}

LogicalResult TmaZeroRowsOp::verify() {
  return verifyTmaBlock(*this, getBlock(), getStagedShape(), getTransposed(),
                        getBuffer(), getContig(), getStages(), 0);
}

LogicalResult TensorMapPagesOp::verify() {
  RankedTensorType type = getPtrs().getType();
  if (type.getRank() != 2)
    return emitOpError() << "needs a 2-D tile (tokens x head_dim), got "
                         << type;
  return verifyPages(*this, getPageSize(), type.getDimSize(0));
}

LogicalResult AsyncLocalLoadOp::verify() {
  return verifyStaging(*this, getResult().getType().getShape(), getBuffer(),
                       getContig(), getStages());
}

bool mlir::quire::tile::isWarpgroupShape(int64_t m, int64_t n, int64_t k,
                                         int64_t warps) {
  return warps > 0 && warps % 4 == 0 && m % (16 * warps) == 0 && n % 8 == 0 &&
         n <= 256 && k > 0 && k % 16 == 0;
}

SmallVector<int64_t> WarpgroupDotOp::getAShape() {
  return {getC().getType().getDimSize(0), getKAttr().getInt()};
}

SmallVector<int64_t> WarpgroupDotOp::getBShape() {
  return {getKAttr().getInt(), getC().getType().getDimSize(1)};
}

LogicalResult WarpgroupDotOp::verify() {
  RankedTensorType c = getC().getType();
  if (getD().getType() != c)
    return emitOpError() << "result type " << getD().getType()
                         << " must be the accumulator's " << c;
  if (c.getRank() != 2 || !c.getElementType().isF32())
    return emitOpError() << "accumulator must be a 2-D f32 tensor, got " << c;
  auto mma = dyn_cast_or_null<MmaEncodingAttr>(c.getEncoding());
  if (!mma || mma.getWarpsPerCTA()[1] != 1 || mma.getWarpsPerCTA()[0] % 4 ||
      !mma.isPlain())
    return emitOpError() << "accumulator layout must be #tile.mma with "
                            "warpsPerCTA [4k, 1] (no kWidth or nWidth), got "
                         << c.getEncoding();
  Type elt = getOperandType();
  if (!elt.isF16() && !elt.isBF16())
    return emitOpError() << "operand type must be f16 or bf16, got " << elt;
  int64_t M = c.getDimSize(0), N = c.getDimSize(1), K = getKAttr().getInt();
  int64_t wm = mma.getWarpsPerCTA()[0];
  if (!isWarpgroupShape(M, N, K, wm))
    return emitOpError() << "shape " << M << "x" << N << "x" << K
                         << " not supported: M a multiple of " << 16 * wm
                         << ", N a multiple of 8 up to 256, K of 16";
  if (bool(getA()) == bool(getAStage()))
    return emitOpError() << "needs exactly one of a (registers) and a_stage";
  if (getAStagesAttr() && getA())
    return emitOpError() << "a_stages is for a staged A, not registers";
  if (getAStagesAttr() && getAStagesAttr().getInt() < 1)
    return emitOpError() << "a_stages must be >= 1, got "
                         << getAStagesAttr().getInt();
  int64_t aStages =
      getAStagesAttr() ? getAStagesAttr().getInt() : int64_t(getStages());
  if (getA()) {
    RankedTensorType a = getA().getType();
    auto op = dyn_cast_or_null<DotOperandEncodingAttr>(a.getEncoding());
    if (a.getShape() != ArrayRef<int64_t>(getAShape()) ||
        a.getElementType() != elt || !op || op.getOpIdx() != 0 ||
        op.getParent() != mma)
      return emitOpError() << "a must be "
                           << RankedTensorType::get(getAShape(), elt)
                           << " in the opIdx 0 #tile.dot_op layout of the "
                              "accumulator's, got "
                           << a;
  } else {
    if (!getABuffer() || !getAContig())
      return emitOpError() << "a staged A needs a_buffer and a_contig";
    if (failed(verifyStaging(*this, getAShape(), *getABuffer(), *getAContig(),
                             aStages)) ||
        failed(verifyNvmma(*this, getAShape(), elt, *getAContig())))
      return failure();
  }
  if (failed(verifyStaging(*this, getBShape(), getBBuffer(), getBContig(),
                           getStages())))
    return failure();
  if (getAsync())
    for (Operation *user : getD().getUsers())
      if (!isa<WarpgroupWaitOp>(user))
        return emitOpError() << "result of an async dot is in flight: only "
                                "'tile.warpgroup_wait' may use it, not '"
                             << user->getName() << "'";
  return verifyNvmma(*this, getBShape(), elt, getBContig());
}

LogicalResult WarpgroupWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr attributes, OpaqueProperties properties, RegionRange regions,
    SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  llvm::append_range(inferred, adaptor.getInputs().getTypes());
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one accumulator";
  int64_t pending = getPendingAttr().getInt(); // signed; getPending() is not
  if (pending < 0)
    return emitOpError() << "pending must be >= 0, got " << pending;
  if (Value after = getAfter();
      after && !getElementTypeOrSelf(after.getType()).isF32())
    return emitOpError() << "'after' must be an f32 value or a tensor of "
                            "f32, got "
                         << after.getType();
  for (Value v : getInputs()) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 2 || !t.getElementType().isF32() ||
        !isa_and_nonnull<MmaEncodingAttr>(t.getEncoding()))
      return emitOpError() << "operands must be wgmma accumulators (2-D f32 "
                              "tensors in a #tile.mma layout), got "
                           << t;
  }
  if (pending == 0 || getOlder())
    return success();
  // Results of groups that may still run are carried, never read.
  for (Value r : getOutputs())
    for (OpOperand &use : r.getUses()) {
      Operation *user = use.getOwner();
      auto dot = dyn_cast<WarpgroupDotOp>(user);
      // (scf.yield carries it to the next iteration; other terminators,
      // a return among them, would hand it on unretired.)
      if (isa<WarpgroupWaitOp>(user) ||
          user->getName().getStringRef() == "scf.yield" ||
          (dot && dot.getAsync() && use.get() == dot.getC()))
        continue;
      return emitOpError() << "with pending " << pending
                           << " its results may still be written: only "
                              "scf.yield, a wait or an async dot's acc may "
                              "use them, not '"
                           << user->getName() << "'";
    }
  return success();
}

#define GET_OP_CLASSES
#include "quire/Dialect/Tile/IR/TileOps.cpp.inc"
