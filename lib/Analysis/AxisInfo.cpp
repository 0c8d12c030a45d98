//===- AxisInfo.cpp - Contiguity, divisibility, constancy -----------------===//
//
// Transfer functions follow Triton's AxisInfo for the ops tile kernels use to
// build offsets: range, splat, constants, add/sub/mul, shifts by constants,
// addptr, expand_dims, broadcast, comparisons and selects. Anything else is
// pessimistic, which only costs vector width, never correctness. The hints
// an op carries for its first result (tile.divisibility, tile.contiguity,
// from tl.multiple_of / tl.max_contiguous) replace what is inferred; they
// are the author's promise, not checked.
//
//===----------------------------------------------------------------------===//

#include "quire/Analysis/AxisInfo.h"

#include "quire/Dialect/Tile/IR/Layout.h"
#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::quire;

static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

static int64_t pow2Factor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  int64_t f = v & -v;
  return std::min(f < 0 ? -f : f, kMaxDivisibility);
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

static int64_t mulCap(int64_t a, int64_t b) {
  return std::min<int64_t>(
      kMaxDivisibility, (a >= kMaxDivisibility / b) ? kMaxDivisibility : a * b);
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

static unsigned rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return 0;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getShape();
  return {};
}

/// A splat of a scalar with divisibility `div` over `shape`.
static AxisInfo splatInfo(ArrayRef<int64_t> shape, int64_t div) {
  AxisInfo info = AxisInfo::unknown(shape.size());
  info.scalarDivisibility = div;
  for (unsigned d = 0; d < shape.size(); ++d) {
    info.divisibility[d] = div;
    info.constancy[d] = shape[d];
  }
  return info;
}

/// Element byte size of a pointer's pointee (1 for non-pointers).
static int64_t pointeeBytes(Type type) {
  Type elt = getElementTypeOrSelf(type);
  if (auto ptr = dyn_cast<tile::PointerType>(elt))
    return std::max<int64_t>(1,
                             ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
  return 1;
}

/// The value of a scalar or splat integer constant.
static std::optional<int64_t> constantInt(Value v) {
  if (auto splat = v.getDefiningOp<tile::SplatOp>())
    return constantInt(splat.getSrc());
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
    return i.getInt();
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()))
    if (dense.isSplat())
      return dense.getSplatValue<APInt>().getSExtValue();
  return std::nullopt;
}

/// x / c for a positive constant c: an aligned run of consecutive values
/// maps to runs of equal values.
static AxisInfo divInfo(const AxisInfo &a, int64_t c, unsigned rank) {
  AxisInfo r = AxisInfo::unknown(rank);
  r.scalarDivisibility =
      a.scalarDivisibility % c == 0 ? a.scalarDivisibility / c : 1;
  for (unsigned d = 0; d < rank; ++d) {
    r.constancy[d] = std::max(a.constancy[d],
                              gcd(a.contiguity[d], gcd(a.divisibility[d], c)));
    r.divisibility[d] = a.divisibility[d] % c == 0 ? a.divisibility[d] / c : 1;
  }
  return r;
}

/// x % c for a positive constant c.
static AxisInfo remInfo(const AxisInfo &a, int64_t c, unsigned rank) {
  AxisInfo r = AxisInfo::unknown(rank);
  r.scalarDivisibility = gcd(a.scalarDivisibility, c);
  for (unsigned d = 0; d < rank; ++d) {
    r.contiguity[d] = gcd(a.contiguity[d], gcd(a.divisibility[d], c));
    r.divisibility[d] = gcd(a.divisibility[d], c);
    r.constancy[d] = a.constancy[d];
  }
  return r;
}

/// x % n for a run-time n (Triton's `(pid * B + arange(B)) % N`): the
/// power of two dividing n takes the constant's place, over the runs where
/// n is constant. Like remInfo, this assumes x >= 0.
static AxisInfo remByValueInfo(const AxisInfo &a, const AxisInfo &n,
                               unsigned rank) {
  AxisInfo r = AxisInfo::unknown(rank);
  r.scalarDivisibility = gcd(a.scalarDivisibility, n.scalarDivisibility);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t c = n.divisibility[d];
    r.contiguity[d] =
        gcd(gcd(a.contiguity[d], gcd(a.divisibility[d], c)), n.constancy[d]);
    r.divisibility[d] = gcd(a.divisibility[d], c);
    r.constancy[d] = gcd(a.constancy[d], n.constancy[d]);
  }
  return r;
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Kernel arguments: divisibility from `tile.divisibility`.
    if (auto func = dyn_cast<FunctionOpInterface>(op))
      if (!func.getFunctionBody().empty())
        for (BlockArgument arg : func.getArguments()) {
          AxisInfo info = AxisInfo::unknown(rankOf(arg));
          if (auto attr = func.getArgAttrOfType<IntegerAttr>(
                  arg.getArgNumber(),
                  tile::TileDialect::getDivisibilityAttrName()))
            info.scalarDivisibility = attr.getInt();
          infos[arg] = info;
        }
    visit(op);
  });
}

SmallVector<int64_t>
mlir::quire::constantLoadBlocks(const AxisInfoAnalysis &info,
                                tile::LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!type ||
      (load.getOther() && !load.getOther().getDefiningOp<arith::ConstantOp>()))
    return {};
  AxisInfo ptr = info.get(load.getPtr());
  std::optional<AxisInfo> mask;
  if (load.getMask())
    mask = info.get(load.getMask());
  SmallVector<int64_t> blocks;
  for (unsigned d = 0; d < type.getRank(); ++d) {
    int64_t b = ptr.constancy[d];
    if (mask)
      b = std::min(b, mask->constancy[d]);
    blocks.push_back(int64_t(1) << llvm::Log2_64(std::max<int64_t>(1, b)));
  }
  return blocks;
}

AxisInfo AxisInfoAnalysis::get(Value value) const {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  return AxisInfo::unknown(rankOf(value));
}

/// add/sub: runs survive when the other operand is constant over them.
static AxisInfo addInfo(const AxisInfo &a, const AxisInfo &b, bool isSub) {
  unsigned rank = a.getRank();
  AxisInfo r = AxisInfo::unknown(rank);
  r.scalarDivisibility = gcd(a.scalarDivisibility, b.scalarDivisibility);
  for (unsigned d = 0; d < rank; ++d) {
    int64_t fromA = gcd(a.contiguity[d], b.constancy[d]);
    int64_t fromB = isSub ? 1 : gcd(a.constancy[d], b.contiguity[d]);
    r.contiguity[d] = std::max(fromA, fromB);
    r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  return r;
}

/// The hints `op` carries for its first result (tile.divisibility,
/// tile.contiguity: an i32 for every dimension or an array<i32> with one per
/// dimension, as the dialect verifies them) in place of the inferred facts.
/// A divisibility hint counts by its largest power-of-two factor, as the
/// analysis keeps divisibility.
static void applyHints(Operation *op, AxisInfo &info) {
  auto hint = [&](StringRef name, auto set) {
    Attribute attr = op->getDiscardableAttr(name);
    if (!attr)
      return;
    unsigned rank = info.getRank();
    if (auto i = dyn_cast<IntegerAttr>(attr)) {
      set(std::nullopt, i.getInt());
      for (unsigned d = 0; d < rank; ++d)
        set(d, i.getInt());
    } else if (auto array = dyn_cast<DenseI32ArrayAttr>(attr)) {
      if (array.size() == rank)
        for (unsigned d = 0; d < rank; ++d)
          set(d, array[d]);
    }
  };
  hint(tile::TileDialect::getDivisibilityAttrName(),
       [&](std::optional<unsigned> d, int64_t v) {
         if (v <= 0)
           return;
         if (d)
           info.divisibility[*d] = pow2Factor(v);
         else if (info.getRank() == 0)
           info.scalarDivisibility = pow2Factor(v);
       });
  hint(tile::TileDialect::getContiguityAttrName(),
       [&](std::optional<unsigned> d, int64_t v) {
         if (d && v > 0)
           info.contiguity[*d] = v;
       });
}

void AxisInfoAnalysis::visit(Operation *op) {
  // Loop induction variables: lb + i * step.
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    AxisInfo iv = AxisInfo::unknown(0);
    iv.scalarDivisibility = gcd(get(forOp.getLowerBound()).scalarDivisibility,
                                get(forOp.getStep()).scalarDivisibility);
    infos[forOp.getInductionVar()] = iv;
    for (Value arg : forOp.getRegionIterArgs())
      infos[arg] = AxisInfo::unknown(rankOf(arg));
  }
  if (op->getNumResults() == 0)
    return;
  if (op->getNumResults() != 1) {
    AxisInfo info = AxisInfo::unknown(rankOf(op->getResult(0)));
    applyHints(op, info);
    infos[op->getResult(0)] = info;
    return;
  }
  Value result = op->getResult(0);
  ArrayRef<int64_t> shape = shapeOf(result);
  unsigned rank = shape.size();
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };

  std::optional<AxisInfo> info =
      llvm::TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
          .Case([&](tile::RangeOp range) {
            AxisInfo r = AxisInfo::unknown(1);
            r.contiguity[0] = shape[0];
            r.divisibility[0] = pow2Factor(range.getStartAttr().getInt());
            return r;
          })
          .Case([&](tile::SplatOp) {
            return splatInfo(shape, operand(0).scalarDivisibility);
          })
          .Case([&](arith::ConstantOp cst) -> std::optional<AxisInfo> {
            if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
              return splatInfo({}, pow2Factor(i.getInt()));
            if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()))
              if (dense.isSplat())
                return splatInfo(
                    shape,
                    pow2Factor(dense.getSplatValue<APInt>().getSExtValue()));
            return std::nullopt;
          })
          .Case([&](arith::AddIOp) {
            return addInfo(operand(0), operand(1), false);
          })
          .Case([&](arith::SubIOp) {
            return addInfo(operand(0), operand(1), true);
          })
          .Case([&](tile::AddPtrOp) {
            AxisInfo p = operand(0), o = operand(1);
            int64_t bytes = pointeeBytes(result.getType());
            auto scale = [&](AxisInfo i) {
              i.scalarDivisibility = mulCap(i.scalarDivisibility, bytes);
              for (int64_t &dv : i.divisibility)
                dv = mulCap(dv, bytes);
              return i;
            };
            AxisInfo r = addInfo(p, scale(o), false);
            return r;
          })
          .Case([&](arith::MulIOp) {
            AxisInfo a = operand(0), b = operand(1);
            AxisInfo r = AxisInfo::unknown(rank);
            r.scalarDivisibility =
                mulCap(a.scalarDivisibility, b.scalarDivisibility);
            for (unsigned d = 0; d < rank; ++d) {
              r.divisibility[d] = mulCap(a.divisibility[d], b.divisibility[d]);
              r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
            }
            return r;
          })
          .Case([&](arith::ShLIOp) -> std::optional<AxisInfo> {
            // x << c multiplies by 2^c: divisibility grows, runs break.
            auto cst = op->getOperand(1).getDefiningOp<arith::ConstantOp>();
            if (!cst)
              return std::nullopt;
            int64_t c = -1;
            if (auto i = dyn_cast<IntegerAttr>(cst.getValue()))
              c = i.getInt();
            else if (auto dense =
                         dyn_cast<DenseIntElementsAttr>(cst.getValue()))
              if (dense.isSplat())
                c = dense.getSplatValue<APInt>().getSExtValue();
            if (c < 0 || c > 30)
              return std::nullopt;
            AxisInfo a = operand(0);
            AxisInfo r = AxisInfo::unknown(rank);
            r.scalarDivisibility =
                mulCap(a.scalarDivisibility, int64_t(1) << c);
            for (unsigned d = 0; d < rank; ++d) {
              r.divisibility[d] = mulCap(a.divisibility[d], int64_t(1) << c);
              r.constancy[d] = a.constancy[d];
            }
            return r;
          })
          .Case<arith::DivUIOp, arith::DivSIOp>(
              [&](Operation *) -> std::optional<AxisInfo> {
                std::optional<int64_t> c = constantInt(op->getOperand(1));
                if (!c || *c <= 0)
                  return std::nullopt;
                return divInfo(operand(0), *c, rank);
              })
          .Case<arith::RemUIOp, arith::RemSIOp>(
              [&](Operation *) -> std::optional<AxisInfo> {
                std::optional<int64_t> c = constantInt(op->getOperand(1));
                if (c && *c > 0)
                  return remInfo(operand(0), *c, rank);
                if (c)
                  return std::nullopt;
                return remByValueInfo(operand(0), operand(1), rank);
              })
          .Case<arith::ShRUIOp, arith::ShRSIOp>(
              [&](Operation *) -> std::optional<AxisInfo> {
                std::optional<int64_t> c = constantInt(op->getOperand(1));
                if (!c || *c < 0 || *c > 30)
                  return std::nullopt;
                return divInfo(operand(0), int64_t(1) << *c, rank);
              })
          .Case([&](tile::ExpandDimsOp e) {
            AxisInfo a = operand(0);
            unsigned axis = e.getAxisAttr().getInt();
            a.contiguity.insert(a.contiguity.begin() + axis, 1);
            a.divisibility.insert(a.divisibility.begin() + axis,
                                  a.divisibility.empty() ? 1
                                                         : a.divisibility[0]);
            a.constancy.insert(a.constancy.begin() + axis, 1);
            return a;
          })
          .Case([&](tile::BroadcastOp b) {
            AxisInfo a = operand(0);
            ArrayRef<int64_t> src = shapeOf(b.getSrc());
            for (unsigned d = 0; d < rank; ++d)
              if (src[d] == 1 && shape[d] != 1) {
                a.contiguity[d] = 1;
                a.constancy[d] = shape[d];
              }
            return a;
          })
          .Case([&](tile::ConvertLayoutOp) { return operand(0); })
          .Case([&](tile::TensorMapBlockOp) { return operand(0); })
          .Case([&](tile::TensorMapPagesOp) { return operand(0); })
          .Case([&](arith::CmpIOp) {
            AxisInfo a = operand(0), b = operand(1);
            AxisInfo r = AxisInfo::unknown(rank);
            for (unsigned d = 0; d < rank; ++d) {
              int64_t c = gcd(a.constancy[d], b.constancy[d]);
              // An aligned run of consecutive integers against a constant
              // with a large enough divisibility compares uniformly.
              if (b.constancy[d] == shape[d])
                c = std::max(c, gcd(gcd(a.contiguity[d], a.divisibility[d]),
                                    b.divisibility[d]));
              if (a.constancy[d] == shape[d])
                c = std::max(c, gcd(gcd(b.contiguity[d], b.divisibility[d]),
                                    a.divisibility[d]));
              r.constancy[d] = c;
            }
            return r;
          })
          .Case([&](arith::AndIOp) -> std::optional<AxisInfo> {
            // x & (2^k - 1) is x % 2^k.
            std::optional<int64_t> c = constantInt(op->getOperand(1));
            if (c && *c > 0 && llvm::isPowerOf2_64(*c + 1))
              return remInfo(operand(0), *c + 1, rank);
            AxisInfo a = operand(0), b = operand(1);
            AxisInfo r = AxisInfo::unknown(rank);
            for (unsigned d = 0; d < rank; ++d)
              r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
            return r;
          })
          .Case<arith::OrIOp, arith::XOrIOp>([&](Operation *) {
            AxisInfo a = operand(0), b = operand(1);
            AxisInfo r = AxisInfo::unknown(rank);
            for (unsigned d = 0; d < rank; ++d)
              r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
            return r;
          })
          .Case([&](arith::SelectOp) {
            AxisInfo c = operand(0), a = operand(1), b = operand(2);
            AxisInfo r = AxisInfo::unknown(rank);
            r.scalarDivisibility =
                gcd(a.scalarDivisibility, b.scalarDivisibility);
            for (unsigned d = 0; d < rank; ++d) {
              r.constancy[d] =
                  gcd(c.constancy[d], gcd(a.constancy[d], b.constancy[d]));
              r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
              if (c.getRank() && c.constancy[d] == shape[d])
                r.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
            }
            return r;
          })
          .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp,
                arith::TruncIOp>([&](Operation *) { return operand(0); })
          .Default([](Operation *) { return std::nullopt; });
  AxisInfo facts = info ? *info : AxisInfo::unknown(rank);
  applyHints(op, facts);
  infos[result] = facts;
}

unsigned mlir::quire::accessVectorWidth(const AxisInfoAnalysis &analysis,
                                        Value ptr, Value mask,
                                        Type elementType) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  FailureOr<tile::LinearLayout> layout = tile::LinearLayout::get(type);
  if (failed(layout))
    return 1;
  // The dimension a thread's consecutive registers run along: a blocked
  // layout's fastest one, the last one otherwise (mma fragments hold pairs
  // of consecutive columns).
  auto blocked = dyn_cast<tile::BlockedEncodingAttr>(type.getEncoding());
  unsigned dim = blocked ? blocked.getOrder()[0] : type.getRank() - 1;
  return accessVectorWidth(analysis, ptr, mask, elementType, dim,
                           layout->getRegisterRun(dim));
}

unsigned mlir::quire::accessVectorWidth(const AxisInfoAnalysis &analysis,
                                        Value ptr, Value mask, Type elementType,
                                        unsigned dim, unsigned run) {
  if (!isa<RankedTensorType>(ptr.getType()))
    return 1;
  unsigned bytes = std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
  AxisInfo info = analysis.get(ptr);
  int64_t vec = std::min<int64_t>(run, 16 / bytes);
  vec = std::min<int64_t>(vec, info.contiguity[dim]);
  vec = std::min<int64_t>(vec,
                          std::max<int64_t>(1, info.divisibility[dim] / bytes));
  if (mask)
    vec = std::min<int64_t>(vec, analysis.get(mask).constancy[dim]);
  if (elementType.getIntOrFloatBitWidth() < 8)
    vec = 1;
  while (vec > 1 && !llvm::isPowerOf2_64(vec))
    --vec;
  return std::max<int64_t>(1, vec);
}
