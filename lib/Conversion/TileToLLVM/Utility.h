//===- Utility.h - Shared helpers of the tile-to-LLVM patterns ----*- C++ -*-===//
//
// Thread coordinates of a layout, shared memory, barriers and constants, as
// the patterns in this folder emit them. Internal to the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H
#define QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H

#include "quire/Conversion/TileToLLVM.h"
#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quire::tilellvm {

/// Name of the dynamic shared memory every kernel of a module uses.
constexpr llvm::StringLiteral kSharedMemoryName = "quire_smem";
/// Internal markers of the shared-memory placement (removed by it).
constexpr llvm::StringLiteral kSlotAttr = "quire.smem_slot";
constexpr llvm::StringLiteral kSlotBaseAttr = "quire.smem_slot_base";
constexpr llvm::StringLiteral kAutoBarrierAttr = "quire.requested_barrier";
constexpr llvm::StringLiteral kAsyncBaseAttr = "quire.smem_async_base";
/// Slot ids (for the barrier analysis) of the async staging buffers: one per
/// buffer, distinct from the staging slots.
constexpr int kAsyncSlotBase = 1 << 20;

/// The layout of a laid-out tensor type, or a located error.
FailureOr<tile::LinearLayout> getLayout(Operation *op, Type type);

Value i32Const(OpBuilder &b, Location loc, int64_t v);
Value i64Const(OpBuilder &b, Location loc, int64_t v);

/// Per-thread ids, as i32.
struct ThreadIds {
  Value lane, warp;
};
ThreadIds getThreadIds(OpBuilder &b, Location loc);

/// The thread-dependent part of the coordinate (one i32 per dimension): the
/// XOR of the lane and warp bases selected by this thread's lane and warp.
SmallVector<Value> threadCoord(OpBuilder &b, Location loc,
                               const tile::LinearLayout &layout,
                               const ThreadIds &ids);

/// Full coordinate of register `reg`: thread part XOR register part.
SmallVector<Value> regCoordValues(OpBuilder &b, Location loc,
                                  const tile::LinearLayout &layout,
                                  ArrayRef<Value> thread, unsigned reg);

/// Row-major linear index of a coordinate over `shape` (i32).
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                ArrayRef<int64_t> shape);

/// Pointer to byte `offset` of shared-memory buffer `slot` (from
/// TileToLLVMState::reserveShared) in the module's dynamic shared memory;
/// declares the memory on first use. The slot's base is a placeholder that
/// `placeSharedBuffers` fills in once every buffer's size is known.
Value sharedPtr(OpBuilder &b, Location loc, Operation *anchor, Value offset,
                unsigned slot);

/// A barrier a lowering asks for; `placeSharedBuffers` replaces these by
/// the ones the shared-memory accesses actually need.
void barrier(OpBuilder &b, Location loc);

/// After the tile ops are lowered: sets the buffer bases (slot x the
/// largest buffer, 128-byte aligned), then drops the lowerings' barriers and
/// inserts one before every shared-memory access that conflicts (read after
/// write, write after read, by slot) with an access since the last
/// barrier, through loops (to a fixed point) and branches. Returns the
/// dynamic shared memory each kernel needs (by name): the end of the last
/// slot or async buffer it touches, so a kernel that shares a module with a
/// larger one (the decode combine with the split kernel) launches with only
/// what it uses.
llvm::StringMap<int64_t> placeSharedBuffers(ModuleOp module,
                                            const TileToLLVMState &state);

/// For each register of `dst`, the register of `src` that holds the same
/// element, where `toSrc` maps a register coordinate of `dst` to one of
/// `src`. Fails if the thread parts of the two layouts do not correspond (the
/// data would have to move between threads).
FailureOr<SmallVector<unsigned>>
mapRegisters(const tile::LinearLayout &src, const tile::LinearLayout &dst,
             function_ref<tile::Coord(const tile::Coord &)> toSrc);

/// Memory type of an element: i1 is stored as i8, pointers as i64.
Type storageType(Type llvmElementType);
Value toStorage(OpBuilder &b, Location loc, Value v);
Value fromStorage(OpBuilder &b, Location loc, Value v, Type llvmElementType);

/// shfl.sync.bfly of a value of up to 64 bits across the full warp.
Value shuffleXor(OpBuilder &b, Location loc, Value v, unsigned mask);

/// The index, among the 2^bits.size() warp positions that differ in the
/// warp-id bits `bits`, of this thread's warp (those bits, compacted): the
/// shared-memory slot of a cross-warp exchange.
Value warpSlot(OpBuilder &b, Location loc, Value warp, ArrayRef<unsigned> bits);

/// The b32 register mma.sync and wgmma take for two 16-bit elements: `lo`
/// in the low half, `hi` in the high half.
Value packPair(OpBuilder &b, Location loc, Value lo, Value hi);

/// Inline PTX `asm` with `constraints`, returning one value per type of
/// `results` (wrapped in a literal struct when there are several).
SmallVector<Value> inlinePtx(OpBuilder &b, Location loc, TypeRange results,
                             ValueRange operands, StringRef asmString,
                             StringRef constraints, bool sideEffects);

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
  /// Byte offset of coordinate (c0, c1).
  Value offset(OpBuilder &b, Location loc, ArrayRef<Value> c) const {
    Value row = c[1 - contig], col = c[contig];
    Value idx = LLVM::AddOp::create(
        b, loc, LLVM::MulOp::create(b, loc, row, i32Const(b, loc, stride)), col);
    return LLVM::MulOp::create(b, loc, idx, i32Const(b, loc, bytes));
  }
};

/// Number of a layout's leading registers that are consecutive along `dim`
/// (registers r..r+run-1 hold elements c, c+1, ...), capped at `cap` (a
/// power of two).
unsigned registerRun(const tile::LinearLayout &l, unsigned dim, unsigned cap);

/// Fills `results` (a 16-bit #tile.dot_op layout `dst`) from a tile staged
/// with dimension `contig` fastest, with ldmatrix.x4/x2/x1 (.trans when the
/// staged rows run along K); `ptrAt` gives the shared address of a
/// coordinate. Fails (emitting nothing) for layouts it cannot read so.
LogicalResult loadMatrices(OpBuilder &b, Location loc, Type elt,
                           const tile::LinearLayout &dst,
                           tile::DotOperandEncodingAttr enc, unsigned contig,
                           ThreadIds ids,
                           function_ref<Value(ArrayRef<Value>)> ptrAt,
                           SmallVector<Value> &results);

/// The registers of `type` (laid out as `dst`) read from a tile staged
/// with dimension `contig` fastest, `ptrAt` giving the shared address of a
/// coordinate: ldmatrix for a 16-bit #tile.dot_op layout (loadMatrices),
/// else vector loads of a thread's consecutive registers along `contig` (up
/// to 16 bytes) or element loads.
SmallVector<Value> loadStagedTile(OpBuilder &b, Location loc,
                                  RankedTensorType type,
                                  const tile::LinearLayout &dst,
                                  unsigned contig, ThreadIds ids,
                                  function_ref<Value(ArrayRef<Value>)> ptrAt);

/// Pointer to byte `offset` of async staging buffer `buffer` (see
/// TileToLLVMState::reserveAsync), placed after the staging slots by
/// `placeSharedBuffers`.
Value asyncSharedPtr(OpBuilder &b, Location loc, Operation *anchor,
                     Value offset, unsigned buffer);

/// Moves each ldmatrix (and the unpacking of its result) down to just
/// before the first op that uses it, when nothing in between writes memory
/// or synchronizes: a dot operand converted as a whole is then read from
/// shared memory fragment by fragment as the mma instructions consume it,
/// instead of all fragments being live at once.
void sinkMatrixLoads(Operation *root);

void populateLoadStorePatterns(LLVMTypeConverter &, RewritePatternSet &,
                               TileToLLVMState &);
void populateReducePatterns(LLVMTypeConverter &, RewritePatternSet &,
                            TileToLLVMState &);
void populateDotPatterns(LLVMTypeConverter &, RewritePatternSet &,
                         TileToLLVMState &);
void populateConvertLayoutPatterns(LLVMTypeConverter &, RewritePatternSet &,
                                   TileToLLVMState &);
void populateAsyncCopyPatterns(LLVMTypeConverter &, RewritePatternSet &,
                               TileToLLVMState &);

} // namespace mlir::quire::tilellvm

#endif // QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H
