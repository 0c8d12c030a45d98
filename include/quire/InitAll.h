//===- InitAll.h - Register every Quire dialect and pass --------*- C++ -*-===//
//
// One place that lists what quire-opt, quirec and libquire understand, so the
// three stay in step.
//
//===----------------------------------------------------------------------===//

#ifndef QUIRE_INITALL_H
#define QUIRE_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::quire {

/// The tile dialect and the upstream dialects a tile program may use
/// (arith, math, scf, func, cf) or is lowered to (llvm, nvvm).
void registerAllDialects(DialectRegistry &registry);

/// Quire's passes and pipelines, and the upstream passes used around them
/// (canonicalize, cse, ...).
void registerAllPasses();

} // namespace mlir::quire

#endif // QUIRE_INITALL_H
