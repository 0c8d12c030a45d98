//===- Interpreter.h - CPU reference interpreter ----------------*- C++ -*-===//
//
// Runs a `func.func` marked `tile.kernel` on the host, one program of the
// launch grid after another, with the tile dialect's exact semantics. It is
// the oracle the compiled kernels are tested against, so it favours being
// obviously right over being fast: values are plain vectors of doubles or
// 64-bit integers, and every float result is rounded to its element type.
//
// Memory model: buffer `i` appears to the kernel at the fake address
// `getInterpBufferAddress(i)`, a disjoint 1 TiB window, so pointer arithmetic
// is ordinary 64-bit integer math and every access can be checked. A masked-in
// access that leaves every buffer, or is not aligned to its element size, is
// an error naming the op's location and the program id; it is not performed.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_INTERPRETER_INTERPRETER_H
#define QUIRE_INTERPRETER_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace mlir::quire {

/// Host memory a kernel reads and writes. The caller owns `data`, which must
/// stay valid for the whole launch. Elements are little-endian; `bf16` is
/// stored as its 16-bit pattern and `i1` as one byte (0 or 1).
struct InterpBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  /// A store into a read-only buffer is reported as an error, which catches
  /// kernels that write an argument the caller meant as an input.
  bool readOnly = false;
};

/// The value of one kernel argument.
struct InterpArg {
  enum Kind { Buffer, Int, Float };
  Kind kind = Int;
  /// Buffer: index into the `buffers` array; a `!tile.ptr` argument receives
  /// that buffer's base address.
  unsigned buffer = 0;
  /// Int: the value; it must fit the argument's width, signed or unsigned.
  int64_t i = 0;
  /// Float: the value, rounded to the argument's type (ties to even).
  double f = 0.0;

  static InterpArg getBuffer(unsigned index) {
    InterpArg arg;
    arg.kind = Buffer;
    arg.buffer = index;
    return arg;
  }
  static InterpArg getInt(int64_t value) {
    InterpArg arg;
    arg.kind = Int;
    arg.i = value;
    return arg;
  }
  static InterpArg getFloat(double value) {
    InterpArg arg;
    arg.kind = Float;
    arg.f = value;
    return arg;
  }
};

/// Registers the dialects of the programs the interpreter runs: tile, arith,
/// math, scf and func, plus cf so that unstructured control flow parses and
/// is reported as unsupported. Lighter than registerAllDialects, which also
/// brings the GPU backend's dialects.
void registerInterpreterDialects(DialectRegistry &registry);

/// log2 of the address window of each buffer: buffers hold at most 1 TiB.
constexpr unsigned kInterpBufferAddressShift = 40;

/// The address a kernel sees for the first byte of buffer `index`.
inline uint64_t getInterpBufferAddress(unsigned index) {
  return (static_cast<uint64_t>(index) + 1) << kInterpBufferAddressShift;
}

/// Runs `kernel` once per program of `grid` (x fastest, then y, then z) on
/// `buffers`, binding `args` to the kernel's arguments in order. On failure
/// returns failure and sets `error` to one diagnostic line,
/// `file.mlir:12:7: error: 'tile.load' op ... in program (1, 0, 0)`, or
/// `error: ...` when no op is to blame (bad arguments, bad grid). Buffers
/// written by programs that ran before the error keep those writes.
LogicalResult interpretKernel(func::FuncOp kernel,
                              ArrayRef<InterpBuffer> buffers,
                              ArrayRef<InterpArg> args,
                              std::array<int64_t, 3> grid, std::string &error);

//===----------------------------------------------------------------------===//
// Element encoding, shared with the .npy and launch helpers
//===----------------------------------------------------------------------===//

/// True for the scalar types a buffer may hold: f16, bf16, f32, f64 and
/// signless integers of 1, 8, 16, 32 or 64 bits.
bool isInterpElementType(Type type);

/// Bytes one element of `type` occupies in a buffer (i1: one byte).
unsigned getInterpElementBytes(Type type);

/// Rounds `value` to the nearest value of float type `type`, ties to even
/// (f64: unchanged).
double roundToFloatType(Type type, double value);

/// Reads the element of `type` at `src` as a double (floats) or as a
/// sign-extended integer (integers).
double readFloatElement(Type type, const void *src);
int64_t readIntElement(Type type, const void *src);

/// Writes `value` at `dst` as an element of `type`. Floats are rounded to
/// `type` first; integers are truncated to its width (i1: `value & 1`).
void writeFloatElement(Type type, double value, void *dst);
void writeIntElement(Type type, int64_t value, void *dst);

/// `loc` as MLIR diagnostics print it: `file.mlir:12:7`, looking through
/// name, call-site and fused locations; `loc(unknown)` otherwise.
std::string formatInterpLocation(Location loc);

} // namespace mlir::quire

#endif // QUIRE_INTERPRETER_INTERPRETER_H
