//===- Launch.cpp - Host buffers and arguments for interpreted runs -------===//
//
// Turns quire-run's argument specs into interpreter buffers and arguments.
// Every mismatch between a spec and the kernel signature is reported by
// argument index with the expected type, since that is the mistake people
// make most. Random inputs use splitmix64 and Box-Muller written out here,
// not <random>'s distributions, so a seed gives the same data with every
// standard library.
//
//===----------------------------------------------------------------------===//

#include "quire/Interpreter/Launch.h"

#include "quire/Dialect/Tile/IR/Tile.h"
#include "quire/Dialect/Tile/Transforms/Passes.h"
#include "quire/Interpreter/Npy.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::quire;

//===----------------------------------------------------------------------===//
// Spec parsing
//===----------------------------------------------------------------------===//

static const char *const kDTypes[] = {"f16",      "bf16",   "f32", "f64",
                                      "f8E4M3FN", "f8E5M2", "i1",  "i8",
                                      "i16",      "i32",    "i64"};

static bool isDTypeName(StringRef name) {
  return llvm::is_contained(kDTypes, name);
}

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

static std::string shapeName(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// The most a buffer quire-run makes (out, rand, values) may take: the
/// interpreter visits every element, so more is a mistake, not a workload.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 32;

/// Parses SHAPE (`16x128` or `4096`: non-negative dimensions separated by
/// `x`) into `shape`; on failure `why` says what is wrong.
static LogicalResult parseShape(StringRef text, SmallVectorImpl<int64_t> &shape,
                                std::string &why) {
  why = "malformed shape '" + text.str() + "' (e.g. 1024 or 16x128)";
  SmallVector<StringRef> dims;
  text.split(dims, 'x');
  int64_t count = 1;
  for (StringRef dim : dims) {
    int64_t size;
    if (dim.getAsInteger(10, size) || size < 0 || size > (int64_t(1) << 40))
      return failure();
    // The elements' count stays within 2^40 (so it cannot wrap).
    if (size && count > (int64_t(1) << 40) / size) {
      why = "shape '" + text.str() + "' has more than 2^40 elements";
      return failure();
    }
    count *= size;
    shape.push_back(size);
  }
  return success(!shape.empty());
}

FailureOr<ArgSpec> mlir::quire::parseArgSpec(StringRef text,
                                             std::string &error) {
  ArgSpec spec;
  spec.text = text.str();
  auto bad = [&](const Twine &why) -> FailureOr<ArgSpec> {
    error = ("error: bad --arg '" + text + "': " + why).str();
    return failure();
  };
  auto [kind, rest] = text.split(':');
  if (!text.contains(':'))
    return bad("expected KIND:..., e.g. in:x.npy, out:o.npy:f32:1024, "
               "rand:f16:4096, values:i32:1,2, i32:7 (see --help)");

  if (kind == "in") {
    spec.kind = ArgSpec::In;
    if (rest.empty())
      return bad("expected in:FILE");
    spec.path = rest.str();
    return spec;
  }
  SmallVector<StringRef> fields;
  rest.split(fields, ':');
  if (kind == "inout") {
    spec.kind = ArgSpec::InOut;
    if (fields.size() > 2 || fields[0].empty() ||
        (fields.size() == 2 && fields[1].empty()))
      return bad("expected inout:FILE[:OUTFILE]");
    spec.path = fields[0].str();
    spec.outPath = fields.size() == 2 ? fields[1].str() : spec.path;
    return spec;
  }
  if (kind == "out") {
    spec.kind = ArgSpec::Out;
    if (fields.size() < 3 || fields.size() > 4 || fields[0].empty())
      return bad("expected out:FILE:DTYPE:SHAPE[:fill=VALUE]");
    spec.outPath = fields[0].str();
    spec.dtype = fields[1].str();
    if (!isDTypeName(spec.dtype))
      return bad("unknown dtype '" + spec.dtype +
                 "' (f16 bf16 f32 f64 f8E4M3FN f8E5M2 i1 i8 i16 i32 i64)");
    if (std::string why; failed(parseShape(fields[2], spec.shape, why)))
      return bad(why);
    if (fields.size() == 4) {
      if (!fields[3].starts_with("fill="))
        return bad("expected fill=VALUE, got '" + fields[3] + "'");
      spec.fill = fields[3].drop_front(5).str();
    }
    return spec;
  }
  if (kind == "rand") {
    spec.kind = ArgSpec::Rand;
    if (fields.size() < 2)
      return bad("expected rand:DTYPE:SHAPE[:seed=N][:dist=normal|uniform]"
                 "[:lo=X][:hi=Y]");
    spec.dtype = fields[0].str();
    if (!isDTypeName(spec.dtype))
      return bad("unknown dtype '" + spec.dtype +
                 "' (f16 bf16 f32 f64 f8E4M3FN f8E5M2 i1 i8 i16 i32 i64)");
    if (std::string why; failed(parseShape(fields[1], spec.shape, why)))
      return bad(why);
    for (StringRef option : ArrayRef<StringRef>(fields).drop_front(2)) {
      auto [key, value] = option.split('=');
      if (key == "seed") {
        uint64_t seed;
        if (value.getAsInteger(10, seed))
          return bad("seed must be a non-negative integer, got '" + value +
                     "'");
        spec.seed = seed;
      } else if (key == "dist") {
        if (value != "normal" && value != "uniform")
          return bad("dist must be normal or uniform, got '" + value + "'");
        spec.uniform = value == "uniform";
      } else if (key == "lo" || key == "hi") {
        double v;
        if (value.getAsDouble(v))
          return bad(key + " must be a number, got '" + value + "'");
        (key == "lo" ? spec.lo : spec.hi) = v;
      } else {
        return bad("unknown option '" + option + "' (seed=, dist=, lo=, hi=)");
      }
    }
    return spec;
  }
  if (kind == "values") {
    spec.kind = ArgSpec::Values;
    if (fields.size() != 2 || fields[1].empty())
      return bad("expected values:DTYPE:V0,V1,...");
    spec.dtype = fields[0].str();
    if (!isDTypeName(spec.dtype))
      return bad("unknown dtype '" + spec.dtype +
                 "' (f16 bf16 f32 f64 f8E4M3FN f8E5M2 i1 i8 i16 i32 i64)");
    SmallVector<StringRef> values;
    fields[1].split(values, ',');
    for (StringRef v : values)
      spec.values.push_back(v.trim().str());
    spec.shape.push_back(static_cast<int64_t>(values.size()));
    return spec;
  }
  if (isDTypeName(kind)) {
    spec.kind = ArgSpec::Scalar;
    spec.dtype = kind.str();
    if (rest.empty())
      return bad("expected " + kind + ":VALUE");
    spec.values.push_back(rest.str());
    return spec;
  }
  return bad("unknown kind '" + kind +
             "' (in, out, inout, rand, values, or a scalar type such as i32)");
}

FailureOr<std::array<int64_t, 3>> mlir::quire::parseGrid(StringRef text,
                                                         std::string &error) {
  std::array<int64_t, 3> grid = {1, 1, 1};
  SmallVector<StringRef> dims;
  text.split(dims, ',');
  bool ok = !dims.empty() && dims.size() <= 3;
  for (size_t i = 0; ok && i < dims.size(); ++i)
    ok = !dims[i].trim().getAsInteger(10, grid[i]) && grid[i] >= 1 &&
         grid[i] <= std::numeric_limits<int32_t>::max();
  if (!ok) {
    error = ("error: malformed --grid '" + text +
             "': expected X[,Y[,Z]] with integers in [1, 2^31)")
                .str();
    return failure();
  }
  return grid;
}

LogicalResult mlir::quire::prepareForInterpreter(ModuleOp module,
                                                 std::string &error) {
  bool any = false;
  module.walk([&](tile::MakeDescriptorOp) { any = true; });
  if (!any)
    return success();
  PassManager pm(module.getContext());
  pm.addPass(tile::createLowerDescriptors());
  llvm::raw_string_ostream os(error);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return success();
  });
  return pm.run(module);
}

func::FuncOp mlir::quire::findKernel(ModuleOp module, StringRef name,
                                     std::string &error) {
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (tile::isKernel(func))
      kernels.push_back(func);
  auto list = [&] {
    std::string s;
    for (func::FuncOp k : kernels)
      s += (s.empty() ? "@" : ", @") + k.getSymName().str();
    return s;
  };
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (func && tile::isKernel(func))
      return func;
    error = ("error: " +
             (func ? "@" + name + " is not a kernel (no tile.kernel attribute)"
                   : "no kernel named @" + name) +
             (kernels.empty() ? "" : "; kernels: " + list()))
                .str();
    return {};
  }
  if (kernels.size() == 1)
    return kernels.front();
  error = kernels.empty()
              ? "error: the module has no kernel (a func.func with the "
                "tile.kernel attribute)"
              : "error: the module has several kernels (" + list() +
                    "); choose one with --kernel";
  return {};
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// Parses an element value of `type`: integers in decimal (true/false for
/// i1), which must fit the width signed or unsigned; floats as strtod reads
/// them (inf, nan, hex floats included).
static LogicalResult parseElement(Type type, StringRef text, int64_t &i,
                                  double &f, std::string &why) {
  text = text.trim();
  if (isa<FloatType>(type)) {
    std::string s = text.str();
    char *end = nullptr;
    f = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') {
      why = "'" + s + "' is not a number";
      return failure();
    }
    return success();
  }
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1 && (text == "true" || text == "false")) {
    i = text == "true";
    return success();
  }
  bool fits;
  if (text.starts_with("-")) {
    fits = !text.getAsInteger(10, i) &&
           (width == 64 || i >= -(int64_t(1) << (width - 1)));
  } else {
    uint64_t u = 0;
    fits = !text.getAsInteger(10, u) &&
           (width == 64 || u <= (uint64_t(1) << width) - 1);
    i = static_cast<int64_t>(u);
  }
  if (!fits) {
    why = "'" + text.str() + "' is not an integer that fits in " +
          std::to_string(width) + " bits";
    return failure();
  }
  return success();
}

static void writeElement(Type type, int64_t i, double f, char *dst) {
  if (isa<FloatType>(type))
    writeFloatElement(type, f, dst);
  else
    writeIntElement(type, i, dst);
}

namespace {
/// splitmix64: tiny, and the same numbers on every platform.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  /// Standard normal (Box-Muller).
  double normal() {
    double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

private:
  uint64_t state;
};
} // namespace

std::string mlir::quire::formatInterpElement(Type type, const void *src) {
  if (!isa<FloatType>(type)) {
    int64_t v = readIntElement(type, src);
    return std::to_string(type.isInteger(1) ? (v & 1) : v);
  }
  double v = readFloatElement(type, src);
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  // The shortest text that reads back as the same element: plain decimals
  // for moderate magnitudes (40, 0.1), otherwise the shortest %g.
  char buf[64];
  auto readsBack = [&] {
    return roundToFloatType(type, std::strtod(buf, nullptr)) == v;
  };
  double mag = std::fabs(v);
  if (mag == 0.0 || (mag >= 1e-4 && mag < 1e7)) {
    for (int decimals = 0; decimals <= 24; ++decimals) {
      std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
      if (readsBack())
        return buf;
    }
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (readsBack())
      break;
  }
  return buf;
}

//===----------------------------------------------------------------------===//
// KernelLaunch
//===----------------------------------------------------------------------===//

static const char *kindName(ArgSpec::Kind kind) {
  switch (kind) {
  case ArgSpec::In:
    return "in";
  case ArgSpec::Out:
    return "out";
  case ArgSpec::InOut:
    return "inout";
  case ArgSpec::Rand:
    return "rand";
  case ArgSpec::Values:
    return "values";
  case ArgSpec::Scalar:
    return "scalar";
  }
  return "?";
}

LogicalResult KernelLaunch::bind(func::FuncOp kernelOp, ArrayRef<ArgSpec> specs,
                                 std::string &error) {
  kernel = kernelOp;
  buffers.clear();
  args.clear();
  FunctionType type = kernel.getFunctionType();
  StringRef name = kernel.getSymName();
  if (specs.size() != type.getNumInputs()) {
    std::string sig;
    llvm::raw_string_ostream os(sig);
    llvm::interleaveComma(type.getInputs(), os);
    error = ("error: kernel @" + name + " takes " + Twine(type.getNumInputs()) +
             " argument" + (type.getNumInputs() == 1 ? "" : "s") + " (" + sig +
             ") but " + Twine(specs.size()) + " --arg " +
             (specs.size() == 1 ? "was" : "were") + " given")
                .str();
    return failure();
  }

  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    const ArgSpec &spec = specs[index];
    std::string where = ("error: argument #" + Twine(index) + " of @" + name +
                         " (" + typeName(argType) + ")")
                            .str();
    if (isa<tile::TensorMapType>(argType)) {
      error = where + " cannot be given to the interpreter: a tensor map is "
                      "what the GPU's TMA reads; run the kernel without it "
                      "(tile.make_descriptor reads the same blocks without "
                      "`tensormap`)";
      return failure();
    }
    auto ptrType = dyn_cast<tile::PointerType>(argType);
    if (!ptrType) {
      if (spec.kind != ArgSpec::Scalar) {
        error = where + " is a scalar, but --arg '" + spec.text +
                "' describes a buffer; write e.g. " + typeName(argType) +
                ":VALUE";
        return failure();
      }
      if (spec.dtype != typeName(argType)) {
        error = where + " does not match --arg '" + spec.text + "' (" +
                spec.dtype + ")";
        return failure();
      }
      int64_t i = 0;
      double f = 0;
      std::string why;
      if (failed(parseElement(argType, spec.values[0], i, f, why))) {
        error = where + ": " + why;
        return failure();
      }
      args.push_back(isa<FloatType>(argType) ? InterpArg::getFloat(f)
                                             : InterpArg::getInt(i));
      continue;
    }

    Type elemType = ptrType.getPointeeType();
    if (spec.kind == ArgSpec::Scalar) {
      error = where + " is a pointer, but --arg '" + spec.text +
              "' is a scalar; use in:, out:, inout:, rand: or values:";
      return failure();
    }
    if (!isInterpElementType(elemType)) {
      error = where + " points to an element type quire-run cannot hold";
      return failure();
    }
    HostBuffer buffer;
    buffer.argIndex = index;
    buffer.kind = spec.kind;
    buffer.elementType = elemType;
    buffer.outPath = spec.outPath;
    unsigned elemBytes = getInterpElementBytes(elemType);

    if (spec.kind == ArgSpec::In || spec.kind == ArgSpec::InOut) {
      NpyArray array;
      if (failed(readNpy(spec.path, array, error))) {
        error = where + ": " + error;
        return failure();
      }
      if (!isNpyDescrCompatible(array.descr, elemType)) {
        error = where + ": '" + spec.path + "' has dtype '" + array.descr +
                "' but the argument points to " + typeName(elemType) +
                " (needs '" + getNpyDescr(elemType) + "')";
        return failure();
      }
      buffer.shape = array.shape;
      buffer.data = std::move(array.data);
    } else {
      if (spec.dtype != typeName(elemType)) {
        error = where + " points to " + typeName(elemType) + ", but --arg '" +
                spec.text + "' has dtype " + spec.dtype;
        return failure();
      }
      buffer.shape = spec.shape;
      int64_t count = 1;
      for (int64_t d : buffer.shape)
        count *= d; // at most 2^40: parseShape checks it
      if (count * elemBytes > kMaxBufferBytes) {
        error = where + ": --arg '" + spec.text +
                "' is too large: " + std::to_string(count * elemBytes) +
                " bytes, and quire-run holds at most " +
                std::to_string(kMaxBufferBytes) + " bytes a buffer";
        return failure();
      }
      buffer.data.assign(count * elemBytes, 0);
      char *data = buffer.data.data();
      bool isFloat = isa<FloatType>(elemType);
      if (spec.kind == ArgSpec::Out) {
        if (spec.fill) {
          int64_t i = 0;
          double f = 0;
          std::string why;
          if (failed(parseElement(elemType, *spec.fill, i, f, why))) {
            error = where + ": fill " + why;
            return failure();
          }
          for (int64_t e = 0; e < count; ++e)
            writeElement(elemType, i, f, data + e * elemBytes);
        } else if (isFloat) {
          // Poison: any element the kernel fails to write stays NaN.
          for (int64_t e = 0; e < count; ++e)
            writeFloatElement(elemType,
                              std::numeric_limits<double>::quiet_NaN(),
                              data + e * elemBytes);
        } else {
          std::memset(data, 0xa5, buffer.data.size());
        }
      } else if (spec.kind == ArgSpec::Values) {
        for (int64_t e = 0; e < count; ++e) {
          int64_t i = 0;
          double f = 0;
          std::string why;
          if (failed(parseElement(elemType, spec.values[e], i, f, why))) {
            error = where + ": element " + std::to_string(e) + ": " + why;
            return failure();
          }
          writeElement(elemType, i, f, data + e * elemBytes);
        }
      } else { // Rand
        Random rng(spec.seed ? *spec.seed : index);
        if (isFloat) {
          double lo = spec.lo.value_or(0.0), hi = spec.hi.value_or(1.0);
          if (!spec.uniform && (spec.lo || spec.hi)) {
            error = where + ": rand's lo= and hi= need dist=uniform (the "
                            "normal distribution is the standard one)";
            return failure();
          }
          if (hi < lo) {
            error = where + ": rand needs lo <= hi";
            return failure();
          }
          for (int64_t e = 0; e < count; ++e) {
            double v =
                spec.uniform ? lo + (hi - lo) * rng.uniform() : rng.normal();
            writeFloatElement(elemType, v, data + e * elemBytes);
          }
        } else {
          unsigned width = elemType.getIntOrFloatBitWidth();
          int64_t lo = static_cast<int64_t>(spec.lo.value_or(0));
          int64_t hi =
              static_cast<int64_t>(spec.hi.value_or(width == 1 ? 2 : 100));
          if (hi <= lo) {
            error = where + ": rand needs lo < hi";
            return failure();
          }
          uint64_t span = static_cast<uint64_t>(hi - lo);
          for (int64_t e = 0; e < count; ++e)
            writeIntElement(elemType,
                            lo + static_cast<int64_t>(rng.next() % span),
                            data + e * elemBytes);
        }
      }
    }
    args.push_back(InterpArg::getBuffer(static_cast<unsigned>(buffers.size())));
    buffers.push_back(std::move(buffer));
  }
  return success();
}

LogicalResult KernelLaunch::saveGeneratedInputs(StringRef dir,
                                                std::string &error) const {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "error: cannot create '" + dir.str() + "': " + ec.message();
    return failure();
  }
  for (const HostBuffer &buffer : buffers) {
    if (buffer.kind != ArgSpec::Rand && buffer.kind != ArgSpec::Values)
      continue;
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "arg" + Twine(buffer.argIndex) + ".npy");
    NpyArray array{getNpyDescr(buffer.elementType), buffer.shape, buffer.data};
    if (failed(writeNpy(path, array, error))) {
      error = "error: " + error;
      return failure();
    }
  }
  return success();
}

LogicalResult KernelLaunch::run(std::array<int64_t, 3> grid,
                                std::string &error) {
  SmallVector<InterpBuffer> interpBuffers;
  for (HostBuffer &buffer : buffers) {
    InterpBuffer b;
    b.data = buffer.data.data();
    b.bytes = buffer.data.size();
    b.readOnly = buffer.kind == ArgSpec::In || buffer.kind == ArgSpec::Rand ||
                 buffer.kind == ArgSpec::Values;
    interpBuffers.push_back(b);
  }
  return interpretKernel(kernel, interpBuffers, args, grid, error);
}

LogicalResult KernelLaunch::writeOutputs(std::string &error) const {
  for (const HostBuffer &buffer : buffers) {
    if (buffer.kind != ArgSpec::Out && buffer.kind != ArgSpec::InOut)
      continue;
    NpyArray array{getNpyDescr(buffer.elementType), buffer.shape, buffer.data};
    if (failed(writeNpy(buffer.outPath, array, error))) {
      error = "error: " + error;
      return failure();
    }
  }
  return success();
}

void KernelLaunch::printOutputs(raw_ostream &os) const {
  for (const HostBuffer &buffer : buffers) {
    if (buffer.kind != ArgSpec::Out && buffer.kind != ArgSpec::InOut)
      continue;
    os << "arg #" << buffer.argIndex << " (" << kindName(buffer.kind) << ", "
       << buffer.elementType << ", " << shapeName(buffer.shape) << "):\n";
    unsigned bytes = getInterpElementBytes(buffer.elementType);
    size_t count = buffer.data.size() / bytes;
    size_t rowLen = buffer.shape.empty() || buffer.shape.back() == 0
                        ? count
                        : static_cast<size_t>(buffer.shape.back());
    for (size_t row = 0; rowLen && row < count / rowLen; ++row) {
      for (size_t c = 0; c < rowLen; ++c)
        os << (c ? " " : "")
           << formatInterpElement(buffer.elementType,
                                  buffer.data.data() +
                                      (row * rowLen + c) * bytes);
      os << "\n";
    }
  }
}
