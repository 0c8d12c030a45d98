//===- ConvertLayoutToLLVM.cpp - Layout conversion through shared memory -===//
//
// tile.convert_layout between layouts that place elements in different
// threads: every thread writes its registers to shared memory, a barrier,
// then every thread reads the elements the new layout gives it. Conversions
// that keep every element in its thread are register renumberings
// (TileToLLVM.cpp) and take precedence.
//
// Rank-2 tiles are staged row-major along the source's contiguous dimension,
// rows padded by 16 bytes (so that the 8 rows an ldmatrix phase or a column
// of 4-byte reads touches fall in different banks), with 16-byte vector
// stores and loads where a thread's registers run along that dimension.
// Conversions to a 16-bit #tile.dot_op layout read with ldmatrix (.trans
// when the tile is staged with K as its rows), four 8x8 matrices per
// instruction. Other tensors go element by element.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"
#include "Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

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
    unsigned slot = state.reserveShared(numel * bytes);
    ThreadIds ids = getThreadIds(rewriter, loc);
    auto addr = [&](const tile::LinearLayout &layout, ArrayRef<Value> thread,
                    unsigned r) {
      SmallVector<Value> c = regCoordValues(rewriter, loc, layout, thread, r);
      Value idx = linearize(rewriter, loc, c, layout.getShape());
      Value off = LLVM::MulOp::create(rewriter, loc, idx,
                                      i32Const(rewriter, loc, bytes));
      return sharedPtr(rewriter, loc, op, off, slot);
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
      Value v =
          LLVM::LoadOp::create(rewriter, loc, mem, addr(*dst, dstThread, r));
      results.push_back(fromStorage(rewriter, loc, v, elt));
    }
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }
  TileToLLVMState &state;
};

struct Rank2ConvertLowering
    : public ConvertOpToLLVMPattern<tile::ConvertLayoutOp> {
  Rank2ConvertLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c, /*benefit=*/2), state(s) {}

  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = op.getSrc().getType(), dstType = op.getType();
    if (srcType.getRank() != 2)
      return failure();
    ValueRange in = adaptor.getSrc();
    Type elt = in[0].getType();
    if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() < 8)
      return failure();
    FailureOr<tile::LinearLayout> src = getLayout(op, srcType);
    FailureOr<tile::LinearLayout> dst = getLayout(op, dstType);
    if (failed(src) || failed(dst))
      return failure();
    int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
    ArrayRef<int64_t> shape = srcType.getShape();
    // Stage along the source's contiguous dimension.
    unsigned contig = 1;
    if (auto b = dyn_cast<tile::BlockedEncodingAttr>(srcType.getEncoding()))
      contig = b.getOrder()[0];
    else if (auto b =
                 dyn_cast<tile::BlockedEncodingAttr>(dstType.getEncoding()))
      contig = b.getOrder()[0];
    SharedTile tile = SharedTile::staging(shape, contig, bytes);
    unsigned slot = state.reserveShared(tile.sizeBytes());

    ThreadIds ids = getThreadIds(rewriter, loc);
    auto ptrAt = [&](ArrayRef<Value> c) {
      return sharedPtr(rewriter, loc, op, tile.offset(rewriter, loc, c), slot);
    };
    barrier(rewriter, loc);
    storeStagedTile(rewriter, loc, in, *src, contig, ids, ptrAt);
    barrier(rewriter, loc);

    SmallVector<Value> results =
        loadStagedTile(rewriter, loc, dstType, *dst, contig, ids, ptrAt);
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  TileToLLVMState &state;
};

} // namespace

SmallVector<Value>
tilellvm::loadStagedTile(OpBuilder &b, Location loc, RankedTensorType type,
                         const tile::LinearLayout &dst, unsigned contig,
                         ThreadIds ids,
                         function_ref<Value(ArrayRef<Value>)> ptrAt) {
  Type elt = type.getElementType();
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  // fp8 values are bytes in LLVM (Fp8ToLLVM.cpp converts them).
  if (tile::isFp8Type(elt))
    elt = b.getI8Type();
  SmallVector<Value> results(dst.getNumRegs());
  auto dotOp = dyn_cast<tile::DotOperandEncodingAttr>(type.getEncoding());
  if (dotOp && bytes == 2 &&
      cast<tile::MmaEncodingAttr>(dotOp.getParent())
          .isPlainOperand(dotOp.getOpIdx()) &&
      type.getDimSize(0) >= 8 && type.getDimSize(1) >= 8 &&
      succeeded(
          loadMatrices(b, loc, elt, dst, dotOp, contig, ids, ptrAt, results)))
    return results;
  unsigned dv = registerRun(dst, contig, 16 / bytes);
  SmallVector<Value> thread = threadCoord(b, loc, dst, ids);
  for (unsigned r = 0; r < dst.getNumRegs(); r += dv) {
    Value ptr = ptrAt(regCoordValues(b, loc, dst, thread, r));
    if (dv == 1) {
      results[r] = LLVM::LoadOp::create(b, loc, elt, ptr);
      continue;
    }
    auto vecTy = VectorType::get({dv}, elt);
    Value v = LLVM::LoadOp::create(b, loc, vecTy, ptr, dv * bytes);
    for (unsigned i = 0; i < dv; ++i)
      results[r + i] =
          LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, i));
  }
  return results;
}

void tilellvm::storeStagedTile(OpBuilder &b, Location loc, ValueRange in,
                               const tile::LinearLayout &src, unsigned dim,
                               ThreadIds ids,
                               function_ref<Value(ArrayRef<Value>)> ptrAt) {
  Type elt = in[0].getType();
  int64_t bytes = elt.getIntOrFloatBitWidth() / 8;
  unsigned run = registerRun(src, dim, 16 / bytes);
  SmallVector<Value> thread = threadCoord(b, loc, src, ids);
  for (unsigned r = 0; r < src.getNumRegs(); r += run) {
    Value ptr = ptrAt(regCoordValues(b, loc, src, thread, r));
    if (run == 1) {
      LLVM::StoreOp::create(b, loc, in[r], ptr);
      continue;
    }
    Value v = LLVM::PoisonOp::create(b, loc, VectorType::get({run}, elt));
    for (unsigned i = 0; i < run; ++i)
      v = LLVM::InsertElementOp::create(b, loc, v, in[r + i],
                                        i32Const(b, loc, i));
    LLVM::StoreOp::create(b, loc, v, ptr, run * bytes);
  }
}

/// Number of a layout's leading registers that are consecutive along `dim`
/// (registers r..r+run-1 hold elements c, c+1, ...), capped at `cap`.
unsigned tilellvm::registerRun(const tile::LinearLayout &l, unsigned dim,
                               unsigned cap) {
  // Both are powers of two: the largest run within the cap.
  return std::min(l.getRegisterRun(dim), std::max(1u, cap));
}

/// Fills `results` (a #tile.dot_op layout `dst`) with ldmatrix.x4/x2/x1.
/// Register pairs (r, r+1) hold consecutive K for (non-K g, K 2t) in lane
/// 4g+t: exactly what ldmatrix gives lane 4g+t of an 8x8 matrix whose rows
/// are non-K (smem rows along K: .trans).
LogicalResult tilellvm::loadMatrices(OpBuilder &rewriter, Location loc,
                                     Type elt, const tile::LinearLayout &dst,
                                     tile::DotOperandEncodingAttr enc,
                                     unsigned contig, ThreadIds ids,
                                     function_ref<Value(ArrayRef<Value>)> ptrAt,
                                     SmallVector<Value> &results) {
  unsigned kDim = enc.getOpIdx() == 0 ? 1 : 0, nkDim = 1 - kDim;
  bool trans = contig != kDim;
  ArrayRef<int64_t> shape = dst.getShape();
  // Sanity: register bit 0 is K+1 and the lanes are (g, 2t).
  tile::Coord kUnit(2, 0);
  kUnit[kDim] = 1;
  if (dst.getRegBases().empty() || dst.getRegBases()[0] != kUnit)
    return failure();
  Value zero = i32Const(rewriter, loc, 0);
  // The warp part of the coordinate (lane 0 of this warp).
  SmallVector<Value> warpPart =
      threadCoord(rewriter, loc, dst, ThreadIds{zero, ids.warp});
  Value j =
      LLVM::LShrOp::create(rewriter, loc, ids.lane, i32Const(rewriter, loc, 3));
  Value i =
      LLVM::AndOp::create(rewriter, loc, ids.lane, i32Const(rewriter, loc, 7));
  Type i32 = rewriter.getI32Type();
  auto pairTy = VectorType::get({2}, elt);
  SmallVector<unsigned> pairs;
  for (unsigned r = 0; r < dst.getNumRegs(); r += 2)
    pairs.push_back(r);
  for (unsigned p0 = 0; p0 < pairs.size();) {
    unsigned num = pairs.size() - p0 >= 4 ? 4 : pairs.size() - p0 >= 2 ? 2 : 1;
    // Lane group j addresses row i of matrix j.
    SmallVector<Value> coord(2);
    for (unsigned d = 0; d < 2; ++d) {
      Value sel;
      for (int m = num - 1; m >= 0; --m) {
        Value c = i32Const(rewriter, loc, dst.regCoord(pairs[p0 + m])[d]);
        if (!sel) {
          sel = c;
          continue;
        }
        Value is = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq,
            LLVM::AndOp::create(rewriter, loc, j,
                                i32Const(rewriter, loc, num - 1)),
            i32Const(rewriter, loc, m));
        sel = LLVM::SelectOp::create(rewriter, loc, is, c, sel);
      }
      Value v = LLVM::AddOp::create(rewriter, loc, sel, warpPart[d]);
      // Row i: along non-K, or along K for .trans.
      if (d == (trans ? kDim : nkDim))
        v = LLVM::AddOp::create(rewriter, loc, v, i);
      // Coordinates past a small dimension wrap (replicated layouts).
      coord[d] = LLVM::AndOp::create(rewriter, loc, v,
                                     i32Const(rewriter, loc, shape[d] - 1));
    }
    Type resTy = num == 1
                     ? i32
                     : LLVM::LLVMStructType::getLiteral(
                           rewriter.getContext(), SmallVector<Type>(num, i32));
    Value res = NVVM::LdMatrixOp::create(
        rewriter, loc, resTy, ptrAt(coord), num,
        trans ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        NVVM::LdStMatrixShapeAttr::get(rewriter.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    for (unsigned m = 0; m < num; ++m) {
      Value word =
          num == 1
              ? res
              : LLVM::ExtractValueOp::create(rewriter, loc, res, m).getResult();
      Value v = LLVM::BitcastOp::create(rewriter, loc, pairTy, word);
      unsigned r = pairs[p0 + m];
      results[r] = LLVM::ExtractElementOp::create(rewriter, loc, v, zero);
      results[r + 1] = LLVM::ExtractElementOp::create(
          rewriter, loc, v, i32Const(rewriter, loc, 1));
    }
    p0 += num;
  }
  return success();
}

void tilellvm::populateConvertLayoutPatterns(LLVMTypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             TileToLLVMState &state) {
  patterns.add<ConvertLayoutOpLowering, Rank2ConvertLowering>(converter, state);
}

/// True if `op` neither writes memory nor synchronizes.
static bool writesNothing(Operation *op) {
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
    return !asmOp.getHasSideEffects();
  if (isa<NVVM::LdMatrixOp>(op))
    return true;
  if (op->getNumRegions() != 0)
    return false;
  if (auto mem = dyn_cast<MemoryEffectOpInterface>(op))
    return !mem.hasEffect<MemoryEffects::Write>() &&
           !mem.hasEffect<MemoryEffects::Free>();
  return isPure(op);
}

void tilellvm::sinkMatrixLoads(Operation *root) {
  SmallVector<NVVM::LdMatrixOp> loads;
  root->walk([&](NVVM::LdMatrixOp ld) { loads.push_back(ld); });
  for (NVVM::LdMatrixOp ld : loads) {
    Block *block = ld->getBlock();
    // The load and the unpacking of its words.
    llvm::SetVector<Operation *> closure;
    closure.insert(ld);
    for (unsigned i = 0; i < closure.size(); ++i)
      for (Operation *user : closure[i]->getUsers())
        if (user->getBlock() == block &&
            isa<LLVM::ExtractValueOp, LLVM::BitcastOp, LLVM::ExtractElementOp>(
                user))
          closure.insert(user);
    Operation *first = nullptr;
    for (Operation *op : closure)
      for (Operation *user : op->getUsers()) {
        Operation *anc = block->findAncestorOpInBlock(*user);
        if (!anc || closure.contains(anc))
          continue;
        if (!first || anc->isBeforeInBlock(first))
          first = anc;
      }
    if (!first || !ld->isBeforeInBlock(first))
      continue;
    bool safe = true;
    for (Operation *it = ld->getNextNode(); it && it != first;
         it = it->getNextNode())
      if (!closure.contains(it) && !writesNothing(it)) {
        safe = false;
        break;
      }
    if (!safe)
      continue;
    SmallVector<Operation *> ordered(closure.begin(), closure.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : ordered)
      op->moveBefore(first);
  }
}
