//===- ExecutionEngine.cpp - C API: JIT compilation and lookup ------------===//
//
// The PosencJit entry points of include/posenc-c/Posenc.h: a lowered module
// JIT-compiled by MLIR's ExecutionEngine, with the shared libraries it needs
// loaded first (so that a missing library or symbol is an error that names
// it), and lookups of its functions. Calls go through posencJitCall
// (RuntimeChecks.cpp).
//
//===----------------------------------------------------------------------===//

#include "CAPIUtils.h"
#include "posenc/Conversion/TargetVectorWidth.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <functional>

using namespace mlir;
using namespace posenc::capi;

namespace {
/// The shared libraries a JIT-compiled module links: loaded into the
/// process, with the paths they were loaded from.
struct SharedLibraries {
  llvm::SmallVector<llvm::sys::DynamicLibrary> libraries;
  llvm::SmallVector<std::string> paths;
  /// Whether one of them hands its symbols to the engine through its init
  /// function rather than through dlsym (see ExecutionEngineOptions).
  bool exportThroughInit = false;
};
} // namespace

/// Loads the caller's libraries here rather than leave it to the
/// ExecutionEngine, which only prints a failure to stderr and carries on.
static LogicalResult loadSharedLibraries(const char *const *sharedLibs,
                                         size_t numSharedLibs,
                                         SharedLibraries &loaded,
                                         std::string &reason) {
  for (size_t i = 0; i < numSharedLibs; ++i) {
    if (!sharedLibs[i]) {
      reason = "posencJitCreate: null shared library path";
      return failure();
    }
    std::string path = sharedLibs[i];
    if (!llvm::sys::fs::exists(path)) {
      reason = "shared library '" + path + "' does not exist";
      return failure();
    }
    std::string loadError;
    auto library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &loadError);
    if (!library.isValid()) {
      reason = "cannot load shared library '" + path + "': " + loadError;
      return failure();
    }
    if (library.getAddressOfSymbol(ExecutionEngine::kLibraryInitFnName))
      loaded.exportThroughInit = true;
    loaded.libraries.push_back(library);
    loaded.paths.push_back(path);
  }
  return success();
}

/// Code from the OpenMP lowering (the fused path's parallel tile loop) calls
/// the OpenMP runtime (__kmpc_*), which the translation to LLVM IR
/// introduces: loads libomp from the LLVM library directory when `module`
/// uses OpenMP and the caller passed no OpenMP runtime.
static LogicalResult loadOpenMPRuntimeIfUsed(ModuleOp module,
                                             SharedLibraries &loaded,
                                             std::string &reason) {
  bool usesOpenMP = false;
  module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp") {
      usesOpenMP = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  bool hasOpenMPRuntime = llvm::any_of(loaded.paths, [](const std::string &p) {
    return llvm::sys::path::filename(p).contains("omp");
  });
  if (!usesOpenMP || hasOpenMPRuntime)
    return success();
  llvm::SmallString<256> path(POSENC_RUNTIME_LIBRARY_DIR);
  llvm::sys::path::append(path, "libomp.so");
  std::string loadError;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &loadError);
  if (!library.isValid()) {
    reason = ("the program uses OpenMP but the runtime '" + path +
              "' cannot be loaded: " + loadError)
                 .str();
    return failure();
  }
  loaded.libraries.push_back(library);
  loaded.paths.push_back(std::string(path));
  return success();
}

/// Checks that every external symbol the lowered module refers to resolves
/// in the process or in `libraries`. ORC would report a missing one on
/// stderr and answer lookups with a vague "failed to materialize"; this says
/// which symbol is missing and where it was looked for.
static bool checkExternalSymbolsResolve(
    ModuleOp module, llvm::ArrayRef<llvm::sys::DynamicLibrary> libraries,
    llvm::ArrayRef<std::string> libraryPaths, std::string &reason) {
  llvm::sys::DynamicLibrary process =
      llvm::sys::DynamicLibrary::getPermanentLibrary(nullptr);
  auto resolves = [&](llvm::StringRef name) {
    std::string symbol = name.str();
    if (process.isValid() && process.getAddressOfSymbol(symbol.c_str()))
      return true;
    return llvm::any_of(libraries, [&](llvm::sys::DynamicLibrary lib) {
      return lib.getAddressOfSymbol(symbol.c_str()) != nullptr;
    });
  };
  llvm::SmallVector<std::string> missing;
  // Only symbols that are used: the JIT never resolves an unused
  // declaration.
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!func.isExternal() || func.getLinkage() == LLVM::Linkage::ExternWeak ||
        func.getSymName().starts_with("llvm.") ||
        SymbolTable::symbolKnownUseEmpty(func, module))
      continue;
    if (!resolves(func.getSymName()))
      missing.push_back(func.getSymName().str());
  }
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    bool isDeclaration =
        !global.getValueOrNull() && !global.getInitializerBlock();
    if (!isDeclaration || global.getLinkage() == LLVM::Linkage::ExternWeak ||
        SymbolTable::symbolKnownUseEmpty(global, module))
      continue;
    if (!resolves(global.getSymName()))
      missing.push_back(global.getSymName().str());
  }
  if (missing.empty())
    return true;
  reason = "the lowered module refers to external symbols found neither in "
           "the process nor in the shared libraries given to the JIT (";
  reason += libraryPaths.empty() ? std::string("none")
                                 : llvm::join(libraryPaths, ", ");
  reason += "): " + llvm::join(missing, ", ");
  return false;
}

//===----------------------------------------------------------------------===//
// JIT
//===----------------------------------------------------------------------===//

PosencJit posencJitCreate(PosencModule module, int optLevel,
                          const char *const *sharedLibs, size_t numSharedLibs,
                          char **error) {
  clearError(error);
  auto fail = [&](const llvm::Twine &message) {
    setError(error, message);
    return PosencJit{nullptr};
  };
  if (!module.ptr)
    return fail("posencJitCreate: null module");
  if (optLevel < 0 || optLevel > 3)
    return fail("optimization level must be in [0, 3], got " +
                std::to_string(optLevel));
  if (numSharedLibs && !sharedLibs)
    return fail("posencJitCreate: null shared library list");
  initializeProcessOnce();
  ModuleStorage &storage = *unwrap(module);

  SharedLibraries loaded;
  std::string reason;
  if (failed(loadSharedLibraries(sharedLibs, numSharedLibs, loaded, reason)) ||
      failed(loadOpenMPRuntimeIfUsed(*storage.module, loaded, reason)))
    return fail(reason);
  if (!loaded.exportThroughInit &&
      !checkExternalSymbolsResolve(*storage.module, loaded.libraries,
                                   loaded.paths, reason))
    return fail(reason);

  auto targetMachineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!targetMachineBuilder)
    return fail("cannot detect the host target: " +
                llvm::toString(targetMachineBuilder.takeError()));
  // Features the pipeline was asked to compile for (--posenc-target-features),
  // on top of the host's: e.g. AVX2 code on an AVX-512 host.
  if (auto features =
          (*storage.module)
              ->getAttrOfType<StringAttr>(posenc::kTargetFeaturesAttrName)) {
    SmallVector<StringRef> list;
    features.getValue().split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef feature : list)
      targetMachineBuilder->getFeatures().AddFeature(feature.trim());
  }
  auto targetMachine = targetMachineBuilder->createTargetMachine();
  if (!targetMachine)
    return fail("cannot create a target machine for the host: " +
                llvm::toString(targetMachine.takeError()));

  llvm::SmallVector<llvm::StringRef> libraryRefs(loaded.paths.begin(),
                                                 loaded.paths.end());
  // ExecutionEngineOptions::transformer is a function_ref: the std::function
  // it refers to must outlive ExecutionEngine::create (ASan found the
  // temporary this used to be: stack-use-after-scope).
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/targetMachine->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.sharedLibPaths = libraryRefs;

  DiagnosticCollector diagnostics(storage.context, *storage.sourceMgr);
  auto engine = ExecutionEngine::create(*storage.module, options,
                                        std::move(*targetMachine));
  if (!engine)
    return fail(diagnostics.message("cannot JIT-compile the module: " +
                                    llvm::toString(engine.takeError())));
  registerRuntimeCheckSymbols(**engine);
  installRuntimeErrorHandlers(loaded.libraries);
  return PosencJit{engine->release()};
}

void posencJitDestroy(PosencJit jit) { delete unwrap(jit); }

void *posencJitLookup(PosencJit jit, const char *name, char **error) {
  clearError(error);
  if (!jit.ptr || !name) {
    setError(error, "posencJitLookup: null JIT or name");
    return nullptr;
  }
  auto address = unwrap(jit)->lookup(name);
  if (!address) {
    setError(error, "cannot find symbol '" + std::string(name) +
                        "' in the JIT: " +
                        llvm::toString(address.takeError()));
    return nullptr;
  }
  return *address;
}

PosencPackedFunction posencJitLookupPacked(PosencJit jit, const char *name,
                                           char **error) {
  clearError(error);
  if (!jit.ptr || !name) {
    setError(error, "posencJitLookupPacked: null JIT or name");
    return nullptr;
  }
  ExecutionEngine &engine = *unwrap(jit);
  // Look up before initializing: the lookup materializes the module and
  // reports unresolved symbols as an error, whereas initialize() would treat
  // that failure as impossible.
  auto function = engine.lookupPacked(name);
  if (!function) {
    setError(error, "cannot find the packed wrapper of '" + std::string(name) +
                        "' in the JIT: " +
                        llvm::toString(function.takeError()));
    return nullptr;
  }
  engine.initialize();
  return *function;
}

bool posencJitInvokePacked(PosencJit jit, const char *name, void **args,
                           char **error) {
  PosencPackedFunction function = posencJitLookupPacked(jit, name, error);
  if (!function)
    return false;
  return posencJitCall(function, args, error);
}
