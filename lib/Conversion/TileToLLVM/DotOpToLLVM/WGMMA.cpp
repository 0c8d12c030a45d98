//===- WGMMA.cpp - tile.warpgroup_dot on sm_90 tensor cores ---------------===//
//
// tile.warpgroup_dot (created by quire-async-copies on sm_90) is
// `wgmma.mma_async` reading its B operand, and A when A is staged too, from
// the swizzled shared-memory stages tile.async_copy fills (NvmmaTile,
// SharedMemory.h) through matrix descriptors: fence, one m64nNk16 per
// 64-row block and 16-wide K step, commit, and a wait unless the dot is
// async (tile.warpgroup_wait then retires it).
//
//===----------------------------------------------------------------------===//

#include "../SharedMemory.h"
#include "../Utility.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

namespace {

/// wgmma.wait_group `pending`, tied to every accumulator register of `acc`
/// so that nothing reads one before the wgmmas wrote it. With `after` (f32
/// registers), a `bar.warp.sync` first, predicated on `x > +inf` over them
/// (false for every float, NaN included, which ptxas does not fold): ptxas
/// does not hoist the wait above it, so the wait follows the code that
/// computes `after`.
SmallVector<Value> waitGroups(OpBuilder &b, Location loc, ValueRange acc,
                              int64_t pending, ValueRange after = {}) {
  std::string cons;
  for (size_t i = 0; i < acc.size(); ++i)
    cons += "=f,";
  for (size_t i = 0; i < acc.size(); ++i)
    cons += std::to_string(i) + (i + 1 < acc.size() ? "," : "");
  std::string ptx;
  for (auto [i, x] : llvm::enumerate(after)) {
    std::string reg = "$" + std::to_string(2 * acc.size() + i);
    ptx += i == 0 ? "setp.gt.f32 q, " + reg + ", 0f7F800000;\n"
                  : "setp.gt.or.f32 q, " + reg + ", 0f7F800000, q;\n";
    cons += ",f";
  }
  std::string wait =
      "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";";
  if (!after.empty())
    wait = "{\n.reg .pred q;\n" + ptx + "@q bar.warp.sync -1;\n" + wait + "\n}";
  SmallVector<Value> operands(acc);
  operands.append(after.begin(), after.end());
  SmallVector<Type> types(acc.size(), b.getF32Type());
  return inlinePtx(b, loc, types, operands, wait, cons, /*sideEffects=*/true);
}

/// %d = tile.warpgroup_dot a(%a) | a_stage %sa, b_stage %sb, acc %c
///   => wgmma.fence
///      per 64-row block j of the warpgroup, per 16-wide K step k:
///        wgmma.mma_async.m64nNk16 {d_j}, A(j, k), desc(B, k), 1
///      wgmma.commit_group; wgmma.wait_group 0 (tied to every d), or, with
///      `async`, no wait: a tile.warpgroup_wait retires the group
/// A(j, k) is four registers of the dot_op layout (as mma.sync takes them)
/// or a descriptor of the staged A. Descriptors: start address >> 4, the
/// leading and stride byte offsets >> 4, the swizzle mode (bits 62-63).
struct WarpgroupDotOpLowering
    : public ConvertOpToLLVMPattern<tile::WarpgroupDotOp> {
  WarpgroupDotOpLowering(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern(c), state(s) {}

  /// The 64-bit descriptor of a staged operand `t` at byte `start` (i32)
  /// plus `offset` (a multiple of 16), read K-major (its lines run along K:
  /// the leading offset is unused) or M/N-major (the leading offset steps to
  /// the next column of lines); the stride offset steps 8 lines either way.
  /// A shared address is below 2^18, so its 14-bit field is `start >> 4`
  /// with nothing to mask, and the descriptors of one stage differ by
  /// constants in their low word.
  static Value descriptor(OpBuilder &b, Location loc, Value start,
                          int64_t offset, const NvmmaTile &t, bool kMajor) {
    assert(offset % 16 == 0 && "descriptor offsets are 16-byte units");
    int64_t swizzle = t.swizzle, sbo = 8 * swizzle;
    int64_t lbo = kMajor ? 16 : t.rows * swizzle;
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    uint64_t fixed = (uint64_t(lbo >> 4) & 0x3FFF) << 16 |
                     (uint64_t(sbo >> 4) & 0x3FFF) << 32 | mode << 62;
    Value field = LLVM::LShrOp::create(b, loc, start, i32Const(b, loc, 4));
    if (offset)
      field = LLVM::AddOp::create(b, loc, field, i32Const(b, loc, offset >> 4));
    Value addr = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
    return LLVM::OrOp::create(b, loc, addr, i64Const(b, loc, int64_t(fixed)));
  }

  LogicalResult
  matchAndRewrite(tile::WarpgroupDotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (state.sm != 90)
      return op.emitOpError()
             << "not supported on sm_" << state.sm << ": wgmma is sm_90's";
    RankedTensorType cType = op.getC().getType();
    auto mma = cast<tile::MmaEncodingAttr>(cType.getEncoding());
    int64_t wm = mma.getWarpsPerCTA()[0];
    int64_t M = cType.getDimSize(0), N = cType.getDimSize(1),
            K = op.getKAttr().getInt();
    Type elt = op.getOperandType();
    const int64_t bytes = 2;
    FailureOr<tile::LinearLayout> lc = getLayout(op, cType);
    if (failed(lc))
      return failure();
    for (auto [shape, contig] :
         {std::pair(op.getBShape(), op.getBContig()),
          std::pair(op.getAShape(), op.getAContig().value_or(0))})
      if (!llvm::isPowerOf2_64(shape[contig]))
        return op.emitOpError() << "not supported on the GPU: nvmma staging "
                                   "of "
                                << shape[contig] << " contiguous elements";
    using Key = std::pair<int64_t, int64_t>;
    DenseMap<Key, unsigned> cReg;
    for (unsigned r = 0; r < lc->getNumRegs(); ++r) {
      tile::Coord c = lc->regCoord(r);
      cReg.try_emplace({c[0], c[1]}, r);
    }
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    ThreadIds ids = getThreadIds(rewriter, loc);
    // This warp's warpgroup covers rows 64 g .. of every 16 wm-row block.
    Value group =
        LLVM::UDivOp::create(rewriter, loc,
                             LLVM::URemOp::create(rewriter, loc, ids.warp,
                                                  i32Const(rewriter, loc, wm)),
                             i32Const(rewriter, loc, 4));
    Value groupRow =
        LLVM::MulOp::create(rewriter, loc, group, i32Const(rewriter, loc, 64));
    // Shared address (i32) of a stage of a buffer.
    auto stageBase = [&](Value stage, int64_t buffer, const Staging &st) {
      Value off = stageOffset(rewriter, loc, stage, st.stageBytes);
      Value ptr = asyncSharedPtr(rewriter, loc, op, off, buffer);
      return LLVM::PtrToIntOp::create(rewriter, loc, i32, ptr).getResult();
    };
    auto add = [&](Value v, int64_t c) -> Value {
      return c ? LLVM::AddOp::create(rewriter, loc, v,
                                     i32Const(rewriter, loc, c))
                     .getResult()
               : v;
    };

    // B: K x N, staged with b_contig fastest.
    Staging sb = reserveStaging(state, op.getBShape(), op.getBContig(), bytes,
                                op.getBBuffer(), op.getStages(), true);
    NvmmaTile tb = *sb.nvmma;
    Value baseB = stageBase(adaptor.getBStage().front(), op.getBBuffer(), sb);
    bool transB = op.getBContig() == 1; // N contiguous: MN-major
    auto descB = [&](int64_t k) {
      if (!transB) // K-major: rows are N, lines along K
        return descriptor(rewriter, loc, baseB, tb.columnOffset(k), tb, true);
      return descriptor(rewriter, loc, baseB, k * tb.swizzle, tb, false);
    };

    // A: registers, or K-major / MN-major staged.
    bool staged = !op.getA();
    std::optional<NvmmaTile> ta;
    Value baseA;
    bool transA = false;
    DenseMap<Key, unsigned> aReg;
    ValueRange aVals;
    if (staged) {
      Staging sa =
          reserveStaging(state, op.getAShape(), *op.getAContig(), bytes,
                         *op.getABuffer(),
                         op.getAStages().value_or(op.getStages()), true);
      ta = sa.nvmma;
      baseA = stageBase(adaptor.getAStage().front(), *op.getABuffer(), sa);
      transA = *op.getAContig() == 0; // M contiguous: MN-major
    } else {
      FailureOr<tile::LinearLayout> la = getLayout(op, op.getA().getType());
      if (failed(la))
        return failure();
      for (unsigned r = 0; r < la->getNumRegs(); ++r) {
        tile::Coord c = la->regCoord(r);
        aReg.try_emplace({c[0], c[1]}, r);
      }
      aVals = adaptor.getA();
    }
    bool missing = false;
    auto aPair = [&](int64_t m, int64_t k) -> Value {
      auto lo = aReg.find({m, k}), hi = aReg.find({m, k + 1});
      if (lo == aReg.end() || hi == aReg.end()) {
        missing = true;
        return i32Const(rewriter, loc, 0);
      }
      return packPair(rewriter, loc, aVals[lo->second], aVals[hi->second]);
    };
    // Rows m0 of block j (this warpgroup's part added at run time).
    auto descA = [&](int64_t j, int64_t k) {
      const NvmmaTile &t = *ta;
      Value rowBase = add(groupRow, j * 16 * wm);
      if (!transA) { // K-major: rows are M, lines along K
        Value start = LLVM::AddOp::create(
            rewriter, loc, baseA,
            LLVM::MulOp::create(rewriter, loc, rowBase,
                                i32Const(rewriter, loc, t.swizzle)));
        return descriptor(rewriter, loc, start, t.columnOffset(k), t, true);
      }
      // MN-major: rows are K, lines along M (64-row blocks start a line).
      Value column = LLVM::MulOp::create(
          rewriter, loc,
          LLVM::UDivOp::create(rewriter, loc, rowBase,
                               i32Const(rewriter, loc, t.lineElems())),
          i32Const(rewriter, loc, t.rows * t.swizzle));
      Value start = LLVM::AddOp::create(rewriter, loc, baseA, column);
      return descriptor(rewriter, loc, start, k * t.swizzle, t, false);
    };

    std::string ty = elt.isF16() ? "f16" : "bf16";
    int64_t n2 = N / 2; // accumulator registers per block
    std::string regs;
    for (int64_t i = 0; i < n2; ++i)
      regs += (i ? ", $" : "$") + std::to_string(i);
    // The wgmma's inline PTX and constraints: the accumulator registers as
    // outputs, then (`tied`) as inputs, A, B's descriptor and the scale-d
    // flag (0: D = A B, the accumulator's input ignored).
    auto wgmmaAsm = [&](bool tied) {
      int64_t first = tied ? 2 * n2 : n2;
      std::string aOperand = staged ? "$" + std::to_string(first)
                                    : "{$" + std::to_string(first) + ", $" +
                                          std::to_string(first + 1) + ", $" +
                                          std::to_string(first + 2) + ", $" +
                                          std::to_string(first + 3) + "}";
      int64_t next = first + (staged ? 1 : 4);
      std::string asmStr =
          "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(next + 1) +
          ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(N) +
          "k16.f32." + ty + "." + ty + " {" + regs + "}, " + aOperand + ", $" +
          std::to_string(next) + ", p, 1, 1, " +
          (staged ? std::string(transA ? "1, " : "0, ") : std::string()) +
          (transB ? "1" : "0") + ";\n}";
      std::string cons;
      for (int64_t i = 0; i < n2; ++i)
        cons += "=f,";
      if (tied)
        for (int64_t i = 0; i < n2; ++i)
          cons += std::to_string(i) + ",";
      cons += staged ? "l," : "r,r,r,r,";
      cons += "l,r";
      return std::pair(asmStr, cons);
    };
    auto [asmStr, cons] = wgmmaAsm(true);
    // A zero accumulator (tl.zeros, attention's scores) is not read: the
    // first K step of each block scales it by 0 and takes no registers in,
    // so nothing materializes the zeros (Triton's accumulator-init rewrite).
    bool zeroAcc = matchPattern(op.getC(), m_AnyZeroFloat());
    auto [firstAsm, firstCons] = wgmmaAsm(!zeroAcc);

    SmallVector<Value> acc(adaptor.getC().begin(), adaptor.getC().end());
    SmallVector<Type> f32s(n2, f32);
    int64_t blocks = M / (16 * wm);
    // Accumulator register of (block j, register q of the wgmma).
    auto cIndex = [&](int64_t j, int64_t q) -> unsigned {
      int64_t i = q / 4, r = q % 4;
      auto it = cReg.find({j * 16 * wm + (r >= 2 ? 8 : 0), 8 * i + (r & 1)});
      if (it == cReg.end()) {
        missing = true;
        return 0;
      }
      return it->second;
    };
    // A register A operand is packed before the fence and passed to it, so
    // no conversion writing A lands between the wgmmas (ptxas would then
    // insert a warpgroup.arrive of its own before each, C7519).
    SmallVector<Value> aRegs;
    if (!staged) {
      for (int64_t j = 0; j < blocks; ++j)
        for (int64_t k = 0; k < K; k += 16) {
          int64_t m = j * 16 * wm;
          aRegs.append({aPair(m, k), aPair(m + 8, k), aPair(m, k + 8),
                        aPair(m + 8, k + 8)});
        }
    }
    std::string fenceCons;
    for (size_t i = 0; i < aRegs.size(); ++i)
      fenceCons += i ? ",r" : "r";
    inlinePtx(rewriter, loc, {}, aRegs, "wgmma.fence.sync.aligned;", fenceCons,
              /*sideEffects=*/true);
    Value one = i32Const(rewriter, loc, 1);
    Value zero = i32Const(rewriter, loc, 0);
    for (int64_t j = 0; j < blocks; ++j) {
      SmallVector<Value> d;
      for (int64_t q = 0; q < n2; ++q)
        d.push_back(acc[cIndex(j, q)]);
      for (int64_t k = 0; k < K; k += 16) {
        bool skipAcc = zeroAcc && k == 0;
        SmallVector<Value> operands;
        if (!skipAcc)
          operands.append(d);
        if (staged) {
          operands.push_back(descA(j, k));
        } else {
          size_t at = 4 * (j * (K / 16) + k / 16);
          operands.append(aRegs.begin() + at, aRegs.begin() + at + 4);
        }
        operands.push_back(descB(k));
        operands.push_back(skipAcc ? zero : one);
        d = inlinePtx(rewriter, loc, f32s, operands, k == 0 ? firstAsm : asmStr,
                      k == 0 ? firstCons : cons,
                      /*sideEffects=*/true);
      }
      for (int64_t q = 0; q < n2; ++q)
        acc[cIndex(j, q)] = d[q];
    }
    if (missing)
      return op.emitOpError()
             << "internal error: wgmma fragments not found in the layouts";
    inlinePtx(rewriter, loc, {}, {}, "wgmma.commit_group.sync.aligned;", "",
              /*sideEffects=*/true);
    // An async dot's registers stay in flight until a tile.warpgroup_wait.
    rewriter.replaceOpWithMultiple(
        op, {op.getAsync() ? acc : waitGroups(rewriter, loc, acc, 0)});
    return success();
  }
  TileToLLVMState &state;
};

/// %r... = tile.warpgroup_wait %d... {pending = N}
///   => wgmma.wait_group N, tied to every register of every operand; with
///   `after(%v)`, after a guard on the thread's elements of %v (waitGroups).
struct WarpgroupWaitOpLowering
    : public ConvertOpToLLVMPattern<tile::WarpgroupWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::WarpgroupWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> regs;
    SmallVector<size_t> sizes;
    for (ValueRange v : adaptor.getInputs()) {
      regs.append(v.begin(), v.end());
      sizes.push_back(v.size());
    }
    SmallVector<Value> done =
        waitGroups(rewriter, op.getLoc(), regs, op.getPendingAttr().getInt(),
                   adaptor.getAfter());
    SmallVector<SmallVector<Value>> results;
    ArrayRef<Value> rest = done;
    for (size_t n : sizes) {
      results.emplace_back(rest.take_front(n));
      rest = rest.drop_front(n);
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};
} // namespace

void tilellvm::populateWgmmaDotPatterns(LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        TileToLLVMState &state) {
  patterns.add<WarpgroupDotOpLowering>(converter, state);
  patterns.add<WarpgroupWaitOpLowering>(converter);
}
