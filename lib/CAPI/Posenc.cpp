//===- Posenc.cpp - C API of the posenc compiler --------------------------===//
//
// Implements include/posenc-c/Posenc.h. Every entry point reports failure
// through a returned string rather than printing: diagnostics are routed into
// that string by a SourceMgrDiagnosticHandler scoped to the call, and
// llvm::Errors are rendered with toString.
//
//===----------------------------------------------------------------------===//

#include "posenc-c/Posenc.h"

#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Transforms/Passes.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#ifndef POSENC_RUNTIME_LIBRARY_DIR
#define POSENC_RUNTIME_LIBRARY_DIR ""
#endif

using namespace mlir;

namespace {

/// What a PosencModule handle points to. The source buffer lives as long as
/// the module so that diagnostics of later pipelines can quote source lines.
struct ModuleStorage {
  MLIRContext *context;
  std::shared_ptr<llvm::SourceMgr> sourceMgr;
  OwningOpRef<ModuleOp> module;
};

/// Collects, while alive, every diagnostic emitted on a context, formatted as
/// mlir-opt prints them (`file:line:col: error: ...` and the source line when
/// the location points into `sourceMgr`).
class DiagnosticCollector {
public:
  DiagnosticCollector(MLIRContext *context, llvm::SourceMgr &sourceMgr)
      : stream(text), handler(sourceMgr, context, stream) {}

  /// Returns what was collected, followed by `extra` when not empty.
  std::string message(llvm::StringRef extra = {}) {
    std::string result = text;
    if (!extra.empty()) {
      if (!result.empty() && result.back() != '\n')
        result += '\n';
      result += extra.str();
    }
    // Trailing newlines only make callers' messages ragged.
    while (!result.empty() && result.back() == '\n')
      result.pop_back();
    return result;
  }

  /// Returns what was collected, or `fallback` when nothing was.
  std::string messageOr(llvm::StringRef fallback) {
    std::string result = message();
    return result.empty() ? fallback.str() : result;
  }

private:
  std::string text;
  llvm::raw_string_ostream stream;
  SourceMgrDiagnosticHandler handler;
};

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static char *copyToHeap(llvm::StringRef str) {
  char *result = static_cast<char *>(std::malloc(str.size() + 1));
  if (!result)
    return nullptr;
  std::memcpy(result, str.data(), str.size());
  result[str.size()] = '\0';
  return result;
}

/// Stores `message` in `*error` (when the caller asked for it). Always
/// returns false so that failing paths read `return setError(...)`.
static bool setError(char **error, const llvm::Twine &message) {
  if (error) {
    std::string text = message.str();
    *error = copyToHeap(text.empty() ? "unknown error" : text);
  }
  return false;
}

static void clearError(char **error) {
  if (error)
    *error = nullptr;
}

static MLIRContext *unwrap(PosencContext context) {
  return static_cast<MLIRContext *>(context.ptr);
}
static ModuleStorage *unwrap(PosencModule module) {
  return static_cast<ModuleStorage *>(module.ptr);
}
static ExecutionEngine *unwrap(PosencJit jit) {
  return static_cast<ExecutionEngine *>(jit.ptr);
}

/// One-time process setup: the JIT's native target and the pass registry
/// that textual pipelines are resolved against.
static void initializeProcessOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser(); // For inline assembly.
    registerAllPasses();
    posenc::registerPosencConversionPasses();
    posenc::registerPosencTransformsPasses();
    posenc::registerPosencPipelines();
  });
}

/// Finds the function a caller means: `funcName`, or with none given, the
/// only function of the module that has a body.
static func::FuncOp findFunction(ModuleOp module, const char *funcName,
                                 std::string &reason) {
  llvm::SmallVector<func::FuncOp> defined;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      defined.push_back(func);
  auto listDefined = [&] {
    std::string names;
    for (auto func : defined)
      names += (names.empty() ? "@" : ", @") + func.getSymName().str();
    return names.empty() ? std::string("none") : names;
  };

  if (!funcName || !*funcName) {
    if (defined.size() == 1)
      return defined.front();
    reason = defined.empty()
                 ? "the module defines no func.func"
                 : "the module defines " + std::to_string(defined.size()) +
                       " functions (" + listDefined() +
                       "); name the entry function";
    return {};
  }
  auto func = dyn_cast_or_null<func::FuncOp>(
      SymbolTable::lookupSymbolIn(module, funcName));
  if (!func) {
    reason = "no func.func named '" + std::string(funcName) +
             "' at the top level of the module (defined functions: " +
             listDefined() + ")";
    return {};
  }
  if (func.isExternal()) {
    reason = "func.func @" + std::string(funcName) +
             " is a declaration without a body";
    return {};
  }
  return func;
}

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// The JSON description of one argument or result type (see
/// posencModuleDescribeFunction).
static llvm::json::Value describeType(Type type) {
  llvm::json::Object object;
  object["type"] = typeToString(type);
  auto describeShape = [&](ShapedType shaped) {
    llvm::json::Array shape;
    for (int64_t size : shaped.getShape()) {
      if (ShapedType::isDynamic(size))
        shape.push_back(nullptr);
      else
        shape.push_back(size);
    }
    object["shape"] = std::move(shape);
    object["element_type"] = typeToString(shaped.getElementType());
  };
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    object["kind"] = "tensor";
    describeShape(tensor);
  } else if (auto memref = dyn_cast<MemRefType>(type)) {
    object["kind"] = "memref";
    describeShape(memref);
    object["identity_layout"] = memref.getLayout().isIdentity();
    object["memory_space"] = memref.getMemorySpace() != nullptr;
  } else if (isa<IntegerType, IndexType, FloatType>(type)) {
    object["kind"] = "scalar";
  } else {
    object["kind"] = "other";
  }
  return llvm::json::Value(std::move(object));
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
// Library
//===----------------------------------------------------------------------===//

int posencGetCAPIVersion(void) { return POSENC_CAPI_VERSION; }

const char *posencGetRuntimeLibraryDir(void) {
  return POSENC_RUNTIME_LIBRARY_DIR;
}

void posencStringFree(char *str) { std::free(str); }

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

PosencContext posencContextCreate(void) {
  initializeProcessOnce();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<posenc::PosencDialect>();
  auto *context = new MLIRContext(registry);
  return PosencContext{context};
}

void posencContextDestroy(PosencContext context) { delete unwrap(context); }

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

PosencModule posencModuleParse(PosencContext context, const char *source,
                               size_t length, const char *sourceName,
                               char **error) {
  clearError(error);
  if (!context.ptr) {
    setError(error, "posencModuleParse: null context");
    return PosencModule{nullptr};
  }
  if (!source && length) {
    setError(error, "posencModuleParse: null source");
    return PosencModule{nullptr};
  }
  auto storage = std::make_unique<ModuleStorage>();
  storage->context = unwrap(context);
  storage->sourceMgr = std::make_shared<llvm::SourceMgr>();
  llvm::StringRef name =
      sourceName && *sourceName ? sourceName : "<posenc-input>";
  storage->sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(source ? source : "", length), name),
      llvm::SMLoc());

  DiagnosticCollector diagnostics(storage->context, *storage->sourceMgr);
  ParserConfig config(storage->context, /*verifyAfterParse=*/true);
  storage->module = parseSourceFile<ModuleOp>(storage->sourceMgr, config);
  if (!storage->module) {
    setError(error, diagnostics.messageOr("failed to parse the module"));
    return PosencModule{nullptr};
  }
  return PosencModule{storage.release()};
}

void posencModuleDestroy(PosencModule module) { delete unwrap(module); }

char *posencModulePrint(PosencModule module, bool generic, bool debugInfo) {
  if (!module.ptr)
    return copyToHeap("");
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm(generic);
  flags.enableDebugInfo(debugInfo, /*prettyForm=*/false);
  unwrap(module)->module->print(os, flags);
  return copyToHeap(text);
}

bool posencModuleRunPipeline(PosencModule module, const char *pipeline,
                             char **error) {
  clearError(error);
  if (!module.ptr)
    return setError(error, "posencModuleRunPipeline: null module");
  if (!pipeline)
    return setError(error, "posencModuleRunPipeline: null pipeline");
  ModuleStorage &storage = *unwrap(module);

  // Anchor a bare pass list on the module, as upstream's Python binding
  // would require the caller to.
  std::string text = llvm::StringRef(pipeline).trim().str();
  llvm::StringRef head = llvm::StringRef(text).take_until(
      [](char c) { return c == '(' || c == '{' || c == ','; });
  bool anchored = llvm::StringRef(text).size() > head.size() &&
                  text[head.size()] == '(' &&
                  (head.trim() == "builtin.module" || head.trim() == "any");
  if (!anchored)
    text = "builtin.module(" + text + ")";

  std::string parseErrors;
  llvm::raw_string_ostream parseErrorStream(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, parseErrorStream);
  if (failed(parsed))
    return setError(error, "invalid pass pipeline '" + text +
                               "': " + llvm::StringRef(parseErrors).trim());
  // The anchor comes from the text, as in upstream's mlirParsePassPipeline.
  PassManager pm(storage.context);
  static_cast<OpPassManager &>(pm) = std::move(*parsed);

  DiagnosticCollector diagnostics(storage.context, *storage.sourceMgr);
  if (failed(pm.run(*storage.module)))
    return setError(error, diagnostics.messageOr("pass pipeline '" + text +
                                                 "' failed"));
  return true;
}

char *posencModuleDescribeFunction(PosencModule module, const char *funcName,
                                   char **error) {
  clearError(error);
  if (!module.ptr) {
    setError(error, "posencModuleDescribeFunction: null module");
    return nullptr;
  }
  std::string reason;
  func::FuncOp func = findFunction(*unwrap(module)->module, funcName, reason);
  if (!func) {
    setError(error, reason);
    return nullptr;
  }
  FunctionType type = func.getFunctionType();
  llvm::json::Array arguments, results;
  for (Type input : type.getInputs())
    arguments.push_back(describeType(input));
  for (Type result : type.getResults())
    results.push_back(describeType(result));
  llvm::json::Object description;
  description["name"] = func.getSymName().str();
  description["arguments"] = std::move(arguments);
  description["results"] = std::move(results);

  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(description));
  return copyToHeap(text);
}

bool posencModulePrepareForJit(PosencModule module, const char *funcName,
                               bool readOnlyTensorArguments, char **error) {
  clearError(error);
  if (!module.ptr)
    return setError(error, "posencModulePrepareForJit: null module");
  std::string reason;
  func::FuncOp func = findFunction(*unwrap(module)->module, funcName, reason);
  if (!func)
    return setError(error, reason);
  MLIRContext *context = func.getContext();
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(context));
  if (readOnlyTensorArguments) {
    for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorType>(type))
        func.setArgAttr(index,
                        bufferization::BufferizationDialect::kWritableAttrName,
                        BoolAttr::get(context, false));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// JIT
//===----------------------------------------------------------------------===//

/// Resolves the compiled code's puts/abort so that run-time checks report
/// through posencJitCall (defined below).
static void registerRuntimeCheckSymbols(ExecutionEngine &engine);

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

  // Load the libraries here rather than leave it to the ExecutionEngine,
  // which only prints a failure to stderr and carries on.
  llvm::SmallVector<std::string> libraryPaths;
  llvm::SmallVector<llvm::sys::DynamicLibrary> libraries;
  bool librariesExportThroughInit = false;
  for (size_t i = 0; i < numSharedLibs; ++i) {
    if (!sharedLibs[i])
      return fail("posencJitCreate: null shared library path");
    std::string path = sharedLibs[i];
    if (!llvm::sys::fs::exists(path))
      return fail("shared library '" + path + "' does not exist");
    std::string loadError;
    auto library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &loadError);
    if (!library.isValid())
      return fail("cannot load shared library '" + path + "': " + loadError);
    // Such libraries hand their symbols to the engine through their init
    // function rather than through dlsym; see ExecutionEngineOptions.
    if (library.getAddressOfSymbol(ExecutionEngine::kLibraryInitFnName))
      librariesExportThroughInit = true;
    libraries.push_back(library);
    libraryPaths.push_back(path);
  }
  // Code from the OpenMP lowering (the fused path's parallel tile loop)
  // calls the OpenMP runtime (__kmpc_*), which the translation to LLVM IR
  // introduces: load libomp from the LLVM library directory unless the
  // caller passed an OpenMP runtime already.
  bool usesOpenMP = false;
  storage.module->walk([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "omp") {
      usesOpenMP = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  bool hasOpenMPRuntime = llvm::any_of(libraryPaths, [](const std::string &p) {
    return llvm::sys::path::filename(p).contains("omp");
  });
  if (usesOpenMP && !hasOpenMPRuntime) {
    llvm::SmallString<256> path(POSENC_RUNTIME_LIBRARY_DIR);
    llvm::sys::path::append(path, "libomp.so");
    std::string loadError;
    auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
        path.c_str(), &loadError);
    if (!library.isValid())
      return fail("the program uses OpenMP but the runtime '" + path +
                  "' cannot be loaded: " + loadError);
    libraries.push_back(library);
    libraryPaths.push_back(std::string(path));
  }
  std::string reason;
  if (!librariesExportThroughInit &&
      !checkExternalSymbolsResolve(*storage.module, libraries, libraryPaths,
                                   reason))
    return fail(reason);

  auto targetMachineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!targetMachineBuilder)
    return fail("cannot detect the host target: " +
                llvm::toString(targetMachineBuilder.takeError()));
  auto targetMachine = targetMachineBuilder->createTargetMachine();
  if (!targetMachine)
    return fail("cannot create a target machine for the host: " +
                llvm::toString(targetMachine.takeError()));

  llvm::SmallVector<llvm::StringRef> libraryRefs(libraryPaths.begin(),
                                                 libraryPaths.end());
  ExecutionEngineOptions options;
  options.transformer = makeOptimizingTransformer(
      optLevel, /*sizeLevel=*/0, /*targetMachine=*/targetMachine->get());
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.sharedLibPaths = libraryRefs;

  DiagnosticCollector diagnostics(storage.context, *storage.sourceMgr);
  auto engine = ExecutionEngine::create(*storage.module, options,
                                        std::move(*targetMachine));
  if (!engine)
    return fail(diagnostics.message("cannot JIT-compile the module: " +
                                    llvm::toString(engine.takeError())));
  registerRuntimeCheckSymbols(**engine);
  return PosencJit{engine->release()};
}

void posencJitDestroy(PosencJit jit) { delete unwrap(jit); }

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

// cf.assert lowers to `puts(message); abort();`. The JIT resolves those two
// symbols of its code to the functions below: inside posencJitCall they
// record the message and jump back to the call instead of ending the
// process (the C API's callers, Python among them, get an error). Outside a
// posencJitCall (another thread, or code called some other way) they behave
// as the C library's.
namespace {
struct RuntimeCheckFrame {
  std::jmp_buf env;
  std::string message;
};
thread_local RuntimeCheckFrame *activeRuntimeCheck = nullptr;
} // namespace

extern "C" int posencRuntimePuts(const char *text) {
  if (activeRuntimeCheck) {
    activeRuntimeCheck->message = text ? text : "";
    return 0;
  }
  return std::puts(text);
}

extern "C" [[noreturn]] void posencRuntimeAbort() {
  if (activeRuntimeCheck)
    std::longjmp(activeRuntimeCheck->env, 1);
  std::abort();
}

static void registerRuntimeCheckSymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("puts")] = {
        llvm::orc::ExecutorAddr::fromPtr(&posencRuntimePuts),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("abort")] = {
        llvm::orc::ExecutorAddr::fromPtr(&posencRuntimeAbort),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

bool posencJitCall(PosencPackedFunction function, void **args,
                   char **error) {
  clearError(error);
  if (!function) {
    setError(error, "posencJitCall: null function");
    return false;
  }
  RuntimeCheckFrame frame;
  RuntimeCheckFrame *outer = activeRuntimeCheck;
  activeRuntimeCheck = &frame;
  // Only JIT-compiled frames (no destructors) lie between here and the
  // longjmp in posencRuntimeAbort.
  if (setjmp(frame.env) == 0) {
    function(args);
    activeRuntimeCheck = outer;
    return true;
  }
  activeRuntimeCheck = outer;
  setError(error, "run-time check failed: " +
                      (frame.message.empty() ? std::string("abort() called")
                                             : frame.message));
  return false;
}

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
