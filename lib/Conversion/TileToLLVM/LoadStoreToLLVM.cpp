//===- LoadStoreToLLVM.cpp - Global loads and stores ----------------------===//
//
// A thread's registers of a pointer tensor are grouped into runs of `vec`
// consecutive elements when the layout keeps them in consecutive registers
// and AxisInfo proves the addresses contiguous, aligned and the mask uniform
// over the run; each run becomes one vector access of up to 16 bytes.
// A store whose layout keeps fewer consecutive elements in a thread than 16
// bytes, with the lanes of a group holding the next ones (tensor-core
// accumulators), first exchanges registers between those lanes so that each
// thread holds 16 consecutive bytes (planWideStore).
// Masked accesses are predicated PTX (Triton's scheme): lanes whose mask is
// false issue no memory transaction and read `other`. Atomics are one
// predicated `atom` per element, by the thread that owns it; where other
// threads hold the element too (a scalar, a replicated layout) and the old
// value is used, the owner passes it on through shared memory.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"
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
    SmallVector<int64_t> blocks = constantLoadBlocks(*state.axisInfo, op);
    if (llvm::all_of(blocks, [](int64_t b) { return b == 1; }))
      return {};
    return blocks;
  }
  TileToLLVMState &state;
};

/// Where a thread's registers hold fewer consecutive elements than a
/// 16-byte access moves and the lanes of a group hold the next ones (the mma
/// and wgmma accumulators: lane 4g + t holds columns 2t, 2t + 1 of every 8),
/// the lanes exchange registers until each holds 16 consecutive bytes: lane
/// bit L, whose image is column `run << k`, trades places with a register
/// bit R whose image is a higher column, one shfl.bfly per register pair
/// (the transpose Triton's and CUTLASS's epilogues do through shared memory,
/// here in registers). Each exchange swaps the images of L and R, so the
/// vector's registers are the run's and the R bits; its address is the one
/// the thread held for its first register, moved by the columns the swaps
/// exchanged, and its mask that register's: both need AxisInfo's contiguity
/// and constancy over the aligned `span` the swapped columns stay within.
struct WideStorePlan {
  unsigned dim, run, vec;
  /// (lane bit, register bit) of each exchange, k-th for column run << k.
  SmallVector<std::pair<unsigned, unsigned>> swaps;
  /// Column image of each exchange's register bit.
  SmallVector<int64_t> regColumns;
};

std::optional<WideStorePlan>
planWideStore(const tile::LinearLayout &l, const AxisInfoAnalysis &info,
              tile::StoreOp op, Type mem) {
  auto type = cast<RankedTensorType>(op.getValue().getType());
  unsigned bits = mem.getIntOrFloatBitWidth();
  if (bits < 8 || bits > 32)
    return std::nullopt;
  auto blocked = dyn_cast<tile::BlockedEncodingAttr>(type.getEncoding());
  unsigned dim = blocked ? blocked.getOrder()[0] : type.getRank() - 1;
  unsigned vec = 128 / bits, run = l.getRegisterRun(dim);
  if (run >= vec || run * bits > 64)
    return std::nullopt;
  // Every image one power of two along one dimension (no replication, no
  // swizzle): then coordinates add and the swaps move whole columns.
  for (auto bases : {l.getRegBases(), l.getLaneBases(), l.getWarpBases()})
    for (const tile::Coord &c : bases)
      if (llvm::count(c, 0) != int64_t(c.size()) - 1 ||
          !llvm::isPowerOf2_64(c[dim] ? c[dim] : *llvm::max_element(c)))
        return std::nullopt;
  // The column an image adds (0 for images along another dimension).
  auto along = [&](const tile::Coord &c) { return c[dim]; };
  WideStorePlan plan{dim, run, vec, {}, {}};
  unsigned runBits = llvm::Log2_32(run);
  SmallVector<bool> taken(l.getRegBases().size(), false);
  for (unsigned k = 0; (run << k) < vec; ++k) {
    auto lanes = l.getLaneBases();
    auto lane = llvm::find_if(
        lanes, [&](const tile::Coord &c) { return along(c) == (run << k); });
    if (lane == lanes.end())
      return std::nullopt;
    // The lowest free register bit past the run whose image is a column
    // at or past the vector.
    int best = -1;
    for (unsigned r = runBits; r < l.getRegBases().size(); ++r) {
      int64_t v = along(l.getRegBases()[r]);
      if (!taken[r] && v >= vec &&
          (best < 0 || v < along(l.getRegBases()[best])))
        best = r;
    }
    if (best < 0)
      return std::nullopt;
    taken[best] = true;
    plan.swaps.push_back({unsigned(lane - lanes.begin()), unsigned(best)});
    plan.regColumns.push_back(along(l.getRegBases()[best]));
  }
  int64_t span = 2 * *llvm::max_element(plan.regColumns);
  AxisInfo ptrInfo = info.get(op.getPtr());
  if (accessVectorWidth(info, op.getPtr(), op.getMask(), mem, dim, vec) !=
          vec ||
      ptrInfo.contiguity[dim] < span ||
      (op.getMask() && info.get(op.getMask()).constancy[dim] < span))
    return std::nullopt;
  return plan;
}

/// One store of `elems` (storage-typed, consecutive in memory) at `ptr`:
/// a plain LLVM store without `pred`, else a predicated st.global.
void storeVector(OpBuilder &b, Location loc, Value ptr, ArrayRef<Value> elems,
                 Value pred) {
  unsigned vec = elems.size();
  Type mem = elems[0].getType();
  unsigned bits = mem.getIntOrFloatBitWidth();
  if (!pred) {
    Value v = elems[0];
    if (vec > 1) {
      v = LLVM::UndefOp::create(b, loc, VectorType::get({vec}, mem));
      for (unsigned i = 0; i < vec; ++i)
        v = LLVM::InsertElementOp::create(b, loc, v, elems[i],
                                          i32Const(b, loc, i));
    }
    LLVM::StoreOp::create(b, loc, v, ptr, vec * bits / 8);
    return;
  }
  Packing p = packing(vec, bits);
  SmallVector<Value> words = pack(b, loc, elems, p);
  char regCons = regConstraint(p);
  std::string asmStr = "@$1 st.global" + ptxVectorSuffix(p) + " [ $0 + 0 ], " +
                       regList(2, p.words) + ";";
  std::string cons = "l,b";
  for (unsigned w = 0; w < p.words; ++w)
    cons += std::string(",") + regCons;
  SmallVector<Value> operands{ptr, pred};
  operands.append(words);
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange(), operands, asmStr, cons,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      ArrayAttr());
}

/// Stores `values` (storage-typed) through `ptrs` under `masks` (none: all)
/// as `plan` says: the lanes' exchanges, then one access per vector.
void storeWide(OpBuilder &b, Location loc, const WideStorePlan &plan,
               ValueRange ptrs, ArrayRef<Value> values, ValueRange masks) {
  Type mem = values[0].getType();
  unsigned run = plan.run, runBits = llvm::Log2_32(run);
  // The PTX words of each run of registers: what a shuffle moves.
  Packing p = packing(run, mem.getIntOrFloatBitWidth());
  SmallVector<SmallVector<Value>> groups;
  for (unsigned r = 0; r < values.size(); r += run)
    groups.push_back(pack(b, loc, values.slice(r, run), p));
  Value lane = getThreadIds(b, loc).lane;
  Value zero = i32Const(b, loc, 0), delta = zero;
  unsigned vecRegs = run - 1;
  for (auto [k, swap] : llvm::enumerate(plan.swaps)) {
    auto [laneBit, regBit] = swap;
    vecRegs |= 1u << regBit;
    Value set = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::ne,
        LLVM::AndOp::create(b, loc, lane, i32Const(b, loc, 1 << laneBit)),
        zero);
    unsigned g = 1u << (regBit - runBits);
    for (unsigned lo = 0; lo < groups.size(); ++lo) {
      if (lo & g)
        continue;
      for (unsigned w = 0; w < p.words; ++w) {
        Value &keep = groups[lo][w], &high = groups[lo | g][w];
        // A lane with the bit clear keeps its low register and sends its
        // high one; its partner keeps the high one and sends the low one.
        Value send = LLVM::SelectOp::create(b, loc, set, keep, high);
        Value recv = shuffleXor(b, loc, send, 1u << laneBit);
        Value newLow = LLVM::SelectOp::create(b, loc, set, recv, keep);
        high = LLVM::SelectOp::create(b, loc, set, high, recv);
        keep = newLow;
      }
    }
    delta = LLVM::AddOp::create(
        b, loc, delta,
        LLVM::SelectOp::create(
            b, loc, set,
            i32Const(b, loc, plan.regColumns[k] - (int64_t(run) << k)),
            zero));
  }
  SmallVector<Value> elems;
  for (ArrayRef<Value> words : groups)
    llvm::append_range(elems, unpack(b, loc, words, p, mem));
  for (unsigned r0 = 0; r0 < values.size(); ++r0) {
    if (r0 & vecRegs)
      continue;
    SmallVector<Value> vecElems;
    for (unsigned e = 0; e < plan.vec; ++e) {
      unsigned reg = r0 | (e % run);
      for (auto [k, swap] : llvm::enumerate(plan.swaps))
        if ((e / run) >> k & 1)
          reg |= 1u << swap.second;
      vecElems.push_back(elems[reg]);
    }
    Value ptr = LLVM::GEPOp::create(b, loc, ptrs[r0].getType(), mem, ptrs[r0],
                                    ArrayRef<LLVM::GEPArg>{delta});
    storeVector(b, loc, ptr, vecElems, masks.empty() ? Value() : masks[r0]);
  }
}

/// tile.store %ptrs, %v, %mask => per run: llvm.store <vec x T>, or
///   @%p st.global.v4.b32 [%addr], {...};
/// Each element is stored once, by the one thread that owns it: in a
/// replicated layout (and for a scalar, which every thread holds) the
/// copies' threads are masked off, as Triton masks redundant stores, and a
/// register holding an element an earlier register of the thread holds is
/// not stored again. Layouts planWideStore takes store as it plans.
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
    std::optional<tile::LinearLayout> layout;
    if (auto type = dyn_cast<RankedTensorType>(op.getValue().getType()))
      layout = *tile::LinearLayout::get(type);
    if (layout && !*owner)
      if (std::optional<WideStorePlan> plan =
              planWideStore(*layout, *state.axisInfo, op, mem)) {
        SmallVector<Value> elems;
        for (Value v : values)
          elems.push_back(toStorage(rewriter, loc, v));
        storeWide(rewriter, loc, *plan, ptrs, elems, masks);
        rewriter.eraseOp(op);
        return success();
      }
    unsigned vec =
        accessVectorWidth(*state.axisInfo, op.getPtr(), op.getMask(), mem);
    llvm::DenseSet<int64_t> stored;
    for (unsigned r = 0; r < ptrs.size(); r += vec) {
      if (layout && !stored.insert(regKey(*layout, r)).second)
        continue;
      SmallVector<Value> elems;
      for (unsigned i = 0; i < vec; ++i)
        elems.push_back(toStorage(rewriter, loc, values[r + i]));
      Value pred = masks.empty() ? *owner : masks[r];
      if (!masks.empty() && *owner)
        pred = LLVM::AndOp::create(rewriter, loc, pred, *owner);
      storeVector(rewriter, loc, ptrs[r], elems, pred);
    }
    rewriter.eraseOp(op);
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

namespace {

/// One predicated PTX atom: `@pred atom<sem><scope>.global.<op> d, [ptr],
/// operands...`; d is 0 where the predicate is false.
Value atomInstr(OpBuilder &b, Location loc, Type type, StringRef op,
                tile::MemSemantic sem, tile::MemScope scope, Value ptr,
                Value pred, ArrayRef<Value> operands) {
  unsigned bits = type.getIntOrFloatBitWidth();
  char cons = type.isF32() ? 'f' : type.isF64() ? 'd' : bits == 64 ? 'l' : 'r';
  std::string asmStr = "mov.b" + std::to_string(bits) + " $0, 0;\n\t@$2 atom" +
                       "." + tile::stringifyMemSemantic(sem).str() + "." +
                       tile::stringifyMemScope(scope).str() + ".global." +
                       op.str() + " $0, [ $1 + 0 ]";
  std::string constraints = std::string("=") + cons + ",l,b";
  for (unsigned i = 0; i < operands.size(); ++i) {
    asmStr += ", $" + std::to_string(3 + i);
    constraints += std::string(",") + cons;
  }
  asmStr += ";";
  SmallVector<Value> args{ptr, pred};
  args.append(operands.begin(), operands.end());
  return LLVM::InlineAsmOp::create(
             b, loc, type, args, asmStr, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr())
      .getResult(0);
}

/// The PTX `op.type` of an atomic read-modify-write of `type` elements (f32
/// max and min are two integer atomics, atomicFloatMinMax).
std::string rmwOp(tile::AtomicKind kind, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  std::string b = std::to_string(bits);
  switch (kind) {
  case tile::AtomicKind::Add:
    return isa<FloatType>(type) ? "add.f" + b : "add.u" + b;
  case tile::AtomicKind::Max:
    return "max.s" + b;
  case tile::AtomicKind::Min:
    return "min.s" + b;
  case tile::AtomicKind::UMax:
    return "max.u" + b;
  case tile::AtomicKind::UMin:
    return "min.u" + b;
  case tile::AtomicKind::And:
    return "and.b" + b;
  case tile::AtomicKind::Or:
    return "or.b" + b;
  case tile::AtomicKind::Xor:
    return "xor.b" + b;
  case tile::AtomicKind::Xchg:
    return "exch.b" + b;
  }
  llvm_unreachable("atomic kind");
}

/// f32 max/min as integer atomics on the bits (Triton's scheme): for a
/// value with the sign bit clear, a signed max (min) orders it against any
/// stored float as the floats order; with the sign bit set, an unsigned min
/// (max) does.
Value atomicFloatMinMax(OpBuilder &b, Location loc, bool isMax,
                        tile::MemSemantic sem, tile::MemScope scope, Value ptr,
                        Value pred, Value val) {
  Type i32 = b.getI32Type();
  Value bits = LLVM::BitcastOp::create(b, loc, i32, val);
  Value positive = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sge, bits,
                                        i32Const(b, loc, 0));
  Value one =
      LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  Value negative = LLVM::XOrOp::create(b, loc, positive, one);
  Value onPositive = LLVM::AndOp::create(b, loc, pred, positive);
  Value onNegative = LLVM::AndOp::create(b, loc, pred, negative);
  Value a = atomInstr(b, loc, i32, isMax ? "max.s32" : "min.s32", sem, scope,
                      ptr, onPositive, {bits});
  Value c = atomInstr(b, loc, i32, isMax ? "min.u32" : "max.u32", sem, scope,
                      ptr, onNegative, {bits});
  Value old = LLVM::SelectOp::create(b, loc, positive, a, c);
  return LLVM::BitcastOp::create(b, loc, b.getF32Type(), old);
}

/// tile.atomic_rmw / tile.atomic_cas => per element the thread owns, one
/// predicated atom; the old values of elements other threads hold too reach
/// them through a shared buffer (one slot per element and one the other
/// threads write into) when the result is used.
template <typename Op>
struct AtomicOpLowering : public ConvertOpToLLVMPattern<Op> {
  AtomicOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern<Op>(c), state(s) {}

  LogicalResult
  matchAndRewrite(Op op,
                  typename ConvertOpToLLVMPattern<Op>::OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type valueType = op.getResult().getType();
    Type elt =
        this->getTypeConverter()->convertType(getElementTypeOrSelf(valueType));
    ValueRange ptrs = adaptor.getPtr();
    FailureOr<Value> owner = ownerPredicate(rewriter, loc, op, valueType);
    if (failed(owner))
      return failure();
    std::optional<tile::LinearLayout> layout;
    if (auto type = dyn_cast<RankedTensorType>(valueType))
      layout = *tile::LinearLayout::get(type);
    auto keyOf = [&](unsigned r) -> int64_t {
      return layout ? regKey(*layout, r) : 0;
    };
    Value always = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                            rewriter.getBoolAttr(true));
    // `sem` is the program's: a release orders every thread's earlier
    // accesses before the atomics (each thread's fence at the op's scope,
    // then a barrier), an acquire every thread's later ones after them (a
    // barrier, then each thread's fence).
    tile::MemSemantic sem = op.getSem();
    std::string fence =
        "fence.acq_rel." + tile::stringifyMemScope(op.getScope()).str() + ";";
    bool releases = tile::releases(sem), acquires = tile::acquires(sem);
    if (releases) {
      inlinePtx(rewriter, loc, {}, {}, fence, "", /*sideEffects=*/true);
      NVVM::Barrier0Op::create(rewriter, loc);
    }
    SmallVector<Value> olds(ptrs.size());
    llvm::DenseMap<int64_t, unsigned> first;
    for (unsigned r = 0; r < ptrs.size(); ++r) {
      auto [it, isNew] = first.try_emplace(keyOf(r), r);
      if (!isNew) {
        olds[r] = olds[it->second];
        continue;
      }
      Value pred = *owner ? *owner : always;
      if constexpr (std::is_same_v<Op, tile::AtomicRMWOp>) {
        if (op.getMask())
          pred = LLVM::AndOp::create(rewriter, loc, pred, adaptor.getMask()[r]);
        Value v = adaptor.getVal()[r];
        tile::AtomicKind kind = op.getKind();
        if (elt.isF32() &&
            (kind == tile::AtomicKind::Max || kind == tile::AtomicKind::Min))
          olds[r] =
              atomicFloatMinMax(rewriter, loc, kind == tile::AtomicKind::Max,
                                op.getSem(), op.getScope(), ptrs[r], pred, v);
        else
          olds[r] = atomInstr(rewriter, loc, elt, rmwOp(kind, elt), op.getSem(),
                              op.getScope(), ptrs[r], pred, {v});
      } else {
        std::string b = std::to_string(elt.getIntOrFloatBitWidth());
        Type bitsType = rewriter.getIntegerType(elt.getIntOrFloatBitWidth());
        auto asBits = [&](Value x) -> Value {
          return isa<FloatType>(elt)
                     ? LLVM::BitcastOp::create(rewriter, loc, bitsType, x)
                           .getResult()
                     : x;
        };
        Value old = atomInstr(
            rewriter, loc, bitsType, "cas.b" + b, op.getSem(), op.getScope(),
            ptrs[r], pred,
            {asBits(adaptor.getCmp()[r]), asBits(adaptor.getVal()[r])});
        olds[r] =
            isa<FloatType>(elt)
                ? LLVM::BitcastOp::create(rewriter, loc, elt, old).getResult()
                : old;
      }
    }
    if (*owner && !op.getResult().use_empty()) {
      // The owners write each element's old value to its slot, the other
      // threads into the last one; then every thread reads its elements.
      int64_t numel =
          layout ? cast<RankedTensorType>(valueType).getNumElements() : 1;
      unsigned bytes = elt.getIntOrFloatBitWidth() / 8;
      unsigned buffer = state.reserveShared((numel + 1) * bytes);
      Value trash = i32Const(rewriter, loc, numel * bytes);
      SmallVector<Value> thread;
      if (layout)
        thread =
            threadCoord(rewriter, loc, *layout, getThreadIds(rewriter, loc));
      auto offsetOf = [&](unsigned r) -> Value {
        if (!layout)
          return i32Const(rewriter, loc, 0);
        Value index = linearize(
            rewriter, loc, regCoordValues(rewriter, loc, *layout, thread, r),
            layout->getShape());
        return LLVM::MulOp::create(rewriter, loc, index,
                                   i32Const(rewriter, loc, bytes));
      };
      SmallVector<Value> offsets(ptrs.size());
      for (auto [key, r] : first)
        offsets[r] = offsetOf(r);
      for (auto [key, r] : first) {
        Value offset =
            LLVM::SelectOp::create(rewriter, loc, *owner, offsets[r], trash);
        LLVM::StoreOp::create(rewriter, loc, olds[r],
                              sharedPtr(rewriter, loc, op, offset, buffer));
      }
      for (unsigned r = 0; r < ptrs.size(); ++r)
        olds[r] = LLVM::LoadOp::create(
            rewriter, loc, elt,
            sharedPtr(rewriter, loc, op, offsets[first[keyOf(r)]], buffer));
    }
    if (acquires) {
      NVVM::Barrier0Op::create(rewriter, loc);
      inlinePtx(rewriter, loc, {}, {}, fence, "", /*sideEffects=*/true);
    }
    rewriter.replaceOpWithMultiple(op, {olds});
    return success();
  }
  TileToLLVMState &state;
};

} // namespace

void tilellvm::populateLoadStorePatterns(LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns,
                                         TileToLLVMState &state) {
  patterns
      .add<LoadOpLowering, StoreOpLowering, AtomicOpLowering<tile::AtomicRMWOp>,
           AtomicOpLowering<tile::AtomicCASOp>>(converter, state);
}
