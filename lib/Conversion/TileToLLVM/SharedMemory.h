//===- SharedMemory.h - Shared memory of the lowerings ----------*- C++ -*-===//
//
// Where the lowerings' shared memory lives. Every kernel of a module uses one
// dynamic shared memory (@quire_smem): staging slots that layout
// conversions, reductions and dots take in turn, followed by the async
// staging buffers of tile.async_copy. The lowerings address it through
// placeholder bases that placeSharedBuffers fills in once every op is
// lowered and every buffer's size is known. The geometry of a staged rank-2
// tile (rows padded, or swizzled as wgmma reads it) is here too: the
// cp.async copies that write a staging buffer and the ops that read it
// (tile.async_local_load, tile.warpgroup_dot) must agree on it. Internal to
// the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_LIB_CONVERSION_TILETOLLVM_SHAREDMEMORY_H
#define QUIRE_LIB_CONVERSION_TILETOLLVM_SHAREDMEMORY_H

#include "Utility.h"

namespace mlir::quire::tilellvm {

/// Name of the dynamic shared memory every kernel of a module uses.
constexpr llvm::StringLiteral kSharedMemoryName = "quire_smem";
/// Internal markers of the shared-memory placement: the slot of an address
/// (read by the barrier placement, which removes it) and the placeholder
/// bases (removed by placeSharedBuffers).
constexpr llvm::StringLiteral kSlotAttr = "quire.smem_slot";
constexpr llvm::StringLiteral kSlotBaseAttr = "quire.smem_slot_base";
constexpr llvm::StringLiteral kAsyncBaseAttr = "quire.smem_async_base";
/// Slot ids (for the barrier analysis) of the async staging buffers: one per
/// buffer, distinct from the staging slots.
constexpr int kAsyncSlotBase = 1 << 20;

/// Pointer to byte `offset` of shared-memory buffer `slot` (from
/// TileToLLVMState::reserveShared) in the module's dynamic shared memory;
/// declares the memory on first use. The slot's base is a placeholder that
/// `placeSharedBuffers` fills in once every buffer's size is known.
Value sharedPtr(OpBuilder &b, Location loc, Operation *anchor, Value offset,
                unsigned slot);

/// Pointer to byte `offset` of async staging buffer `buffer` (see
/// TileToLLVMState::reserveAsync), placed after the staging slots by
/// `placeSharedBuffers`.
Value asyncSharedPtr(OpBuilder &b, Location loc, Operation *anchor,
                     Value offset, unsigned buffer);

/// After the tile ops are lowered: sets the buffer bases (slot x the
/// largest buffer, 128-byte aligned; the async buffers after the slots, each
/// as aligned as its uses ask). Returns the dynamic shared memory each
/// kernel needs (by name): the end of the last slot or async buffer it
/// touches, so a kernel that shares a module with a larger one (the decode
/// combine with the split kernel) launches with only what it uses.
llvm::StringMap<int64_t> placeSharedBuffers(ModuleOp module,
                                            const TileToLLVMState &state);

/// A rank-2 tile in shared memory: row-major with dimension `contig`
/// fastest, rows `stride` elements apart.
struct SharedTile {
  unsigned contig;
  int64_t stride, rows, bytes;
  /// How layout conversions (and async copies) stage a `shape` tile of
  /// `bytes`-byte elements: rows along `contig`, padded by 16 bytes so that
  /// the 8 rows an ldmatrix phase or a column of 4-byte reads touches fall
  /// in different banks.
  static SharedTile staging(ArrayRef<int64_t> shape, unsigned contig,
                            int64_t bytes) {
    int64_t pad =
        shape[contig] * bytes >= 32 && shape[1 - contig] > 1 ? 16 / bytes : 0;
    return SharedTile{contig, shape[contig] + pad, shape[1 - contig], bytes};
  }
  int64_t sizeBytes() const { return rows * stride * bytes; }
  /// Byte offset of coordinate (c0, c1), known at compile time.
  int64_t offsetOf(ArrayRef<int64_t> c) const {
    return (c[1 - contig] * stride + c[contig]) * bytes;
  }
  /// Byte offset of coordinate (c0, c1).
  Value offset(OpBuilder &b, Location loc, ArrayRef<Value> c) const {
    Value row = c[1 - contig], col = c[contig];
    Value idx = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, row, i32Const(b, loc, stride)),
        col);
    return LLVM::MulOp::create(b, loc, idx, i32Const(b, loc, bytes));
  }
};

/// The swizzled layout wgmma reads (CUTLASS's canonical GMMA layouts with
/// Swizzle<log2(S/16), 4, 3>, S = `swizzle` bytes): the staged tile's
/// contiguous dimension is cut in columns of S bytes; each column is the
/// tile's `rows` rows, S bytes apart; inside every 128-byte line the 16-byte
/// chunks are XOR-ed with the line's row bits (byte offset bits 7..), so a
/// stage must start at a multiple of 1024 bytes.
struct NvmmaTile {
  unsigned contig;
  int64_t rows, cols, bytes, swizzle;
  static NvmmaTile get(ArrayRef<int64_t> shape, unsigned contig,
                       int64_t bytes) {
    int64_t cols = shape[contig];
    return {contig, shape[1 - contig], cols, bytes,
            std::min<int64_t>(128, cols * bytes)};
  }
  int64_t sizeBytes() const { return rows * cols * bytes; }
  /// Elements per S-byte line.
  int64_t lineElems() const { return swizzle / bytes; }
  /// Unswizzled byte offset of row 0, contiguous-dimension index `col`.
  int64_t columnOffset(int64_t col) const {
    return (col / lineElems()) * rows * swizzle + (col % lineElems()) * bytes;
  }
  /// Byte offset of coordinate (c0, c1) of the staged tile, known at
  /// compile time (what `offset` computes at run time).
  int64_t offsetOf(ArrayRef<int64_t> c) const {
    int64_t row = c[1 - contig], col = c[contig];
    int64_t off = columnOffset(col) + row * swizzle;
    return off ^ (((off >> 7) & (swizzle / 16 - 1)) << 4);
  }
  /// Byte offset of coordinate (c0, c1) of the staged tile.
  Value offset(OpBuilder &b, Location loc, ArrayRef<Value> c) const {
    Value row = c[1 - contig], col = c[contig];
    int64_t e = lineElems();
    Value column = LLVM::UDivOp::create(b, loc, col, i32Const(b, loc, e));
    Value inLine = LLVM::URemOp::create(b, loc, col, i32Const(b, loc, e));
    Value off = LLVM::AddOp::create(
        b, loc,
        LLVM::MulOp::create(b, loc, column, i32Const(b, loc, rows * swizzle)),
        LLVM::AddOp::create(
            b, loc, LLVM::MulOp::create(b, loc, row, i32Const(b, loc, swizzle)),
            LLVM::MulOp::create(b, loc, inLine, i32Const(b, loc, bytes))));
    Value bits = LLVM::AndOp::create(
        b, loc, LLVM::LShrOp::create(b, loc, off, i32Const(b, loc, 7)),
        i32Const(b, loc, swizzle / 16 - 1));
    return LLVM::XOrOp::create(
        b, loc, off, LLVM::ShlOp::create(b, loc, bits, i32Const(b, loc, 4)));
  }
};

/// Geometry of one async staging buffer: the padded tile or the swizzled one.
/// A buffer is swizzled when wgmma reads it (`nvmma`), and otherwise, with
/// swizzle-staging, when its contiguous dimension is a power of two of at
/// least 32 bytes: 16-byte chunks XOR-ed with the row inside 128-byte lines
/// keep both the cp.async writes (a row's chunks) and the ldmatrix reads
/// (one chunk of 8 rows) free of bank conflicts without padding. Padded
/// rows (a 16-byte pad per row) shift each row's bytes against the banks,
/// and a warp's cp.async then takes several shared-memory wavefronts, each
/// fetching its own global sectors, so the copies read more L2 sectors
/// than the tile holds (docs/performance.md, "Decode: the L2-sector finding
/// and swizzled staging").
struct Staging {
  SharedTile tile;
  std::optional<NvmmaTile> nvmma;
  int64_t stageBytes;
  Value at(OpBuilder &b, Location loc, ArrayRef<Value> c) const {
    return nvmma ? nvmma->offset(b, loc, c) : tile.offset(b, loc, c);
  }
  int64_t offsetOf(ArrayRef<int64_t> c) const {
    return nvmma ? nvmma->offsetOf(c) : tile.offsetOf(c);
  }
};

/// The geometry of async staging buffer `buffer` holding `stages` copies of
/// a `shape` tile staged with dimension `contig` fastest; reserves its size
/// and alignment (TileToLLVMState::reserveAsync).
Staging reserveStaging(TileToLLVMState &state, ArrayRef<int64_t> shape,
                       unsigned contig, int64_t bytes, int64_t buffer,
                       int64_t stages, bool nvmma = false);

/// Byte offset of `stage` in a buffer of `stageBytes` stages (i32).
Value stageOffset(OpBuilder &b, Location loc, Value stage, int64_t stageBytes);

} // namespace mlir::quire::tilellvm

#endif // QUIRE_LIB_CONVERSION_TILETOLLVM_SHAREDMEMORY_H
