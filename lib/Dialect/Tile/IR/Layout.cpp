//===- Layout.cpp - Distributed layouts as linear maps --------------------===//
//
// Builds the GF(2) linear map of a #tile.blocked or #tile.slice layout over a
// tensor shape. Register bases that map to nothing (elements a smaller tensor
// would hold twice in one thread) are dropped, so every register of a thread
// holds a distinct element; lane and warp bases that map to nothing stay and
// mean the element is replicated across those threads.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/IR/Layout.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quire::tile;

static bool isZero(const Coord &c) {
  return llvm::all_of(c, [](int64_t v) { return v == 0; });
}

/// The layout of `shape` under a blocked encoding, zero register bases kept
/// (slices drop them after removing their dimension).
static void buildBlocked(BlockedEncodingAttr enc, ArrayRef<int64_t> shape,
                         SmallVector<Coord> &regs, SmallVector<Coord> &lanes,
                         SmallVector<Coord> &warps) {
  unsigned rank = shape.size();
  auto unit = [&](unsigned dim, int64_t value) {
    Coord c(rank, 0);
    // Images past the dimension's size wrap around to 0 (replication).
    c[dim] = value < shape[dim] ? value : 0;
    return c;
  };
  ArrayRef<unsigned> spt = enc.getSizePerThread(),
                     tpw = enc.getThreadsPerWarp(), wpc = enc.getWarpsPerCTA(),
                     order = enc.getOrder();
  for (unsigned d : order)
    for (unsigned b = 1; b < spt[d]; b <<= 1)
      regs.push_back(unit(d, b));
  for (unsigned d : order)
    for (unsigned b = 1; b < tpw[d]; b <<= 1)
      lanes.push_back(unit(d, int64_t(spt[d]) * b));
  for (unsigned d : order)
    for (unsigned b = 1; b < wpc[d]; b <<= 1)
      warps.push_back(unit(d, int64_t(spt[d]) * tpw[d] * b));
  for (unsigned d : order) {
    int64_t tile = int64_t(spt[d]) * tpw[d] * wpc[d];
    for (int64_t b = tile; b < shape[d]; b <<= 1)
      regs.push_back(unit(d, b));
  }
}

/// The layouts of mma.sync m16n8k16 fragments (see TileAttrs.td): the
/// accumulator (`opIdx` < 0) or operand A (0) / B (1) of a #tile.mma parent,
/// with its M, N and K renumbering (mWidth, nWidth, kWidth).
static void buildMma(MmaEncodingAttr mma, int opIdx, ArrayRef<int64_t> shape,
                     SmallVector<Coord> &regs, SmallVector<Coord> &lanes,
                     SmallVector<Coord> &warps) {
  auto at = [&](int64_t r, int64_t c) {
    // Images past a dimension's size wrap around to 0 (replication).
    return Coord{r < shape[0] ? r : 0, c < shape[1] ? c : 0};
  };
  unsigned wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  int64_t I = mma.getMWidth(), J = mma.getNWidth(), w = mma.getKWidth();
  int64_t mBlock = mma.mBlock(), nBlock = mma.nBlock();
  // A lane's j-th element (j a power of two) along each dimension, as an
  // offset from its first: within a renumbering block the elements are
  // consecutive, past it they step by blocks (TileAttrs.td).
  auto mStep = [&](int64_t j) { return j < I ? j : 8 * j; };
  auto nStep = [&](int64_t j) { return j < J ? j : 8 * j; };
  auto kStep = [&](int64_t j) { return j < w ? j : 4 * j; };
  // Warp w: w % wm along M, w / wm along N, by whole blocks; A ignores
  // the N warps and B the M warps (they replicate the operand).
  for (unsigned b = 1; b < wm; b <<= 1)
    warps.push_back(opIdx == 1 ? at(0, 0) : at(mBlock * b, 0));
  for (unsigned b = 1; b < wn; b <<= 1)
    warps.push_back(opIdx == 0 ? at(0, 0) : at(0, nBlock * b));
  // A thread's elements along M (A, C) or N (B, C) within a warp's block,
  // then along K (A, B), then the blocks of further warp tiles.
  auto mRegs = [&]() {
    for (int64_t j = 1; mStep(j) < mBlock; j <<= 1)
      regs.push_back(at(mStep(j), 0));
  };
  auto nRegs = [&]() {
    for (int64_t j = 1; j < J; j <<= 1)
      regs.push_back(at(0, nStep(j)));
  };
  auto kRegs = [&](unsigned dim, int64_t first) {
    // Lane-local K index j of K/4 (4 lanes split K).
    for (int64_t j = first; j < shape[dim] / 4; j <<= 1)
      regs.push_back(dim == 0 ? at(kStep(j), 0) : at(0, kStep(j)));
  };
  auto mBlocks = [&]() {
    for (int64_t b = mBlock * wm; b < shape[0]; b <<= 1)
      regs.push_back(at(b, 0));
  };
  auto nBlocks = [&]() {
    for (int64_t b = nBlock * wn; b < shape[1]; b <<= 1)
      regs.push_back(at(0, b));
  };
  if (opIdx == 0) {
    // A (M x K): lane l = 4g + t holds row positions g, +8 of K positions
    // 2t, +1, +8, +9, ... The registers run along the renumbered
    // dimension first, so they load as vectors.
    lanes.append(
        {at(0, w), at(0, 2 * w), at(I, 0), at(2 * I, 0), at(4 * I, 0)});
    if (I > 1) {
      mRegs();
      kRegs(1, 1);
    } else if (w > 2) {
      kRegs(1, 1);
      mRegs();
    } else {
      regs.push_back(at(0, 1));
      mRegs();
      kRegs(1, 2);
    }
    mBlocks();
    return;
  }
  if (opIdx == 1) {
    // B (K x N): lane l holds K positions 2t, +1, +8, +9 of column
    // position g.
    lanes.append(
        {at(w, 0), at(2 * w, 0), at(0, J), at(0, 2 * J), at(0, 4 * J)});
    nRegs();
    kRegs(0, 1);
    nBlocks();
    return;
  }
  // The accumulator: lane l holds row positions g, +8 of column positions
  // 2t, +1 of each fragment.
  lanes.append(
      {at(0, 2 * J), at(0, 4 * J), at(I, 0), at(2 * I, 0), at(4 * I, 0)});
  if (I > 1) {
    mRegs();
    nRegs();
    regs.push_back(at(0, J));
  } else {
    nRegs();
    regs.push_back(at(0, J));
    mRegs();
  }
  nBlocks();
  mBlocks();
}

static LogicalResult build(Attribute enc, ArrayRef<int64_t> shape,
                           SmallVector<Coord> &regs, SmallVector<Coord> &lanes,
                           SmallVector<Coord> &warps, std::string *why) {
  if (auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(enc)) {
    if (blocked.getRank() != shape.size()) {
      if (why)
        *why = "layout rank does not match the tensor rank";
      return failure();
    }
    buildBlocked(blocked, shape, regs, lanes, warps);
    return success();
  }
  if (isa_and_nonnull<MmaEncodingAttr, DotOperandEncodingAttr>(enc)) {
    if (shape.size() != 2) {
      if (why)
        *why = "not supported: mma layouts need a rank-2 tensor";
      return failure();
    }
    auto mma = dyn_cast<MmaEncodingAttr>(enc);
    int opIdx = -1;
    if (auto op = dyn_cast<DotOperandEncodingAttr>(enc)) {
      mma = cast<MmaEncodingAttr>(op.getParent());
      opIdx = op.getOpIdx();
    }
    // A renumbered dimension must hold whole blocks (a smaller one would
    // wrap the renumbering onto itself); a slice's removed dimension (size
    // 1 here) holds nothing to renumber.
    int64_t kBlock = mma.kBlock(), nBlock = mma.nBlock(), mBlock = mma.mBlock();
    int64_t k = opIdx == 0 ? shape[1] : opIdx == 1 ? shape[0] : 1;
    int64_t n = opIdx == 0 ? 1 : shape[1], m = opIdx == 1 ? 1 : shape[0];
    if ((mma.getKWidth() > 2 && k > 1 && k % kBlock) ||
        (mma.getNWidth() > 1 && n > 1 && n % nBlock) ||
        (mma.getMWidth() > 1 && m > 1 && m % mBlock)) {
      if (why)
        *why = "not supported: a #tile.mma with mWidth " +
               std::to_string(mma.getMWidth()) + ", nWidth " +
               std::to_string(mma.getNWidth()) + " and kWidth " +
               std::to_string(mma.getKWidth()) + " needs M a multiple of " +
               std::to_string(mBlock) + ", N of " + std::to_string(nBlock) +
               " and K of " + std::to_string(kBlock);
      return failure();
    }
    buildMma(mma, opIdx, shape, regs, lanes, warps);
    return success();
  }
  if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(enc)) {
    SmallVector<int64_t> parentShape(shape);
    if (slice.getDim() > parentShape.size()) {
      if (why)
        *why = "slice dimension out of range";
      return failure();
    }
    parentShape.insert(parentShape.begin() + slice.getDim(), 1);
    SmallVector<Coord> pr, pl, pw;
    if (failed(build(slice.getParent(), parentShape, pr, pl, pw, why)))
      return failure();
    auto drop = [&](SmallVector<Coord> &from, SmallVector<Coord> &to) {
      for (Coord c : from) {
        c.erase(c.begin() + slice.getDim());
        to.push_back(c);
      }
    };
    drop(pr, regs);
    drop(pl, lanes);
    drop(pw, warps);
    return success();
  }
  if (why)
    *why = "tensor has no distributed layout (run quire-assign-layouts)";
  return failure();
}

FailureOr<LinearLayout> LinearLayout::get(RankedTensorType type,
                                          std::string *why) {
  for (int64_t d : type.getShape())
    if (d <= 0 || !llvm::isPowerOf2_64(d)) {
      if (why)
        *why = "not supported: tensor dimensions must be powers of two, got " +
               std::to_string(d);
      return failure();
    }
  LinearLayout layout;
  layout.shape.assign(type.getShape().begin(), type.getShape().end());
  SmallVector<Coord> regs;
  if (failed(build(type.getEncoding(), type.getShape(), regs, layout.laneBases,
                   layout.warpBases, why)))
    return failure();
  // Registers that would duplicate another register of the same thread go.
  for (Coord &c : regs)
    if (!isZero(c))
      layout.regBases.push_back(c);
  return layout;
}

unsigned LinearLayout::getRegisterRun(unsigned dim) const {
  // The leading register bases must be 1, 2, 4, ... along `dim`.
  unsigned run = 1;
  for (const Coord &basis : regBases) {
    Coord unit(getRank(), 0);
    unit[dim] = run;
    if (basis != unit)
      break;
    run *= 2;
  }
  return run;
}

Coord LinearLayout::regCoord(unsigned reg) const {
  Coord c(shape.size(), 0);
  for (unsigned b = 0; b < regBases.size(); ++b)
    if (reg & (1u << b))
      for (unsigned d = 0; d < shape.size(); ++d)
        c[d] ^= regBases[b][d];
  return c;
}

Coord LinearLayout::coord(unsigned reg, unsigned lane, unsigned warp) const {
  Coord c = regCoord(reg);
  auto apply = [&](ArrayRef<Coord> bases, unsigned bits) {
    for (unsigned b = 0; b < bases.size(); ++b)
      if (bits & (1u << b))
        for (unsigned d = 0; d < shape.size(); ++d)
          c[d] ^= bases[b][d];
  };
  apply(laneBases, lane);
  apply(warpBases, warp);
  return c;
}

int64_t LinearLayout::linearIndex(ArrayRef<int64_t> c) const {
  int64_t index = 0;
  for (unsigned d = 0; d < shape.size(); ++d)
    index = index * shape[d] + c[d];
  return index;
}

BlockedEncodingAttr
mlir::quire::tile::getDefaultBlockedLayout(MLIRContext *ctx,
                                           ArrayRef<int64_t> shape,
                                           unsigned numWarps, unsigned vec,
                                           unsigned rowsPerThread) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  auto clampPow2 = [](int64_t v) {
    return static_cast<unsigned>(
        std::max<int64_t>(1, llvm::bit_floor(static_cast<uint64_t>(v))));
  };
  // Elements per thread along the contiguous (last) dimension.
  spt[rank - 1] = std::min<unsigned>(vec, clampPow2(shape[rank - 1]));
  // Lanes: fill the last dimension first, then the ones before it.
  unsigned lanesLeft = kWarpSize;
  for (int d = rank - 1; d >= 0 && lanesLeft > 1; --d) {
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    unsigned t = std::min<unsigned>(lanesLeft, clampPow2(room));
    if (d == 0)
      t = lanesLeft; // the rest replicate along dim 0
    tpw[d] = t;
    lanesLeft /= t;
  }
  // Warps: fill the first dimension first, then the ones after it.
  unsigned warpsLeft = numWarps;
  for (unsigned d = 0; d < rank && warpsLeft > 1; ++d) {
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned w = std::min<unsigned>(warpsLeft, clampPow2(room));
    if (d == rank - 1)
      w = warpsLeft;
    wpc[d] = w;
    warpsLeft /= w;
  }
  if (warpsLeft > 1)
    wpc[0] *= warpsLeft;
  // Repetitions along the first dimension: consecutive rows of one thread
  // instead of rows lanes x warps apart.
  if (rank >= 2 && rowsPerThread > 1) {
    int64_t reps = shape[0] / (int64_t(tpw[0]) * wpc[0]);
    if (reps > 1)
      spt[0] = unsigned(std::min<int64_t>(reps, clampPow2(rowsPerThread)));
  }
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

Attribute mlir::quire::tile::permuteLayout(Attribute layout,
                                           ArrayRef<int32_t> perm) {
  auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
  if (!blocked)
    return {};
  unsigned rank = blocked.getRank();
  SmallVector<unsigned> spt, tpw, wpc, order, inverse(rank);
  for (unsigned i = 0; i < rank; ++i) {
    spt.push_back(blocked.getSizePerThread()[perm[i]]);
    tpw.push_back(blocked.getThreadsPerWarp()[perm[i]]);
    wpc.push_back(blocked.getWarpsPerCTA()[perm[i]]);
    inverse[perm[i]] = i;
  }
  for (unsigned d : blocked.getOrder())
    order.push_back(inverse[d]);
  return BlockedEncodingAttr::get(layout.getContext(), spt, tpw, wpc, order);
}

unsigned mlir::quire::tile::getNumWarps(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(
            TileDialect::getNumWarpsAttrName()))
      return attr.getInt();
  return 4;
}

std::pair<BlockedEncodingAttr, BlockedEncodingAttr>
mlir::quire::tile::getRegisterDotLayouts(BlockedEncodingAttr b, int64_t m) {
  ArrayRef<unsigned> spt = b.getSizePerThread(), tpw = b.getThreadsPerWarp(),
                     wpc = b.getWarpsPerCTA(), order = b.getOrder();
  unsigned mm = static_cast<unsigned>(m);
  // B's dimension 0 is K, 1 is N. In A, K is dimension 1 and B's N lanes and
  // warps land on the M dimension, where they wrap (replicate); in C, B's K
  // lanes and warps land on M and replicate.
  auto aOrder = [&](unsigned d) { return d == 0 ? 1u : 0u; };
  BlockedEncodingAttr a = BlockedEncodingAttr::get(
      b.getContext(), {mm, spt[0]}, {tpw[1], tpw[0]}, {wpc[1], wpc[0]},
      {aOrder(order[0]), aOrder(order[1])});
  BlockedEncodingAttr c =
      BlockedEncodingAttr::get(b.getContext(), {mm, spt[1]}, {tpw[0], tpw[1]},
                               {wpc[0], wpc[1]}, {order[0], order[1]});
  return {a, c};
}
