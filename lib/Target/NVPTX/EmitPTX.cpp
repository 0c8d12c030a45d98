//===- EmitPTX.cpp - LLVM dialect kernels to PTX and cubin ----------------===//

#include "quire/Target/NVPTX/EmitPTX.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <mutex>

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
  });
}

/// True if the module issues wgmma (inline PTX): it needs sm_90a.
static bool usesWgmma(const llvm::Module &module) {
  for (const llvm::Function &f : module)
    for (const llvm::Instruction &inst : llvm::instructions(f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
        if (auto *ia =
                llvm::dyn_cast<llvm::InlineAsm>(call->getCalledOperand()))
          if (llvm::StringRef(ia->getAsmString()).contains("wgmma."))
            return true;
  return false;
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
  // wgmma needs sm_90a, PTX ISA 8.0.
  bool archSpecific = options.sm == 90 && usesWgmma(*llvmModule);
  std::string cpu =
      "sm_" + std::to_string(options.sm) + (archSpecific ? "a" : "");
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, archSpecific ? "+ptx80" : "+ptx78", llvm::TargetOptions(),
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
    mpm.run(*llvmModule, mam);
  }
  if (options.llvmIR) {
    llvm::raw_string_ostream os(*options.llvmIR);
    llvmModule->print(os, nullptr);
  }

  llvm::SmallString<0> ptx;
  {
    llvm::raw_svector_ostream os(ptx);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr,
                                     llvm::CodeGenFileType::AssemblyFile)) {
      module.emitError() << "NVPTX cannot emit PTX for this module";
      return failure();
    }
    pm.run(*llvmModule);
  }
  return std::string(ptx.str());
}

std::string mlir::quire::findPTXAS() {
  if (const char *env = std::getenv("QUIRE_PTXAS"))
    if (llvm::sys::fs::can_execute(env))
      return env;
#ifdef QUIRE_CUDA_PTXAS
  if (llvm::sys::fs::can_execute(QUIRE_CUDA_PTXAS))
    return QUIRE_CUDA_PTXAS;
#endif
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  return "";
}

FailureOr<std::string> mlir::quire::assembleCubin(StringRef ptx, unsigned sm,
                                                  std::string &error) {
  std::string ptxas = findPTXAS();
  if (ptxas.empty()) {
    error = "ptxas not found (install the CUDA toolkit or set QUIRE_PTXAS)";
    return failure();
  }
  llvm::SmallString<128> in, out, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("quire", "ptx", fd, in) ||
      llvm::sys::fs::createTemporaryFile("quire", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("quire", "log", log)) {
    error = "cannot create temporary files for ptxas";
    return failure();
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
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects);
  auto cleanup = [&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(log);
  };
  if (rc != 0) {
    auto msg = llvm::MemoryBuffer::getFile(log);
    error =
        "ptxas failed: " + (msg ? (*msg)->getBuffer().str() : std::string());
    cleanup();
    return failure();
  }
  auto bin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  std::string cubin = bin ? (*bin)->getBuffer().str() : "";
  cleanup();
  return cubin;
}
