//===- Passes.td - Conversion passes -----------------------*- tablegen -*-===//

#ifndef QUIRE_CONVERSION_PASSES_TD
#define QUIRE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVM : Pass<"quire-convert-tile-to-llvm", "::mlir::ModuleOp"> {
  let summary = "lower laid-out tile kernels to per-thread LLVM + NVVM code";
  let description = [{
    Expects kernels whose tensors all carry layouts (`quire-assign-layouts`).
    Every tensor becomes the registers one thread holds of it; memory ops
    become predicated (vector) global loads and stores, reductions warp
    shuffles plus shared memory across warps, layout conversions and `dot`
    go through dynamic shared memory (`@quire_smem`). Kernels become
    `llvm.func` with `nvvm.kernel`, `nvvm.maxntid` and `tile.shared_bytes`
    (the dynamic shared memory a launch must provide). Unsupported ops or
    types are reported as "not supported: ..." errors.
  }];
  let options = [
    Option<"sm", "sm", "unsigned", "90", "target compute capability (80, 86, 89, 90)">,
    Option<"sharedBuffers", "shared-buffers", "unsigned", "1",
           "shared-memory buffers the staging ops take in turn (1 or 2)">,
    Option<"maxRegisters", "max-registers", "unsigned", "0",
           "registers per thread ptxas may use in a kernel (nvvm.maxnreg; 0: "
           "no cap)">,
    Option<"swizzleStaging", "swizzle-staging", "bool", "true",
           "cp.async staging buffers of a power-of-two contiguous dimension "
           "of 32 bytes or more are XOR-swizzled in 16-byte chunks instead "
           "of padded (conflict-free copies and ldmatrix reads)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect"];
}

#endif // QUIRE_CONVERSION_PASSES_TD
