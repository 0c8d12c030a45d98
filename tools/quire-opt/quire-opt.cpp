//===- quire-opt.cpp - Quire's mlir-opt -----------------------------------===//
//
// Parses, verifies and transforms tile programs with Quire's and the needed
// upstream passes. Registration only: the logic lives in lib/. Input that
// nests brackets deeper than kMaxNestingDepth is rejected with a located
// error before the (recursive) parser sees it, and the work runs on a large
// stack, so hostile input gets a diagnostic instead of a stack overflow.
//
//===----------------------------------------------------------------------===//

#include "quire/InitAll.h"
#include "quire/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/thread.h"

using namespace mlir;

int main(int argc, char **argv) {
  DialectRegistry registry;
  quire::registerAllDialects(registry);
  quire::registerAllPasses();
  quire::registerPipelines();
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "Quire optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      quire::readSource(inputFilename, error);
  if (!file) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  if (failed(quire::checkSource(file->getBuffer(), file->getBufferIdentifier(),
                                llvm::errs())))
    return 1;
  // Opened here, on the main thread: the output file registers LLVM's
  // signal handlers (and alternate signal stack), which must not belong to
  // the worker thread (ASan cannot tear such a thread down).
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  // The MLIR parser and verifier recurse per nesting level: 1 GiB of stack
  // covers everything under the nesting bound.
  LogicalResult result = failure();
  llvm::thread worker(std::optional<unsigned>(1u << 30), [&] {
    result = MlirOptMain(output->os(), std::move(file), registry, config);
  });
  worker.join();
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}
