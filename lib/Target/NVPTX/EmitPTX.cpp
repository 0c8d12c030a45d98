//===- EmitPTX.cpp - LLVM dialect kernels to PTX and cubin ----------------===//

#include "quire/Target/NVPTX/EmitPTX.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Scalar/DCE.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>

using namespace mlir;

bool mlir::quire::isSupportedSM(unsigned sm) {
  return sm == 80 || sm == 86 || sm == 89 || sm == 90;
}

static void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // Shared, local and constant memory are addressed with 32-bit
    // pointers (as nvcc and Triton do): a staged copy's shared address is
    // one 32-bit register, not a 64-bit add. The target machine reads the
    // option when it is built, so it is set once before any is.
    if (auto *opt = static_cast<llvm::cl::opt<bool> *>(
            llvm::cl::getRegisteredOptions().lookup("nvptx-short-ptr")))
      opt->setValue(true);
  });
}

/// True if the module's inline PTX holds any of `instructions` (wgmma needs
/// sm_90a; mma.sync and wgmma are the tensor-core instructions).
static bool issues(const llvm::Module &module,
                   ArrayRef<StringRef> instructions) {
  for (const llvm::Function &f : module)
    for (const llvm::Instruction &inst : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (auto *ia =
                llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
          for (StringRef instr : instructions)
            if (StringRef(ia->getAsmString()).contains(instr))
              return true;
  return false;
}

namespace {
/// Gives a GEP with loop-invariant indices in a loop its own copy of its
/// source where the source is a GEP of the same loop, over a loop-invariant
/// pointer, with a varying index, and has other users, and where the GEP's
/// one user is another GEP with loop-invariant indices. LICM turns
/// gep(gep(p, v), i) into gep(gep(p, i), v) and hoists gep(p, i) only where
/// the inner GEP has one use; when two address chains share their varying
/// part (the copies of two consumer warpgroups' rows from one block-table
/// entry, merged by CSE), each would otherwise add its invariant offsets
/// inside the loop, a 64-bit add per offset per copy. A chain of one
/// invariant offset is left as it is: hoisting it saves no add and holds
/// another pointer through the loop; so is a constant offset, which LICM
/// does not reassociate. Run before LICM (docs/passes.md, "The NVPTX
/// backend").
struct UnshareGEPSources : llvm::PassInfoMixin<UnshareGEPSources> {
  llvm::PreservedAnalyses run(llvm::Function &f,
                              llvm::FunctionAnalysisManager &fam) {
    auto &loops = fam.getResult<llvm::LoopAnalysis>(f);
    bool changed = false;
    for (llvm::Instruction &inst : llvm::instructions(f)) {
      auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst);
      llvm::Loop *loop = gep ? loops.getLoopFor(gep->getParent()) : nullptr;
      if (!loop)
        continue;
      auto *source =
          llvm::dyn_cast<llvm::GetElementPtrInst>(gep->getPointerOperand());
      auto invariant = [&](llvm::Value *v) { return loop->isLoopInvariant(v); };
      auto *next =
          gep->hasOneUse()
              ? llvm::dyn_cast<llvm::GetElementPtrInst>(gep->user_back())
              : nullptr;
      if (!next || next->getPointerOperand() != gep ||
          gep->hasAllConstantIndices() || next->hasAllConstantIndices() ||
          !llvm::all_of(next->indices(), invariant) || !source ||
          source->hasOneUse() || !loop->contains(source) ||
          !invariant(source->getPointerOperand()) ||
          llvm::all_of(source->indices(), invariant) ||
          !llvm::all_of(gep->indices(), invariant))
        continue;
      llvm::Instruction *copy = source->clone();
      copy->insertBefore(gep->getIterator());
      gep->setOperand(0, copy);
      changed = true;
    }
    if (!changed)
      return llvm::PreservedAnalyses::all();
    llvm::PreservedAnalyses kept;
    kept.preserveSet<llvm::CFGAnalyses>();
    return kept;
  }
};
} // namespace

// LLVM's `disable-lsr` is a process-wide option: code generation reads it
// under a shared lock, and the one run without LSR holds the lock alone.
static std::shared_mutex lsrOptionMutex;

/// Code generation of `module` (which it changes) to PTX text.
static bool emitPTXText(llvm::TargetMachine &machine, llvm::Module &module,
                        bool lsr, llvm::SmallString<0> &ptx) {
  llvm::cl::opt<bool> *disableLSR = nullptr;
  if (!lsr)
    if (llvm::cl::Option *o =
            llvm::cl::getRegisteredOptions().lookup("disable-lsr"))
      disableLSR = static_cast<llvm::cl::opt<bool> *>(o);
  std::shared_lock<std::shared_mutex> shared(lsrOptionMutex, std::defer_lock);
  std::unique_lock<std::shared_mutex> alone(lsrOptionMutex, std::defer_lock);
  if (disableLSR) {
    alone.lock();
    disableLSR->setValue(true);
  } else {
    shared.lock();
  }
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager pm;
  bool failed = machine.addPassesToEmitFile(
      pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile);
  if (!failed)
    pm.run(module);
  if (disableLSR)
    disableLSR->setValue(false);
  return !failed;
}

/// How long ptxas may run before it counts as hung.
constexpr unsigned kPtxasSeconds = 600;

/// Runs ptxas on `ptx`; `log` gets its messages, `cubin` (if given) the
/// binary. False with the reason in `log` when it cannot run or fails.
static bool runPTXAS(StringRef ptx, unsigned sm, bool verbose, std::string &log,
                     std::string *cubin);

namespace {
/// What ptxas reports of one kernel.
struct KernelResources {
  unsigned registers = 0;
  unsigned spillBytes = 0;
  unsigned threads = 0;
};
} // namespace

/// Per kernel: the threads of its `.maxntid` in `ptx`, the registers and
/// spill bytes of ptxas's -v `log`.
static std::map<std::string, KernelResources> kernelResources(StringRef ptx,
                                                              StringRef log) {
  std::map<std::string, KernelResources> out;
  for (size_t at = ptx.find(".entry "); at != StringRef::npos;
       at = ptx.find(".entry ", at + 1)) {
    StringRef rest = ptx.drop_front(at + 7);
    std::string name =
        rest.take_until([](char c) { return c == '('; }).trim().str();
    size_t body = rest.find('{');
    StringRef head = rest.take_front(body);
    size_t nt = head.find(".maxntid");
    if (nt == StringRef::npos)
      nt = head.find(".reqntid");
    if (nt == StringRef::npos)
      continue;
    unsigned threads = 1;
    StringRef dims =
        head.drop_front(nt + 8).take_until([](char c) { return c == '\n'; });
    SmallVector<StringRef> parts;
    dims.split(parts, ',');
    for (StringRef d : parts) {
      unsigned v = 0;
      if (d.trim().getAsInteger(10, v) || v == 0)
        return {};
      threads *= v;
    }
    out[name].threads = threads;
  }
  std::string current;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    size_t at = line.find("Compiling entry function '");
    if (at != StringRef::npos) {
      current = line.drop_front(at + 26)
                    .take_until([](char c) { return c == '\''; })
                    .str();
      continue;
    }
    if (!out.count(current))
      continue;
    if ((at = line.find("Used ")) != StringRef::npos) {
      unsigned v = 0;
      if (!line.drop_front(at + 5)
               .take_until([](char c) { return c == ' '; })
               .getAsInteger(10, v))
        out[current].registers = v;
    }
    if ((at = line.find(" bytes spill stores")) != StringRef::npos) {
      StringRef before = line.take_front(at).rtrim();
      unsigned v = 0;
      if (!before.substr(before.rfind(' ') + 1).getAsInteger(10, v))
        out[current].spillBytes = v;
    }
  }
  return out;
}

/// CTAs of `k` resident on one SM as its registers and threads allow
/// (registers are allocated per warp, in units of 8 per thread).
static unsigned residentCTAs(const KernelResources &k, unsigned sm) {
  unsigned maxWarps = (sm == 86 || sm == 89) ? 48 : 64;
  unsigned maxCTAs = sm == 86 ? 16 : sm == 89 ? 24 : 32;
  unsigned warps = (k.threads + 31) / 32;
  unsigned regs = std::max(8u, (k.registers + 7) / 8 * 8);
  unsigned byRegisters = 65536 / (regs * 32 * warps);
  return std::min({byRegisters, maxWarps / warps, maxCTAs});
}

/// True when ptxas gives every kernel of `without` (PTX made without loop
/// strength reduction) at least the resident CTAs of `with`, no more spills,
/// and one kernel more CTAs. False when ptxas is not there.
static bool moreResidentWithoutLSR(StringRef with, StringRef without,
                                   unsigned sm) {
  std::string logWith, logWithout;
  bool okWith = false;
  std::thread other(
      [&] { okWith = runPTXAS(with, sm, /*verbose=*/true, logWith, nullptr); });
  bool okWithout = runPTXAS(without, sm, /*verbose=*/true, logWithout, nullptr);
  other.join();
  if (!okWith || !okWithout)
    return false;
  auto a = kernelResources(with, logWith);
  auto b = kernelResources(without, logWithout);
  if (a.empty() || a.size() != b.size())
    return false;
  bool gains = false;
  for (auto &[name, ka] : a) {
    auto it = b.find(name);
    if (it == b.end() || !ka.registers || !it->second.registers)
      return false;
    unsigned ca = residentCTAs(ka, sm), cb = residentCTAs(it->second, sm);
    if (cb < ca || it->second.spillBytes > ka.spillBytes)
      return false;
    gains |= cb > ca;
  }
  return gains;
}

FailureOr<std::string> mlir::quire::translateToPTX(ModuleOp module,
                                                   const PTXOptions &options) {
  if (!isSupportedSM(options.sm)) {
    module.emitError() << "not supported: sm_" << options.sm
                       << " (supported: 80, 86, 89, 90)";
    return failure();
  }
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "quire");
  if (!llvmModule) {
    module.emitError() << "failed to translate the kernel to LLVM IR";
    return failure();
  }

  initializeNVPTX();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    module.emitError() << "NVPTX target unavailable: " << error;
    return failure();
  }
  // PTX ISA 7.8 covers sm_80..sm_90 and is accepted by CUDA 12+ drivers;
  // wgmma and setmaxnreg need sm_90a, PTX ISA 8.0.
  bool archSpecific =
      options.sm == 90 && issues(*llvmModule, {"wgmma.", "setmaxnreg."});
  std::string cpu =
      "sm_" + std::to_string(options.sm) + (archSpecific ? "a" : "");
  llvm::TargetOptions targetOptions;
  targetOptions.AllowFPOpFusion =
      options.fpFusion ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Strict;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, archSpecific ? "+ptx80" : "+ptx78", targetOptions,
      std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(machine.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm =
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    llvm::FunctionPassManager addresses;
    addresses.addPass(UnshareGEPSources());
    addresses.addPass(llvm::createFunctionToLoopPassAdaptor(
        llvm::LICMPass(llvm::LICMOptions()), /*UseMemorySSA=*/true));
    addresses.addPass(llvm::DCEPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(addresses)));
    mpm.run(*llvmModule, mam);
  }
  if (options.llvmIR) {
    llvm::raw_string_ostream os(*options.llvmIR);
    llvmModule->print(os, nullptr);
  }

  // Loop strength reduction trades a multiply for a loop-carried register;
  // where ptxas shows that costs a kernel resident CTAs, it is left out.
  // Kernels with tensor-core instructions keep it (their ptxas runs are long,
  // and none measured lost occupancy to it).
  using LSR = LoopStrengthReduction;
  std::unique_ptr<llvm::Module> copy;
  if (options.lsr == LSR::Auto && !issues(*llvmModule, {"mma.sync", "wgmma."}))
    copy = llvm::CloneModule(*llvmModule);
  llvm::SmallString<0> ptx;
  if (!emitPTXText(*machine, *llvmModule, options.lsr != LSR::Off, ptx)) {
    module.emitError() << "NVPTX cannot emit PTX for this module";
    return failure();
  }
  StringRef text = ptx.str();
  if (copy) {
    llvm::SmallString<0> without;
    if (emitPTXText(*machine, *copy, /*lsr=*/false, without) &&
        without.str() != text &&
        moreResidentWithoutLSR(text, without.str(), options.sm))
      return std::string(without.str());
  }
  return std::string(text);
}

std::string mlir::quire::findPTXAS(std::string &error) {
  if (const char *env = std::getenv("QUIRE_PTXAS")) {
    if (llvm::sys::fs::can_execute(env))
      return env;
    error = std::string("QUIRE_PTXAS='") + env + "' is not an executable file";
    return "";
  }
#ifdef QUIRE_CUDA_PTXAS
  if (llvm::sys::fs::can_execute(QUIRE_CUDA_PTXAS))
    return QUIRE_CUDA_PTXAS;
#endif
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  error = "ptxas not found (install the CUDA toolkit or set QUIRE_PTXAS)";
  return "";
}

FailureOr<std::string> mlir::quire::assembleCubin(StringRef ptx, unsigned sm,
                                                  std::string &error) {
  std::string cubin;
  if (!runPTXAS(ptx, sm, /*verbose=*/false, error, &cubin))
    return failure();
  return cubin;
}

static bool runPTXAS(StringRef ptx, unsigned sm, bool verbose,
                     std::string &error, std::string *cubinOut) {
  std::string ptxas = mlir::quire::findPTXAS(error);
  if (ptxas.empty())
    return false;
  llvm::SmallString<128> in, out, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("quire", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("quire", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("quire", "log", log)) {
    error = "cannot create temporary files for ptxas";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  // PTX for the arch-specific target (wgmma) assembles only for it.
  bool archSpecific = ptx.contains(".target sm_" + std::to_string(sm) + "a");
  std::string arch =
      "-arch=sm_" + std::to_string(sm) + (archSpecific ? "a" : "");
  SmallVector<StringRef> args{ptxas, arch, "-O3", in, "-o", out};
  if (verbose)
    args.push_back("-v");
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  // Bounded: a ptxas that hangs would hold every compile of the process
  // (the C API serializes them); the largest kernels take seconds.
  std::string execError;
  int rc =
      llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                kPtxasSeconds, /*MemoryLimit=*/0, &execError);
  auto cleanup = [&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(log);
  };
  auto msg = llvm::MemoryBuffer::getFile(log);
  std::string messages = msg ? (*msg)->getBuffer().str() : std::string();
  if (rc != 0) {
    error = "ptxas (" + ptxas + ") failed";
    if (rc > 0)
      error += " with exit status " + std::to_string(rc);
    else if (!execError.empty())
      error += ": " + execError;
    error += messages.empty() ? "" : ":\n" + messages;
    cleanup();
    return false;
  }
  if (verbose)
    error = messages;
  if (cubinOut) {
    auto bin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
    *cubinOut = bin ? (*bin)->getBuffer().str() : "";
    if (cubinOut->empty()) {
      error = "ptxas (" + ptxas + ") exited 0 but wrote no cubin";
      cleanup();
      return false;
    }
  }
  cleanup();
  return true;
}
