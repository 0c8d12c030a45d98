//===- Quire.cpp - Quire's C API ------------------------------------------===//
//
// The implementation behind include/quire-c/Quire.h, and the only translation
// unit of libquire.so: it adapts compileKernel (lib/Pipelines) and
// interpretKernel (lib/Interpreter) to plain C. Everything here distrusts its
// inputs, because the caller is usually a binding that forwards whatever a
// user typed: NULL pointers, garbage enum values and malformed source all
// come back as diagnostics in a QuireResult, never as a crash.
//
//===----------------------------------------------------------------------===//

#include "quire-c/Quire.h"

#include "quire/Dialect/Tile/IR/Tile.h"
#include "quire/InitAll.h"
#include "quire/Interpreter/Interpreter.h"
#include "quire/Interpreter/Launch.h"
#include "quire/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <elf.h>
#include <link.h>
#include <mutex>
#include <new>
#include <string>

#ifndef QUIRE_VERSION_STRING
#define QUIRE_VERSION_STRING "unknown"
#endif

using namespace mlir;
using namespace mlir::quire;

struct QuireResult {
  bool succeeded = false;
  std::string diagnostics;
  std::string output;
  std::string ptx;
  std::string metadata;
  std::string irDump;
};

struct QuireCompileOptions {
  uint32_t sm = 90;
  uint32_t numWarps = 4;
  int32_t emit = QUIRE_EMIT_PTX;
  bool pagedChecked = false;
  unsigned asyncStages = mlir::quire::kDefaultAsyncStages;
  bool wgmma = true;
  bool asyncWgmma = false;
  bool tma = true;
  bool tmaRelease = false;
  bool warpSpecialize = false;
  bool producerWarpgroup = false;
  unsigned producerRegisters = 0;
  bool earlyDots = false;
  bool overlapSoftmax = false;
  bool earlyRelease = true;
  bool orderedRelease = false;
  bool convertAfterWait = false;
  bool skipUnitRescale = false;
  bool splitIterations = false;
  bool pingpong = false;
  bool wideFp8Operands = true;
  bool gatheredRows = false;
  bool fpFusion = true;
  unsigned maxRegisters = 0;
  bool raisePagedLoads = true;
  bool forwardStores = true;
  bool dumpIR = false;
};

namespace {

/// A failed result holding one `error: ...` line.
QuireResult *makeError(const llvm::Twine &message) {
  auto *result = new QuireResult();
  result->diagnostics = ("error: " + message + "\n").str();
  return result;
}

/// The name diagnostics print for a buffer.
llvm::StringRef bufferNameOr(const char *name) {
  return name && *name ? llvm::StringRef(name) : llvm::StringRef("<source>");
}

/// Parses `source` in `context`, printing diagnostics with their source line
/// into `diagnostics`. Null on failure.
OwningOpRef<ModuleOp> parseModule(llvm::StringRef source,
                                  llvm::StringRef bufferName,
                                  MLIRContext &context,
                                  llvm::SourceMgr &sourceMgr,
                                  llvm::raw_ostream &diagnostics) {
  // As compileKernel checks its source (the parser recurses per level).
  if (failed(checkSource(source, bufferName, diagnostics)))
    return nullptr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  ClippedDiagnosticHandler handler(sourceMgr, &context, diagnostics);
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// The signature of every kernel, as compileKernel reports it before any
/// pass runs (lib/Pipelines keeps its version private).
std::vector<KernelInfo> collectSignatures(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!tile::isKernel(func))
      continue;
    KernelInfo kernel;
    kernel.name = func.getName().str();
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      KernelArgInfo arg;
      arg.type = typeString(type);
      if (isa<tile::PointerType>(type)) {
        arg.kind = "ptr";
        arg.bits = 64;
      } else if (isa<tile::TensorMapType>(type)) {
        arg.kind = "tensormap";
        arg.bits = 1024;
      } else if (type.isIntOrFloat()) {
        arg.kind = isa<FloatType>(type) ? "float" : "int";
        arg.bits = type.getIntOrFloatBitWidth();
      } else {
        arg.kind = "other";
      }
      if (auto d = func.getArgAttrOfType<IntegerAttr>(
              i, tile::TileDialect::getDivisibilityAttrName()))
        arg.divisibility = d.getInt();
      kernel.args.push_back(arg);
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

/// The hex GNU build ID of the object containing this function.
std::string readBuildID() {
  struct Search {
    uintptr_t address;
    std::string id;
  } search{reinterpret_cast<uintptr_t>(&readBuildID), ""};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) -> int {
        auto *search = static_cast<Search *>(data);
        bool mine = false;
        for (unsigned i = 0; i < info->dlpi_phnum && !mine; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          mine = ph.p_type == PT_LOAD && search->address >= begin &&
                 search->address < begin + ph.p_memsz;
        }
        if (!mine)
          return 0;
        for (unsigned i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          const char *p =
              reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof(ElfW(Nhdr));
            const char *desc = name + ((note->n_namesz + 3) & ~3u);
            const char *next = desc + ((note->n_descsz + 3) & ~3u);
            if (next > end)
              break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0) {
              static const char digits[] = "0123456789abcdef";
              for (unsigned b = 0; b < note->n_descsz; ++b) {
                unsigned char byte = static_cast<unsigned char>(desc[b]);
                search->id += digits[byte >> 4];
                search->id += digits[byte & 15];
              }
              return 1;
            }
            p = next;
          }
        }
        return 1;
      },
      &search);
  return search.id;
}

/// compileKernel builds its own MLIRContext, but LLVM's codegen options and
/// target registry are process-wide; one compilation at a time is cheap
/// insurance against races there.
std::mutex &compileMutex() {
  static std::mutex mutex;
  return mutex;
}

} // namespace

//===----------------------------------------------------------------------===//
// Versions
//===----------------------------------------------------------------------===//

int quireGetAPIVersion(void) { return QUIRE_CAPI_VERSION; }

const char *quireGetVersion(void) { return QUIRE_VERSION_STRING; }

const char *quireGetBuildID(void) {
  static const std::string id = readBuildID();
  return id.c_str();
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

int quireResultSucceeded(const QuireResult *result) {
  return result && result->succeeded ? 1 : 0;
}

static const char *getString(const std::string *s, size_t *size) {
  if (size)
    *size = s ? s->size() : 0;
  return s ? s->c_str() : "";
}

const char *quireResultGetDiagnostics(const QuireResult *result) {
  return getString(result ? &result->diagnostics : nullptr, nullptr);
}

const char *quireResultGetOutput(const QuireResult *result, size_t *size) {
  return getString(result ? &result->output : nullptr, size);
}

const char *quireResultGetPTX(const QuireResult *result, size_t *size) {
  return getString(result ? &result->ptx : nullptr, size);
}

const char *quireResultGetIRDump(const QuireResult *result, size_t *size) {
  return getString(result ? &result->irDump : nullptr, size);
}

const char *quireResultGetMetadata(const QuireResult *result) {
  return getString(result ? &result->metadata : nullptr, nullptr);
}

void quireResultDestroy(QuireResult *result) { delete result; }

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

QuireCompileOptions *quireCompileOptionsCreate(void) {
  return new (std::nothrow) QuireCompileOptions();
}

void quireCompileOptionsDestroy(QuireCompileOptions *options) {
  delete options;
}

void quireCompileOptionsSetSM(QuireCompileOptions *options, uint32_t sm) {
  if (options)
    options->sm = sm;
}

void quireCompileOptionsSetNumWarps(QuireCompileOptions *options,
                                    uint32_t numWarps) {
  if (options)
    options->numWarps = numWarps;
}

void quireCompileOptionsSetEmit(QuireCompileOptions *options, int32_t emit) {
  if (options)
    options->emit = emit;
}

void quireCompileOptionsSetAsyncStages(QuireCompileOptions *options,
                                       uint32_t stages) {
  if (options)
    options->asyncStages = stages;
}

void quireCompileOptionsSetWgmma(QuireCompileOptions *options, int32_t wgmma) {
  if (options)
    options->wgmma = wgmma != 0;
}

void quireCompileOptionsSetAsyncWgmma(QuireCompileOptions *options,
                                      int32_t asyncWgmma) {
  if (options)
    options->asyncWgmma = asyncWgmma != 0;
}

void quireCompileOptionsSetTma(QuireCompileOptions *options, int32_t tma) {
  if (options)
    options->tma = tma != 0;
}

void quireCompileOptionsSetTmaRelease(QuireCompileOptions *options,
                                      int32_t tmaRelease) {
  if (options)
    options->tmaRelease = tmaRelease != 0;
}

void quireCompileOptionsSetWarpSpecialize(QuireCompileOptions *options,
                                          int32_t warpSpecialize) {
  if (options)
    options->warpSpecialize = warpSpecialize != 0;
}

void quireCompileOptionsSetProducerWarpgroup(QuireCompileOptions *options,
                                             int32_t producerWarpgroup) {
  if (options)
    options->producerWarpgroup = producerWarpgroup != 0;
}

void quireCompileOptionsSetProducerRegisters(QuireCompileOptions *options,
                                             uint32_t producerRegisters) {
  if (options)
    options->producerRegisters = producerRegisters;
}

void quireCompileOptionsSetEarlyDots(QuireCompileOptions *options,
                                     int32_t earlyDots) {
  if (options)
    options->earlyDots = earlyDots != 0;
}

void quireCompileOptionsSetOverlapSoftmax(QuireCompileOptions *options,
                                          int32_t overlapSoftmax) {
  if (options)
    options->overlapSoftmax = overlapSoftmax != 0;
}

void quireCompileOptionsSetEarlyRelease(QuireCompileOptions *options,
                                        int32_t earlyRelease) {
  if (options)
    options->earlyRelease = earlyRelease != 0;
}

void quireCompileOptionsSetOrderedRelease(QuireCompileOptions *options,
                                          int32_t orderedRelease) {
  if (options)
    options->orderedRelease = orderedRelease != 0;
}

void quireCompileOptionsSetConvertAfterWait(QuireCompileOptions *options,
                                            int32_t convertAfterWait) {
  if (options)
    options->convertAfterWait = convertAfterWait != 0;
}

void quireCompileOptionsSetSplitIterations(QuireCompileOptions *options,
                                           int32_t splitIterations) {
  if (options)
    options->splitIterations = splitIterations != 0;
}

void quireCompileOptionsSetSkipUnitRescale(QuireCompileOptions *options,
                                           int32_t skipUnitRescale) {
  if (options)
    options->skipUnitRescale = skipUnitRescale != 0;
}

void quireCompileOptionsSetPingpong(QuireCompileOptions *options,
                                    int32_t pingpong) {
  if (options)
    options->pingpong = pingpong != 0;
}

void quireCompileOptionsSetGatheredRows(QuireCompileOptions *options,
                                        int32_t gatheredRows) {
  if (options)
    options->gatheredRows = gatheredRows != 0;
}

void quireCompileOptionsSetWideFp8Operands(QuireCompileOptions *options,
                                           int32_t wideFp8Operands) {
  if (options)
    options->wideFp8Operands = wideFp8Operands != 0;
}

void quireCompileOptionsSetFpFusion(QuireCompileOptions *options,
                                    int32_t fpFusion) {
  if (options)
    options->fpFusion = fpFusion != 0;
}

void quireCompileOptionsSetMaxRegisters(QuireCompileOptions *options,
                                        uint32_t maxRegisters) {
  if (options)
    options->maxRegisters = maxRegisters;
}

void quireCompileOptionsSetRaisePagedLoads(QuireCompileOptions *options,
                                           int32_t raise) {
  if (options)
    options->raisePagedLoads = raise != 0;
}

void quireCompileOptionsSetForwardStores(QuireCompileOptions *options,
                                         int32_t forward) {
  if (options)
    options->forwardStores = forward != 0;
}

void quireCompileOptionsSetDumpIR(QuireCompileOptions *options, int32_t dump) {
  if (options)
    options->dumpIR = dump != 0;
}

void quireCompileOptionsSetPagedChecked(QuireCompileOptions *options,
                                        int32_t checked) {
  if (options)
    options->pagedChecked = checked != 0;
}

QuireResult *quireCompile(const char *source, size_t size,
                          const char *bufferName,
                          const QuireCompileOptions *options) {
  if (!source && size)
    return makeError("quireCompile: source is NULL");
  QuireCompileOptions defaults;
  if (!options)
    options = &defaults;

  CompileOptions compileOptions;
  compileOptions.sm = options->sm;
  compileOptions.numWarps = options->numWarps;
  compileOptions.pagedChecked = options->pagedChecked;
  compileOptions.asyncStages = options->asyncStages;
  compileOptions.wgmma = options->wgmma;
  compileOptions.asyncWgmma = options->asyncWgmma;
  compileOptions.tma = options->tma;
  compileOptions.tmaRelease = options->tmaRelease;
  compileOptions.warpSpecialize = options->warpSpecialize;
  compileOptions.producerWarpgroup = options->producerWarpgroup;
  compileOptions.producerRegisters = options->producerRegisters;
  compileOptions.earlyDots = options->earlyDots;
  compileOptions.overlapSoftmax = options->overlapSoftmax;
  compileOptions.earlyRelease = options->earlyRelease;
  compileOptions.orderedRelease = options->orderedRelease;
  compileOptions.convertAfterWait = options->convertAfterWait;
  compileOptions.skipUnitRescale = options->skipUnitRescale;
  compileOptions.splitIterations = options->splitIterations;
  compileOptions.pingpong = options->pingpong;
  compileOptions.wideFp8Operands = options->wideFp8Operands;
  compileOptions.gatheredRows = options->gatheredRows;
  compileOptions.fpFusion = options->fpFusion;
  compileOptions.maxRegisters = options->maxRegisters;
  compileOptions.raisePagedLoads = options->raisePagedLoads;
  compileOptions.forwardStores = options->forwardStores;
  switch (options->emit) {
  case QUIRE_EMIT_PTX:
    compileOptions.emit = EmitKind::PTX;
    break;
  case QUIRE_EMIT_CUBIN:
    compileOptions.emit = EmitKind::Cubin;
    break;
  case QUIRE_EMIT_META:
    compileOptions.emit = EmitKind::Meta;
    break;
  case QUIRE_EMIT_TILE:
    compileOptions.emit = EmitKind::Tile;
    break;
  case QUIRE_EMIT_LLVM_MLIR:
    compileOptions.emit = EmitKind::LLVMMLIR;
    break;
  case QUIRE_EMIT_LLVM_IR:
    compileOptions.emit = EmitKind::LLVMIR;
    break;
  default:
    return makeError("unknown emit kind " + llvm::Twine(options->emit));
  }

  auto *result = new QuireResult();
  CompileResult compiled;
  llvm::raw_string_ostream irDump(result->irDump);
  if (options->dumpIR) {
    compileOptions.printIRAfterAll = true;
    compileOptions.irDumpStream = &irDump;
  }
  {
    std::lock_guard<std::mutex> lock(compileMutex());
    result->succeeded = succeeded(compileKernel(
        llvm::StringRef(source ? source : "", size), bufferNameOr(bufferName),
        compileOptions, compiled, result->diagnostics));
  }
  irDump.flush();
  // The PTX whenever the pipeline got that far (ptxas may have failed).
  result->ptx = std::move(compiled.ptx);
  if (!result->succeeded)
    return result;
  result->output = std::move(compiled.output);
  result->metadata = kernelInfoToJSON(compiled.kernels);
  return result;
}

QuireResult *quireGetKernelInfo(const char *source, size_t size,
                                const char *bufferName) {
  if (!source && size)
    return makeError("quireGetKernelInfo: source is NULL");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  auto *result = new QuireResult();
  llvm::raw_string_ostream diagnostics(result->diagnostics);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseModule(llvm::StringRef(source ? source : "", size),
                  bufferNameOr(bufferName), context, sourceMgr, diagnostics);
  if (!module)
    return result;
  std::vector<KernelInfo> kernels = collectSignatures(*module);
  if (kernels.empty()) {
    diagnostics << "error: no kernel in the input (a kernel is a func.func "
                   "with tile.kernel)\n";
    return result;
  }
  result->metadata = kernelInfoToJSON(kernels);
  result->succeeded = true;
  return result;
}

//===----------------------------------------------------------------------===//
// Interpreting
//===----------------------------------------------------------------------===//

QuireResult *quireInterpret(const char *source, size_t size,
                            const char *bufferName, const char *kernelName,
                            const int64_t grid[3], const QuireInterpArg *args,
                            size_t numArgs) {
  if (!source && size)
    return makeError("quireInterpret: source is NULL");
  if (!grid)
    return makeError("quireInterpret: grid is NULL");
  if (!args && numArgs)
    return makeError("quireInterpret: args is NULL");

  // Bind before parsing: argument mistakes are cheaper to report.
  llvm::SmallVector<InterpBuffer> buffers;
  llvm::SmallVector<InterpArg> interpArgs;
  for (size_t i = 0; i < numArgs; ++i) {
    const QuireInterpArg &arg = args[i];
    switch (arg.kind) {
    case QUIRE_INTERP_ARG_BUFFER: {
      if (!arg.data && arg.bytes)
        return makeError("argument #" + llvm::Twine(i) + ": buffer of " +
                         llvm::Twine(arg.bytes) + " bytes has no data");
      InterpBuffer buffer;
      buffer.data = arg.data;
      buffer.bytes = arg.bytes;
      buffer.readOnly = arg.readOnly != 0;
      interpArgs.push_back(
          InterpArg::getBuffer(static_cast<unsigned>(buffers.size())));
      buffers.push_back(buffer);
      break;
    }
    case QUIRE_INTERP_ARG_INT:
      interpArgs.push_back(InterpArg::getInt(arg.intValue));
      break;
    case QUIRE_INTERP_ARG_FLOAT:
      interpArgs.push_back(InterpArg::getFloat(arg.floatValue));
      break;
    default:
      return makeError("argument #" + llvm::Twine(i) + ": unknown kind " +
                       llvm::Twine(arg.kind));
    }
  }

  DialectRegistry registry;
  registerInterpreterDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  auto *result = new QuireResult();
  llvm::raw_string_ostream diagnostics(result->diagnostics);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module =
      parseModule(llvm::StringRef(source ? source : "", size),
                  bufferNameOr(bufferName), context, sourceMgr, diagnostics);
  if (!module)
    return result;

  std::string error;
  func::FuncOp kernel =
      findKernel(*module, kernelName ? kernelName : "", error);
  if (!kernel || failed(prepareForInterpreter(*module, error))) {
    diagnostics << error << "\n";
    return result;
  }
  std::array<int64_t, 3> gridSize = {grid[0], grid[1], grid[2]};
  if (failed(interpretKernel(kernel, buffers, interpArgs, gridSize, error))) {
    diagnostics << error << "\n";
    return result;
  }
  result->succeeded = true;
  return result;
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

int quireLaunchKernels(QuireCuLaunchKernel cuLaunchKernel,
                       const QuireLaunch *launches, size_t numLaunches,
                       const uint64_t *addresses, void *stream,
                       size_t *failed) {
  // CUDA_ERROR_INVALID_VALUE, as the driver answers a null argument.
  constexpr int invalidValue = 1;
  if (numLaunches && (!cuLaunchKernel || !launches)) {
    if (failed)
      *failed = 0;
    return invalidValue;
  }
  for (size_t i = 0; i < numLaunches; ++i) {
    const QuireLaunch &l = launches[i];
    if (l.numSlots &&
        (!addresses || !l.buffer || !l.slotOffsets || !l.slotIndices)) {
      if (failed)
        *failed = i;
      return invalidValue;
    }
    for (uint32_t s = 0; s < l.numSlots; ++s) {
      uint64_t address = addresses[l.slotIndices[s]];
      unsigned char *slot = l.buffer + l.slotOffsets[s];
      for (int byte = 0; byte < 8; ++byte)
        slot[byte] = static_cast<unsigned char>(address >> (8 * byte));
    }
    int status = cuLaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2],
                                l.block[0], l.block[1], l.block[2],
                                l.sharedBytes, stream, l.params, nullptr);
    if (status != 0) {
      if (failed)
        *failed = i;
      return status;
    }
  }
  return 0;
}
