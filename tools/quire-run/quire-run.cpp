//===- quire-run.cpp - Run a tile kernel on the CPU -----------------------===//
//
// Parses a tile module, binds --arg specs to a kernel's arguments and runs it
// over a launch grid in the reference interpreter, writing output buffers to
// .npy files. Flags and messages only: the logic lives in lib/Interpreter.
//
//===----------------------------------------------------------------------===//

#include "quire/Interpreter/Launch.h"
#include "quire/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::quire;

static const char kOverview[] = R"(Quire reference interpreter

Runs a tile kernel (a func.func marked tile.kernel) on the CPU, once per
program of the launch grid, with the tile dialect's exact semantics, and
checks every memory access against the buffers given.

  quire-run kernel.mlir --grid 3 --arg in:x.npy --arg in:y.npy \
      --arg out:out.npy:f32:3000 --arg i32:3000

Give one --arg per kernel argument, in order:

  in:FILE                    buffer read from FILE (.npy); read-only: a store
                             into it is an error
  inout:FILE[:OUTFILE]       buffer read from FILE, written to OUTFILE
                             (default: FILE) after the run
  out:FILE:DTYPE:SHAPE[:fill=V]
                             new buffer written to FILE after the run; filled
                             with poison (NaN; 0xA5 bytes for integers) unless
                             fill=V, so unwritten elements show
  rand:DTYPE:SHAPE[:seed=N][:dist=normal|uniform][:lo=X][:hi=Y]
                             seeded random input (read-only). Floats: standard
                             normal, or uniform in [lo, hi) (default [0, 1));
                             integers: uniform in [lo, hi) (default [0, 100),
                             i1 [0, 2)). The seed defaults to the argument's
                             index.
  values:DTYPE:V0,V1,...     input buffer holding these elements (read-only)
  DTYPE:VALUE                integer or float argument, e.g. i32:7, f32:0.125

DTYPE is f16, bf16, f32, f64, f8E4M3FN, f8E5M2, i1, i8, i16, i32 or i64 and
must be the pointee (or scalar) type of the argument. SHAPE is like 1024 or
16x128. .npy dtypes: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 (and unsigned), C order;
bf16 is stored as its bit pattern, <u2, and fp8 as its byte, |u1.

Exit status: 0 on success; 1 on any error, including an out-of-bounds access,
which is reported with the op's location and the program id. Outputs are not
written when the run fails.
)";

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  static llvm::cl::OptionCategory category("quire-run options");
  static llvm::cl::opt<std::string> inputFile(
      llvm::cl::Positional, llvm::cl::desc("<kernel.mlir>"), llvm::cl::Required,
      llvm::cl::cat(category));
  static llvm::cl::opt<std::string> kernelName(
      "kernel",
      llvm::cl::desc("Kernel to run (default: the module's only tile.kernel)"),
      llvm::cl::value_desc("name"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> gridText(
      "grid",
      llvm::cl::desc("Launch grid X[,Y[,Z]]; missing dimensions are 1 "
                     "(default: 1,1,1)"),
      llvm::cl::value_desc("x,y,z"), llvm::cl::init("1,1,1"),
      llvm::cl::cat(category));
  static llvm::cl::list<std::string> argSpecs(
      "arg",
      llvm::cl::desc("One kernel argument, in order (repeat for each; "
                     "grammar above)"),
      llvm::cl::value_desc("spec"), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> saveInputs(
      "save-inputs",
      llvm::cl::desc("Write each generated input (rand:, values:) to "
                     "<dir>/argN.npy, N the argument's index"),
      llvm::cl::value_desc("dir"), llvm::cl::cat(category));
  static llvm::cl::opt<bool> printOutputs(
      "print",
      llvm::cl::desc("Print every out:/inout: buffer to stdout after the run, "
                     "one line per row of its last dimension"),
      llvm::cl::cat(category));
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(argc, argv, kOverview);

  auto fail = [](const std::string &message) {
    llvm::errs() << message << "\n";
    return 1;
  };

  std::string error;
  std::vector<ArgSpec> specs;
  for (const std::string &text : argSpecs) {
    FailureOr<ArgSpec> spec = parseArgSpec(text, error);
    if (failed(spec))
      return fail(error);
    specs.push_back(std::move(*spec));
  }
  FailureOr<std::array<int64_t, 3>> grid = parseGrid(gridText, error);
  if (failed(grid))
    return fail(error);

  DialectRegistry registry;
  registerInterpreterDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string openError;
  std::unique_ptr<llvm::MemoryBuffer> file = readSource(inputFile, openError);
  if (!file)
    return fail("error: " + openError);
  if (failed(checkSource(file->getBuffer(), file->getBufferIdentifier(),
                         llvm::errs())))
    return 1;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Parse and verifier errors print with the source line.
  ClippedDiagnosticHandler diagHandler(sourceMgr, &context, llvm::errs());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  func::FuncOp kernel = findKernel(*module, kernelName, error);
  if (!kernel)
    return fail(error);
  if (failed(prepareForInterpreter(*module, error)))
    return fail(error);
  KernelLaunch launch;
  if (failed(launch.bind(kernel, specs, error)))
    return fail(error);
  if (!saveInputs.empty() &&
      failed(launch.saveGeneratedInputs(saveInputs, error)))
    return fail(error);
  if (failed(launch.run(*grid, error)))
    return fail(error);
  if (failed(launch.writeOutputs(error)))
    return fail(error);
  if (printOutputs)
    launch.printOutputs(llvm::outs());
  return 0;
}
