//===- Utility.h - Shared helpers of the tile-to-LLVM patterns --*- C++ -*-===//
//
// Thread coordinates of a layout, constants, shuffles, inline PTX and the
// reads of staged tiles, as the patterns in this folder emit them; the
// populate functions of each op family. Shared memory is in SharedMemory.h,
// barriers in Barriers.h. Internal to the conversion.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H
#define QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H

#include "quire/Conversion/TileToLLVM.h"
#include "quire/Dialect/Tile/IR/Layout.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::quire::tilellvm {

/// The layout of a laid-out tensor type, or a located error.
FailureOr<tile::LinearLayout> getLayout(Operation *op, Type type);

Value i32Const(OpBuilder &b, Location loc, int64_t v);
Value i64Const(OpBuilder &b, Location loc, int64_t v);

/// Per-thread ids, as i32.
struct ThreadIds {
  Value lane, warp;
};
ThreadIds getThreadIds(OpBuilder &b, Location loc);

/// The lane and warp id bits of `layout` whose basis adds no element to those
/// of the registers and the lower thread bits: threads with any of them set
/// hold only copies of elements a thread with all of them clear holds.
std::pair<uint32_t, uint32_t> replicaBits(const tile::LinearLayout &layout);

/// An i1 that is true in the one thread that owns each element of a value of
/// `type` (a laid-out tensor: the thread with no replica bit set; a scalar,
/// which every thread holds: thread 0), or null when every thread owns its
/// elements alone; a located error when `type` has no layout.
FailureOr<Value> ownerPredicate(OpBuilder &b, Location loc, Operation *op,
                                Type type);

/// The thread-dependent part of the coordinate (one i32 per dimension): the
/// XOR of the lane and warp bases selected by this thread's lane and warp.
SmallVector<Value> threadCoord(OpBuilder &b, Location loc,
                               const tile::LinearLayout &layout,
                               const ThreadIds &ids);

/// Row-major index of the register part of register `reg`'s coordinate:
/// two registers of one thread hold the same element when they have the
/// same key.
int64_t regKey(const tile::LinearLayout &layout, unsigned reg);

/// Full coordinate of register `reg`: thread part XOR register part.
SmallVector<Value> regCoordValues(OpBuilder &b, Location loc,
                                  const tile::LinearLayout &layout,
                                  ArrayRef<Value> thread, unsigned reg);

/// Row-major linear index of a coordinate over `shape` (i32).
Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coord,
                ArrayRef<int64_t> shape);

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

/// `fence.proxy.async.shared::cta`: the executing thread's shared-memory
/// accesses through the generic proxy (ld/st, cp.async) and through the
/// async proxy (wgmma, TMA) are ordered across it.
void fenceAsyncProxy(OpBuilder &b, Location loc);

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

/// Writes the registers `in` (laid out as `src`) to a staged tile, `ptrAt`
/// giving the shared address of a coordinate: a vector store per run of a
/// thread's consecutive registers along `dim` (up to 16 bytes), else
/// element stores.
void storeStagedTile(OpBuilder &b, Location loc, ValueRange in,
                     const tile::LinearLayout &src, unsigned dim, ThreadIds ids,
                     function_ref<Value(ArrayRef<Value>)> ptrAt);

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
void populateFmaDotPatterns(LLVMTypeConverter &, RewritePatternSet &,
                            TileToLLVMState &);
void populateMmaDotPatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateWgmmaDotPatterns(LLVMTypeConverter &, RewritePatternSet &,
                              TileToLLVMState &);
void populateConvertLayoutPatterns(LLVMTypeConverter &, RewritePatternSet &,
                                   TileToLLVMState &);
void populateAsyncCopyPatterns(LLVMTypeConverter &, RewritePatternSet &,
                               TileToLLVMState &);
void populateAssertPatterns(LLVMTypeConverter &, RewritePatternSet &);
void populateFp8Patterns(LLVMTypeConverter &, RewritePatternSet &);
void populateTmaPatterns(LLVMTypeConverter &, RewritePatternSet &,
                         TileToLLVMState &);

/// Reports (located) the ops of `module` the GPU lowering does not take
/// fp8 values in: anything but loads, stores, data movement and
/// arith.extf / arith.truncf between fp8 and f16, bf16 or f32, which need
/// sm_89 or later.
LogicalResult checkFp8Ops(ModuleOp module, unsigned sm);

/// A conversion pattern of a tile op that reads and updates the
/// conversion's state (shared memory, the target).
template <typename Op>
struct StatefulPattern : public ConvertOpToLLVMPattern<Op> {
  StatefulPattern(LLVMTypeConverter &c, TileToLLVMState &s)
      : ConvertOpToLLVMPattern<Op>(c), state(s) {}
  TileToLLVMState &state;
};

} // namespace mlir::quire::tilellvm

#endif // QUIRE_LIB_CONVERSION_TILETOLLVM_UTILITY_H
