//===- Barriers.cpp - Barriers of the tile-to-LLVM patterns ---------------===//
//
// tile.barrier, and the barrier placement: a forward walk over each kernel
// that tracks the shared-memory accesses pending since the last barrier, by
// slot (the tag sharedPtr and asyncSharedPtr put on each address), and
// inserts a barrier only where an access conflicts with a pending one.
//
//===----------------------------------------------------------------------===//

#include "Barriers.h"
#include "SharedMemory.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

void tilellvm::barrier(OpBuilder &b, Location loc) {
  auto bar = NVVM::Barrier0Op::create(b, loc);
  bar->setAttr(kAutoBarrierAttr, b.getUnitAttr());
}

namespace {
/// tile.barrier => nvvm.barrier0 (bar.sync 0), a barrier of its own: the
/// placement keeps it and starts over after it.
struct BarrierOpLowering : public ConvertOpToLLVMPattern<tile::BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(tile::BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};
} // namespace

void tilellvm::populateBarrierPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<BarrierOpLowering>(converter);
}

namespace {
/// A shared-memory access: its slot (-1: unknown, conflicts with all).
struct SharedAccess {
  int slot;
  bool write;
  bool operator==(const SharedAccess &o) const {
    return slot == o.slot && write == o.write;
  }
};
using Pending = SmallVector<SharedAccess>;

void addAccess(Pending &p, SharedAccess a) {
  if (!llvm::is_contained(p, a))
    p.push_back(a);
}
Pending merge(Pending a, const Pending &b) {
  for (SharedAccess x : b)
    addAccess(a, x);
  return a;
}
bool sameSet(const Pending &a, const Pending &b) {
  return a.size() == b.size() && llvm::all_of(a, [&](SharedAccess x) {
           return llvm::is_contained(b, x);
         });
}

std::optional<SharedAccess> accessOf(Operation *op) {
  Value ptr;
  bool write = false;
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    ptr = load.getAddr();
  else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
    ptr = store.getAddr();
    write = true;
  } else if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op))
    ptr = ld.getPtr();
  else
    return std::nullopt;
  auto type = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
  if (!type || type.getAddressSpace() != 3)
    return std::nullopt;
  int slot = -1;
  if (Operation *def = ptr.getDefiningOp())
    if (auto attr = def->getAttrOfType<IntegerAttr>(kSlotAttr))
      slot = attr.getInt();
  return SharedAccess{slot, write};
}

/// A read after a write or a write after a read of the same buffer, by
/// other threads. Writes after writes are not: between two reads of a
/// buffer the lowerings write each element once (replicated elements with
/// equal values), all within one staging op.
bool conflicts(const Pending &p, SharedAccess a) {
  return llvm::any_of(p, [&](SharedAccess x) {
    return (x.slot == a.slot || x.slot < 0 || a.slot < 0) && x.write != a.write;
  });
}

/// Walks `block` with the accesses `in` pending since the last barrier,
/// inserting barriers where an access conflicts; returns what is pending
/// at the end.
Pending placeBarriersIn(Block &block, Pending in) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (isa<NVVM::Barrier0Op>(op)) {
      in.clear();
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      // Iteration i+1 starts with what iteration i left pending.
      Pending entry = in, out;
      for (unsigned iter = 0; iter < 4; ++iter) {
        out = placeBarriersIn(*loop.getBody(), entry);
        Pending next = merge(entry, out);
        if (sameSet(next, entry))
          break;
        entry = next;
      }
      in = merge(in, out);
      continue;
    }
    if (op.getNumRegions() != 0) {
      Pending out = in;
      for (Region &region : op.getRegions())
        for (Block &b : region)
          out = merge(out, placeBarriersIn(b, in));
      in = out;
      continue;
    }
    std::optional<SharedAccess> a = accessOf(&op);
    if (!a)
      continue;
    if (conflicts(in, *a)) {
      OpBuilder b(&op);
      NVVM::Barrier0Op::create(b, op.getLoc());
      in.clear();
    }
    addAccess(in, *a);
  }
  return in;
}
} // namespace

void tilellvm::consumerBarriers(ModuleOp module, unsigned consumerWarps) {
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (!func->hasAttr(kProducerWarpsAttr))
      return;
    func->removeAttr(kProducerWarpsAttr);
    SmallVector<NVVM::Barrier0Op> bars;
    func.walk([&](NVVM::Barrier0Op bar) { bars.push_back(bar); });
    for (NVVM::Barrier0Op bar : bars) {
      if (bar->hasAttr(kAllThreadsAttr)) {
        bar->removeAttr(kAllThreadsAttr);
        continue;
      }
      OpBuilder b(bar);
      Location loc = bar.getLoc();
      NVVM::BarrierOp::create(b, loc, Type(), i32Const(b, loc, 1),
                              i32Const(b, loc, consumerWarps * 32),
                              NVVM::BarrierReductionAttr(), Value());
      bar.erase();
    }
  });
  module.walk([](NVVM::Barrier0Op bar) { bar->removeAttr(kAllThreadsAttr); });
}

void tilellvm::unalignedBarriers(ModuleOp module) {
  SmallVector<NVVM::Barrier0Op> bars;
  module.walk([&](NVVM::Barrier0Op bar) {
    if (bar->hasAttr(kUnalignedAttr))
      bars.push_back(bar);
  });
  for (NVVM::Barrier0Op bar : bars) {
    OpBuilder b(bar);
    inlinePtx(b, bar.getLoc(), {}, {}, "barrier.sync 0;", "~{memory}",
              /*sideEffects=*/true);
    bar.erase();
  }
}

void tilellvm::placeBarriers(ModuleOp module) {
  SmallVector<Operation *> requested;
  module.walk([&](NVVM::Barrier0Op bar) {
    if (bar->hasAttr(kAutoBarrierAttr))
      requested.push_back(bar);
  });
  for (Operation *bar : requested)
    bar->erase();
  module.walk([&](LLVM::LLVMFuncOp func) {
    for (Block &block : func.getBody())
      placeBarriersIn(block, {});
  });
  module.walk([&](Operation *op) { op->removeAttr(kSlotAttr); });
}
