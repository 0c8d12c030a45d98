//===- quire-opt.cpp - Quire's mlir-opt -----------------------------------===//
//
// Parses, verifies and transforms tile programs with Quire's and the needed
// upstream passes. Registration only: the logic lives in lib/.
//
//===----------------------------------------------------------------------===//

#include "quire/InitAll.h"
#include "quire/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::quire::registerAllDialects(registry);
  mlir::quire::registerAllPasses();
  mlir::quire::registerPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Quire optimizer driver\n", registry));
}
