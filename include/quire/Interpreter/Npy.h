//===- Npy.h - Minimal NumPy .npy reader and writer -------------*- C++ -*-===//
//
// Reads and writes the .npy files quire-run exchanges with NumPy: format
// versions 1.0, 2.0 and 3.0, little-endian numeric dtypes, C order. Kept
// dependency-free so the C API can reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_INTERPRETER_NPY_H
#define QUIRE_INTERPRETER_NPY_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::quire {

/// An array as stored in a .npy file.
struct NpyArray {
  /// Normalized dtype: byte order `<` (or `|` for one-byte types), kind, item
  /// size, e.g. `<f4`, `|b1`, `<i8`.
  std::string descr;
  SmallVector<int64_t> shape;
  /// The elements in C order, `numElements * itemSize` bytes.
  std::vector<char> data;
};

/// Parses a whole .npy file held in memory.
LogicalResult parseNpy(StringRef bytes, NpyArray &array, std::string &error);
/// Reads `path`; `error` names the file.
LogicalResult readNpy(StringRef path, NpyArray &array, std::string &error);
/// Writes `array` as a version 1.0 file.
LogicalResult writeNpy(StringRef path, const NpyArray &array,
                       std::string &error);

/// The dtype a buffer of element type `type` is written with: `<f2`, `<f4`,
/// `<f8`, `|b1`, `|i1`, `<i2`, `<i4`, `<i8`; bf16 (which NumPy lacks) as its
/// bit pattern, `<u2`. Empty for other types.
std::string getNpyDescr(Type type);

/// Whether a file of dtype `descr` can fill a buffer of element type `type`:
/// same kind and size; signed or unsigned integers for signless ones; `<u2`
/// or `<i2` bit patterns for bf16.
bool isNpyDescrCompatible(StringRef descr, Type type);

/// Bytes per element of a normalized dtype (0 if malformed).
unsigned getNpyItemSize(StringRef descr);

} // namespace mlir::quire

#endif // QUIRE_INTERPRETER_NPY_H
