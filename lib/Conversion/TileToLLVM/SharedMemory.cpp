//===- SharedMemory.cpp - Shared memory of the tile-to-LLVM patterns ------===//
//
// Addresses into the module's dynamic shared memory with placeholder bases,
// the placement that fills the bases in once every op is lowered, and the
// geometry of async staging buffers.
//
//===----------------------------------------------------------------------===//

#include "SharedMemory.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tilellvm;

/// base + offset + placeholder, where the placeholder constant carries
/// `baseAttr` = `baseValue` until `placeSharedBuffers` sets it, and the
/// address is tagged with `slot` for the barrier analysis.
static Value placedSharedPtr(OpBuilder &b, Location loc, Operation *anchor,
                             Value offset, StringRef baseAttr,
                             Attribute baseValue, int slot) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto i8 = b.getI8Type();
  auto arrayTy = LLVM::LLVMArrayType::get(i8, 0);
  if (!module.lookupSymbol(kSharedMemoryName)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, arrayTy, /*isConstant=*/false,
                           LLVM::Linkage::External, kSharedMemoryName,
                           Attribute(), /*alignment=*/16, /*addrSpace=*/3);
  }
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptr3, kSharedMemoryName);
  auto placeholder =
      LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(0));
  placeholder->setAttr(baseAttr, baseValue);
  Value off = LLVM::AddOp::create(b, loc, offset, placeholder);
  auto gep = LLVM::GEPOp::create(b, loc, ptr3, i8, base, ValueRange{off});
  gep->setAttr(kSlotAttr, b.getI32IntegerAttr(slot));
  return gep;
}

Value tilellvm::sharedPtr(OpBuilder &b, Location loc, Operation *anchor,
                          Value offset, unsigned slot) {
  return placedSharedPtr(b, loc, anchor, offset, kSlotBaseAttr,
                         b.getI32IntegerAttr(slot), slot);
}

Value tilellvm::asyncSharedPtr(OpBuilder &b, Location loc, Operation *anchor,
                               Value offset, unsigned buffer) {
  return placedSharedPtr(b, loc, anchor, offset, kAsyncBaseAttr,
                         b.getI64IntegerAttr(buffer), kAsyncSlotBase + buffer);
}

llvm::StringMap<int64_t>
tilellvm::placeSharedBuffers(ModuleOp module, const TileToLLVMState &state) {
  int64_t slotBytes = llvm::alignTo(state.sharedBytes, 128);
  int64_t slotsBytes =
      std::min<int64_t>(state.sharedUses, state.sharedBuffers) * slotBytes;
  // Async staging buffers follow the staging slots, each aligned as asked
  // (1024 bytes for the swizzled wgmma layouts: the dynamic shared memory
  // is then declared that aligned too).
  int64_t asyncAlign = 128, asyncBytes = 0;
  llvm::DenseMap<int64_t, int64_t> asyncOffsets;
  for (auto &[buffer, need] : state.asyncBuffers) {
    auto [bytes, align] = need;
    asyncAlign = std::max(asyncAlign, align);
    asyncOffsets[buffer] = llvm::alignTo(asyncBytes, align);
    asyncBytes = asyncOffsets[buffer] + llvm::alignTo(bytes, 128);
  }
  int64_t asyncBase = llvm::alignTo(slotsBytes, asyncAlign);
  if (asyncAlign > 128)
    if (auto global = module.lookupSymbol<LLVM::GlobalOp>(kSharedMemoryName))
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(16), asyncAlign));
  // Each placeholder gets its region's base; each kernel needs up to the
  // end of the last region it touches (its highest slot, its async buffers).
  llvm::StringMap<int64_t> need;
  module.walk([&](LLVM::ConstantOp c) {
    int64_t base, end;
    if (auto slot = c->getAttrOfType<IntegerAttr>(kSlotBaseAttr)) {
      base = slot.getInt() * slotBytes;
      end = base + slotBytes;
      c->removeAttr(kSlotBaseAttr);
    } else if (auto buffer = c->getAttrOfType<IntegerAttr>(kAsyncBaseAttr)) {
      int64_t id = buffer.getInt();
      base = asyncBase + asyncOffsets.lookup(id);
      end = base + llvm::alignTo(state.asyncBuffers.lookup(id).first, 128);
      c->removeAttr(kAsyncBaseAttr);
    } else {
      return;
    }
    c.setValueAttr(IntegerAttr::get(c.getType(), base));
    int64_t &bytes = need[c->getParentOfType<LLVM::LLVMFuncOp>().getName()];
    bytes = std::max(bytes, end);
  });
  return need;
}

Staging tilellvm::reserveStaging(TileToLLVMState &state,
                                 ArrayRef<int64_t> shape, unsigned contig,
                                 int64_t bytes, int64_t buffer, int64_t stages,
                                 bool nvmma) {
  SharedTile tile = SharedTile::staging(shape, contig, bytes);
  int64_t line = shape[contig] * bytes;
  if (nvmma ||
      (state.swizzleStaging && llvm::isPowerOf2_64(line) && line >= 32)) {
    // wgmma's swizzle atoms need 1024-byte aligned stages; the ldmatrix
    // reads only need the lines on bank boundaries.
    NvmmaTile t = NvmmaTile::get(shape, contig, bytes);
    int64_t align = nvmma ? 1024 : 128;
    int64_t stageBytes = llvm::alignTo(t.sizeBytes(), align);
    state.reserveAsync(buffer, stages * stageBytes, align);
    return {tile, t, stageBytes};
  }
  int64_t stageBytes = llvm::alignTo(tile.sizeBytes(), 16);
  state.reserveAsync(buffer, stages * stageBytes);
  return {tile, std::nullopt, stageBytes};
}

Value tilellvm::stageOffset(OpBuilder &b, Location loc, Value stage,
                            int64_t stageBytes) {
  return LLVM::MulOp::create(b, loc, stage, i32Const(b, loc, stageBytes));
}
