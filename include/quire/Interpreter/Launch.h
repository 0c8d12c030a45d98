//===- Launch.h - Host buffers and arguments for runs -----------*- C++ -*-===//
//
// The logic behind quire-run, kept out of the tool so the C API and tests can
// reuse it: parsing argument specs (`in:x.npy`, `out:o.npy:f32:1024`,
// `rand:f16:4096:seed=3`, `i32:7`, ...), binding them to a kernel's
// signature with type checks, running the interpreter, and writing or
// printing the outputs. docs/interpreter.md documents the spec grammar.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_INTERPRETER_LAUNCH_H
#define QUIRE_INTERPRETER_LAUNCH_H

#include "quire/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::quire {

/// One kernel argument as written on quire-run's command line.
struct ArgSpec {
  enum Kind {
    In,    ///< in:FILE - buffer read from FILE, read-only
    Out,   ///< out:FILE:DTYPE:SHAPE[:fill=V] - poisoned buffer, written to FILE
    InOut, ///< inout:FILE[:OUTFILE] - buffer read from FILE, written back
    Rand,  ///< rand:DTYPE:SHAPE[:KEY=V...] - seeded random input
    Values, ///< values:DTYPE:V0,V1,... - input buffer with these elements
    Scalar, ///< DTYPE:VALUE - an integer or float argument
  };
  Kind kind = Scalar;
  /// The spec as written, for messages.
  std::string text;
  /// In/InOut: the file read. Out/InOut: `outPath` is the file written.
  std::string path, outPath;
  /// Element type name (f16, bf16, f32, f64, i1, i8, i16, i32, i64) for Out,
  /// Rand, Values and Scalar.
  std::string dtype;
  SmallVector<int64_t> shape;
  /// Out: fill value instead of the poison (NaN; 0xA5 bytes for integers).
  std::optional<std::string> fill;
  /// Values: the elements; Scalar: the one value. As written.
  std::vector<std::string> values;
  /// Rand: generator settings. Without `seed=`, the argument's index.
  std::optional<uint64_t> seed;
  bool uniform = false; ///< dist=uniform (floats default to a normal)
  std::optional<double> lo, hi;
};

/// Parses one `--arg` spec; the kernel is not consulted yet.
FailureOr<ArgSpec> parseArgSpec(StringRef text, std::string &error);

/// Parses `X[,Y[,Z]]` (missing dimensions are 1; each at least 1).
FailureOr<std::array<int64_t, 3>> parseGrid(StringRef text, std::string &error);

/// The kernel named `name` in `module`, or its only kernel when `name` is
/// empty. Null after setting `error` if there is none, or several.
func::FuncOp findKernel(ModuleOp module, StringRef name, std::string &error);

/// Rewrites the ops the interpreter runs through their lowering (tensor
/// descriptor accesses: quire-lower-descriptors) in `module`; fails with
/// the diagnostics in `error`.
LogicalResult prepareForInterpreter(ModuleOp module, std::string &error);

/// Host-side state of one interpreted launch: buffers built from the specs,
/// the bound arguments, and where the outputs go.
class KernelLaunch {
public:
  /// Builds buffers and arguments for `kernel` from `specs` (one per kernel
  /// argument, in order), checking each against the argument's type.
  LogicalResult bind(func::FuncOp kernel, ArrayRef<ArgSpec> specs,
                     std::string &error);
  /// Writes every generated input (rand:, values:) to `dir`/argN.npy.
  LogicalResult saveGeneratedInputs(StringRef dir, std::string &error) const;
  LogicalResult run(std::array<int64_t, 3> grid, std::string &error);
  /// Writes each out: and inout: buffer to its file.
  LogicalResult writeOutputs(std::string &error) const;
  /// Prints each out: and inout: buffer: a header line
  /// `arg #N (out, f32, 16x4):`, then one line per row of the last dimension,
  /// elements separated by spaces, floats in the shortest form that reads
  /// back to the same element.
  void printOutputs(raw_ostream &os) const;

private:
  struct HostBuffer {
    unsigned argIndex;
    ArgSpec::Kind kind;
    Type elementType;
    SmallVector<int64_t> shape;
    std::vector<char> data;
    std::string outPath;
  };
  func::FuncOp kernel;
  std::vector<HostBuffer> buffers;
  SmallVector<InterpArg> args;
};

/// Formats one element of `type` (f16, f32, i32, ...) held at `src` as
/// printOutputs does.
std::string formatInterpElement(Type type, const void *src);

} // namespace mlir::quire

#endif // QUIRE_INTERPRETER_LAUNCH_H
