//===- Interpreter.cpp - CPU reference interpreter for tile kernels -------===//
//
// Executes tile kernels op by op on the host: the semantics every compiled
// kernel is checked against. The rules it follows, beyond the op
// descriptions in TileOps.td:
//
//  - A value is a row-major vector of doubles (floats) or of 64-bit integers
//    (integers, i1 and pointers) plus a shape; integers are kept sign-extended
//    from their width, so i1 `true` is -1.
//  - Every float result is rounded to its element type (ties to even) right
//    after the op: f16, bf16 and fp8 by exact power-of-two scaling, f32
//    through `float`. Computing in double first and rounding once is exact
//    for + - * / and sqrt of f32/f16/bf16 operands (53 >= 2 * 24 + 2).
//  - fp8 (f8E4M3FN, f8E5M2) saturates: a value past the largest finite one,
//    infinities included, rounds to it (the GPU's `cvt.rn.satfinite`); NaN
//    stays NaN. f8E4M3FN has no infinities, and only S.1111.111 is NaN.
//  - `tile.dot` accumulates in f32 in k order, rounding each product and sum.
//    `tile.reduce` combines in index order in the element type.
//  - Integer division by zero, signed division overflow and shifts by at
//    least the bit width are errors (they are undefined behaviour in arith);
//    fptosi/fptoui saturate and map NaN to 0 (PTX `cvt.rzi.sat`).
//  - Masked-off load lanes without `other` read NaN (floats) or 0: a kernel
//    that depends on them shows it.
//  - Each access is checked against the buffers before any lane of the op is
//    performed; `tile.paged_load` rows at or past `seq_len` touch nothing,
//    and with `num_blocks` an entry outside [0, num_blocks) that a row below
//    `seq_len` uses is an error before that row is read.
//  - `tile.assert` fails at its first false element (row-major) with its
//    message formatted from that element's arguments.
//
// This file is compiled with -ffp-contract=off: a fused multiply-add would
// skip the roundings the semantics prescribe.
//
//===----------------------------------------------------------------------===//

#include "quire/Interpreter/Interpreter.h"

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::quire;

//===----------------------------------------------------------------------===//
// Float formats and rounding
//===----------------------------------------------------------------------===//

namespace {
/// An IEEE-754 binary format: `precision` significand bits including the
/// implicit one, `minExp` the exponent of the smallest normal number.
struct BinaryFormat {
  int precision;
  int minExp;
  int expBits;
  double maxFinite;
  bool saturate = false;   // overflow and infinities round to maxFinite
  bool finiteOnly = false; // no infinities; only all-ones is NaN (E4M3FN)
  int bytes() const { return (precision + expBits) / 8; }
};

enum class Rounding { NearestEven, Down, Up, TowardZero, NearestAway };
} // namespace

static constexpr BinaryFormat kHalf = {11, -14, 5, 65504.0};
static constexpr BinaryFormat kBFloat = {8, -126, 8, 0x1.fep127};
static constexpr BinaryFormat kSingle = {24, -126, 8, 0x1.fffffep127};
static constexpr BinaryFormat kDouble = {53, -1022, 11, DBL_MAX};
static constexpr BinaryFormat kE4M3FN = {4, -6, 4, 448.0, true, true};
static constexpr BinaryFormat kE5M2 = {3, -14, 5, 57344.0, true, false};

static const BinaryFormat *getFormat(Type type) {
  if (type.isF16())
    return &kHalf;
  if (type.isBF16())
    return &kBFloat;
  if (type.isF32())
    return &kSingle;
  if (type.isF64())
    return &kDouble;
  if (isa<Float8E4M3FNType>(type))
    return &kE4M3FN;
  if (isa<Float8E5M2Type>(type))
    return &kE5M2;
  return nullptr;
}

static const llvm::fltSemantics &getSemantics(const BinaryFormat &fmt) {
  if (&fmt == &kHalf)
    return llvm::APFloat::IEEEhalf();
  if (&fmt == &kBFloat)
    return llvm::APFloat::BFloat();
  if (&fmt == &kSingle)
    return llvm::APFloat::IEEEsingle();
  if (&fmt == &kE4M3FN)
    return llvm::APFloat::Float8E4M3FN();
  if (&fmt == &kE5M2)
    return llvm::APFloat::Float8E5M2();
  return llvm::APFloat::IEEEdouble();
}

/// Rounds `x` to `fmt`. Scaling a double by a power of two is exact, so the
/// significand is rounded to an integer at the format's quantum, which also
/// covers subnormals (the quantum stops shrinking below `minExp`).
static double roundTo(const BinaryFormat &fmt, double x, Rounding mode) {
  if (fmt.saturate && std::isinf(x))
    return std::copysign(fmt.maxFinite, x);
  if (fmt.precision == 53 || !std::isfinite(x) || x == 0.0)
    return x;
  if (&fmt == &kSingle && mode == Rounding::NearestEven)
    return static_cast<double>(static_cast<float>(x));
  int exp;
  std::frexp(x, &exp);
  int quantum = std::max(exp - 1, fmt.minExp) - (fmt.precision - 1);
  double scaled = std::ldexp(x, -quantum);
  double r = 0.0;
  switch (mode) {
  case Rounding::NearestEven: {
    r = std::floor(scaled);
    double frac = scaled - r;
    if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0))
      r += 1.0;
    break;
  }
  case Rounding::NearestAway:
    r = std::round(scaled);
    break;
  case Rounding::Down:
    r = std::floor(scaled);
    break;
  case Rounding::Up:
    r = std::ceil(scaled);
    break;
  case Rounding::TowardZero:
    r = std::trunc(scaled);
    break;
  }
  if (r == 0.0)
    return std::copysign(0.0, x);
  double y = std::ldexp(r, quantum);
  if (std::fabs(y) <= fmt.maxFinite)
    return y;
  if (fmt.saturate)
    return std::copysign(fmt.maxFinite, x);
  bool toInf = mode == Rounding::NearestEven || mode == Rounding::NearestAway ||
               (mode == Rounding::Up && x > 0) ||
               (mode == Rounding::Down && x < 0);
  return std::copysign(toInf ? HUGE_VAL : fmt.maxFinite, x);
}

static double roundNearest(const BinaryFormat &fmt, double x) {
  return roundTo(fmt, x, Rounding::NearestEven);
}

/// Bit pattern of `x`, which must already be a value of `fmt`.
static uint64_t encodeBits(const BinaryFormat &fmt, double x) {
  if (&fmt == &kSingle) {
    float f = static_cast<float>(x);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  if (&fmt == &kDouble) {
    uint64_t bits;
    std::memcpy(&bits, &x, 8);
    return bits;
  }
  unsigned mantBits = fmt.precision - 1;
  uint64_t expMax = (uint64_t(1) << fmt.expBits) - 1;
  int bias = static_cast<int>(expMax >> 1);
  uint64_t sign = std::signbit(x) ? 1 : 0;
  uint64_t expField = 0, mant = 0;
  if (std::isnan(x)) {
    expField = expMax;
    mant = fmt.finiteOnly ? (uint64_t(1) << mantBits) - 1
                          : uint64_t(1) << (mantBits - 1);
  } else if (std::isinf(x)) {
    expField = expMax;
  } else if (x != 0.0) {
    double a = std::fabs(x);
    int exp;
    std::frexp(a, &exp);
    int lead = exp - 1;
    if (lead < fmt.minExp) {
      mant = static_cast<uint64_t>(
          std::ldexp(a, static_cast<int>(mantBits) - fmt.minExp));
    } else {
      expField = static_cast<uint64_t>(lead + bias);
      mant = static_cast<uint64_t>(
                 std::ldexp(a, static_cast<int>(mantBits) - lead)) -
             (uint64_t(1) << mantBits);
    }
  }
  return (sign << (fmt.expBits + mantBits)) | (expField << mantBits) | mant;
}

static double decodeBits(const BinaryFormat &fmt, uint64_t bits) {
  if (&fmt == &kSingle) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  if (&fmt == &kDouble) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  unsigned mantBits = fmt.precision - 1;
  uint64_t expMax = (uint64_t(1) << fmt.expBits) - 1;
  int bias = static_cast<int>(expMax >> 1);
  uint64_t mant = bits & ((uint64_t(1) << mantBits) - 1);
  uint64_t expField = (bits >> mantBits) & expMax;
  bool negative = (bits >> (fmt.expBits + mantBits)) & 1;
  double v;
  if (fmt.finiteOnly && expField == expMax &&
      mant == (uint64_t(1) << mantBits) - 1)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (!fmt.finiteOnly && expField == expMax)
    v = mant ? std::numeric_limits<double>::quiet_NaN() : HUGE_VAL;
  else if (expField == 0)
    v = std::ldexp(static_cast<double>(mant),
                   fmt.minExp - static_cast<int>(mantBits));
  else
    v = std::ldexp(static_cast<double>(mant | (uint64_t(1) << mantBits)),
                   static_cast<int>(expField) - bias -
                       static_cast<int>(mantBits));
  return negative ? -v : v;
}

//===----------------------------------------------------------------------===//
// Integers
//===----------------------------------------------------------------------===//

/// `v` truncated to `width` bits and sign-extended back: the canonical form
/// of every integer value.
static int64_t sext(uint64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<int64_t>(v);
  unsigned shift = 64 - width;
  return static_cast<int64_t>(v << shift) >> shift;
}

/// The unsigned reading of a `width`-bit value.
static uint64_t zext(int64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

static unsigned getIntWidth(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.getWidth();
  return 64; // index and pointers
}

//===----------------------------------------------------------------------===//
// Public element helpers
//===----------------------------------------------------------------------===//

bool mlir::quire::isInterpElementType(Type type) {
  if (getFormat(type))
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || !intType.isSignless())
    return false;
  unsigned w = intType.getWidth();
  return w == 1 || w == 8 || w == 16 || w == 32 || w == 64;
}

unsigned mlir::quire::getInterpElementBytes(Type type) {
  if (isa<tile::PointerType>(type) || type.isIndex())
    return 8;
  if (auto intType = dyn_cast<IntegerType>(type))
    return (intType.getWidth() + 7) / 8;
  return type.getIntOrFloatBitWidth() / 8;
}

double mlir::quire::roundToFloatType(Type type, double value) {
  return roundNearest(*getFormat(type), value);
}

double mlir::quire::readFloatElement(Type type, const void *src) {
  const BinaryFormat &fmt = *getFormat(type);
  uint64_t bits = 0;
  std::memcpy(&bits, src, fmt.bytes());
  return decodeBits(fmt, bits);
}

int64_t mlir::quire::readIntElement(Type type, const void *src) {
  unsigned width = getIntWidth(type);
  uint64_t bits = 0;
  std::memcpy(&bits, src, getInterpElementBytes(type));
  if (width == 1) // any nonzero byte is true, as numpy's bool
    return (bits & 0xff) ? -1 : 0;
  return sext(bits, width);
}

void mlir::quire::writeFloatElement(Type type, double value, void *dst) {
  const BinaryFormat &fmt = *getFormat(type);
  uint64_t bits = encodeBits(fmt, roundNearest(fmt, value));
  std::memcpy(dst, &bits, fmt.bytes());
}

void mlir::quire::writeIntElement(Type type, int64_t value, void *dst) {
  unsigned width = getIntWidth(type);
  uint64_t bits = width == 1 ? (value & 1) : zext(value, width);
  std::memcpy(dst, &bits, getInterpElementBytes(type));
}

std::string mlir::quire::formatInterpLocation(Location loc) {
  // Look through wrappers for the file position a diagnostic would print.
  while (true) {
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
          .str();
    if (auto name = dyn_cast<NameLoc>(loc)) {
      loc = name.getChildLoc();
      continue;
    }
    if (auto call = dyn_cast<CallSiteLoc>(loc)) {
      loc = call.getCallee();
      continue;
    }
    if (auto fused = dyn_cast<FusedLoc>(loc)) {
      for (Location inner : fused.getLocations()) {
        std::string s = formatInterpLocation(inner);
        if (s != "loc(unknown)")
          return s;
      }
    }
    break;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

//===----------------------------------------------------------------------===//
// Runtime values
//===----------------------------------------------------------------------===//

namespace {
/// A scalar (empty shape) or a row-major tensor. Exactly one of `ints` and
/// `floats` is used, as the element type says.
struct RtValue {
  SmallVector<int64_t, 2> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;
};
} // namespace

static int64_t getNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static SmallVector<int64_t, 2> getShape(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t, 2>(tensor.getShape());
  return {};
}

static bool isFloatElement(Value v) {
  return isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

static SmallVector<int64_t, 4> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// dst[idx] = src[sum_i idx[i] * srcStrides[i]] over every index of
/// `dstShape`: broadcast (stride 0) and transpose (permuted strides).
template <typename T>
static void gather(const std::vector<T> &src, std::vector<T> &dst,
                   ArrayRef<int64_t> dstShape, ArrayRef<int64_t> srcStrides) {
  int64_t n = getNumElements(dstShape);
  dst.resize(n);
  if (n == 0)
    return;
  size_t rank = dstShape.size();
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t srcPos = 0;
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = src[srcPos];
    for (size_t d = rank; d-- > 0;) {
      srcPos += srcStrides[d];
      if (++idx[d] < dstShape[d])
        break;
      srcPos -= srcStrides[d] * dstShape[d];
      idx[d] = 0;
    }
  }
}

/// The coordinates of element `i` of a row-major tensor of `shape`.
static SmallVector<int64_t, 4> rowMajorCoord(ArrayRef<int64_t> shape,
                                             int64_t i) {
  SmallVector<int64_t, 4> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
  return idx;
}

static std::string formatLane(ArrayRef<int64_t> shape, int64_t lane) {
  if (shape.empty())
    return "the scalar access";
  SmallVector<int64_t, 4> idx = rowMajorCoord(shape, lane);
  std::string s = "lane [";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(idx, os);
  os << "]";
  return s;
}

static double apFloatToDouble(llvm::APFloat value) {
  bool lost;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
  return value.convertToDouble();
}

/// Integer to float, rounded once: through double when that is exact,
/// through APFloat when the integer has more than 53 significant bits.
static double intToFloat(const BinaryFormat &fmt, uint64_t bits,
                         bool isSigned) {
  double asDouble = isSigned ? static_cast<double>(static_cast<int64_t>(bits))
                             : static_cast<double>(bits);
  if (std::fabs(asDouble) <= 0x1p53 || &fmt == &kDouble)
    return roundNearest(fmt, asDouble);
  llvm::APFloat f(getSemantics(fmt));
  f.convertFromAPInt(llvm::APInt(64, bits), isSigned,
                     llvm::APFloat::rmNearestTiesToEven);
  return apFloatToDouble(f);
}

/// fptosi/fptoui with saturation; NaN gives 0.
static int64_t floatToInt(double x, unsigned width, bool isSigned) {
  if (std::isnan(x))
    return 0;
  double t = std::trunc(x);
  if (isSigned) {
    double lo = -std::ldexp(1.0, width - 1), hi = std::ldexp(1.0, width - 1);
    if (t < lo)
      return sext(uint64_t(1) << (width - 1), width);
    if (t >= hi)
      return sext((uint64_t(1) << (width - 1)) - 1, width);
    return static_cast<int64_t>(t);
  }
  if (t <= 0)
    return 0;
  if (t >= std::ldexp(1.0, width))
    return sext(~uint64_t(0), width);
  return sext(static_cast<uint64_t>(t), width);
}

static double roundEven(double x) {
  double r = std::floor(x);
  double frac = x - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0))
    r += 1.0;
  return std::copysign(r, x);
}

static double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b) // +0 beats -0
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

static double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b) // -0 beats +0
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

static double maxNumF(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  return maximumF(a, b);
}

static double minNumF(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  return minimumF(a, b);
}

static bool compareFloat(arith::CmpFPredicate pred, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (pred) {
  case P::AlwaysFalse:
    return false;
  case P::OEQ:
    return !unordered && a == b;
  case P::OGT:
    return !unordered && a > b;
  case P::OGE:
    return !unordered && a >= b;
  case P::OLT:
    return !unordered && a < b;
  case P::OLE:
    return !unordered && a <= b;
  case P::ONE:
    return !unordered && a != b;
  case P::ORD:
    return !unordered;
  case P::UEQ:
    return unordered || a == b;
  case P::UGT:
    return unordered || a > b;
  case P::UGE:
    return unordered || a >= b;
  case P::ULT:
    return unordered || a < b;
  case P::ULE:
    return unordered || a <= b;
  case P::UNE:
    return unordered || a != b;
  case P::UNO:
    return unordered;
  case P::AlwaysTrue:
    return true;
  }
  return false;
}

static bool compareInt(arith::CmpIPredicate pred, int64_t a, int64_t b,
                       unsigned width) {
  uint64_t ua = zext(a, width), ub = zext(b, width);
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::eq:
    return a == b;
  case P::ne:
    return a != b;
  case P::slt:
    return a < b;
  case P::sle:
    return a <= b;
  case P::sgt:
    return a > b;
  case P::sge:
    return a >= b;
  case P::ult:
    return ua < ub;
  case P::ule:
    return ua <= ub;
  case P::ugt:
    return ua > ub;
  case P::uge:
    return ua >= ub;
  }
  return false;
}

static Rounding getRounding(std::optional<arith::RoundingMode> mode) {
  if (!mode)
    return Rounding::NearestEven;
  switch (*mode) {
  case arith::RoundingMode::to_nearest_even:
    return Rounding::NearestEven;
  case arith::RoundingMode::downward:
    return Rounding::Down;
  case arith::RoundingMode::upward:
    return Rounding::Up;
  case arith::RoundingMode::toward_zero:
    return Rounding::TowardZero;
  case arith::RoundingMode::to_nearest_away:
    return Rounding::NearestAway;
  }
  return Rounding::NearestEven;
}

//===----------------------------------------------------------------------===//
// Supported types
//===----------------------------------------------------------------------===//

static std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

static bool isSupportedScalar(Type type) {
  if (auto ptr = dyn_cast<tile::PointerType>(type))
    return getFormat(ptr.getPointeeType()) ||
           (isa<IntegerType>(ptr.getPointeeType()) &&
            getIntWidth(ptr.getPointeeType()) <= 64);
  if (type.isIndex() || getFormat(type))
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isSignless() && intType.getWidth() <= 64;
}

static bool isSupportedType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    // An encoding (a distributed layout) says where elements live on the
    // GPU, not what they are: the interpreter ignores it.
    return tensor.hasStaticShape() &&
           isSupportedScalar(tensor.getElementType());
  return isSupportedScalar(type);
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {
/// Integer op body: computes `out` from canonical operands, or returns the
/// reason the result is undefined.
using IntBinaryFn = const char *(*)(int64_t a, int64_t b, unsigned width,
                                    int64_t &out);

class Interpreter {
public:
  Interpreter(ArrayRef<InterpBuffer> buffers, std::string &error)
      : buffers(buffers), error(error) {}

  LogicalResult run(func::FuncOp kernel, ArrayRef<InterpArg> args,
                    std::array<int64_t, 3> grid);

private:
  LogicalResult fail(Operation *op, const Twine &message);
  LogicalResult failGlobal(const Twine &message);

  /// Never inserts: a reference from get() stays valid until the next set().
  const RtValue &get(Value v) {
    auto it = values.find(v);
    return it == values.end() ? undefinedValue : it->second;
  }
  void set(Value v, RtValue &&r) { values[v] = std::move(r); }

  /// Moves `args` into the block's arguments, runs its ops and copies the
  /// terminator's operands to `results`.
  LogicalResult execBlock(Block &block, SmallVectorImpl<RtValue> &args,
                          SmallVectorImpl<RtValue> &results);
  LogicalResult exec(Operation *op);

  // Memory.
  std::string describeAddress(uint64_t addr, unsigned bytes);
  /// Host address of `bytes` bytes at `addr`, or null after reporting why
  /// `what` may not access them.
  char *access(Operation *op, uint64_t addr, unsigned bytes, bool write,
               const Twine &what);

  // Elementwise helpers.
  template <typename Fn> LogicalResult mapFloat1(Operation *op, Fn fn);
  template <typename Fn> LogicalResult mapFloat2(Operation *op, Fn fn);
  template <typename Fn> LogicalResult mapFloatPred(Operation *op, Fn fn);
  template <typename Fn> LogicalResult mapInt1(Operation *op, Fn fn);
  LogicalResult mapInt2(Operation *op, IntBinaryFn fn);
  LogicalResult castOp(Operation *op);

  // Ops with their own semantics.
  LogicalResult execConstant(arith::ConstantOp op);
  LogicalResult execCmpI(arith::CmpIOp op);
  LogicalResult execCmpF(arith::CmpFOp op);
  LogicalResult execSelect(arith::SelectOp op);
  LogicalResult execFma(math::FmaOp op);
  LogicalResult execFor(scf::ForOp op);
  LogicalResult execIf(scf::IfOp op);
  LogicalResult execWhile(scf::WhileOp op);
  LogicalResult execRange(tile::RangeOp op);
  LogicalResult execSplat(tile::SplatOp op);
  LogicalResult execBroadcast(tile::BroadcastOp op);
  LogicalResult execTrans(tile::TransOp op);
  LogicalResult execAddPtr(tile::AddPtrOp op);
  LogicalResult execLoad(tile::LoadOp op);
  LogicalResult execStore(tile::StoreOp op);
  LogicalResult writableLanes(Operation *op, const RtValue &ptr,
                              const RtValue *mask, unsigned bytes,
                              SmallVectorImpl<char *> &hosts);
  LogicalResult execAtomicRMW(tile::AtomicRMWOp op);
  LogicalResult execAtomicCAS(tile::AtomicCASOp op);
  LogicalResult execDot(tile::DotOp op);
  LogicalResult execReduce(tile::ReduceOp op);
  LogicalResult execPagedLoad(tile::PagedLoadOp op);
  LogicalResult execAssert(tile::AssertOp op);
  LogicalResult execPrint(tile::PrintOp op);

  ArrayRef<InterpBuffer> buffers;
  std::string &error;
  /// The first kernel argument bound to each buffer, for messages.
  SmallVector<int, 8> bufferArg;
  DenseMap<Value, RtValue> values;
  /// What get() returns for a value without a definition, which verified IR
  /// (run() verifies the kernel) never has.
  RtValue undefinedValue;
  /// Whether a program is running, i.e. whether messages name a program id.
  bool running = false;
  std::array<int64_t, 3> pid = {0, 0, 0};
  std::array<int64_t, 3> grid = {1, 1, 1};
};
} // namespace

LogicalResult Interpreter::fail(Operation *op, const Twine &message) {
  error = (formatInterpLocation(op->getLoc()) + ": error: '" +
           op->getName().getStringRef() + "' op " + message)
              .str();
  if (running)
    error += (" in program (" + Twine(pid[0]) + ", " + Twine(pid[1]) + ", " +
              Twine(pid[2]) + ")")
                 .str();
  return failure();
}

LogicalResult Interpreter::failGlobal(const Twine &message) {
  error = ("error: " + message).str();
  return failure();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

std::string Interpreter::describeAddress(uint64_t addr, unsigned bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << bytes << " byte" << (bytes == 1 ? "" : "s") << " at "
     << llvm::format_hex(addr, 2);
  uint64_t window = addr >> kInterpBufferAddressShift;
  uint64_t offset = addr & ((uint64_t(1) << kInterpBufferAddressShift) - 1);
  auto name = [&](uint64_t b) {
    std::string n;
    llvm::raw_string_ostream ns(n);
    ns << "buffer " << b;
    if (bufferArg[b] >= 0)
      ns << " (argument #" << bufferArg[b] << ", " << buffers[b].bytes
         << " bytes)";
    else
      ns << " (" << buffers[b].bytes << " bytes)";
    return n;
  };
  // An offset in the upper half of a window is most likely a negative offset
  // from the next buffer.
  bool before = offset >= (uint64_t(1) << (kInterpBufferAddressShift - 1));
  if (before && window < buffers.size()) {
    os << ", " << ((uint64_t(1) << kInterpBufferAddressShift) - offset)
       << " bytes before the start of " << name(window);
  } else if (window >= 1 && window <= buffers.size()) {
    uint64_t b = window - 1;
    if (offset >= buffers[b].bytes)
      os << ", " << offset - buffers[b].bytes << " bytes past the end of "
         << name(b);
    else
      os << ", byte offset " << offset << " of " << name(b);
  } else {
    os << ", which is in no buffer";
  }
  return s;
}

char *Interpreter::access(Operation *op, uint64_t addr, unsigned bytes,
                          bool write, const Twine &what) {
  uint64_t window = addr >> kInterpBufferAddressShift;
  uint64_t offset = addr & ((uint64_t(1) << kInterpBufferAddressShift) - 1);
  if (window < 1 || window > buffers.size() ||
      offset + bytes > buffers[window - 1].bytes) {
    (void)fail(op, "out-of-bounds access: " + what +
                       (write ? " writes " : " reads ") +
                       describeAddress(addr, bytes) + ",");
    return nullptr;
  }
  if (addr % bytes != 0) {
    (void)fail(op, "misaligned access: " + what +
                       (write ? " writes " : " reads ") +
                       describeAddress(addr, bytes) + ", which is not " +
                       Twine(bytes) + "-byte aligned,");
    return nullptr;
  }
  const InterpBuffer &buffer = buffers[window - 1];
  if (write && buffer.readOnly) {
    (void)fail(op, "store to a read-only buffer: " + what + " writes " +
                       describeAddress(addr, bytes) + ",");
    return nullptr;
  }
  return static_cast<char *>(buffer.data) + offset;
}

//===----------------------------------------------------------------------===//
// Elementwise helpers
//===----------------------------------------------------------------------===//

template <typename Fn>
LogicalResult Interpreter::mapFloat1(Operation *op, Fn fn) {
  const RtValue &a = get(op->getOperand(0));
  const BinaryFormat &fmt =
      *getFormat(getElementTypeOrSelf(op->getResult(0).getType()));
  RtValue r;
  r.shape = a.shape;
  r.floats.resize(a.floats.size());
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.floats[i] = roundNearest(fmt, fn(a.floats[i]));
  set(op->getResult(0), std::move(r));
  return success();
}

template <typename Fn>
LogicalResult Interpreter::mapFloat2(Operation *op, Fn fn) {
  const RtValue &a = get(op->getOperand(0));
  const RtValue &b = get(op->getOperand(1));
  const BinaryFormat &fmt =
      *getFormat(getElementTypeOrSelf(op->getResult(0).getType()));
  RtValue r;
  r.shape = a.shape;
  r.floats.resize(a.floats.size());
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.floats[i] = roundNearest(fmt, fn(a.floats[i], b.floats[i]));
  set(op->getResult(0), std::move(r));
  return success();
}

/// A float operand, an i1 result (math.isnan and friends).
template <typename Fn>
LogicalResult Interpreter::mapFloatPred(Operation *op, Fn fn) {
  const RtValue &a = get(op->getOperand(0));
  const BinaryFormat &fmt =
      *getFormat(getElementTypeOrSelf(op->getOperand(0).getType()));
  RtValue r;
  r.shape = a.shape;
  r.ints.resize(a.floats.size());
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.ints[i] = fn(a.floats[i], fmt) ? -1 : 0;
  set(op->getResult(0), std::move(r));
  return success();
}

template <typename Fn>
LogicalResult Interpreter::mapInt1(Operation *op, Fn fn) {
  const RtValue &a = get(op->getOperand(0));
  unsigned width = getIntWidth(getElementTypeOrSelf(op->getResult(0)));
  RtValue r;
  r.shape = a.shape;
  r.ints.resize(a.ints.size());
  for (size_t i = 0, e = a.ints.size(); i < e; ++i)
    r.ints[i] = sext(fn(a.ints[i], width), width);
  set(op->getResult(0), std::move(r));
  return success();
}

LogicalResult Interpreter::mapInt2(Operation *op, IntBinaryFn fn) {
  const RtValue &a = get(op->getOperand(0));
  const RtValue &b = get(op->getOperand(1));
  unsigned width = getIntWidth(getElementTypeOrSelf(op->getResult(0)));
  RtValue r;
  r.shape = a.shape;
  r.ints.resize(a.ints.size());
  for (size_t i = 0, e = a.ints.size(); i < e; ++i) {
    int64_t out = 0;
    if (const char *why = fn(a.ints[i], b.ints[i], width, out))
      return fail(op, Twine(why) + " (" + Twine(a.ints[i]) + ", " +
                          Twine(b.ints[i]) + ") at " +
                          formatLane(a.shape, static_cast<int64_t>(i)));
    r.ints[i] = sext(static_cast<uint64_t>(out), width);
  }
  set(op->getResult(0), std::move(r));
  return success();
}

static bool isSignedMin(int64_t a, unsigned width) {
  return a == sext(uint64_t(1) << (width - 1), width);
}

static const char *kDivByZero = "is undefined: division by zero";
static const char *kDivOverflow =
    "is undefined: signed division overflow (minimum value / -1)";
static const char *kShiftTooFar =
    "is undefined: shift amount not less than the bit width";

static const char *addI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  return nullptr;
}
static const char *subI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  return nullptr;
}
static const char *mulI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  return nullptr;
}
static const char *divSI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (b == 0)
    return kDivByZero;
  if (b == -1 && isSignedMin(a, w))
    return kDivOverflow;
  r = a / b;
  return nullptr;
}
static const char *divUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) == 0)
    return kDivByZero;
  r = static_cast<int64_t>(zext(a, w) / zext(b, w));
  return nullptr;
}
static const char *remSI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (b == 0)
    return kDivByZero;
  // LLVM's srem, which arith.remsi lowers to, is undefined where the
  // quotient overflows.
  if (b == -1 && isSignedMin(a, w))
    return kDivOverflow;
  r = (b == -1) ? 0 : a % b;
  return nullptr;
}
static const char *remUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) == 0)
    return kDivByZero;
  r = static_cast<int64_t>(zext(a, w) % zext(b, w));
  return nullptr;
}
static const char *ceilDivSI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (const char *why = divSI(a, b, w, r))
    return why;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++r;
  return nullptr;
}
static const char *ceilDivUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) == 0)
    return kDivByZero;
  uint64_t ua = zext(a, w), ub = zext(b, w);
  r = static_cast<int64_t>(ua / ub + (ua % ub != 0));
  return nullptr;
}
static const char *floorDivSI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (const char *why = divSI(a, b, w, r))
    return why;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --r;
  return nullptr;
}
static const char *andI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = a & b;
  return nullptr;
}
static const char *orI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = a | b;
  return nullptr;
}
static const char *xorI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = a ^ b;
  return nullptr;
}
static const char *shlI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) >= w)
    return kShiftTooFar;
  r = static_cast<int64_t>(static_cast<uint64_t>(a) << zext(b, w));
  return nullptr;
}
static const char *shrUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) >= w)
    return kShiftTooFar;
  r = static_cast<int64_t>(zext(a, w) >> zext(b, w));
  return nullptr;
}
static const char *shrSI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  if (zext(b, w) >= w)
    return kShiftTooFar;
  r = a >> zext(b, w);
  return nullptr;
}
static const char *maxSI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = std::max(a, b);
  return nullptr;
}
static const char *minSI(int64_t a, int64_t b, unsigned, int64_t &r) {
  r = std::min(a, b);
  return nullptr;
}
static const char *maxUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  r = zext(a, w) >= zext(b, w) ? a : b;
  return nullptr;
}
static const char *minUI(int64_t a, int64_t b, unsigned w, int64_t &r) {
  r = zext(a, w) <= zext(b, w) ? a : b;
  return nullptr;
}

/// Every arith cast and bitcast: one operand, one result, elementwise.
LogicalResult Interpreter::castOp(Operation *op) {
  const RtValue &a = get(op->getOperand(0));
  Type srcType = getElementTypeOrSelf(op->getOperand(0).getType());
  Type dstType = getElementTypeOrSelf(op->getResult(0).getType());
  const BinaryFormat *srcFmt = getFormat(srcType);
  const BinaryFormat *dstFmt = getFormat(dstType);
  unsigned srcWidth = srcFmt ? 0 : getIntWidth(srcType);
  unsigned dstWidth = dstFmt ? 0 : getIntWidth(dstType);
  size_t n = getNumElements(a.shape);
  RtValue r;
  r.shape = a.shape;
  if (dstFmt)
    r.floats.resize(n);
  else
    r.ints.resize(n);

  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    Rounding mode = getRounding(trunc.getRoundingmode());
    for (size_t i = 0; i < n; ++i)
      r.floats[i] = roundTo(*dstFmt, a.floats[i], mode);
  } else if (isa<arith::ExtFOp>(op)) {
    r.floats = a.floats; // every narrower format is exact in a wider one
  } else if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op)) {
    for (size_t i = 0; i < n; ++i)
      r.ints[i] = sext(static_cast<uint64_t>(a.ints[i]), dstWidth);
  } else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op)) {
    for (size_t i = 0; i < n; ++i)
      r.ints[i] = sext(zext(a.ints[i], srcWidth), dstWidth);
  } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    bool isSigned = isa<arith::SIToFPOp>(op);
    for (size_t i = 0; i < n; ++i) {
      uint64_t bits = isSigned ? static_cast<uint64_t>(a.ints[i])
                               : zext(a.ints[i], srcWidth);
      r.floats[i] = intToFloat(*dstFmt, bits, isSigned);
    }
  } else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    bool isSigned = isa<arith::FPToSIOp>(op);
    for (size_t i = 0; i < n; ++i)
      r.ints[i] = floatToInt(a.floats[i], dstWidth, isSigned);
  } else if (isa<arith::BitcastOp>(op)) {
    for (size_t i = 0; i < n; ++i) {
      uint64_t bits =
          srcFmt ? encodeBits(*srcFmt, a.floats[i]) : zext(a.ints[i], srcWidth);
      if (dstFmt)
        r.floats[i] = decodeBits(*dstFmt, bits);
      else
        r.ints[i] = sext(bits, dstWidth);
    }
  } else {
    return fail(op, "is not a supported cast");
  }
  set(op->getResult(0), std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// arith and math ops with their own shape of semantics
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execConstant(arith::ConstantOp op) {
  Type type = op.getType();
  Type elemType = getElementTypeOrSelf(type);
  bool isFloat = isa<FloatType>(elemType);
  RtValue r;
  r.shape = getShape(type);
  size_t n = getNumElements(r.shape);
  Attribute attr = op.getValue();
  auto fill = [&](Attribute scalar) {
    if (auto f = dyn_cast<FloatAttr>(scalar))
      r.floats.assign(n, f.getValueAsDouble());
    else
      r.ints.assign(n, cast<IntegerAttr>(scalar).getValue().getSExtValue());
  };
  if (isa<IntegerAttr, FloatAttr>(attr)) {
    fill(attr);
  } else if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    if (isFloat) {
      r.floats.reserve(n);
      for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
        r.floats.push_back(apFloatToDouble(v));
    } else {
      r.ints.reserve(n);
      for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
        r.ints.push_back(v.getSExtValue());
    }
  } else {
    return fail(op, "has an unsupported value attribute (only integer, float "
                    "and dense int/float elements)");
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execCmpI(arith::CmpIOp op) {
  const RtValue &a = get(op.getLhs());
  const RtValue &b = get(op.getRhs());
  unsigned width = getIntWidth(getElementTypeOrSelf(op.getLhs().getType()));
  RtValue r;
  r.shape = a.shape;
  r.ints.resize(a.ints.size());
  for (size_t i = 0, e = a.ints.size(); i < e; ++i)
    r.ints[i] =
        compareInt(op.getPredicate(), a.ints[i], b.ints[i], width) ? -1 : 0;
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execCmpF(arith::CmpFOp op) {
  const RtValue &a = get(op.getLhs());
  const RtValue &b = get(op.getRhs());
  RtValue r;
  r.shape = a.shape;
  r.ints.resize(a.floats.size());
  for (size_t i = 0, e = a.floats.size(); i < e; ++i)
    r.ints[i] =
        compareFloat(op.getPredicate(), a.floats[i], b.floats[i]) ? -1 : 0;
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execSelect(arith::SelectOp op) {
  const RtValue &cond = get(op.getCondition());
  const RtValue &t = get(op.getTrueValue());
  const RtValue &f = get(op.getFalseValue());
  RtValue r;
  r.shape = t.shape;
  size_t n = getNumElements(t.shape);
  // A scalar condition selects whole tensors.
  bool scalarCond = cond.shape.empty();
  if (isFloatElement(op.getResult())) {
    r.floats.resize(n);
    for (size_t i = 0; i < n; ++i)
      r.floats[i] = cond.ints[scalarCond ? 0 : i] ? t.floats[i] : f.floats[i];
  } else {
    r.ints.resize(n);
    for (size_t i = 0; i < n; ++i)
      r.ints[i] = cond.ints[scalarCond ? 0 : i] ? t.ints[i] : f.ints[i];
  }
  set(op.getResult(), std::move(r));
  return success();
}

/// math.fma is rounded once, in the result type: APFloat does that exactly
/// where a double fma followed by a second rounding might not.
LogicalResult Interpreter::execFma(math::FmaOp op) {
  const RtValue &a = get(op.getA());
  const RtValue &b = get(op.getB());
  const RtValue &c = get(op.getC());
  const BinaryFormat &fmt = *getFormat(getElementTypeOrSelf(op.getType()));
  RtValue r;
  r.shape = a.shape;
  r.floats.resize(a.floats.size());
  for (size_t i = 0, e = a.floats.size(); i < e; ++i) {
    if (&fmt == &kDouble) {
      r.floats[i] = std::fma(a.floats[i], b.floats[i], c.floats[i]);
      continue;
    }
    bool lost;
    auto toAP = [&](double v) {
      llvm::APFloat x(v);
      x.convert(getSemantics(fmt), llvm::APFloat::rmNearestTiesToEven, &lost);
      return x;
    };
    llvm::APFloat x = toAP(a.floats[i]);
    x.fusedMultiplyAdd(toAP(b.floats[i]), toAP(c.floats[i]),
                       llvm::APFloat::rmNearestTiesToEven);
    r.floats[i] = apFloatToDouble(x);
  }
  set(op.getResult(), std::move(r));
  return success();
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execBlock(Block &block,
                                     SmallVectorImpl<RtValue> &args,
                                     SmallVectorImpl<RtValue> &results) {
  for (auto [arg, value] : llvm::zip_equal(block.getArguments(), args))
    set(arg, std::move(value));
  for (Operation &op : block.without_terminator())
    if (failed(exec(&op)))
      return failure();
  Operation *terminator = block.getTerminator();
  if (!isa<scf::YieldOp, scf::ConditionOp, func::ReturnOp>(terminator))
    return fail(terminator, "is not a supported terminator");
  results.clear();
  for (Value v : terminator->getOperands())
    results.push_back(get(v));
  return success();
}

LogicalResult Interpreter::execFor(scf::ForOp op) {
  unsigned width = getIntWidth(op.getInductionVar().getType());
  bool isUnsigned = op.getUnsignedCmp();
  auto read = [&](Value v) -> __int128 {
    int64_t x = get(v).ints[0];
    return isUnsigned ? static_cast<__int128>(zext(x, width))
                      : static_cast<__int128>(x);
  };
  // 128-bit bounds: `iv + step` cannot wrap, so the loop ends.
  __int128 lb = read(op.getLowerBound()), ub = read(op.getUpperBound()),
           step = read(op.getStep());
  if (step <= 0)
    return fail(op, "step must be positive, got " +
                        Twine(get(op.getStep()).ints[0]));
  SmallVector<RtValue> iter;
  for (Value init : op.getInitArgs())
    iter.push_back(get(init));
  SmallVector<RtValue> args, yielded;
  for (__int128 iv = lb; iv < ub; iv += step) {
    args.clear();
    RtValue ivValue;
    ivValue.ints.push_back(sext(static_cast<uint64_t>(iv), width));
    args.push_back(std::move(ivValue));
    for (RtValue &v : iter)
      args.push_back(std::move(v));
    if (failed(execBlock(*op.getBody(), args, yielded)))
      return failure();
    iter.swap(yielded);
  }
  for (auto [result, value] : llvm::zip_equal(op.getResults(), iter))
    set(result, std::move(value));
  return success();
}

LogicalResult Interpreter::execIf(scf::IfOp op) {
  bool cond = get(op.getCondition()).ints[0] != 0;
  Region &region = cond ? op.getThenRegion() : op.getElseRegion();
  if (region.empty())
    return success(); // no else branch, hence no results
  SmallVector<RtValue> args, results;
  if (failed(execBlock(region.front(), args, results)))
    return failure();
  for (auto [result, value] : llvm::zip_equal(op.getResults(), results))
    set(result, std::move(value));
  return success();
}

LogicalResult Interpreter::execWhile(scf::WhileOp op) {
  SmallVector<RtValue> args, results;
  for (Value init : op.getInits())
    args.push_back(get(init));
  while (true) {
    if (failed(execBlock(op.getBefore().front(), args, results)))
      return failure();
    bool cond = results.front().ints[0] != 0;
    args.assign(std::make_move_iterator(results.begin() + 1),
                std::make_move_iterator(results.end()));
    if (!cond)
      break;
    if (failed(execBlock(op.getAfter().front(), args, results)))
      return failure();
    args.swap(results);
  }
  for (auto [result, value] : llvm::zip_equal(op.getResults(), args))
    set(result, std::move(value));
  return success();
}

//===----------------------------------------------------------------------===//
// tile ops
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execRange(tile::RangeOp op) {
  // Read the attributes signed: the generated getters zero-extend.
  int64_t start = op.getStartAttr().getInt(), end = op.getEndAttr().getInt();
  RtValue r;
  r.shape = getShape(op.getType());
  for (int64_t v = start; v < end; ++v)
    r.ints.push_back(v);
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execSplat(tile::SplatOp op) {
  const RtValue &src = get(op.getSrc());
  RtValue r;
  r.shape = getShape(op.getType());
  size_t n = getNumElements(r.shape);
  if (isFloatElement(op.getResult()))
    r.floats.assign(n, src.floats[0]);
  else
    r.ints.assign(n, src.ints[0]);
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execBroadcast(tile::BroadcastOp op) {
  const RtValue &src = get(op.getSrc());
  RtValue r;
  r.shape = getShape(op.getType());
  SmallVector<int64_t, 4> strides = getStrides(src.shape);
  for (size_t d = 0; d < src.shape.size(); ++d)
    if (src.shape[d] == 1)
      strides[d] = 0;
  if (isFloatElement(op.getResult()))
    gather(src.floats, r.floats, r.shape, strides);
  else
    gather(src.ints, r.ints, r.shape, strides);
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execTrans(tile::TransOp op) {
  const RtValue &src = get(op.getSrc());
  SmallVector<int32_t> perm = op.getPermutation();
  SmallVector<int64_t, 4> srcStrides = getStrides(src.shape);
  // Result dimension i walks source dimension perm[i].
  SmallVector<int64_t, 4> strides;
  RtValue r;
  for (int32_t p : perm) {
    strides.push_back(srcStrides[p]);
    r.shape.push_back(src.shape[p]);
  }
  if (isFloatElement(op.getResult()))
    gather(src.floats, r.floats, r.shape, strides);
  else
    gather(src.ints, r.ints, r.shape, strides);
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execAddPtr(tile::AddPtrOp op) {
  const RtValue &ptr = get(op.getPtr());
  const RtValue &offset = get(op.getOffset());
  auto ptrType =
      cast<tile::PointerType>(getElementTypeOrSelf(op.getPtr().getType()));
  uint64_t bytes = getInterpElementBytes(ptrType.getPointeeType());
  RtValue r;
  r.shape = ptr.shape;
  r.ints.resize(ptr.ints.size());
  for (size_t i = 0, e = ptr.ints.size(); i < e; ++i)
    r.ints[i] =
        static_cast<int64_t>(static_cast<uint64_t>(ptr.ints[i]) +
                             static_cast<uint64_t>(offset.ints[i]) * bytes);
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execLoad(tile::LoadOp op) {
  const RtValue &ptr = get(op.getPtr());
  const RtValue *mask = op.getMask() ? &get(op.getMask()) : nullptr;
  const RtValue *other = op.getOther() ? &get(op.getOther()) : nullptr;
  Type elemType = getElementTypeOrSelf(op.getType());
  unsigned bytes = getInterpElementBytes(elemType);
  bool isFloat = isa<FloatType>(elemType);
  size_t n = ptr.ints.size();
  // Check every lane before reading any: an invalid access is not executed.
  SmallVector<const char *> hosts(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    if (mask && !mask->ints[i])
      continue;
    hosts[i] = access(op, static_cast<uint64_t>(ptr.ints[i]), bytes,
                      /*write=*/false, formatLane(ptr.shape, i));
    if (!hosts[i])
      return failure();
  }
  RtValue r;
  r.shape = ptr.shape;
  if (isFloat)
    r.floats.resize(n);
  else
    r.ints.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (hosts[i]) {
      if (isFloat)
        r.floats[i] = readFloatElement(elemType, hosts[i]);
      else
        r.ints[i] = readIntElement(elemType, hosts[i]);
    } else if (isFloat) {
      r.floats[i] =
          other ? other->floats[i] : std::numeric_limits<double>::quiet_NaN();
    } else {
      r.ints[i] = other ? other->ints[i] : 0;
    }
  }
  set(op.getResult(), std::move(r));
  return success();
}

/// The host address of each lane `mask` lets write (null for the others),
/// every one checked before any is written: an invalid access is not
/// executed.
LogicalResult Interpreter::writableLanes(Operation *op, const RtValue &ptr,
                                         const RtValue *mask, unsigned bytes,
                                         SmallVectorImpl<char *> &hosts) {
  size_t n = ptr.ints.size();
  hosts.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    if (mask && !mask->ints[i])
      continue;
    hosts[i] = access(op, static_cast<uint64_t>(ptr.ints[i]), bytes,
                      /*write=*/true, formatLane(ptr.shape, i));
    if (!hosts[i])
      return failure();
  }
  return success();
}

LogicalResult Interpreter::execStore(tile::StoreOp op) {
  const RtValue &ptr = get(op.getPtr());
  const RtValue &value = get(op.getValue());
  const RtValue *mask = op.getMask() ? &get(op.getMask()) : nullptr;
  Type elemType = getElementTypeOrSelf(op.getValue().getType());
  unsigned bytes = getInterpElementBytes(elemType);
  bool isFloat = isa<FloatType>(elemType);
  size_t n = ptr.ints.size();
  SmallVector<char *> hosts;
  if (failed(writableLanes(op, ptr, mask, bytes, hosts)))
    return failure();
  // Lanes that hit the same address: the last one wins.
  for (size_t i = 0; i < n; ++i) {
    if (!hosts[i])
      continue;
    if (isFloat)
      writeFloatElement(elemType, value.floats[i], hosts[i]);
    else
      writeIntElement(elemType, value.ints[i], hosts[i]);
  }
  return success();
}

// Atomics: one program runs at a time, so each element's read-modify-write
// is a read and a write, in lane order (lanes that hit one address see each
// other's updates, as the GPU serializes them in some order).
LogicalResult Interpreter::execAtomicRMW(tile::AtomicRMWOp op) {
  const RtValue &ptr = get(op.getPtr());
  const RtValue &val = get(op.getVal());
  const RtValue *mask = op.getMask() ? &get(op.getMask()) : nullptr;
  Type elemType = getElementTypeOrSelf(op.getVal().getType());
  unsigned bytes = getInterpElementBytes(elemType);
  bool isFloat = isa<FloatType>(elemType);
  size_t n = ptr.ints.size();
  SmallVector<char *> hosts;
  if (failed(writableLanes(op, ptr, mask, bytes, hosts)))
    return failure();
  RtValue r;
  r.shape = ptr.shape;
  if (isFloat)
    r.floats.assign(n, std::numeric_limits<double>::quiet_NaN());
  else
    r.ints.assign(n, 0);
  unsigned width = isFloat ? 0 : getIntWidth(elemType);
  tile::AtomicKind kind = op.getKind();
  for (size_t i = 0; i < n; ++i) {
    if (!hosts[i])
      continue;
    if (isFloat) {
      double old = readFloatElement(elemType, hosts[i]), v = val.floats[i];
      double next = kind == tile::AtomicKind::Add   ? old + v
                    : kind == tile::AtomicKind::Max ? (v > old ? v : old)
                    : kind == tile::AtomicKind::Min ? (v < old ? v : old)
                                                    : v; // xchg
      writeFloatElement(elemType, next, hosts[i]);
      r.floats[i] = old;
      continue;
    }
    int64_t old = readIntElement(elemType, hosts[i]), v = val.ints[i];
    uint64_t uo = zext(old, width), uv = zext(v, width);
    int64_t next = v;
    switch (kind) {
    case tile::AtomicKind::Add:
      next = static_cast<int64_t>(uo + uv);
      break;
    case tile::AtomicKind::Max:
      next = std::max(old, v);
      break;
    case tile::AtomicKind::Min:
      next = std::min(old, v);
      break;
    case tile::AtomicKind::UMax:
      next = uo > uv ? old : v;
      break;
    case tile::AtomicKind::UMin:
      next = uo < uv ? old : v;
      break;
    case tile::AtomicKind::And:
      next = old & v;
      break;
    case tile::AtomicKind::Or:
      next = old | v;
      break;
    case tile::AtomicKind::Xor:
      next = old ^ v;
      break;
    case tile::AtomicKind::Xchg:
      next = v;
      break;
    }
    writeIntElement(elemType, next, hosts[i]);
    r.ints[i] = old;
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execAtomicCAS(tile::AtomicCASOp op) {
  const RtValue &ptr = get(op.getPtr());
  const RtValue &cmp = get(op.getCmp());
  const RtValue &val = get(op.getVal());
  Type elemType = getElementTypeOrSelf(op.getVal().getType());
  unsigned bytes = getInterpElementBytes(elemType);
  bool isFloat = isa<FloatType>(elemType);
  size_t n = ptr.ints.size();
  SmallVector<char *> hosts;
  if (failed(writableLanes(op, ptr, nullptr, bytes, hosts)))
    return failure();
  RtValue r;
  r.shape = ptr.shape;
  if (isFloat)
    r.floats.resize(n);
  else
    r.ints.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // The comparison is of the bits, as the GPU's atom.cas compares them.
    char expected[8] = {};
    if (isFloat) {
      r.floats[i] = readFloatElement(elemType, hosts[i]);
      writeFloatElement(elemType, cmp.floats[i], expected);
    } else {
      r.ints[i] = readIntElement(elemType, hosts[i]);
      writeIntElement(elemType, cmp.ints[i], expected);
    }
    if (std::memcmp(expected, hosts[i], bytes) != 0)
      continue;
    if (isFloat)
      writeFloatElement(elemType, val.floats[i], hosts[i]);
    else
      writeIntElement(elemType, val.ints[i], hosts[i]);
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execDot(tile::DotOp op) {
  const RtValue &a = get(op.getA());
  const RtValue &b = get(op.getB());
  const RtValue &c = get(op.getC());
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  RtValue r;
  r.shape = c.shape;
  r.floats.resize(m * n);
  // f32 accumulation in k order. A product of two f16 or bf16 values is
  // exact in float; a product of two f32 values is rounded to float.
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = static_cast<float>(c.floats[i * n + j]);
      for (int64_t p = 0; p < k; ++p) {
        float prod =
            static_cast<float>(a.floats[i * k + p] * b.floats[p * n + j]);
        acc = acc + prod;
      }
      r.floats[i * n + j] = acc;
    }
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execReduce(tile::ReduceOp op) {
  const RtValue &src = get(op.getSrc());
  int64_t axis = op.getAxisAttr().getInt();
  Type elemType = getElementTypeOrSelf(op.getSrc().getType());
  const BinaryFormat *fmt = getFormat(elemType);
  unsigned width = fmt ? 0 : getIntWidth(elemType);
  int64_t outer = getNumElements(ArrayRef<int64_t>(src.shape).take_front(axis));
  int64_t len = src.shape[axis];
  int64_t inner =
      getNumElements(ArrayRef<int64_t>(src.shape).drop_front(axis + 1));
  tile::ReduceKind kind = op.getKind();
  RtValue r;
  r.shape = getShape(op.getType());
  if (fmt)
    r.floats.resize(outer * inner);
  else
    r.ints.resize(outer * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * len * inner + in;
      if (fmt) {
        double acc = src.floats[base];
        for (int64_t k = 1; k < len; ++k) {
          double x = src.floats[base + k * inner];
          switch (kind) {
          case tile::ReduceKind::Sum:
            acc = roundNearest(*fmt, acc + x);
            break;
          case tile::ReduceKind::Max:
            acc = maximumF(acc, x);
            break;
          case tile::ReduceKind::Min:
            acc = minimumF(acc, x);
            break;
          case tile::ReduceKind::Xor: // integers only (the verifier)
            break;
          }
        }
        r.floats[o * inner + in] = acc;
      } else {
        int64_t acc = src.ints[base];
        for (int64_t k = 1; k < len; ++k) {
          int64_t x = src.ints[base + k * inner];
          switch (kind) {
          case tile::ReduceKind::Sum:
            acc = sext(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x),
                       width);
            break;
          case tile::ReduceKind::Max: // signless integers compare signed
            acc = std::max(acc, x);
            break;
          case tile::ReduceKind::Min:
            acc = std::min(acc, x);
            break;
          case tile::ReduceKind::Xor: // sign-extended operands stay so
            acc ^= x;
            break;
          }
        }
        r.ints[o * inner + in] = acc;
      }
    }
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execPagedLoad(tile::PagedLoadOp op) {
  uint64_t cache = static_cast<uint64_t>(get(op.getCache()).ints[0]);
  uint64_t table = static_cast<uint64_t>(get(op.getBlockTable()).ints[0]);
  int64_t first = get(op.getFirstToken()).ints[0];
  int64_t head = get(op.getHead()).ints[0];
  int64_t pageStride = get(op.getPageStride()).ints[0];
  int64_t tokenStride = get(op.getTokenStride()).ints[0];
  int64_t headStride = get(op.getHeadStride()).ints[0];
  int64_t seqLen = get(op.getSeqLen()).ints[0];
  std::optional<int64_t> numBlocks;
  if (op.getNumBlocks())
    numBlocks = get(op.getNumBlocks()).ints[0];
  // Signed: the generated getPageSize() zero-extends.
  int64_t pageSize = op.getPageSizeAttr().getInt();
  if (pageSize <= 0)
    return fail(op, "page_size must be positive, got " + Twine(pageSize));
  Type elemType = op.getType().getElementType();
  unsigned bytes = getInterpElementBytes(elemType);
  bool isFloat = isa<FloatType>(elemType);
  int64_t rows = op.getBlockN(), cols = op.getHeadDim();
  // Columns past `cols` read zero and are not accessed.
  int64_t validCols = op.getValidCols();
  if (validCols <= 0 || validCols > cols)
    return fail(op, "cols must be in [1, " + Twine(cols) + "], got " +
                        Twine(validCols));

  // A negative token below seq_len has no defined page: truncating and
  // flooring division (a shift) disagree.
  if (first < 0 && first < seqLen)
    return fail(op, "row 0 (token " + Twine(first) +
                        ") is negative but below seq_len " + Twine(seqLen) +
                        "; the page of a negative token is undefined");

  // Block-table entries, once per page, for exactly the pages the op may
  // read: those the tile touches that hold a token below seq_len (which may
  // lie before first_token). A lowering is allowed to read all of them, so
  // the oracle checks all of them.
  int64_t lastToken = first + rows - 1; // i32 + small: no overflow
  int64_t firstPage = std::max<int64_t>(first, 0) / pageSize;
  SmallVector<int32_t> entries;
  for (int64_t page = firstPage; lastToken >= 0 && page <= lastToken / pageSize;
       ++page) {
    if (page * pageSize >= seqLen)
      break; // this page and the ones after it hold no valid token
    const char *host =
        access(op, table + static_cast<uint64_t>(page) * 4, 4,
               /*write=*/false,
               "block-table entry " + Twine(page) + " (page " + Twine(page) +
                   " holds tokens below seq_len " + Twine(seqLen) + ")");
    if (!host)
      return failure();
    int32_t entry;
    std::memcpy(&entry, host, 4);
    entries.push_back(entry);
  }

  RtValue r;
  r.shape = {rows, cols};
  if (isFloat)
    r.floats.assign(rows * cols, 0.0);
  else
    r.ints.assign(rows * cols, 0);
  // Rows are checked and read one at a time: reading has no side effects,
  // and the op produces no result once a row fails its checks.
  for (int64_t row = 0; row < rows; ++row) {
    int64_t token = first + row;
    if (token >= seqLen)
      continue; // reads zero and touches no cache memory
    std::string what =
        ("row " + Twine(row) + " (token " + Twine(token) + ")").str();
    int32_t entry = entries[token / pageSize - firstPage];
    // Rows go up in token order, so the first bad row is the first row of
    // the tile in the first bad page: what checked GPU code reports too.
    if (numBlocks && (entry < 0 || entry >= *numBlocks))
      return fail(op, "block table entry " + Twine(entry) +
                          " out of range [0, " + Twine(*numBlocks) +
                          ") at page " + Twine(token / pageSize) + " (token " +
                          Twine(token) + ")");
    // 64-bit offsets, wrapping like the hardware would.
    uint64_t offset = static_cast<uint64_t>(entry) * pageStride +
                      static_cast<uint64_t>(token % pageSize) * tokenStride +
                      static_cast<uint64_t>(head) * headStride;
    uint64_t rowAddr = cache + offset * bytes;
    // The row's columns are contiguous: checking both ends checks them all
    // (a buffer is one contiguous window).
    const char *lo = access(op, rowAddr, bytes, /*write=*/false,
                            what + " (block " + Twine(entry) + ") column 0");
    if (!lo)
      return failure();
    uint64_t lastAddr = rowAddr + static_cast<uint64_t>(validCols - 1) * bytes;
    if (!access(op, lastAddr, bytes, /*write=*/false,
                what + " (block " + Twine(entry) + ") column " +
                    Twine(validCols - 1)))
      return failure();
    if ((lastAddr >> kInterpBufferAddressShift) !=
        (rowAddr >> kInterpBufferAddressShift))
      return fail(op, what + " spans two buffers");
    for (int64_t c = 0; c < validCols; ++c) {
      const char *src = lo + c * bytes;
      if (isFloat)
        r.floats[row * cols + c] = readFloatElement(elemType, src);
      else
        r.ints[row * cols + c] = readIntElement(elemType, src);
    }
  }
  set(op.getResult(), std::move(r));
  return success();
}

LogicalResult Interpreter::execAssert(tile::AssertOp op) {
  const RtValue &cond = get(op.getCond());
  for (size_t i = 0, e = cond.ints.size(); i < e; ++i) {
    if (cond.ints[i])
      continue;
    // The verifier allows only %d (one per argument) and %%.
    std::string text;
    StringRef message = op.getMessage();
    unsigned next = 0;
    for (size_t c = 0; c < message.size(); ++c) {
      if (message[c] != '%') {
        text += message[c];
        continue;
      }
      if (message[++c] == '%') {
        text += '%';
        continue;
      }
      const RtValue &arg = get(op.getArgs()[next++]);
      text += std::to_string(arg.ints[arg.ints.size() == 1 ? 0 : i]);
    }
    return fail(op, "assertion failed: " + text);
  }
  return success();
}

/// One element of `v` as tile.print writes it (the GPU lowering's printf
/// formats: %lld, 0x%llx of the element's bits, %f).
static std::string printElement(const RtValue &v, size_t i, Type elt,
                                bool hex) {
  char buf[64];
  if (isa<FloatType>(elt)) {
    std::snprintf(buf, sizeof(buf), "%f", v.floats[i]);
  } else if (hex) {
    unsigned bits = elt.getIntOrFloatBitWidth();
    uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    std::snprintf(buf, sizeof(buf), "0x%llx",
                  static_cast<unsigned long long>(v.ints[i] & mask));
  } else {
    std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v.ints[i]));
  }
  return buf;
}

LogicalResult Interpreter::execPrint(tile::PrintOp op) {
  std::string program = "pid (" + std::to_string(pid[0]) + ", " +
                        std::to_string(pid[1]) + ", " + std::to_string(pid[2]) +
                        ") ";
  std::string out;
  if (op.getArgs().empty())
    out = program + op.getPrefix().str() + "\n";
  for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
    const RtValue &v = get(arg);
    Type elt = getElementTypeOrSelf(arg.getType());
    std::string label = op.getPrefix().str();
    if (op.getArgs().size() > 1)
      label += " (operand " + std::to_string(k) + ")";
    size_t n = isa<FloatType>(elt) ? v.floats.size() : v.ints.size();
    for (size_t i = 0; i < n; ++i) {
      std::string idx;
      if (!v.shape.empty()) {
        SmallVector<int64_t, 4> c = rowMajorCoord(v.shape, int64_t(i));
        idx = "idx (";
        for (size_t d = 0; d < c.size(); ++d)
          idx += (d ? ", " : "") + std::to_string(c[d]);
        idx += ") ";
      }
      out += program + idx + label + ": " +
             printElement(v, i, elt, op.getHex()) + "\n";
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  return success();
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::exec(Operation *op) {
  using llvm::TypeSwitch;
  return TypeSwitch<Operation *, LogicalResult>(op)
      // tile
      .Case([&](tile::ProgramIdOp o) {
        RtValue r;
        r.ints.push_back(pid[static_cast<int>(o.getAxis())]);
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case([&](tile::NumProgramsOp o) {
        RtValue r;
        r.ints.push_back(grid[static_cast<int>(o.getAxis())]);
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case([&](tile::RangeOp o) { return execRange(o); })
      .Case([&](tile::SplatOp o) { return execSplat(o); })
      .Case([&](tile::BroadcastOp o) { return execBroadcast(o); })
      .Case([&](tile::ExpandDimsOp o) {
        RtValue r = get(o.getSrc());
        r.shape = getShape(o.getType());
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case([&](tile::TransOp o) { return execTrans(o); })
      .Case([&](tile::ConvertLayoutOp o) {
        RtValue r = get(o.getSrc()); // layouts do not change values
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case<tile::TensorMapBlockOp, tile::TensorMapPagesOp>([&](auto o) {
        RtValue r = get(o.getPtrs()); // an identity on the pointers
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case([&](tile::AddPtrOp o) { return execAddPtr(o); })
      .Case([&](tile::LoadOp o) { return execLoad(o); })
      .Case([&](tile::StoreOp o) { return execStore(o); })
      .Case([&](tile::AtomicRMWOp o) { return execAtomicRMW(o); })
      .Case([&](tile::AtomicCASOp o) { return execAtomicCAS(o); })
      .Case([&](tile::DotOp o) { return execDot(o); })
      .Case([&](tile::ReduceOp o) { return execReduce(o); })
      // One thread runs the program, so its warp holds every element.
      .Case([&](tile::WarpAnyOp o) {
        const RtValue &m = get(o.getMask());
        RtValue r;
        r.ints.push_back(llvm::any_of(m.ints, [](int64_t x) { return x; }) ? -1
                                                                           : 0);
        set(o.getResult(), std::move(r));
        return success();
      })
      .Case([&](tile::PagedLoadOp o) { return execPagedLoad(o); })
      .Case([&](tile::AssertOp o) { return execAssert(o); })
      .Case([&](tile::PrintOp o) { return execPrint(o); })
      // A program runs as one unit: its threads are always in step.
      .Case([&](tile::BarrierOp) { return success(); })
      .Case([&](tile::SetMaxRegistersOp) { return success(); })
      // scf
      .Case([&](scf::ForOp o) { return execFor(o); })
      .Case([&](scf::IfOp o) { return execIf(o); })
      .Case([&](scf::WhileOp o) { return execWhile(o); })
      // arith: constants, comparisons, select, casts
      .Case([&](arith::ConstantOp o) { return execConstant(o); })
      .Case([&](arith::CmpIOp o) { return execCmpI(o); })
      .Case([&](arith::CmpFOp o) { return execCmpF(o); })
      .Case([&](arith::SelectOp o) { return execSelect(o); })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
            arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp,
            arith::FPToUIOp, arith::IndexCastOp, arith::IndexCastUIOp,
            arith::BitcastOp>([&](Operation *o) { return castOp(o); })
      // arith: integer
      .Case([&](arith::AddIOp o) { return mapInt2(o, addI); })
      .Case([&](arith::SubIOp o) { return mapInt2(o, subI); })
      .Case([&](arith::MulIOp o) { return mapInt2(o, mulI); })
      .Case([&](arith::DivSIOp o) { return mapInt2(o, divSI); })
      .Case([&](arith::DivUIOp o) { return mapInt2(o, divUI); })
      .Case([&](arith::RemSIOp o) { return mapInt2(o, remSI); })
      .Case([&](arith::RemUIOp o) { return mapInt2(o, remUI); })
      .Case([&](arith::CeilDivSIOp o) { return mapInt2(o, ceilDivSI); })
      .Case([&](arith::CeilDivUIOp o) { return mapInt2(o, ceilDivUI); })
      .Case([&](arith::FloorDivSIOp o) { return mapInt2(o, floorDivSI); })
      .Case([&](arith::AndIOp o) { return mapInt2(o, andI); })
      .Case([&](arith::OrIOp o) { return mapInt2(o, orI); })
      .Case([&](arith::XOrIOp o) { return mapInt2(o, xorI); })
      .Case([&](arith::ShLIOp o) { return mapInt2(o, shlI); })
      .Case([&](arith::ShRUIOp o) { return mapInt2(o, shrUI); })
      .Case([&](arith::ShRSIOp o) { return mapInt2(o, shrSI); })
      .Case([&](arith::MaxSIOp o) { return mapInt2(o, maxSI); })
      .Case([&](arith::MinSIOp o) { return mapInt2(o, minSI); })
      .Case([&](arith::MaxUIOp o) { return mapInt2(o, maxUI); })
      .Case([&](arith::MinUIOp o) { return mapInt2(o, minUI); })
      // arith: float
      .Case([&](arith::AddFOp o) {
        return mapFloat2(o, [](double a, double b) { return a + b; });
      })
      .Case([&](arith::SubFOp o) {
        return mapFloat2(o, [](double a, double b) { return a - b; });
      })
      .Case([&](arith::MulFOp o) {
        return mapFloat2(o, [](double a, double b) { return a * b; });
      })
      .Case([&](arith::DivFOp o) {
        return mapFloat2(o, [](double a, double b) { return a / b; });
      })
      .Case([&](arith::RemFOp o) {
        return mapFloat2(o, [](double a, double b) { return std::fmod(a, b); });
      })
      .Case([&](arith::NegFOp o) {
        return mapFloat1(o, [](double a) { return -a; });
      })
      .Case([&](arith::MaximumFOp o) { return mapFloat2(o, maximumF); })
      .Case([&](arith::MinimumFOp o) { return mapFloat2(o, minimumF); })
      .Case([&](arith::MaxNumFOp o) { return mapFloat2(o, maxNumF); })
      .Case([&](arith::MinNumFOp o) { return mapFloat2(o, minNumF); })
      // math: float
      .Case([&](math::ExpOp o) {
        return mapFloat1(o, [](double a) { return std::exp(a); });
      })
      .Case([&](math::Exp2Op o) {
        return mapFloat1(o, [](double a) { return std::exp2(a); });
      })
      .Case([&](math::ExpM1Op o) {
        return mapFloat1(o, [](double a) { return std::expm1(a); });
      })
      .Case([&](math::LogOp o) {
        return mapFloat1(o, [](double a) { return std::log(a); });
      })
      .Case([&](math::Log2Op o) {
        return mapFloat1(o, [](double a) { return std::log2(a); });
      })
      .Case([&](math::Log10Op o) {
        return mapFloat1(o, [](double a) { return std::log10(a); });
      })
      .Case([&](math::Log1pOp o) {
        return mapFloat1(o, [](double a) { return std::log1p(a); });
      })
      .Case([&](math::SqrtOp o) {
        return mapFloat1(o, [](double a) { return std::sqrt(a); });
      })
      .Case([&](math::RsqrtOp o) {
        return mapFloat1(o, [](double a) { return 1.0 / std::sqrt(a); });
      })
      .Case([&](math::CbrtOp o) {
        return mapFloat1(o, [](double a) { return std::cbrt(a); });
      })
      .Case([&](math::TanhOp o) {
        return mapFloat1(o, [](double a) { return std::tanh(a); });
      })
      .Case([&](math::SinOp o) {
        return mapFloat1(o, [](double a) { return std::sin(a); });
      })
      .Case([&](math::CosOp o) {
        return mapFloat1(o, [](double a) { return std::cos(a); });
      })
      .Case([&](math::TanOp o) {
        return mapFloat1(o, [](double a) { return std::tan(a); });
      })
      .Case([&](math::AsinOp o) {
        return mapFloat1(o, [](double a) { return std::asin(a); });
      })
      .Case([&](math::AcosOp o) {
        return mapFloat1(o, [](double a) { return std::acos(a); });
      })
      .Case([&](math::AtanOp o) {
        return mapFloat1(o, [](double a) { return std::atan(a); });
      })
      .Case([&](math::SinhOp o) {
        return mapFloat1(o, [](double a) { return std::sinh(a); });
      })
      .Case([&](math::CoshOp o) {
        return mapFloat1(o, [](double a) { return std::cosh(a); });
      })
      .Case([&](math::AsinhOp o) {
        return mapFloat1(o, [](double a) { return std::asinh(a); });
      })
      .Case([&](math::AcoshOp o) {
        return mapFloat1(o, [](double a) { return std::acosh(a); });
      })
      .Case([&](math::AtanhOp o) {
        return mapFloat1(o, [](double a) { return std::atanh(a); });
      })
      .Case([&](math::ErfOp o) {
        return mapFloat1(o, [](double a) { return std::erf(a); });
      })
      .Case([&](math::ErfcOp o) {
        return mapFloat1(o, [](double a) { return std::erfc(a); });
      })
      .Case([&](math::AbsFOp o) {
        return mapFloat1(o, [](double a) { return std::fabs(a); });
      })
      .Case([&](math::CeilOp o) {
        return mapFloat1(o, [](double a) { return std::ceil(a); });
      })
      .Case([&](math::FloorOp o) {
        return mapFloat1(o, [](double a) { return std::floor(a); });
      })
      .Case([&](math::TruncOp o) {
        return mapFloat1(o, [](double a) { return std::trunc(a); });
      })
      .Case([&](math::RoundOp o) {
        return mapFloat1(o, [](double a) { return std::round(a); });
      })
      .Case([&](math::RoundEvenOp o) { return mapFloat1(o, roundEven); })
      .Case([&](math::Atan2Op o) {
        return mapFloat2(o,
                         [](double a, double b) { return std::atan2(a, b); });
      })
      .Case([&](math::PowFOp o) {
        return mapFloat2(o, [](double a, double b) { return std::pow(a, b); });
      })
      .Case([&](math::CopySignOp o) {
        return mapFloat2(
            o, [](double a, double b) { return std::copysign(a, b); });
      })
      .Case([&](math::FmaOp o) { return execFma(o); })
      .Case([&](math::IsNaNOp o) {
        return mapFloatPred(
            o, [](double a, const BinaryFormat &) { return std::isnan(a); });
      })
      .Case([&](math::IsInfOp o) {
        return mapFloatPred(
            o, [](double a, const BinaryFormat &) { return std::isinf(a); });
      })
      .Case([&](math::IsFiniteOp o) {
        return mapFloatPred(
            o, [](double a, const BinaryFormat &) { return std::isfinite(a); });
      })
      .Case([&](math::IsNormalOp o) {
        // Normal in the operand's own format, not in double.
        return mapFloatPred(o, [](double a, const BinaryFormat &fmt) {
          return std::isfinite(a) &&
                 std::fabs(a) >= std::ldexp(1.0, fmt.minExp);
        });
      })
      // math: integer
      .Case([&](math::AbsIOp o) {
        return mapInt1(o, [](int64_t a, unsigned) {
          return a < 0 ? 0 - static_cast<uint64_t>(a)
                       : static_cast<uint64_t>(a);
        });
      })
      .Case([&](math::CountLeadingZerosOp o) {
        return mapInt1(o, [](int64_t a, unsigned w) -> uint64_t {
          uint64_t u = zext(a, w);
          return u ? llvm::countl_zero(u) - (64 - w) : w;
        });
      })
      .Case([&](math::CountTrailingZerosOp o) {
        return mapInt1(o, [](int64_t a, unsigned w) -> uint64_t {
          uint64_t u = zext(a, w);
          return u ? llvm::countr_zero(u) : w;
        });
      })
      .Case([&](math::CtPopOp o) {
        return mapInt1(o, [](int64_t a, unsigned w) -> uint64_t {
          return llvm::popcount(zext(a, w));
        });
      })
      .Default([&](Operation *o) {
        return fail(o, "is not supported by the interpreter");
      });
}

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::run(func::FuncOp kernel, ArrayRef<InterpArg> args,
                               std::array<int64_t, 3> gridSize) {
  StringRef name = kernel.getSymName();
  if (!tile::isKernel(kernel))
    return failGlobal("@" + name + " is not a kernel (no '" +
                      tile::TileDialect::getKernelAttrName() + "' attribute)");
  if (kernel.isExternal())
    return failGlobal("kernel @" + name + " has no body");
  // Everything below relies on verified IR (operand types, dominance); the
  // C API may hand in modules nobody verified.
  {
    std::string message;
    ScopedDiagnosticHandler handler(kernel.getContext(), [&](Diagnostic &d) {
      if (message.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        message = formatInterpLocation(d.getLocation()) + ": error: " + d.str();
      return success();
    });
    if (failed(mlir::verify(kernel))) {
      error = message.empty()
                  ? "error: kernel @" + name.str() + " does not verify"
                  : message;
      return failure();
    }
  }
  for (int axis = 0; axis < 3; ++axis)
    if (gridSize[axis] < 1 || gridSize[axis] > INT32_MAX)
      return failGlobal("grid dimension " + Twine("xyz"[axis]) + " is " +
                        Twine(gridSize[axis]) + "; it must be in [1, 2^31)");
  grid = gridSize;

  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    if (buffer.bytes >= (uint64_t(1) << kInterpBufferAddressShift))
      return failGlobal("buffer " + Twine(i) + " is " + Twine(buffer.bytes) +
                        " bytes; the interpreter's limit is 1 TiB");
    if (buffer.bytes && !buffer.data)
      return failGlobal("buffer " + Twine(i) + " has no data");
  }

  // Every value type and region shape is checked before anything runs; ops
  // are checked as they execute.
  if (!kernel.getBody().hasOneBlock())
    return fail(kernel, "has a body with several blocks; the interpreter runs "
                        "structured control flow only");
  WalkResult walk = kernel.getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      if (!region.hasOneBlock() && !region.empty()) {
        (void)fail(op, "has a region with several blocks; the interpreter "
                       "runs structured control flow only");
        return WalkResult::interrupt();
      }
    for (Value result : op->getResults())
      if (!isSupportedType(result.getType())) {
        (void)fail(op, "has a result of unsupported type " +
                           typeStr(result.getType()));
        return WalkResult::interrupt();
      }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!isSupportedType(arg.getType())) {
            (void)fail(op, "has a block argument of unsupported type " +
                               typeStr(arg.getType()));
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  FunctionType type = kernel.getFunctionType();
  if (args.size() != type.getNumInputs())
    return failGlobal(
        "kernel @" + name + " takes " + Twine(type.getNumInputs()) +
        " argument" + (type.getNumInputs() == 1 ? "" : "s") + " but " +
        Twine(args.size()) + (args.size() == 1 ? " was" : " were") + " given");

  bufferArg.assign(buffers.size(), -1);
  SmallVector<RtValue> argValues;
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    const InterpArg &arg = args[i];
    std::string argName = ("argument #" + Twine(i) + " of @" + name + " (" +
                           typeStr(argType) + ")")
                              .str();
    if (!isSupportedScalar(argType))
      return failGlobal(argName + " has an unsupported type");
    RtValue v;
    if (isa<tile::PointerType>(argType)) {
      if (arg.kind != InterpArg::Buffer)
        return failGlobal(argName + " is a pointer and needs a buffer");
      if (arg.buffer >= buffers.size())
        return failGlobal(argName + " refers to buffer " + Twine(arg.buffer) +
                          " but there are " + Twine(buffers.size()));
      if (bufferArg[arg.buffer] < 0)
        bufferArg[arg.buffer] = static_cast<int>(i);
      v.ints.push_back(
          static_cast<int64_t>(getInterpBufferAddress(arg.buffer)));
    } else if (const BinaryFormat *fmt = getFormat(argType)) {
      if (arg.kind != InterpArg::Float)
        return failGlobal(argName + " is a float and needs a float value");
      v.floats.push_back(roundNearest(*fmt, arg.f));
    } else {
      if (arg.kind != InterpArg::Int)
        return failGlobal(argName + " is an integer and needs an integer "
                                    "value");
      unsigned width = getIntWidth(argType);
      if (width < 64 &&
          (arg.i < -(int64_t(1) << (width - 1)) ||
           arg.i > static_cast<int64_t>((uint64_t(1) << width) - 1)))
        return failGlobal(argName + ": " + Twine(arg.i) + " does not fit in " +
                          Twine(width) + " bits");
      v.ints.push_back(sext(static_cast<uint64_t>(arg.i), width));
      // The compiler may rely on the divisibility the signature promises.
      if (auto div = kernel.getArgAttrOfType<IntegerAttr>(
              i, tile::TileDialect::getDivisibilityAttrName()))
        if (div.getInt() > 0 && v.ints[0] % div.getInt() != 0)
          return failGlobal(
              argName + " is " + Twine(v.ints[0]) +
              ", which breaks its tile.divisibility = " + Twine(div.getInt()));
    }
    argValues.push_back(std::move(v));
  }

  Block &entry = kernel.getBody().front();
  SmallVector<RtValue> args2, results;
  running = true;
  for (pid[2] = 0; pid[2] < grid[2]; ++pid[2]) {
    for (pid[1] = 0; pid[1] < grid[1]; ++pid[1]) {
      for (pid[0] = 0; pid[0] < grid[0]; ++pid[0]) {
        args2.assign(argValues.begin(), argValues.end());
        if (failed(execBlock(entry, args2, results)))
          return failure();
      }
    }
  }
  return success();
}

void mlir::quire::registerInterpreterDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, cf::ControlFlowDialect>();
}

LogicalResult mlir::quire::interpretKernel(func::FuncOp kernel,
                                           ArrayRef<InterpBuffer> buffers,
                                           ArrayRef<InterpArg> args,
                                           std::array<int64_t, 3> grid,
                                           std::string &error) {
  error.clear();
  Interpreter interpreter(buffers, error);
  return interpreter.run(kernel, args, grid);
}
