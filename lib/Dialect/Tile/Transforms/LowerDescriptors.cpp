//===- LowerDescriptors.cpp - Tensor descriptors as pointer tiles ---------===//
//
// A block access through a tensor descriptor
//   %d = tile.make_descriptor %base, shape [%s0, %s1], strides [%t0, %t1]
//   %x = tile.descriptor_load %d[%o0, %o1]
//       : !tile.tensordesc<tensor<B0xB1xT>> -> tensor<B0xB1xT>
// becomes a masked tile.load of the block's elements:
//   i_k  = splat(%o_k) + range(0, B_k)                 (i32, per dimension)
//   ptrs = %base + sum_k ext(i_k) * %t_k               (64-bit offsets)
//   mask = and_k (0 <= i_k < %s_k)
//   %x   = tile.load ptrs, mask, padding               (zero, or NaN)
// (ptrs through tile.tensormap_block when the descriptor has a tensor map)
// and tile.descriptor_store into a tile.store under the same mask. Every
// later pass (AxisInfo's vector widths, the cp.async staging, wgmma) sees
// the loads a kernel written with pointers has. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/Transforms/Passes.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace mlir::quire::tile {
#define GEN_PASS_DEF_LOWERDESCRIPTORS
#include "quire/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::quire::tile

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

namespace {

/// The pointers and in-bounds mask of the block at `offsets` of `desc`.
std::pair<Value, Value> blockAddresses(OpBuilder &b, Location loc,
                                       MakeDescriptorOp desc,
                                       ValueRange offsets) {
  RankedTensorType block = desc.getResult().getType().getBlockType();
  ArrayRef<int64_t> shape = block.getShape();
  int64_t rank = block.getRank();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto full = [&](Type elt) { return RankedTensorType::get(shape, elt); };
  // A 1-D value along dimension k, broadcast to the block's shape.
  auto spread = [&](Value v, int64_t k) -> Value {
    if (rank == 1)
      return v;
    auto type = cast<RankedTensorType>(v.getType());
    // Size-1 dimensions before k, then after it.
    Value cur = v;
    SmallVector<int64_t> cs{shape[k]};
    auto expand = [&](int64_t axis) {
      cs.insert(cs.begin() + axis, 1);
      cur = ExpandDimsOp::create(
          b, loc, RankedTensorType::get(cs, type.getElementType()), cur, axis);
    };
    for (int64_t d = 0; d < k; ++d)
      expand(0);
    while (int64_t(cs.size()) < rank)
      expand(cs.size());
    return BroadcastOp::create(b, loc, full(type.getElementType()), cur);
  };
  Value mask, offset;
  for (int64_t k = 0; k < rank; ++k) {
    auto vec = [&](Type elt) { return RankedTensorType::get({shape[k]}, elt); };
    Value range = RangeOp::create(b, loc, vec(i32), 0, shape[k]);
    Value idx = arith::AddIOp::create(
        b, loc, range, SplatOp::create(b, loc, vec(i32), offsets[k]));
    Value lo = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, idx,
        arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(vec(i32), b.getI32IntegerAttr(0))));
    Value hi = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, idx,
        SplatOp::create(b, loc, vec(i32), desc.getShape()[k]));
    Value in = spread(arith::AndIOp::create(b, loc, lo, hi), k);
    mask = mask ? arith::AndIOp::create(b, loc, mask, in).getResult() : in;
    // A constant stride (the last, 1, as kernels write it) stays a
    // constant, so the offsets fold to what a pointer kernel writes.
    Value stride = desc.getStrides()[k];
    Value term = arith::ExtSIOp::create(b, loc, vec(i64), idx);
    IntegerAttr c;
    if (matchPattern(stride, m_Constant(&c))) {
      if (c.getInt() != 1)
        term = arith::MulIOp::create(
            b, loc, term,
            arith::ConstantOp::create(
                b, loc, DenseElementsAttr::get(vec(i64), cast<Attribute>(c))));
    } else {
      term = arith::MulIOp::create(b, loc, term,
                                   SplatOp::create(b, loc, vec(i64), stride));
    }
    term = spread(term, k);
    offset = offset ? arith::AddIOp::create(b, loc, offset, term).getResult()
                    : term;
  }
  Type ptrType = desc.getBase().getType();
  Value ptrs = AddPtrOp::create(
      b, loc, full(ptrType),
      SplatOp::create(b, loc, full(ptrType), desc.getBase()), offset);
  return {ptrs, mask};
}

struct LowerDescriptorsPass
    : public mlir::quire::tile::impl::LowerDescriptorsBase<
          LowerDescriptorsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<DescriptorLoadOp, DescriptorStoreOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        auto desc = load.getDesc().getDefiningOp<MakeDescriptorOp>();
        auto [ptrs, mask] = blockAddresses(b, loc, desc, load.getOffsets());
        // With a tensor map, the pointers say which block they address, so
        // that quire-async-copies may stage the load with TMA.
        // (2-D blocks: tile.tma_copy's.)
        if (Value tm = desc.getTensormap(); tm && load.getType().getRank() == 2)
          ptrs = TensorMapBlockOp::create(b, loc, ptrs, tm, load.getOffsets());
        RankedTensorType type = load.getType();
        Type elt = type.getElementType();
        TypedAttr pad;
        if (auto ft = dyn_cast<FloatType>(elt))
          pad = b.getFloatAttr(
              ft, desc.getNanPadding()
                      ? std::numeric_limits<double>::quiet_NaN()
                      : 0.0);
        else
          pad = b.getIntegerAttr(elt, 0);
        Value other = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(type, cast<Attribute>(pad)));
        load.replaceAllUsesWith(
            LoadOp::create(b, loc, ptrs, mask, other).getResult());
      } else {
        auto store = cast<DescriptorStoreOp>(op);
        auto desc = store.getDesc().getDefiningOp<MakeDescriptorOp>();
        auto [ptrs, mask] = blockAddresses(b, loc, desc, store.getOffsets());
        StoreOp::create(b, loc, ptrs, store.getValue(), mask);
      }
      op->erase();
    }
    // The descriptors are unused now.
    getOperation().walk([&](MakeDescriptorOp d) {
      if (d->use_empty())
        d->erase();
    });
  }
};

} // namespace
