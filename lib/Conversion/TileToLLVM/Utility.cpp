//===- Utility.cpp - Shared helpers of the tile-to-LLVM patterns ----------===//

#include "Utility.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

FailureOr<tile::LinearLayout> tilellvm::getLayout(Operation *op, Type type) {
  std::string why;
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    op->emitOpError() << "expected a tensor, got " << type;
    return failure();
  }
  FailureOr<tile::LinearLayout> layout = tile::LinearLayout::get(tensor, &why);
  if (failed(layout))
    op->emitOpError() << why;
  return layout;
}

Value tilellvm::i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
}

Value tilellvm::i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(v));
}

// GF(2) elimination over the bases, registers first.
std::pair<uint32_t, uint32_t> tilellvm::replicaBits(const tile::LinearLayout &layout) {
  // A coordinate as one bit vector, dimensions side by side.
  SmallVector<unsigned> shift(layout.getRank(), 0);
  unsigned total = 0;
  for (int d = layout.getRank() - 1; d >= 0; --d) {
    shift[d] = total;
    total += llvm::Log2_64(layout.getShape()[d]);
  }
  auto bits = [&](const tile::Coord &c) {
    uint64_t v = 0;
    for (unsigned d = 0; d < c.size(); ++d)
      v |= static_cast<uint64_t>(c[d]) << shift[d];
    return v;
  };
  std::array<uint64_t, 64> byTop = {};
  auto independent = [&](uint64_t v) {
    for (int bit = 63; bit >= 0; --bit) {
      if (!((v >> bit) & 1))
        continue;
      if (!byTop[bit]) {
        byTop[bit] = v;
        return true;
      }
      v ^= byTop[bit];
    }
    return false;
  };
  for (const tile::Coord &c : layout.getRegBases())
    (void)independent(bits(c));
  uint32_t lanes = 0, warps = 0;
  for (auto [i, c] : llvm::enumerate(layout.getLaneBases()))
    if (!independent(bits(c)))
      lanes |= 1u << i;
  for (auto [i, c] : llvm::enumerate(layout.getWarpBases()))
    if (!independent(bits(c)))
      warps |= 1u << i;
  return {lanes, warps};
}

FailureOr<Value> tilellvm::ownerPredicate(OpBuilder &b, Location loc,
                                          Operation *op, Type type) {
  uint32_t laneMask = ~0u, warpMask = ~0u; // a scalar: thread 0
  if (isa<RankedTensorType>(type)) {
    FailureOr<tile::LinearLayout> layout = getLayout(op, type);
    if (failed(layout))
      return failure();
    std::tie(laneMask, warpMask) = replicaBits(*layout);
  }
  if (!laneMask && !warpMask)
    return Value();
  ThreadIds ids = getThreadIds(b, loc);
  Value replica = LLVM::OrOp::create(
      b, loc, LLVM::AndOp::create(b, loc, ids.lane, i32Const(b, loc, laneMask)),
      LLVM::AndOp::create(b, loc, ids.warp, i32Const(b, loc, warpMask)));
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, replica,
                              i32Const(b, loc, 0))
      .getResult();
}

ThreadIds tilellvm::getThreadIds(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value lane =
      LLVM::AndOp::create(b, loc, tid, i32Const(b, loc, tile::kWarpSize - 1));
  Value warp = LLVM::LShrOp::create(b, loc, tid, i32Const(b, loc, 5));
  return {lane, warp};
}

int64_t tilellvm::regKey(const tile::LinearLayout &layout, unsigned reg) {
  tile::Coord c = layout.regCoord(reg);
  int64_t key = 0;
  for (unsigned d = 0; d < c.size(); ++d)
    key = key * layout.getShape()[d] + c[d];
  return key;
}

SmallVector<Value> tilellvm::threadCoord(OpBuilder &b, Location loc,
                                         const tile::LinearLayout &layout,
                                         const ThreadIds &ids) {
  unsigned rank = layout.getRank();
  SmallVector<Value> coord(rank, i32Const(b, loc, 0));
  auto apply = [&](ArrayRef<tile::Coord> bases, Value id) {
    for (unsigned bit = 0; bit < bases.size(); ++bit) {
      Value set;
      for (unsigned d = 0; d < rank; ++d) {
        if (bases[bit][d] == 0)
          continue;
        if (!set) {
          Value shifted =
              LLVM::LShrOp::create(b, loc, id, i32Const(b, loc, bit));
          set = LLVM::AndOp::create(b, loc, shifted, i32Const(b, loc, 1));
        }
        Value image =
            LLVM::MulOp::create(b, loc, set, i32Const(b, loc, bases[bit][d]));
        coord[d] = LLVM::XOrOp::create(b, loc, coord[d], image);
      }
    }
  };
  apply(layout.getLaneBases(), ids.lane);
  apply(layout.getWarpBases(), ids.warp);
  return coord;
}

SmallVector<Value> tilellvm::regCoordValues(OpBuilder &b, Location loc,
                                            const tile::LinearLayout &layout,
                                            ArrayRef<Value> thread,
                                            unsigned reg) {
  tile::Coord c = layout.regCoord(reg);
  SmallVector<Value> out;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    out.push_back(
        c[d] ? LLVM::XOrOp::create(b, loc, thread[d], i32Const(b, loc, c[d]))
                   .getResult()
             : thread[d]);
  return out;
}

Value tilellvm::linearize(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                          ArrayRef<int64_t> shape) {
  Value index = i32Const(b, loc, 0);
  for (unsigned d = 0; d < shape.size(); ++d) {
    index = LLVM::MulOp::create(b, loc, index, i32Const(b, loc, shape[d]));
    index = LLVM::AddOp::create(b, loc, index, coord[d]);
  }
  return index;
}

FailureOr<SmallVector<unsigned>>
tilellvm::mapRegisters(const tile::LinearLayout &src,
                       const tile::LinearLayout &dst,
                       function_ref<tile::Coord(const tile::Coord &)> toSrc) {
  auto sameBases = [&](ArrayRef<tile::Coord> s, ArrayRef<tile::Coord> d) {
    if (s.size() != d.size())
      return false;
    for (unsigned i = 0; i < s.size(); ++i)
      if (toSrc(d[i]) != s[i])
        return false;
    return true;
  };
  if (!sameBases(src.getLaneBases(), dst.getLaneBases()) ||
      !sameBases(src.getWarpBases(), dst.getWarpBases()))
    return failure();
  DenseMap<int64_t, unsigned> byIndex;
  for (unsigned r = 0; r < src.getNumRegs(); ++r)
    byIndex.try_emplace(src.linearIndex(src.regCoord(r)), r);
  SmallVector<unsigned> map;
  for (unsigned r = 0; r < dst.getNumRegs(); ++r) {
    auto it = byIndex.find(src.linearIndex(toSrc(dst.regCoord(r))));
    if (it == byIndex.end())
      return failure();
    map.push_back(it->second);
  }
  return map;
}

Type tilellvm::storageType(Type t) {
  if (t.isInteger(1))
    return IntegerType::get(t.getContext(), 8);
  if (isa<LLVM::LLVMPointerType>(t))
    return IntegerType::get(t.getContext(), 64);
  return t;
}

Value tilellvm::toStorage(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (t.isInteger(1))
    return LLVM::ZExtOp::create(b, loc, b.getI8Type(), v);
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  return v;
}

Value tilellvm::fromStorage(OpBuilder &b, Location loc, Value v, Type t) {
  if (t.isInteger(1))
    return LLVM::TruncOp::create(b, loc, t, v);
  if (isa<LLVM::LLVMPointerType>(t))
    return LLVM::IntToPtrOp::create(b, loc, t, v);
  return v;
}

/// shfl.sync.bfly of a 16- or 32-bit value (64-bit in two halves).
Value tilellvm::shuffleXor(OpBuilder &b, Location loc, Value v, unsigned mask) {
  Type t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  Value all = i32Const(b, loc, -1);
  Value clamp = i32Const(b, loc, 0x1f);
  Value m = i32Const(b, loc, mask);
  auto shfl = [&](Value x) {
    return NVVM::ShflOp::create(b, loc, x.getType(), all, x, m, clamp,
                                NVVM::ShflKind::bfly, UnitAttr())
        .getResult();
  };
  if (t.isF32() || t.isInteger(32))
    return shfl(v);
  if (bits == 64) {
    Value asInt =
        t.isInteger()
            ? v
            : LLVM::BitcastOp::create(b, loc, b.getI64Type(), v).getResult();
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, asInt, i64Const(b, loc, 32)));
    lo = LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(lo));
    hi = LLVM::ZExtOp::create(b, loc, b.getI64Type(), shfl(hi));
    Value r = LLVM::OrOp::create(
        b, loc, lo, LLVM::ShlOp::create(b, loc, hi, i64Const(b, loc, 32)));
    return t.isInteger() ? r
                         : LLVM::BitcastOp::create(b, loc, t, r).getResult();
  }
  Type narrow = b.getIntegerType(bits);
  Value asInt = t.isInteger()
                    ? v
                    : LLVM::BitcastOp::create(b, loc, narrow, v).getResult();
  Value wide = t.isInteger(1)
                   ? LLVM::ZExtOp::create(b, loc, i32, asInt).getResult()
                   : LLVM::ZExtOp::create(b, loc, i32, asInt).getResult();
  Value back = LLVM::TruncOp::create(b, loc, narrow, shfl(wide));
  return t.isInteger() ? back
                       : LLVM::BitcastOp::create(b, loc, t, back).getResult();
}

Value tilellvm::warpSlot(OpBuilder &b, Location loc, Value warp,
                         ArrayRef<unsigned> bits) {
  Value slot = i32Const(b, loc, 0);
  for (auto [i, bit] : llvm::enumerate(bits)) {
    Value set = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, warp, i32Const(b, loc, bit)),
        i32Const(b, loc, 1));
    slot = LLVM::OrOp::create(
        b, loc, slot, LLVM::ShlOp::create(b, loc, set, i32Const(b, loc, i)));
  }
  return slot;
}

Value tilellvm::packPair(OpBuilder &b, Location loc, Value lo, Value hi) {
  auto pairTy = VectorType::get({2}, lo.getType());
  Value v = LLVM::PoisonOp::create(b, loc, pairTy);
  v = LLVM::InsertElementOp::create(b, loc, v, lo, i32Const(b, loc, 0));
  v = LLVM::InsertElementOp::create(b, loc, v, hi, i32Const(b, loc, 1));
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), v);
}

SmallVector<Value> tilellvm::inlinePtx(OpBuilder &b, Location loc,
                                       TypeRange results, ValueRange operands,
                                       StringRef asmString,
                                       StringRef constraints,
                                       bool sideEffects) {
  MLIRContext *ctx = b.getContext();
  Type resTy;
  if (results.size() == 1)
    resTy = results[0];
  else if (results.size() > 1)
    resTy = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(results));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, resTy ? TypeRange(resTy) : TypeRange(), operands, asmString,
      constraints, sideEffects, /*is_align_stack=*/false,
      LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
  SmallVector<Value> out;
  if (results.size() == 1)
    out.push_back(asmOp.getResult(0));
  else
    for (unsigned i = 0; i < results.size(); ++i)
      out.push_back(
          LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), i));
  return out;
}

void tilellvm::fenceAsyncProxy(OpBuilder &b, Location loc) {
  inlinePtx(b, loc, {}, {}, "fence.proxy.async.shared::cta;", "",
            /*sideEffects=*/true);
}
