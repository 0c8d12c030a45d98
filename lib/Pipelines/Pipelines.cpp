//===- Pipelines.cpp - Quire's pass pipelines and compile driver ----------===//

#include "quire/Pipelines/Pipelines.h"

#include "quire/Conversion/TileToLLVM.h"
#include "quire/Dialect/Tile/IR/Tile.h"
#include "quire/Dialect/Tile/Transforms/Passes.h"
#include "quire/InitAll.h"
#include "quire/Target/NVPTX/EmitPTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::quire;

LogicalResult mlir::quire::checkNestingDepth(llvm::StringRef source,
                                             llvm::StringRef name,
                                             unsigned limit,
                                             llvm::raw_ostream &diag) {
  // The open brackets; a closer closes only its own kind, so the `>` of
  // `>=` inside parentheses closes nothing (nor does `->`'s). `<=` opens
  // nothing, and a `<` that never closes is dropped when an outer bracket
  // closes.
  SmallVector<char> open;
  unsigned line = 1, col = 0;
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    } else if (c == '"') { // string literal, with escapes
      for (++i; i < source.size() && source[i] != '"'; ++i) {
        if (source[i] == '\\')
          ++i;
        else if (source[i] == '\n')
          break;
      }
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      while (i + 1 < source.size() && source[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' ||
               (c == '<' && (i + 1 == source.size() || source[i + 1] != '='))) {
      open.push_back(c);
      if (open.size() > limit) {
        diag << name << ":" << line << ":" << col
             << ": error: not supported: brackets nested deeper than " << limit
             << " levels\n";
        return failure();
      }
    } else if (c == '>' && (i == 0 || source[i - 1] != '-')) {
      if (!open.empty() && open.back() == '<')
        open.pop_back();
    } else if (c == ')' || c == ']' || c == '}') {
      char opener = c == ')' ? '(' : c == ']' ? '[' : '{';
      auto at = llvm::find(llvm::reverse(open), opener);
      // Pop it and the `<`s above it (comparisons, not brackets); a closer
      // without its opener closes nothing (the parser reports it).
      if (at != open.rend() && llvm::all_of(llvm::make_range(open.rbegin(), at),
                                            [](char o) { return o == '<'; }))
        open.resize(open.rend() - at - 1);
    }
  }
  return success();
}

LogicalResult mlir::quire::checkSourceBytes(llvm::StringRef source,
                                            llvm::StringRef name,
                                            llvm::raw_ostream &diag) {
  auto fail = [&](size_t offset, llvm::StringRef what) {
    llvm::StringRef before = source.take_front(offset);
    diag << name << ":" << before.count('\n') + 1 << ":"
         << offset - (before.rfind('\n') + 1) + 1 << ": error: " << what
         << "\n";
    return failure();
  };
  if (size_t nul = source.find('\0'); nul != llvm::StringRef::npos)
    return fail(nul, "a NUL byte in the source");
  auto *begin = reinterpret_cast<const llvm::UTF8 *>(source.data());
  const llvm::UTF8 *at = begin;
  if (!llvm::isLegalUTF8String(&at, begin + source.size()))
    return fail(at - begin, "the source is not UTF-8");
  return success();
}

LogicalResult mlir::quire::checkSource(llvm::StringRef source,
                                       llvm::StringRef name,
                                       llvm::raw_ostream &diag) {
  return success(
      succeeded(checkSourceBytes(source, name, diag)) &&
      succeeded(checkNestingDepth(source, name, kMaxNestingDepth, diag)));
}

mlir::quire::ClippedDiagnosticHandler::ClippedDiagnosticHandler(
    llvm::SourceMgr &mgr, MLIRContext *ctx, llvm::raw_ostream &os)
    : SourceMgrDiagnosticHandler(mgr, ctx, os) {
  setHandler([this](Diagnostic &diag) { emit(diag); });
}

void mlir::quire::ClippedDiagnosticHandler::emit(Diagnostic &diag) {
  SmallVector<Diagnostic *> all = {&diag};
  for (Diagnostic &note : diag.getNotes())
    all.push_back(&note);
  SmallVector<std::optional<llvm::StringRef>> lines;
  for (Diagnostic *d : all)
    lines.push_back(longLine(d->getLocation()));
  if (llvm::none_of(lines, [](auto &line) { return line.has_value(); }))
    return SourceMgrDiagnosticHandler::emitDiagnostic(diag);
  for (auto [d, line] : llvm::zip(all, lines)) {
    if (line)
      emitClipped(d->getLocation(), d->str(), d->getSeverity(), *line);
    else
      emitDiagnostic(d->getLocation(), d->str(), d->getSeverity());
  }
}

std::optional<llvm::StringRef>
mlir::quire::ClippedDiagnosticHandler::longLine(Location loc) {
  auto file = loc->findInstanceOf<FileLineColLoc>();
  if (!file || file.getLine() == 0)
    return std::nullopt;
  const llvm::MemoryBuffer *buffer = getBufferForFile(file.getFilename());
  if (!buffer)
    return std::nullopt;
  unsigned id = mgr.FindBufferContainingLoc(
      llvm::SMLoc::getFromPointer(buffer->getBufferStart()));
  llvm::SMLoc start =
      id ? mgr.FindLocForLineAndColumn(id, file.getLine(), 1) : llvm::SMLoc();
  if (!start.isValid())
    return std::nullopt;
  llvm::StringRef line =
      llvm::StringRef(start.getPointer(),
                      buffer->getBufferEnd() - start.getPointer())
          .take_until([](char c) { return c == '\n'; });
  if (line.size() <= kMaxShownColumns)
    return std::nullopt;
  return line;
}

void mlir::quire::ClippedDiagnosticHandler::emitClipped(Location loc,
                                                        const Twine &message,
                                                        DiagnosticSeverity kind,
                                                        llvm::StringRef line) {
  emitDiagnostic(loc, message, kind, /*displaySourceLine=*/false);
  auto file = loc->findInstanceOf<FileLineColLoc>();
  size_t col =
      std::min<size_t>(std::max(file.getColumn(), 1u) - 1, line.size());
  size_t half = kMaxShownColumns / 2;
  size_t begin = col > half ? col - half : 0;
  size_t end = std::min(line.size(), begin + kMaxShownColumns);
  llvm::StringRef before = begin ? "..." : "";
  os << before << line.slice(begin, end) << (end < line.size() ? "..." : "")
     << "\n"
     << std::string(before.size() + col - begin, ' ') << "^\n";
}

std::unique_ptr<llvm::MemoryBuffer>
mlir::quire::readSource(llvm::StringRef path, std::string &error) {
  namespace fs = llvm::sys::fs;
  bool fromStdin = path == "-";
  fs::file_t handle = fs::getStdinHandle();
  if (!fromStdin) {
    llvm::Expected<fs::file_t> opened = fs::openNativeFileForRead(path);
    if (!opened) {
      error = "cannot open input file '" + path.str() +
              "': " + llvm::toString(opened.takeError());
      return nullptr;
    }
    handle = *opened;
  }
  // (Read in chunks: a pipe or a device has no size to ask for.)
  llvm::SmallVector<char, 0> data;
  constexpr size_t chunk = 1 << 20;
  for (;;) {
    if (data.size() > kMaxSourceBytes) {
      error = "input file '" + path.str() + "' holds more than " +
              std::to_string(kMaxSourceBytes >> 20) +
              " MiB: not a kernel source";
      break;
    }
    size_t at = data.size();
    data.resize_for_overwrite(at + chunk);
    llvm::Expected<size_t> n =
        fs::readNativeFile(handle, llvm::MutableArrayRef<char>(data).slice(at));
    if (!n) {
      error = "cannot read input file '" + path.str() +
              "': " + llvm::toString(n.takeError());
      break;
    }
    data.truncate(at + *n);
    if (*n == 0)
      break;
  }
  if (!fromStdin)
    fs::closeFile(handle);
  if (!error.empty())
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(data.data(), data.size()), fromStdin ? "<stdin>" : path);
}

void mlir::quire::buildTilePipeline(OpPassManager &pm,
                                    const PipelineOptions &options) {
  pm.addPass(tile::createLowerDescriptors());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // A producer warpgroup is a producer.
  bool specialize = options.warpSpecialize || options.producerWarpgroup;
  // A program's reloads of what it stored (a scratch buffer of offsets)
  // read the stored values: natural gathers for the raising below.
  if (options.forwardStores) {
    pm.addPass(tile::createForwardStores());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Strides a loop carries (`p += s`) become functions of the induction
  // variable once their invariant parts are hoisted.
  if (options.stridedIterArgs) {
    pm.addPass(createLoopInvariantCodeMotionPass());
    pm.addPass(tile::createStridedIterArgs());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Natural paged gathers become tile.paged_load, lowered below.
  if (options.raisePagedLoads && !options.pagedChecked) {
    pm.addPass(tile::createRaisePagedLoads());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Staging dot operands with cp.async (sm_80+) subsumes the register
  // prefetches for them: it issues the tiles, and the block-table entries
  // they need, `stages` iterations ahead itself. So the paged prefetch is
  // off then, and quire-pipeline-loads leaves it the dot operands it can
  // stage (it still prefetches the others: runs under 4 bytes).
  bool async = options.asyncStages >= 2 && options.sm >= 80;
  tile::LowerPagedLoadsOptions paged;
  paged.prefetch = options.pagedPrefetch && !async;
  paged.singlePage = options.pagedSinglePage;
  paged.shifts = options.pagedShifts;
  paged.checked = options.pagedChecked;
  pm.addPass(tile::createLowerPagedLoads(paged));
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.pipelineMaxRegisters > 0) {
    tile::PipelineLoadsOptions pipelining;
    pipelining.numWarps = options.numWarps;
    pipelining.maxRegisters = options.pipelineMaxRegisters;
    pipelining.skipDotOperands = async;
    pipelining.tmaOperands = async && options.wgmma && options.sm == 90 &&
                             (options.tma || options.tmaRelease || specialize);
    pm.addPass(tile::createPipelineLoads(pipelining));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // wgmma (sm_90) reads dot operands from the async staging buffers.
  bool warpgroup = async && options.wgmma && options.sm == 90;
  tile::AssignLayoutsOptions layouts;
  layouts.numWarps = options.numWarps;
  layouts.mma = options.mma;
  layouts.warpgroup = warpgroup;
  layouts.wideFp8Operands = options.wideFp8Operands;
  layouts.gatheredRows = options.gatheredRows;
  pm.addPass(tile::createAssignLayouts(layouts));
  if (async) {
    tile::AsyncCopiesOptions copies;
    copies.stages = options.asyncStages;
    copies.warpgroup = warpgroup;
    copies.eagerRefill = options.asyncEagerRefill;
    copies.asyncWgmma = options.asyncWgmma;
    // The producer warp needs release mbarriers, which need TMA.
    copies.tma = options.tma || options.tmaRelease || specialize;
    copies.tmaRelease = options.tmaRelease || specialize;
    copies.pingpong = options.pingpong;
    // quire-warp-specialize moves the invariant operands after its split.
    copies.sharedInvariantOperands = !(warpgroup && specialize);
    pm.addPass(tile::createAsyncCopies(copies));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (warpgroup && specialize) {
      tile::WarpSpecializeOptions producer;
      producer.producerWarpgroup = options.producerWarpgroup;
      producer.producerRegisters = options.producerRegisters;
      // With the softmax overlap, that pass places the turns (around both
      // dots of an iteration) instead.
      producer.pingpong = options.pingpong && !options.overlapSoftmax;
      pm.addPass(tile::createWarpSpecialize(producer));
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
    if (warpgroup && specialize && options.overlapSoftmax) {
      tile::OverlapSoftmaxOptions overlap;
      overlap.pingpong = options.pingpong;
      overlap.earlyRelease = options.earlyRelease;
      overlap.orderedRelease = options.orderedRelease;
      overlap.convertAfterWait = options.convertAfterWait;
      pm.addPass(tile::createOverlapSoftmax(overlap));
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
    if (warpgroup && options.earlyDots) {
      pm.addPass(tile::createEarlyDots());
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
    if (warpgroup && options.pingpong) {
      pm.addPass(tile::createPingPong());
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
    }
  }
  // Last: the passes above match loops without its branches.
  if (options.skipUnitRescale)
    pm.addPass(tile::createSkipUnitRescale());
  // After every pass that matches one loop.
  if (options.splitIterations) {
    pm.addPass(tile::createSplitIterations());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
}

void mlir::quire::buildLLVMPipeline(OpPassManager &pm,
                                    const PipelineOptions &options) {
  buildTilePipeline(pm, options);
  ConvertTileToLLVMOptions convert;
  convert.sm = options.sm;
  convert.sharedBuffers = options.sharedBuffers;
  convert.maxRegisters = options.maxRegisters;
  convert.swizzleStaging = options.swizzleStaging;
  pm.addPass(createConvertTileToLLVM(convert));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// What is wrong with the numeric options the pipelines and the driver
/// share (empty if nothing); `dash` prefixes each option's name.
template <typename Options>
static std::string badOptions(const Options &o, llvm::StringRef dash) {
  std::string msg;
  llvm::raw_string_ostream os(msg);
  unsigned numWarps = o.numWarps, sharedBuffers = o.sharedBuffers,
           asyncStages = o.asyncStages, maxRegisters = o.maxRegisters,
           producerRegisters = o.producerRegisters;
  if (!isSupportedSM(o.sm))
    os << "not supported: " << dash << "sm " << static_cast<unsigned>(o.sm)
       << " (supported: 80, 86, 89, 90)";
  else if (!tile::isNumWarps(numWarps))
    os << dash << "num-warps must be a power of two in [1, 32], got "
       << numWarps;
  else if (sharedBuffers < 1 || sharedBuffers > 2)
    os << dash << "shared-buffers must be 1 or 2, got " << sharedBuffers;
  else if (asyncStages > 8)
    os << dash << "async-stages must be at most 8, got " << asyncStages;
  else if (!isMaxRegisters(maxRegisters))
    os << dash << "max-registers must be 0 (no cap) or in [24, 255], got "
       << maxRegisters;
  else if (!tile::isProducerRegisters(producerRegisters))
    os << dash
       << "producer-registers must be 0 (the estimate) or a multiple of 8 "
          "in [24, 256], got "
       << producerRegisters;
  return msg;
}

/// Registers a pipeline whose options are checked as quirec checks its
/// flags: bad values are an error, not a pass that divides by zero.
static void registerCheckedPipeline(llvm::StringRef arg,
                                    llvm::StringRef description,
                                    void (*build)(OpPassManager &,
                                                  const PipelineOptions &)) {
  std::string name = arg.str();
  registerPassPipeline(
      arg, description,
      [name, build](OpPassManager &pm, llvm::StringRef text,
                    function_ref<LogicalResult(const Twine &)> error) {
        PipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (std::string bad = badOptions(options, ""); !bad.empty())
          return error(name + ": " + bad);
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(PipelineOptions());
      });
}

void mlir::quire::registerPipelines() {
  registerCheckedPipeline(
      "quire-tile-pipeline",
      "canonicalize, lower paged loads and assign layouts (tile -> tile)",
      buildTilePipeline);
  registerCheckedPipeline(
      "quire-llvm-pipeline",
      "the tile pipeline, then tile -> LLVM + NVVM dialects",
      buildLLVMPipeline);
}

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

/// Signature metadata, read before lowering erases the tile types.
static std::vector<KernelInfo> collectKernels(ModuleOp module,
                                              unsigned numWarps) {
  std::vector<KernelInfo> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!tile::isKernel(func))
      continue;
    KernelInfo k;
    k.name = func.getName().str();
    k.threads = numWarps * 32;
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
      KernelArgInfo a;
      a.type = typeString(t);
      if (isa<tile::PointerType>(t)) {
        a.kind = "ptr";
        a.bits = 64;
      } else if (isa<tile::TensorMapType>(t)) {
        a.kind = "tensormap"; // 128 bytes by value (a CUtensorMap)
        a.bits = 1024;
      } else {
        a.kind = isa<FloatType>(t) ? "float" : "int";
        a.bits = t.getIntOrFloatBitWidth();
      }
      if (auto d = func.getArgAttrOfType<IntegerAttr>(
              i, tile::TileDialect::getDivisibilityAttrName()))
        a.divisibility = d.getInt();
      k.args.push_back(a);
    }
    kernels.push_back(k);
  }
  return kernels;
}

std::string
mlir::quire::kernelInfoToJSON(const std::vector<KernelInfo> &kernels) {
  llvm::json::Array array;
  for (const KernelInfo &k : kernels) {
    llvm::json::Array args;
    for (const KernelArgInfo &a : k.args)
      args.push_back(llvm::json::Object{{"kind", a.kind},
                                        {"type", a.type},
                                        {"bits", a.bits},
                                        {"divisibility", a.divisibility}});
    array.push_back(llvm::json::Object{{"name", k.name},
                                       {"args", std::move(args)},
                                       {"threads", k.threads},
                                       {"shared_bytes", k.sharedBytes}});
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"kernels", std::move(array)}}));
  return s;
}

static std::string printOp(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

LogicalResult mlir::quire::compileKernel(StringRef source, StringRef bufferName,
                                         const CompileOptions &options,
                                         CompileResult &result,
                                         std::string &diagnostics) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.disableMultithreading();
  context.loadAllAvailableDialects();

  llvm::raw_string_ostream diagOS(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  ClippedDiagnosticHandler handler(sourceMgr, &context, diagOS);

  if (std::string bad = badOptions(options, "--"); !bad.empty()) {
    diagOS << "error: " << bad << "\n";
    return failure();
  }
  if (failed(checkSource(source, bufferName, diagOS)))
    return failure();
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return failure();
  std::vector<KernelInfo> kernels = collectKernels(*module, options.numWarps);
  if (kernels.empty()) {
    emitError(module->getLoc())
        << "no kernel in the input (a kernel is a func.func with tile.kernel)";
    return failure();
  }

  PassManager pm(&context);
  if (options.printIRAfterAll) {
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false,
                        /*printAfterOnlyOnFailure=*/false,
                        options.irDumpStream ? *options.irDumpStream
                                             : llvm::errs());
  }
  DefaultTimingManager tm;
  TimingScope rootTiming;
  if (options.timePasses) {
    tm.setEnabled(true);
    rootTiming = tm.getRootScope();
    pm.enableTiming(rootTiming);
  }
  PipelineOptions popts;
  popts.sm = options.sm;
  popts.numWarps = options.numWarps;
  popts.pagedPrefetch = options.pagedPrefetch;
  popts.pagedSinglePage = options.pagedSinglePage;
  popts.pagedShifts = options.pagedShifts;
  popts.pagedChecked = options.pagedChecked;
  popts.pipelineMaxRegisters = options.pipelineMaxRegisters;
  popts.mma = options.mma;
  popts.sharedBuffers = options.sharedBuffers;
  popts.asyncStages = options.asyncStages;
  popts.wgmma = options.wgmma;
  popts.asyncWgmma = options.asyncWgmma;
  popts.tma = options.tma;
  popts.tmaRelease = options.tmaRelease;
  popts.warpSpecialize = options.warpSpecialize;
  popts.producerWarpgroup = options.producerWarpgroup;
  popts.producerRegisters = options.producerRegisters;
  popts.earlyDots = options.earlyDots;
  popts.overlapSoftmax = options.overlapSoftmax;
  popts.earlyRelease = options.earlyRelease;
  popts.orderedRelease = options.orderedRelease;
  popts.convertAfterWait = options.convertAfterWait;
  popts.skipUnitRescale = options.skipUnitRescale;
  popts.splitIterations = options.splitIterations;
  popts.pingpong = options.pingpong;
  popts.wideFp8Operands = options.wideFp8Operands;
  popts.gatheredRows = options.gatheredRows;
  popts.asyncEagerRefill = options.asyncEagerRefill;
  popts.stridedIterArgs = options.stridedIterArgs;
  popts.raisePagedLoads = options.raisePagedLoads;
  popts.forwardStores = options.forwardStores;
  popts.swizzleStaging = options.swizzleStaging;
  popts.maxRegisters = options.maxRegisters;
  if (options.emit == EmitKind::Tile)
    buildTilePipeline(pm, popts);
  else
    buildLLVMPipeline(pm, popts);
  if (failed(pm.run(*module)))
    return failure();
  if (options.emit == EmitKind::Tile) {
    result.output = printOp(*module);
    result.kernels = kernels;
    return success();
  }
  for (KernelInfo &k : kernels)
    if (auto f = module->lookupSymbol<LLVM::LLVMFuncOp>(k.name)) {
      if (auto b = f->getAttrOfType<IntegerAttr>(
              tile::TileDialect::getSharedBytesAttrName()))
        k.sharedBytes = b.getInt();
      // Producer warps (quire-warp-specialize) widen the CTA.
      if (auto t = f->getAttrOfType<DenseI32ArrayAttr>(
              NVVM::NVVMDialect::getMaxntidAttrName()))
        k.threads = t.asArrayRef()[0];
    }
  result.kernels = kernels;
  if (options.emit == EmitKind::LLVMMLIR) {
    result.output = printOp(*module);
    return success();
  }
  std::string llvmIR;
  PTXOptions ptxOptions;
  ptxOptions.sm = options.sm;
  ptxOptions.lsr = options.loopStrengthReduction;
  ptxOptions.fpFusion = options.fpFusion;
  ptxOptions.llvmIR = &llvmIR;
  FailureOr<std::string> ptx;
  {
    std::optional<TimingScope> scope;
    if (options.timePasses)
      scope.emplace(rootTiming.nest("NVPTX backend (O3 + PTX)"));
    ptx = translateToPTX(*module, ptxOptions);
  }
  if (failed(ptx))
    return failure();
  result.ptx = *ptx;
  switch (options.emit) {
  case EmitKind::LLVMIR:
    result.output = llvmIR;
    return success();
  case EmitKind::PTX:
    result.output = *ptx;
    return success();
  case EmitKind::Meta:
    result.output = kernelInfoToJSON(kernels);
    return success();
  case EmitKind::Cubin: {
    std::string error;
    FailureOr<std::string> cubin = assembleCubin(*ptx, options.sm, error);
    if (failed(cubin)) {
      diagOS << "error: " << error << "\n";
      return failure();
    }
    result.output = *cubin;
    return success();
  }
  default:
    return success();
  }
}
