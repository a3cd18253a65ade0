//===- Module.cpp - C API: parsing, printing, pipelines -------------------===//
//
// The PosencModule entry points of include/posenc-c/Posenc.h: parse and
// print a module, run a textual pass pipeline on it (posenc's passes and
// pipelines are registered by initializeProcessOnce, Context.cpp), and
// describe or prepare the function a caller will JIT-compile.
//
//===----------------------------------------------------------------------===//

#include "CAPIUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace posenc::capi;

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
