//===- EmitPTX.h - LLVM dialect kernels to PTX and cubin --------*- C++ -*-===//
//
// Translates a module of LLVM+NVVM dialect kernels to LLVM IR, optimizes it at
// O3 for the NVPTX target and prints PTX; assembles PTX to a cubin with ptxas
// when the CUDA toolkit is available.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_TARGET_NVPTX_EMITPTX_H
#define QUIRE_TARGET_NVPTX_EMITPTX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::quire {

/// Compute capabilities Quire emits code for.
bool isSupportedSM(unsigned sm);

/// Whether LLVM's loop strength reduction runs in the NVPTX code generator.
/// Auto: it does, except in a kernel module without tensor-core instructions
/// where ptxas gives the form without it fewer registers and so more resident
/// CTAs per SM (docs/passes.md, "The NVPTX backend"); On/Off force it.
enum class LoopStrengthReduction { Auto, On, Off };

struct PTXOptions {
  unsigned sm = 90;
  LoopStrengthReduction lsr = LoopStrengthReduction::Auto;
  /// Floating-point multiplies and adds may contract into fma (nvcc's
  /// --fmad=true, Triton's enable_fp_fusion); false keeps each rounded.
  bool fpFusion = true;
  /// Also return the optimized LLVM IR.
  std::string *llvmIR = nullptr;
};

/// LLVM dialect module -> PTX text. Errors are emitted on the module.
FailureOr<std::string> translateToPTX(ModuleOp module,
                                      const PTXOptions &options);

/// The ptxas to use: $QUIRE_PTXAS where set (an error if it cannot run:
/// never another ptxas in its place), else the toolkit found at build time,
/// /usr/local/cuda's or `ptxas` on PATH. Empty with `error` set if none.
std::string findPTXAS(std::string &error);

/// PTX -> cubin through ptxas. `error` gets ptxas's messages on failure.
FailureOr<std::string> assembleCubin(StringRef ptx, unsigned sm,
                                     std::string &error);

} // namespace mlir::quire

#endif // QUIRE_TARGET_NVPTX_EMITPTX_H
