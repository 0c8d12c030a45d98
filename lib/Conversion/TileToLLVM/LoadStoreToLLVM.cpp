//===- LoadStoreToLLVM.cpp - Global loads and stores ----------------------===//
//
// A thread's registers of a pointer tensor are grouped into runs of `vec`
// consecutive elements when the layout keeps them in consecutive registers
// and AxisInfo proves the addresses contiguous, aligned and the mask uniform
// over the run; each run becomes one vector access of up to 16 bytes.
// Masked accesses are predicated PTX (Triton's scheme): lanes whose mask is
// false issue no memory transaction and read `other`.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "quire/Analysis/AxisInfo.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// How `vec` elements of `bits` each travel through PTX registers.
struct Packing {
  unsigned words;    // number of PTX registers
  unsigned wordBits; // 16, 32 or 64
  unsigned perWord;  // elements per register
  unsigned memBits;  // bits the access moves per register (8 for one byte
                     // in a 16-bit register)
};
Packing packing(unsigned vec, unsigned bits) {
  unsigned total = vec * bits;
  if (bits == 64) // one 64-bit register (`l`) per element
    return {vec, 64, 1, 64};
  if (total >= 32)
    return {total / 32, 32, 32 / bits, 32};
  return {1, total <= 16 ? 16u : 32u, vec, total};
}

Type wordType(OpBuilder &b, const Packing &p) {
  return b.getIntegerType(p.wordBits);
}

/// Packs `elems` (storage-typed) into PTX words.
SmallVector<Value> pack(OpBuilder &b, Location loc, ArrayRef<Value> elems,
                        const Packing &p) {
  SmallVector<Value> words;
  Type elt = elems[0].getType();
  unsigned bits = elt.getIntOrFloatBitWidth();
  for (unsigned w = 0; w < p.words; ++w) {
    if (p.perWord == 1 && bits == p.wordBits) {
      words.push_back(
          LLVM::BitcastOp::create(b, loc, wordType(b, p), elems[w]));
      continue;
    }
    if (bits * p.perWord != p.wordBits) {
      // 8-bit element in a 16-bit word: zero-extend.
      Value asInt = elt.isInteger()
                        ? elems[w]
                        : LLVM::BitcastOp::create(
                              b, loc, b.getIntegerType(bits), elems[w])
                              .getResult();
      words.push_back(LLVM::ZExtOp::create(b, loc, wordType(b, p), asInt));
      continue;
    }
    auto vecTy = VectorType::get({p.perWord}, elt);
    Value v = LLVM::UndefOp::create(b, loc, vecTy);
    for (unsigned i = 0; i < p.perWord; ++i)
      v = LLVM::InsertElementOp::create(b, loc, v, elems[w * p.perWord + i],
                                        i32Const(b, loc, i));
    words.push_back(LLVM::BitcastOp::create(b, loc, wordType(b, p), v));
  }
  return words;
}

SmallVector<Value> unpack(OpBuilder &b, Location loc, ArrayRef<Value> words,
                          const Packing &p, Type elt) {
  SmallVector<Value> elems;
  unsigned bits = elt.getIntOrFloatBitWidth();
  for (Value w : words) {
    if (p.perWord == 1 && bits == p.wordBits) {
      elems.push_back(LLVM::BitcastOp::create(b, loc, elt, w));
      continue;
    }
    if (bits * p.perWord != p.wordBits) {
      Value t = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), w);
      elems.push_back(
          elt.isInteger()
              ? t
              : LLVM::BitcastOp::create(b, loc, elt, t).getResult());
      continue;
    }
    auto vecTy = VectorType::get({p.perWord}, elt);
    Value v = LLVM::BitcastOp::create(b, loc, vecTy, w);
    for (unsigned i = 0; i < p.perWord; ++i)
      elems.push_back(
          LLVM::ExtractElementOp::create(b, loc, v, i32Const(b, loc, i)));
  }
  return elems;
}

/// The inline-asm constraint of a PTX word register.
char regConstraint(const Packing &p) {
  return p.wordBits == 16 ? 'h' : p.wordBits == 64 ? 'l' : 'r';
}

std::string ptxVectorSuffix(const Packing &p) {
  std::string s = p.words > 1 ? ".v" + std::to_string(p.words) : "";
  return s + ".b" + std::to_string(p.memBits);
}

std::string regList(unsigned first, unsigned count) {
  std::string s;
  for (unsigned i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return count > 1 ? "{" + s + "}" : s;
}

/// tile.load %ptrs, %mask, %other : tensor<NxP, #l>
///   => per run of `vec` registers:
///      unmasked: llvm.load <vec x T> (align vec*sizeof(T))
///      masked:   mov others; @%p ld.global.v4.b32 {...}, [%addr];
struct LoadOpLowering : public ConvertOpToLLVMPattern<tile::LoadOp> {
  LoadOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::LoadOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt =
        getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    Type mem = storageType(elt);
    if (!mem.isIntOrFloat())
      return op.emitOpError() << "not supported on the GPU: loads of " << elt;
    ValueRange ptrs = adaptor.getPtr();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    ValueRange others = op.getOther() ? adaptor.getOther() : ValueRange();
    unsigned vec =
        accessVectorWidth(*state.axisInfo, op.getPtr(), op.getMask(), mem);
    unsigned bits = mem.getIntOrFloatBitWidth();
    Packing p = packing(vec, bits);
    // Registers whose pointers (and mask) are provably equal load once: with
    // blocks of b_d equal values along d (aligned, b_d a power of two), the
    // block of register r in any thread is (thread ^ r) >> log2(b_d), so
    // registers agreeing on r >> log2(b_d) read the same address. This is
    // how a block-table entry is read once per page, not once per row.
    SmallVector<int64_t> sameBlock = constantBlocks(op);
    DenseMap<int64_t, unsigned> firstOfBlock;
    std::optional<tile::LinearLayout> layout;
    if (!sameBlock.empty())
      layout = *tile::LinearLayout::get(
          cast<RankedTensorType>(op.getPtr().getType()));
    SmallVector<Value> results;
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      if (layout && vec == 1) {
        tile::Coord c = layout->regCoord(r);
        int64_t key = 0;
        for (unsigned d = 0; d < c.size(); ++d)
          key = key * layout->getShape()[d] + c[d] / sameBlock[d];
        auto [it, inserted] = firstOfBlock.try_emplace(key, r);
        if (!inserted) {
          results.push_back(results[it->second]);
          continue;
        }
      }
      SmallVector<Value> elems;
      if (masks.empty()) {
        Type ty = vec == 1 ? mem : VectorType::get({vec}, mem);
        Value v =
            LLVM::LoadOp::create(rewriter, loc, ty, ptrs[r], vec * bits / 8);
        for (unsigned i = 0; i < vec; ++i)
          elems.push_back(
              vec == 1 ? v
                       : LLVM::ExtractElementOp::create(
                             rewriter, loc, v, i32Const(rewriter, loc, i))
                             .getResult());
      } else {
        SmallVector<Value> otherElems;
        for (unsigned i = 0; i < vec; ++i)
          otherElems.push_back(
              others.empty()
                  ? LLVM::ZeroOp::create(rewriter, loc, mem).getResult()
                  : toStorage(rewriter, loc, others[r + i]));
        SmallVector<Value> otherWords = pack(rewriter, loc, otherElems, p);
        std::string asmStr, cons;
        char regCons = regConstraint(p);
        for (unsigned w = 0; w < p.words; ++w) {
          asmStr += "mov.b" + std::to_string(p.wordBits) + " $" +
                    std::to_string(w) + ", $" +
                    std::to_string(p.words + 2 + w) + ";\n\t";
          cons += std::string(w ? "," : "") + "=" + regCons;
        }
        asmStr += "@$" + std::to_string(p.words + 1) + " ld.global" +
                  ptxVectorSuffix(p) + " " + regList(0, p.words) + ", [ $" +
                  std::to_string(p.words) + " + 0 ];";
        cons += ",l,b";
        for (unsigned w = 0; w < p.words; ++w)
          cons += std::string(",") + regCons;
        SmallVector<Value> operands{ptrs[r], masks[r]};
        operands.append(otherWords);
        Type wordTy = wordType(rewriter, p);
        Type resTy = p.words == 1 ? wordTy
                                  : LLVM::LLVMStructType::getLiteral(
                                        getContext(),
                                        SmallVector<Type>(p.words, wordTy));
        auto asmOp = LLVM::InlineAsmOp::create(
            rewriter, loc, resTy, operands, asmStr, cons,
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None,
            LLVM::AsmDialectAttr::get(getContext(), LLVM::AsmDialect::AD_ATT),
            ArrayAttr());
        SmallVector<Value> words;
        if (p.words == 1)
          words.push_back(asmOp.getResult(0));
        else
          for (unsigned w = 0; w < p.words; ++w)
            words.push_back(LLVM::ExtractValueOp::create(
                rewriter, loc, asmOp.getResult(0), w));
        elems = unpack(rewriter, loc, words, p, mem);
      }
      for (Value e : elems)
        results.push_back(fromStorage(rewriter, loc, e, elt));
    }
    if (isa<RankedTensorType>(op.getType()))
      rewriter.replaceOpWithMultiple(op, {results});
    else
      rewriter.replaceOp(op, results[0]);
    return success();
  }
  /// Per dimension, the power-of-two block size over which pointer and mask
  /// are constant and `other` is a constant; empty if that is 1 everywhere.
  SmallVector<int64_t> constantBlocks(tile::LoadOp op) const {
    auto type = dyn_cast<RankedTensorType>(op.getPtr().getType());
    if (!type ||
        (op.getOther() && !op.getOther().getDefiningOp<arith::ConstantOp>()))
      return {};
    AxisInfo ptr = state.axisInfo->get(op.getPtr());
    std::optional<AxisInfo> mask;
    if (op.getMask())
      mask = state.axisInfo->get(op.getMask());
    SmallVector<int64_t> blocks;
    bool any = false;
    for (unsigned d = 0; d < type.getRank(); ++d) {
      int64_t b = ptr.constancy[d];
      if (mask)
        b = std::min(b, mask->constancy[d]);
      b = std::max<int64_t>(1, int64_t(1)
                                   << llvm::Log2_64(std::max<int64_t>(1, b)));
      any |= b > 1;
      blocks.push_back(b);
    }
    return any ? blocks : SmallVector<int64_t>();
  }
  TileToLLVMState &state;
};

/// tile.store %ptrs, %v, %mask => per run: llvm.store <vec x T>, or
///   @%p st.global.v4.b32 [%addr], {...};
/// Each element is stored once, by the one thread that owns it: in a
/// replicated layout (and for a scalar, which every thread holds) the
/// copies' threads are masked off, as Triton masks redundant stores, and a
/// register holding an element an earlier register of the thread holds is
/// not stored again.
struct StoreOpLowering : public ConvertOpToLLVMPattern<tile::StoreOp> {
  StoreOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  LogicalResult
  matchAndRewrite(tile::StoreOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elt = getTypeConverter()->convertType(
        getElementTypeOrSelf(op.getValue().getType()));
    Type mem = storageType(elt);
    if (!mem.isIntOrFloat())
      return op.emitOpError() << "not supported on the GPU: stores of " << elt;
    ValueRange ptrs = adaptor.getPtr();
    ValueRange values = adaptor.getValue();
    ValueRange masks = op.getMask() ? adaptor.getMask() : ValueRange();
    FailureOr<Value> owner =
        ownerPredicate(rewriter, loc, op, op.getValue().getType());
    if (failed(owner))
      return failure();
    unsigned vec =
        accessVectorWidth(*state.axisInfo, op.getPtr(), op.getMask(), mem);
    unsigned bits = mem.getIntOrFloatBitWidth();
    Packing p = packing(vec, bits);
    std::optional<tile::LinearLayout> layout;
    if (auto type = dyn_cast<RankedTensorType>(op.getValue().getType()))
      layout = *tile::LinearLayout::get(type);
    llvm::DenseSet<int64_t> stored;
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      if (layout) {
        tile::Coord c = layout->regCoord(r);
        int64_t key = 0;
        for (unsigned d = 0; d < c.size(); ++d)
          key = key * layout->getShape()[d] + c[d];
        if (!stored.insert(key).second)
          continue;
      }
      SmallVector<Value> elems;
      for (unsigned i = 0; i < vec; ++i)
        elems.push_back(toStorage(rewriter, loc, values[r + i]));
      Value pred = masks.empty() ? *owner : masks[r];
      if (!masks.empty() && *owner)
        pred = LLVM::AndOp::create(rewriter, loc, pred, *owner);
      if (!pred) {
        Value v = elems[0];
        if (vec > 1) {
          v = LLVM::UndefOp::create(rewriter, loc, VectorType::get({vec}, mem));
          for (unsigned i = 0; i < vec; ++i)
            v = LLVM::InsertElementOp::create(rewriter, loc, v, elems[i],
                                              i32Const(rewriter, loc, i));
        }
        LLVM::StoreOp::create(rewriter, loc, v, ptrs[r], vec * bits / 8);
        continue;
      }
      SmallVector<Value> words = pack(rewriter, loc, elems, p);
      char regCons = regConstraint(p);
      std::string asmStr = "@$1 st.global" + ptxVectorSuffix(p) +
                           " [ $0 + 0 ], " + regList(2, p.words) + ";";
      std::string cons = "l,b";
      for (unsigned w = 0; w < p.words; ++w)
        cons += std::string(",") + regCons;
      SmallVector<Value> operands{ptrs[r], pred};
      operands.append(words);
      LLVM::InlineAsmOp::create(
          rewriter, loc, TypeRange(), operands, asmStr, cons,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr::get(getContext(), LLVM::AsmDialect::AD_ATT),
          ArrayAttr());
    }
    rewriter.eraseOp(op);
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

void tilellvm::populateLoadStorePatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         TileToLLVMState &state) {
  patterns.add<LoadOpLowering, StoreOpLowering>(converter, state);
}
