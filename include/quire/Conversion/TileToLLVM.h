//===- TileToLLVM.h - Lower tile kernels to LLVM + NVVM ---------*- C++ -*-===//

#ifndef QUIRE_CONVERSION_TILETOLLVM_H
#define QUIRE_CONVERSION_TILETOLLVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::quire {

class AxisInfoAnalysis;

#define GEN_PASS_DECL
#include "quire/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quire/Conversion/Passes.h.inc"

/// True if quire-convert-tile-to-llvm's max-registers takes `registers`: 0
/// (no cap) or what PTX .maxnreg takes, [24, 255].
inline bool isMaxRegisters(int64_t registers) {
  return registers == 0 || (registers >= 24 && registers <= 255);
}

/// State the tile-to-LLVM patterns share: the axis facts of the original
/// kernel and the high-water mark of dynamic shared memory.
struct TileToLLVMState {
  const AxisInfoAnalysis *axisInfo = nullptr;
  /// The largest shared-memory buffer one op needs (bytes).
  int64_t sharedBytes = 0;
  unsigned numWarps = 4;
  unsigned sm = 90;
  /// Registers per thread a kernel may use (nvvm.maxnreg); 0: no cap.
  unsigned maxRegisters = 0;
  /// Async staging buffers swizzled rather than padded where they can be.
  bool swizzleStaging = true;
  /// Ops that stage through shared memory take the `sharedBuffers` buffers
  /// in turn; with two, consecutive ones (A and B of a dot) share barriers.
  unsigned sharedUses = 0;
  unsigned sharedBuffers = 1;
  /// Reserves a buffer of `bytes` for one op; returns its slot.
  unsigned reserveShared(int64_t bytes) {
    sharedBytes = std::max(sharedBytes, bytes);
    return sharedUses++ % sharedBuffers;
  }
  /// Async staging buffers (tile.async_copy): each buffer id gets a region
  /// after the staging slots, as large and as aligned (a power of two) as
  /// the largest use of the id asks; placeSharedBuffers places them once
  /// every op is lowered (ids of sequential loops are reused).
  llvm::MapVector<int64_t, std::pair<int64_t, int64_t>> asyncBuffers;
  void reserveAsync(int64_t buffer, int64_t bytes, int64_t align = 128) {
    auto &[size, alignment] = asyncBuffers[buffer];
    size = std::max(size, bytes);
    alignment = std::max(alignment, align);
  }
};

/// `!tile.ptr` -> `!llvm.ptr<1>`; a laid-out tensor -> one value per register
/// a thread holds (1:N).
void populateTileToLLVMTypeConversions(LLVMTypeConverter &converter);

/// Patterns for every tile op and for arith/math ops on tensors.
void populateTileToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          TileToLLVMState &state);

/// Fast-math NVVM lowerings of math ops on f32 scalars (ex2.approx, ...) and
/// of f32 arith.divf marked `fastmath<arcp>` (div.full.f32).
void populateMathToNVVMFastPatterns(LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns);

} // namespace mlir::quire

#endif // QUIRE_CONVERSION_TILETOLLVM_H
