//===- InitAll.cpp - Register every Quire dialect and pass ----------------===//

#include "quire/InitAll.h"

#include "quire/Conversion/TileToLLVM.h"
#include "quire/Dialect/Tile/IR/Tile.h"
#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/Passes.h"

void mlir::quire::registerAllDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, cf::ControlFlowDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect>();
}

void mlir::quire::registerAllPasses() {
  mlir::registerTransformsPasses();
  tile::registerQuireTilePasses();
  registerQuireConversionPasses();
}
