//===- AxisInfo.h - Contiguity, divisibility, constancy ---------*- C++ -*-===//
//
// Facts about integer and pointer values, per tensor dimension, that let the
// GPU lowering vectorize memory accesses (Triton's AxisInfo):
//  - contiguity[d]: values come in runs of this many consecutive integers
//    (pointers: consecutive elements) along d, each run starting at an index
//    that is a multiple of the run length;
//  - divisibility[d]: the first value of each such run is a multiple of this
//    (pointers: in bytes);
//  - constancy[d]: values come in runs of this many equal values along d.
// Scalars have rank 0 and only a divisibility. The analysis is one forward
// walk; loop-carried values are assumed to know nothing.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_ANALYSIS_AXISINFO_H
#define QUIRE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::quire {

struct AxisInfo {
  SmallVector<int64_t, 4> contiguity, divisibility, constancy;
  int64_t scalarDivisibility = 1;

  unsigned getRank() const { return contiguity.size(); }
  /// Divisibility of the scalar (rank 0) or of dimension `d`.
  int64_t getDivisibility(unsigned d) const {
    return getRank() ? divisibility[d] : scalarDivisibility;
  }
  /// The pessimistic fact for a value of `rank` dimensions.
  static AxisInfo unknown(unsigned rank);
};

class AxisInfoAnalysis {
public:
  /// Analyses every value defined under `root`.
  explicit AxisInfoAnalysis(Operation *root);
  /// The facts for `value`; pessimistic for values the walk did not see.
  AxisInfo get(Value value) const;

private:
  void visit(Operation *op);
  llvm::DenseMap<Value, AxisInfo> infos;
};

/// Elements per memory access (up to 16 bytes) for the laid-out pointer
/// tensor `ptr` with optional `mask`: a run of a thread's consecutive
/// registers along the layout's fastest dimension over which the addresses
/// are contiguous and aligned and the mask uniform. 1 for scalars.
unsigned accessVectorWidth(const AxisInfoAnalysis &info, Value ptr, Value mask,
                           Type elementType);

/// The same for a pointer tensor with or without a layout, given the
/// dimension `dim` a thread's elements run along and how many it holds in
/// a run (`run`, a power of two).
unsigned accessVectorWidth(const AxisInfoAnalysis &info, Value ptr, Value mask,
                           Type elementType, unsigned dim, unsigned run);

namespace tile {
class LoadOp;
} // namespace tile

/// Per dimension of laid-out load `load`, the power-of-two aligned block
/// over which its pointers and mask are constant (AxisInfo's constancy):
/// the elements of one block read one value. Empty where `other` is not a
/// constant (masked-off elements would differ) or the pointer is a scalar.
SmallVector<int64_t> constantLoadBlocks(const AxisInfoAnalysis &info,
                                        tile::LoadOp load);

} // namespace mlir::quire

#endif // QUIRE_ANALYSIS_AXISINFO_H
