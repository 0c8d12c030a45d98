//===- LoopSlices.cpp - Re-emitting a loop's loads for another iteration --===//

#include "LoopSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

bool tile::writesNoMemory(scf::ForOp loop) {
  bool writes = false;
  loop.getBody()->walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto mem = dyn_cast<MemoryEffectOpInterface>(op);
    if (!mem || mem.hasEffect<MemoryEffects::Write>() ||
        mem.hasEffect<MemoryEffects::Free>() ||
        mem.hasEffect<MemoryEffects::Allocate>())
      writes = true;
  });
  return !writes;
}

void tile::cloneSlice(OpBuilder &b, ArrayRef<Operation *> slice,
                      IRMapping &map) {
  for (Operation *op : slice)
    if (!map.contains(op->getResult(0)))
      b.clone(*op, map);
}

Value tile::guardMask(OpBuilder &b, Location loc, Value ptrs, Value mask,
                      Value cond) {
  Value g = cond;
  if (auto t = dyn_cast<RankedTensorType>(ptrs.getType()))
    g = SplatOp::create(b, loc, t.clone(b.getI1Type()), cond);
  return mask ? arith::AndIOp::create(b, loc, mask, g).getResult() : g;
}

Value tile::emitGuardedLoad(OpBuilder &b, LoadOp load, IRMapping &map,
                            Value cond) {
  Location loc = load.getLoc();
  Value ptr = map.lookupOrDefault(load.getPtr());
  Value mask = load.getMask() ? map.lookupOrDefault(load.getMask()) : Value();
  Value other =
      load.getOther() ? map.lookupOrDefault(load.getOther()) : Value();
  auto copy =
      LoadOp::create(b, loc, ptr, guardMask(b, loc, ptr, mask, cond), other);
  copy->setDiscardableAttrs(load->getDiscardableAttrDictionary());
  map.map(load.getResult(), copy.getResult());
  return copy.getResult();
}
