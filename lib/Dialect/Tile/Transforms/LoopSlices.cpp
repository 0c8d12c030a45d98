//===- LoopSlices.cpp - Re-emitting a loop's loads for another iteration --===//

#include "LoopSlices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quire;
using namespace mlir::quire::tile;

Value tile::pointerRoot(Value p) {
  while (true) {
    if (auto a = p.getDefiningOp<AddPtrOp>())
      p = a.getPtr();
    else if (auto s = p.getDefiningOp<SplatOp>())
      p = s.getSrc();
    else if (auto b = p.getDefiningOp<BroadcastOp>())
      p = b.getSrc();
    else if (auto e = p.getDefiningOp<ExpandDimsOp>())
      p = e.getSrc();
    else if (auto t = p.getDefiningOp<TransOp>())
      p = t.getSrc();
    else if (auto m = p.getDefiningOp<TensorMapBlockOp>())
      p = m.getPtrs();
    else if (auto m = p.getDefiningOp<TensorMapPagesOp>())
      p = m.getPtrs();
    else
      break;
  }
  auto arg = dyn_cast<BlockArgument>(p);
  if (arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return arg;
  return {};
}

bool tile::storedArguments(scf::ForOp loop, SmallVectorImpl<Value> &roots) {
  SmallVector<Operation *> ops;
  for (Operation &op : *loop.getBody())
    ops.push_back(&op);
  return storedArguments(ops, roots);
}

bool tile::storedArguments(ArrayRef<Operation *> ops,
                           SmallVectorImpl<Value> &roots) {
  bool known = true;
  auto visit = [&](Operation *op) {
    // A print writes only the device's printf buffer, which no load reads.
    if (op->hasTrait<OpTrait::IsTerminator>() ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isa<PrintOp>(op))
      return;
    auto mem = dyn_cast<MemoryEffectOpInterface>(op);
    bool writes = !mem || mem.hasEffect<MemoryEffects::Write>() ||
                  mem.hasEffect<MemoryEffects::Free>() ||
                  mem.hasEffect<MemoryEffects::Allocate>();
    if (!writes)
      return;
    // An atomic that acquires orders the loads after it: none may move
    // above it, so it counts as an unknown write.
    if (auto a = dyn_cast<AtomicRMWOp>(op); a && acquires(a.getSem()))
      op = nullptr;
    else if (auto c = dyn_cast<AtomicCASOp>(op); c && acquires(c.getSem()))
      op = nullptr;
    Value ptr = op && isa<StoreOp, AtomicRMWOp, AtomicCASOp>(op)
                    ? op->getOperand(0)
                    : Value();
    Value root = ptr ? pointerRoot(ptr) : Value();
    if (!root)
      known = false;
    else if (!llvm::is_contained(roots, root))
      roots.push_back(root);
  };
  for (Operation *op : ops)
    op->walk(visit);
  return known;
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

arith::SelectOp tile::nextStage(OpBuilder &b, Location loc, Value stage,
                                int64_t stages) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, stage,
                                       cst(stages - 1));
  return arith::SelectOp::create(b, loc, isLast, cst(0),
                                 arith::AddIOp::create(b, loc, stage, cst(1)));
}

arith::SelectOp tile::stageAhead(OpBuilder &b, Location loc, Value stage,
                                 int64_t k, int64_t stages) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value back = cst(stages - k);
  Value stays =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, stage, back);
  return arith::SelectOp::create(b, loc, stays,
                                 arith::AddIOp::create(b, loc, stage, cst(k)),
                                 arith::SubIOp::create(b, loc, stage, back));
}

arith::SelectOp tile::nextPhase(OpBuilder &b, Location loc, Value next,
                                Value phase) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  };
  Value wraps =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next, cst(0));
  Value flipped = arith::XOrIOp::create(b, loc, phase, cst(1));
  return arith::SelectOp::create(b, loc, wraps, flipped, phase);
}

SmallVector<Operation *>
tile::inBodyOrder(scf::ForOp loop, const llvm::SetVector<Operation *> &set) {
  SmallVector<Operation *> ordered;
  for (Operation &op : *loop.getBody())
    if (set.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

Value tile::iterationRuns(OpBuilder &b, Location loc, Value iv, Value step,
                          int64_t k, Value ub, bool ivRuns) {
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  };
  if (k == 0)
    return cmp(arith::CmpIPredicate::slt, iv, ub);
  Type type = iv.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  std::optional<int64_t> c = getConstantIntValue(step);
  Value in;
  if (c && *c > 0 && *c <= llvm::maxIntN(width) / k) {
    // A constant step: iv + k * step < ub is iv < ub - k * step, whose
    // bound wraps exactly where it is not below ub (then no iteration is
    // that far); the bound and its test are loop-invariant.
    Value lim = arith::SubIOp::create(
        b, loc, ub,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, k * *c)));
    in = arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::slt, iv, lim),
                               cmp(arith::CmpIPredicate::slt, lim, ub));
  } else if (k == 1) {
    // Where iv runs, ub - iv is exact as an unsigned number (1 ..
    // 2^width - 1), and scf.for's step is positive: iteration iv + step
    // runs where the step is below it.
    Value d = arith::SubIOp::create(b, loc, ub, iv);
    in = cmp(arith::CmpIPredicate::ugt, d, step);
  } else {
    // Otherwise in 64 bits (a 64-bit loop near INT64_MAX is not handled).
    if (width < 64) {
      Type i64 = b.getI64Type();
      auto wide = [&](Value v) -> Value {
        return arith::ExtSIOp::create(b, loc, i64, v);
      };
      iv = wide(iv);
      step = wide(step);
      ub = wide(ub);
      type = i64;
    }
    Value kv = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, k));
    Value j = arith::AddIOp::create(b, loc, iv,
                                    arith::MulIOp::create(b, loc, step, kv));
    return cmp(arith::CmpIPredicate::slt, j, ub);
  }
  if (ivRuns)
    return in;
  return arith::AndIOp::create(b, loc, cmp(arith::CmpIPredicate::slt, iv, ub),
                               in);
}

bool tile::isNextStage(Value v, Value stage, int64_t stages) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  auto isLast = select.getCondition().getDefiningOp<arith::CmpIOp>();
  auto inc = select.getFalseValue().getDefiningOp<arith::AddIOp>();
  APInt last;
  return isLast && isLast.getPredicate() == arith::CmpIPredicate::eq &&
         isLast.getLhs() == stage &&
         matchPattern(isLast.getRhs(), m_ConstantInt(&last)) &&
         last == stages - 1 && matchPattern(select.getTrueValue(), m_Zero()) &&
         inc && inc.getLhs() == stage && matchPattern(inc.getRhs(), m_One());
}

bool tile::fitsNvmma(ArrayRef<int64_t> shape, unsigned contig) {
  return shape[contig] * 2 >= 32 && shape[1 - contig] >= 8;
}

bool tile::isStageAhead(Value v, Value stage, int64_t k, int64_t stages) {
  auto select = v.getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  auto stays = select.getCondition().getDefiningOp<arith::CmpIOp>();
  auto add = select.getTrueValue().getDefiningOp<arith::AddIOp>();
  auto back = select.getFalseValue().getDefiningOp<arith::SubIOp>();
  auto is = [](Value c, int64_t n) {
    APInt value;
    return matchPattern(c, m_ConstantInt(&value)) && value == n;
  };
  return stays && add && back &&
         stays.getPredicate() == arith::CmpIPredicate::slt &&
         stays.getLhs() == stage && is(stays.getRhs(), stages - k) &&
         add.getLhs() == stage && is(add.getRhs(), k) &&
         back.getLhs() == stage && is(back.getRhs(), stages - k);
}

/// True if `a` has users and each is a wgmma dot reading it as its A.
static bool onlyDotsReadA(Value a) {
  return !a.use_empty() && llvm::all_of(a.getUsers(), [&](Operation *user) {
    auto dot = dyn_cast<WarpgroupDotOp>(user);
    return dot && dot.getA() == a;
  });
}

/// Stores `a`, a loop-invariant 16-bit wgmma A operand, once into a
/// one-stage buffer of its own (the swizzled layout wgmma reads;
/// tile.local_store synchronizes) and makes every dot that read it from
/// registers read that buffer instead. An operand converted from a blocked
/// tile is stored from that tile (the conversion goes); any other is stored
/// from its own registers, K contiguous.
void tile::shareOperandA(Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  if (type.getRank() != 2 ||
      type.getElementType().getIntOrFloatBitWidth() != 16)
    return;
  // A (M x K) is staged with the dimension its registers run along
  // contiguous: a blocked source's fastest, else K.
  Value x = a;
  unsigned contig = 1;
  auto cv = a.getDefiningOp<ConvertLayoutOp>();
  if (cv) {
    auto src = cast<RankedTensorType>(cv.getSrc().getType());
    if (auto blocked =
            dyn_cast_or_null<BlockedEncodingAttr>(src.getEncoding())) {
      x = cv.getSrc();
      contig = blocked.getOrder()[0];
    } else {
      cv = ConvertLayoutOp();
    }
  }
  if (!fitsNvmma(type.getShape(), contig))
    return;
  if (!onlyDotsReadA(a))
    return;
  SmallVector<WarpgroupDotOp> dots;
  for (Operation *user : a.getUsers())
    dots.push_back(cast<WarpgroupDotOp>(user));
  // A buffer id no staged loop of the function uses: the query stays
  // there while every loop runs.
  auto func = dots.front()->getParentOfType<func::FuncOp>();
  int32_t id = 0;
  func.walk([&](Operation *op) {
    for (StringRef name : {"buffer", "a_buffer", "b_buffer"})
      if (auto attr = op->getAttrOfType<IntegerAttr>(name))
        id = std::max<int32_t>(id, attr.getInt() + 1);
  });
  OpBuilder b(a.getContext());
  if (cv)
    b.setInsertionPoint(cv);
  else if (Operation *def = a.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(cast<BlockArgument>(a).getOwner());
  Location loc = a.getLoc();
  Value stage = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  LocalStoreOp::create(b, loc, x, stage, b.getI32IntegerAttr(id),
                       b.getI32IntegerAttr(contig), b.getI32IntegerAttr(1),
                       UnitAttr(), b.getUnitAttr());
  for (WarpgroupDotOp dot : dots) {
    b.setInsertionPoint(dot);
    auto staged = WarpgroupDotOp::create(
        b, dot.getLoc(), dot.getType(), Value(), stage, dot.getBStage(),
        dot.getC(), b.getI32IntegerAttr(id), b.getI32IntegerAttr(contig),
        dot.getBBufferAttr(), dot.getBContigAttr(), dot.getStagesAttr(),
        dot.getKAttr(), dot.getOperandTypeAttr(), dot.getAsyncAttr(),
        b.getI32IntegerAttr(1));
    dot.replaceAllUsesWith(staged.getResult());
    dot.erase();
  }
  if (cv)
    cv.erase();
}

bool tile::clearsRows(Block *body) {
  return body->walk([](TmaZeroRowsOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// True if `dot`'s A is the same in every iteration of `loop`: registers
/// defined before it, or a one-stage buffer (shareOperandA's).
bool tile::isInvariantA(scf::ForOp loop, WarpgroupDotOp dot) {
  if (Value a = dot.getA())
    return loop.isDefinedOutsideOfLoop(a);
  return dot.getAStages() == 1 && loop.isDefinedOutsideOfLoop(dot.getAStage());
}

/// Shares (shareOperandA) the loop-invariant register A operands of the
/// wgmma dots of every loop of `func`: docs/passes.md, "Loop-invariant A
/// operands of wgmma loops".
void tile::shareInvariantOperands(func::FuncOp func) {
  llvm::SetVector<Value> operands;
  func.walk([&](scf::ForOp loop) {
    for (auto dot : loop.getBody()->getOps<WarpgroupDotOp>())
      if (Value a = dot.getA(); a && loop.isDefinedOutsideOfLoop(a))
        operands.insert(a);
  });
  // One buffer per tile: of the conversions of one tile in one block (one
  // per loop, before CSE) that only dots read as A, the first stays and the
  // others go.
  llvm::SetVector<Value> shared;
  for (Value a : operands) {
    auto cv = a.getDefiningOp<ConvertLayoutOp>();
    auto same = [&](Value b) {
      auto other = b.getDefiningOp<ConvertLayoutOp>();
      return cv && other && other.getSrc() == cv.getSrc() &&
             other.getType() == cv.getType() &&
             other->getBlock() == cv->getBlock() && onlyDotsReadA(a) &&
             onlyDotsReadA(b);
    };
    auto it = llvm::find_if(shared, same);
    if (it == shared.end()) {
      shared.insert(a);
      continue;
    }
    Value kept = *it;
    if (a.getDefiningOp()->isBeforeInBlock(kept.getDefiningOp())) {
      std::swap(kept, a);
      shared.remove(a);
      shared.insert(kept);
    }
    a.replaceAllUsesWith(kept);
    a.getDefiningOp()->erase();
  }
  for (Value a : shared)
    shareOperandA(a);
}

BlockArgument tile::stageArgument(scf::ForOp loop, Value stage, int64_t stages,
                                  bool anyStart) {
  Block *body = loop.getBody();
  auto arg = dyn_cast<BlockArgument>(stage);
  if (!arg || arg.getOwner() != body || arg.getArgNumber() == 0)
    return {};
  unsigned k = arg.getArgNumber() - 1;
  if ((!anyStart && !matchPattern(loop.getInitArgs()[k], m_Zero())) ||
      !isNextStage(body->getTerminator()->getOperand(k), arg, stages))
    return {};
  return arg;
}

/// The dot's A from registers defined before the loop, its accumulator
/// too, and its stage the loop's stage argument (stageArgument).
BlockArgument tile::stageOfInvariantDot(scf::ForOp loop, WarpgroupDotOp dot,
                                        bool anyStart) {
  if (!isInvariantA(loop, dot) || !loop.isDefinedOutsideOfLoop(dot.getC()))
    return {};
  return stageArgument(loop, dot.getBStage(), dot.getStages(), anyStart);
}

Operation *tile::turnsBracket(scf::ForOp loop) {
  Operation *bracket = loop;
  for (Operation *op = loop->getParentOp(); op && !isa<func::FuncOp>(op);
       op = op->getParentOp())
    if (isa<scf::ForOp>(op))
      bracket = op;
  return bracket;
}
