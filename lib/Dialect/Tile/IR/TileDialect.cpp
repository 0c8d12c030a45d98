//===- TileDialect.cpp - Tile dialect, types and attributes --------------===//
//
// Registers the tile dialect's ops, `!tile.ptr` and enum attributes, and
// verifies the dialect's discardable attributes: `tile.kernel` on functions,
// `tile.divisibility` on kernel arguments, and the value hints
// (`tile.divisibility`, `tile.contiguity`) on ops.
//
//===----------------------------------------------------------------------===//

#include "quire/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::quire::tile;

#include "quire/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "quire/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "quire/Dialect/Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "quire/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "quire/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "quire/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "quire/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointee) {
  if (pointee.isSignlessInteger() || isa<FloatType>(pointee))
    return success();
  return emitError() << "!tile.ptr pointee must be a signless integer or "
                        "float scalar, got "
                     << pointee;
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType block) {
  Type elt = block.getElementType();
  if (!(elt.isSignlessInteger() || isa<FloatType>(elt)) ||
      elt.getIntOrFloatBitWidth() < 8)
    return emitError() << "!tile.tensordesc elements must be integers or "
                          "floats of 8 bits or more, got "
                       << elt;
  if (block.getRank() < 1 || block.getRank() > 5 || block.getEncoding() ||
      llvm::any_of(block.getShape(),
                   [](int64_t d) { return d <= 0 || !llvm::isPowerOf2_64(d); }))
    return emitError() << "!tile.tensordesc block must have 1 to 5 "
                          "dimensions, each a power of two, and no layout; "
                          "got "
                       << block;
  return success();
}

static bool allPowersOfTwo(ArrayRef<unsigned> values) {
  return llvm::all_of(values,
                      [](unsigned v) { return llvm::isPowerOf2_32(v); });
}

LogicalResult BlockedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError,
    ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
    ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0 || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank || order.size() != rank)
    return emitError() << "#tile.blocked needs sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order of the same non-zero rank";
  if (!allPowersOfTwo(sizePerThread) || !allPowersOfTwo(threadsPerWarp) ||
      !allPowersOfTwo(warpsPerCTA))
    return emitError() << "#tile.blocked sizes must be powers of two";
  unsigned lanes = 1;
  for (unsigned t : threadsPerWarp)
    lanes *= t;
  if (lanes != 32)
    return emitError() << "#tile.blocked threadsPerWarp must multiply to 32, "
                          "got "
                       << lanes;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "#tile.blocked order must be a permutation of 0.."
                         << rank - 1;
    seen[d] = true;
  }
  return success();
}

unsigned BlockedEncodingAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned w : getWarpsPerCTA())
    warps *= w;
  return warps;
}

LogicalResult
MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<unsigned> warpsPerCTA, unsigned kWidth,
                        unsigned nWidth, unsigned mWidth) {
  if (warpsPerCTA.size() != 2 || !allPowersOfTwo(warpsPerCTA))
    return emitError() << "#tile.mma warpsPerCTA must be two powers of two";
  if (kWidth < 2 || kWidth > 16 || !llvm::isPowerOf2_32(kWidth))
    return emitError() << "#tile.mma kWidth must be 2, 4, 8 or 16, got "
                       << kWidth;
  for (auto [name, width] :
       {std::pair<StringRef, unsigned>("nWidth", nWidth), {"mWidth", mWidth}})
    if (width < 1 || width > 16 || !llvm::isPowerOf2_32(width))
      return emitError() << "#tile.mma " << name
                         << " must be 1, 2, 4, 8 or 16, got " << width;
  return success();
}

/// #tile.mma<{warpsPerCTA = [wm, wn][, kWidth = w][, nWidth = n]
///            [, mWidth = m]}>: the optional entries in any order, printed
/// when not their defaults.
Attribute MmaEncodingAttr::parse(AsmParser &parser, Type) {
  SmallVector<unsigned> warps;
  unsigned widths[3] = {2, 1, 1};
  bool seen[3] = {false, false, false};
  StringRef names[3] = {"kWidth", "nWidth", "mWidth"};
  auto parseWarp = [&]() -> ParseResult {
    return parser.parseInteger(warps.emplace_back());
  };
  if (parser.parseLess() || parser.parseLBrace() ||
      parser.parseKeyword("warpsPerCTA") || parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseWarp))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key))
      return {};
    unsigned i = llvm::find(names, key) - std::begin(names);
    if (i == 3 || seen[i]) {
      parser.emitError(loc)
          << (i == 3 ? "unknown" : "duplicate") << " #tile.mma parameter '"
          << key << "' (expected kWidth, nWidth or mWidth)";
      return {};
    }
    seen[i] = true;
    if (parser.parseEqual() || parser.parseInteger(widths[i]))
      return {};
  }
  if (parser.parseRBrace() || parser.parseGreater())
    return {};
  return parser.getChecked<MmaEncodingAttr>(parser.getContext(), warps,
                                            widths[0], widths[1], widths[2]);
}

void MmaEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<{warpsPerCTA = [";
  llvm::interleaveComma(getWarpsPerCTA(), printer);
  printer << "]";
  if (getKWidth() != 2)
    printer << ", kWidth = " << getKWidth();
  if (getNWidth() != 1)
    printer << ", nWidth = " << getNWidth();
  if (getMWidth() != 1)
    printer << ", mWidth = " << getMWidth();
  printer << "}>";
}

int64_t MmaEncodingAttr::kElement(int64_t p) const {
  int64_t w = getKWidth(), block = kBlock();
  int64_t base = p - p % block, q = p % block;
  // q = s*16 + h*8 + 2t + c: lane t's j-th position is (s, h, c).
  int64_t t = (q % 8) / 2, j = (q / 16) * 4 + ((q / 8) % 2) * 2 + q % 2;
  return base + (j / w) * 4 * w + t * w + j % w;
}

/// Position p = 8j + g (lane group g's j-th position) stands for element
/// (j / w) * 8w + g*w + j % w; `position` is its inverse.
static int64_t renumber(int64_t p, int64_t w) {
  int64_t j = p / 8, g = p % 8;
  return (j / w) * 8 * w + g * w + j % w;
}
static int64_t position(int64_t e, int64_t w) {
  int64_t r = e % (8 * w), j = (e / (8 * w)) * w + r % w;
  return 8 * j + r / w;
}

int64_t MmaEncodingAttr::nElement(int64_t p) const {
  return renumber(p, getNWidth());
}
int64_t MmaEncodingAttr::nPosition(int64_t n) const {
  return position(n, getNWidth());
}
int64_t MmaEncodingAttr::mElement(int64_t p) const {
  return renumber(p, getMWidth());
}
int64_t MmaEncodingAttr::mPosition(int64_t m) const {
  return position(m, getMWidth());
}

unsigned MmaEncodingAttr::getNumWarps() const {
  return getWarpsPerCTA()[0] * getWarpsPerCTA()[1];
}

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, Attribute parent) {
  if (opIdx > 1)
    return emitError() << "#tile.dot_op opIdx must be 0 (A) or 1 (B), got "
                       << opIdx;
  if (!isa<MmaEncodingAttr>(parent))
    return emitError() << "#tile.dot_op parent must be a #tile.mma layout";
  return success();
}

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  unsigned parentRank;
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(parent))
    parentRank = blocked.getRank();
  else if (auto slice = dyn_cast<SliceEncodingAttr>(parent))
    parentRank = slice.getRank();
  else if (isa<MmaEncodingAttr>(parent))
    parentRank = 2;
  else
    return emitError() << "#tile.slice parent must be a #tile.blocked, "
                          "#tile.mma or #tile.slice layout";
  if (parentRank < 2 || dim >= parentRank)
    return emitError() << "#tile.slice dim " << dim
                       << " is out of range for a parent of rank "
                       << parentRank;
  return success();
}

unsigned SliceEncodingAttr::getRank() const {
  if (auto blocked = dyn_cast<BlockedEncodingAttr>(getParent()))
    return blocked.getRank() - 1;
  if (isa<MmaEncodingAttr>(getParent()))
    return 1;
  return cast<SliceEncodingAttr>(getParent()).getRank() - 1;
}

/// A kernel argument is what a launch can pass and the backend can lower:
/// pointers, i1/i8/i16/i32/i64, f16/bf16/f32/f64 (i0 or i7 arguments reach
/// NVPTX as types it aborts on).
static bool isKernelArgType(Type type) {
  if (isa<PointerType, TensorMapType>(type))
    return true;
  if (type.isSignlessInteger())
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                              type.getIntOrFloatBitWidth());
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// A PTX identifier (the ISA's "Identifiers"): [A-Za-z][A-Za-z0-9_$]* or
/// [_$%][A-Za-z0-9_$]+.
static bool isPtxIdentifier(StringRef name) {
  if (name.empty())
    return false;
  auto follows = [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$';
  };
  if (!llvm::isAlpha(name[0]) &&
      !((name[0] == '_' || name[0] == '$' || name[0] == '%') &&
        name.size() > 1))
    return false;
  return llvm::all_of(name.drop_front(), follows);
}

/// A value hint (`tile.divisibility`, `tile.contiguity`) on `op`: an i32
/// for every dimension of its first result, or an array<i32> with one per
/// dimension, positive; the result an integer or pointer scalar or tensor.
static LogicalResult verifyHint(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (op->getNumResults() == 0)
    return op->emitOpError() << "'" << name
                             << "' is a hint for an op's first result; this "
                                "op has none";
  Type type = op->getResult(0).getType();
  Type elt = getElementTypeOrSelf(type);
  if (!isa<PointerType>(elt) && !elt.isSignlessInteger())
    return op->emitOpError()
           << "'" << name << "' needs an integer or pointer result, got "
           << type;
  auto tensor = dyn_cast<RankedTensorType>(type);
  int64_t rank = tensor ? tensor.getRank() : 0;
  SmallVector<int64_t> values;
  if (auto i = dyn_cast<IntegerAttr>(attr.getValue());
      i && i.getType().isSignlessInteger(32)) {
    values.push_back(i.getInt());
  } else if (auto array = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
             array && static_cast<int64_t>(array.size()) == rank) {
    values.append(array.asArrayRef().begin(), array.asArrayRef().end());
  } else {
    return op->emitOpError()
           << "'" << name
           << "' must be an i32 or an array<i32> of one value per dimension "
              "of the result ("
           << rank << "), got " << attr.getValue();
  }
  if (llvm::any_of(values, [](int64_t v) { return v <= 0; }))
    return op->emitOpError() << "'" << name << "' values must be positive, got "
                             << attr.getValue();
  return success();
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getKernelAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << getKernelAttrName() << "' must be a unit attribute";
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitOpError() << "'" << getKernelAttrName()
                               << "' may only be placed on a func.func";
    if (func.isExternal())
      return op->emitOpError() << "kernel must have a body";
    if (!isPtxIdentifier(func.getSymName())) {
      std::string name;
      llvm::raw_string_ostream os(name);
      llvm::printEscapedString(func.getSymName(), os);
      return op->emitOpError()
             << "kernel name \"" << name
             << "\" is not a PTX identifier ([A-Za-z][A-Za-z0-9_$]* or "
                "[_$%][A-Za-z0-9_$]+): it names the PTX entry";
    }
    FunctionType type = func.getFunctionType();
    if (type.getNumResults() != 0)
      return op->emitOpError() << "kernel must not return values";
    for (auto [i, arg] : llvm::enumerate(type.getInputs()))
      if (!isKernelArgType(arg))
        return op->emitOpError() << "kernel argument #" << i
                                 << " must be a !tile.ptr, !tile.tensormap, "
                                    "i1/i8/i16/i32/i64 or f16/bf16/f32/f64, "
                                    "got "
                                 << arg;
    return success();
  }
  if (attr.getName() == getThreadOffsetAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!value || !value.getType().isInteger(32) || value.getInt() <= 0 ||
        value.getInt() % 128 != 0)
      return op->emitOpError() << "'" << getThreadOffsetAttrName()
                               << "' must be a positive i32 multiple of 128";
    return success();
  }
  if (attr.getName() == getNumWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !value || value.getInt() <= 0 ||
        value.getInt() > 32 || !llvm::isPowerOf2_64(value.getInt()))
      return op->emitOpError()
             << "'" << getNumWarpsAttrName()
             << "' must be a power-of-two integer in [1, 32] on a module";
    return success();
  }
  if (attr.getName() == getSharedBytesAttrName()) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << getSharedBytesAttrName() << "' must be an integer";
    return success();
  }
  if (attr.getName() == getDivisibilityAttrName() ||
      attr.getName() == getContiguityAttrName())
    return verifyHint(op, attr);
  if (attr.getName() == getNumStagesAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (op->getName().getStringRef() != "scf.for" || !value ||
        !value.getType().isSignlessInteger(32) || value.getInt() < 0 ||
        value.getInt() > 8)
      return op->emitOpError() << "'" << getNumStagesAttrName()
                               << "' must be an i32 in [0, 8] on an scf.for";
    return success();
  }
  if (attr.getName() == getProducerWarpsAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    // A producer warp or warpgroup (TMA copies), or as many warps as the
    // consumers (cp.async copies): a power of two up to 16.
    if (!isa<func::FuncOp>(op) || !value || value.getInt() < 1 ||
        value.getInt() > 16 || !llvm::isPowerOf2_64(value.getInt()))
      return op->emitOpError() << "'" << getProducerWarpsAttrName()
                               << "' must be 1, 2, 4, 8 or 16 on a kernel";
    return success();
  }
  if (attr.getName() == getTmaAheadAttrName()) {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    if (op->getName().getStringRef() != "scf.for" || !value ||
        value.getInt() < 1)
      return op->emitOpError() << "'" << getTmaAheadAttrName()
                               << "' must be an integer >= 1 on an scf.for";
    return success();
  }
  if (attr.getName() == getPingpongAttrName()) {
    if (op->getName().getStringRef() != "scf.for" ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << getPingpongAttrName()
                               << "' must be a unit attribute on an scf.for";
    return success();
  }
  return op->emitOpError() << "unknown tile dialect attribute '"
                           << attr.getName().getValue() << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != getDivisibilityAttrName())
    return op->emitOpError() << "unknown tile dialect argument attribute '"
                             << attr.getName().getValue() << "'";
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (!value || value.getInt() <= 0 ||
      !llvm::isPowerOf2_64(value.getValue().getZExtValue()))
    return op->emitOpError()
           << "'" << getDivisibilityAttrName() << "' of argument #" << argIndex
           << " must be a positive power-of-two integer";
  // Read the type from the signature: a declaration has no entry block.
  auto func = dyn_cast<FunctionOpInterface>(op);
  Region &region = op->getRegion(regionIndex);
  Type argType = func ? func.getArgumentTypes()[argIndex]
                      : region.getArgument(argIndex).getType();
  if (!isa<PointerType>(argType) && !argType.isSignlessInteger())
    return op->emitOpError()
           << "'" << getDivisibilityAttrName() << "' of argument #" << argIndex
           << " needs a pointer or integer argument, got " << argType;
  return success();
}
