//===- Layout.h - Distributed layouts as linear maps ------------*- C++ -*-===//
//
// Every distributed layout of a tensor with power-of-two dimensions is a
// linear map over GF(2) from (register, lane, warp) bits to coordinate bits:
// the coordinate of register r in lane l of warp w is the XOR of the images
// of the set bits of r, l and w (Triton's linear layouts). `LinearLayout`
// holds those images; the GPU lowering reads coordinates, shuffle partners and
// layout equivalence off it instead of special-casing every encoding.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_DIALECT_TILE_IR_LAYOUT_H
#define QUIRE_DIALECT_TILE_IR_LAYOUT_H

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::quire::tile {

constexpr unsigned kWarpSize = 32;
/// Warps of a warpgroup (wgmma, setmaxnreg).
constexpr unsigned kWarpsPerWarpgroup = 4;
/// 32-bit registers of a CTA (and of an SM) on sm_80 and sm_90.
constexpr int64_t kRegistersPerCta = 65536;

/// The most registers each of a CTA's `threads` can hold, in the multiples
/// of 8 they are allocated in.
inline int64_t registersPerThread(int64_t threads) {
  return kRegistersPerCta / threads / 8 * 8;
}

/// A basis image: one coordinate per tensor dimension.
using Coord = SmallVector<int64_t, 4>;

class LinearLayout {
public:
  /// The layout of `type` (which must carry a #tile.blocked or #tile.slice
  /// encoding). Fails with a reason in `why` for shapes the GPU backend does
  /// not support (non-power-of-two dimensions).
  static FailureOr<LinearLayout> get(RankedTensorType type,
                                     std::string *why = nullptr);

  ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  unsigned getNumRegs() const { return 1u << regBases.size(); }
  unsigned getNumWarps() const { return 1u << warpBases.size(); }
  ArrayRef<Coord> getRegBases() const { return regBases; }
  ArrayRef<Coord> getLaneBases() const { return laneBases; }
  ArrayRef<Coord> getWarpBases() const { return warpBases; }

  /// The register part of register `reg`'s coordinate.
  Coord regCoord(unsigned reg) const;
  /// How many of a thread's leading registers hold consecutive elements
  /// along `dim` (registers r..r+run-1 hold c, c+1, ...): a power of two.
  unsigned getRegisterRun(unsigned dim) const;
  /// The full coordinate of `reg` in thread (`lane`, `warp`).
  Coord coord(unsigned reg, unsigned lane, unsigned warp) const;
  /// Row-major linear index of a coordinate.
  int64_t linearIndex(ArrayRef<int64_t> c) const;

  /// True if both layouts put every element in the same register of the same
  /// thread (so converting between them moves nothing).
  bool operator==(const LinearLayout &other) const {
    return shape == other.shape && regBases == other.regBases &&
           laneBases == other.laneBases && warpBases == other.warpBases;
  }

private:
  SmallVector<int64_t, 4> shape;
  SmallVector<Coord> regBases, laneBases, warpBases;
};

/// The layout quire-assign-layouts gives a tensor of `shape` by default:
/// `vec` consecutive elements per thread along the last dimension (16-byte
/// accesses), lanes along the last dimension first, warps along the first.
/// Where the lanes and warps cover fewer rows than the tensor has, each
/// thread repeats over the rest; with `rowsPerThread` > 1 (a power of two
/// at most that) its repetitions are that many consecutive rows rather
/// than rows the lanes and warps apart.
BlockedEncodingAttr getDefaultBlockedLayout(MLIRContext *ctx,
                                            ArrayRef<int64_t> shape,
                                            unsigned numWarps, unsigned vec,
                                            unsigned rowsPerThread = 1);

/// `layout` with its dimensions permuted as `tile.trans` with `perm` does.
Attribute permuteLayout(Attribute layout, ArrayRef<int32_t> perm);

/// A `tile.dot` with at most this many rows (M) is computed in registers:
/// B keeps the layout it was produced in, every thread multiplies the K
/// elements it holds with A (held for all M rows) and threads that hold
/// different K of the same column sum their partials with shuffles. This is
/// the decode-attention case (M = the GQA group).
constexpr int64_t kRegisterDotMaxM = 16;

/// For a register dot with B (K x N) in `b`: the layouts A (M x K) and the
/// accumulator C (M x N) must have. A holds all M rows of the K elements a
/// thread holds of B; C holds all M rows of B's columns, replicated across
/// the threads that split K.
std::pair<BlockedEncodingAttr, BlockedEncodingAttr>
getRegisterDotLayouts(BlockedEncodingAttr b, int64_t m);

/// Number of warps a module's kernels run with (`tile.num_warps`, default 4).
unsigned getNumWarps(Operation *op);

} // namespace mlir::quire::tile

#endif // QUIRE_DIALECT_TILE_IR_LAYOUT_H
