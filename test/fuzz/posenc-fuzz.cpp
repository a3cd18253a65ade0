//===- posenc-fuzz.cpp - libFuzzer target: parse, verify, every pipeline --===//
//
// One input is one MLIR module. It is parsed (which verifies it); a module
// that parses and verifies is run, as a fresh clone each time, through every
// pipeline a posenc user can reach:
//
//   posenc-to-linalg                      the reference lowering
//   posenc-cpu-pipeline{reference=true}   reference path to the LLVM dialect
//   posenc-cpu-pipeline                   the fused path to the LLVM dialect
//   posenc-fuse-attention, posenc-decompose-attention
//   posenc-to-nvvm{format=isa}            GPU path to PTX (no ptxas)
//   posenc-raise                          front-end linalg to posenc ops
//   posenc-import-tosa, posenc-raise      the same from TOSA
//
// and the module is verified after each. Diagnostics (parse errors, verifier
// messages, a pass that refuses an input) are the expected outcome for most
// inputs and are dropped; only a crash, a sanitizer report, a timeout or an
// out-of-memory is a finding. Nothing here catches a signal.
//
// Two input modes, chosen by the first byte:
//   0x00       structure-aware: the rest of the input drives ProgramWriter,
//              which writes a valid-looking posenc program with random
//              shapes, element types, layouts and extreme attribute values.
//   otherwise  the input is MLIR text (seed corpus: the lit inputs split at
//              `// -----`; dictionary: test/fuzz/mlir.dict).
//
// Run with test/fuzz/run-fuzzer.sh or scripts/fuzz.sh; docs/reliability.md.
//
//===----------------------------------------------------------------------===//

#include "ProgramWriter.h"

#include "posenc/InitAllDialects.h"
#include "posenc/InitAllPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// The pipelines every parsed module goes through, as textual pass
/// pipelines (so the fuzzer runs exactly what posenc-opt, the C API and
/// Python run). A pipeline whose pass is not registered in this build is
/// left out at start-up.
const char *const kPipelines[] = {
    "builtin.module(posenc-to-linalg)",
    "builtin.module(posenc-cpu-pipeline{reference=true})",
    "builtin.module(posenc-cpu-pipeline)",
    "builtin.module(posenc-fuse-attention,posenc-decompose-attention)",
    "builtin.module(posenc-to-nvvm{format=isa})",
    "builtin.module(posenc-raise)",
    "builtin.module(posenc-import-tosa,posenc-raise)",
};

/// A context is reused across inputs (creating one per input costs more
/// than most inputs do) and replaced now and then, because uniqued types
/// and attributes are never freed and would grow without bound.
constexpr unsigned kInputsPerContext = 2000;

struct FuzzState {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  unsigned inputsOnContext = 0;
  std::vector<std::string> pipelines;
  bool verbose = false;

  MLIRContext &freshContextIfDue() {
    if (!context || ++inputsOnContext >= kInputsPerContext) {
      context = std::make_unique<MLIRContext>(registry);
      // Deterministic and single-threaded: one input, one thread.
      context->disableMultithreading();
      context->loadAllAvailableDialects();
      inputsOnContext = 0;
    }
    return *context;
  }
};

FuzzState &state() {
  static FuzzState *fuzzState = new FuzzState();
  return *fuzzState;
}

/// Runs `pipeline` on a clone of `module`; a failure is an ordinary outcome
/// (the pipeline reported a diagnostic). The result must verify whenever
/// the pipeline succeeded: a pass that returns success with invalid IR is a
/// bug, reported by aborting so that libFuzzer records the input.
void runPipeline(ModuleOp module, llvm::StringRef pipeline) {
  OwningOpRef<ModuleOp> clone(module.clone());
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(pipeline, pm, llvm::nulls())))
    return;
  // The pass manager verifies after each pass; an invalid result aborts
  // below rather than being dropped with the diagnostics.
  if (failed(pm.run(*clone)))
    return;
  if (failed(verify(*clone))) {
    llvm::errs() << "posenc-fuzz: '" << pipeline
                 << "' succeeded but its result does not verify\n";
    std::abort();
  }
}

void runInput(llvm::StringRef text) {
  FuzzState &fuzz = state();
  MLIRContext &context = fuzz.freshContextIfDue();
  ScopedDiagnosticHandler dropDiagnostics(&context, [&](Diagnostic &diag) {
    if (fuzz.verbose)
      llvm::errs() << diag << "\n";
    return success();
  });
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return;
  for (const std::string &pipeline : fuzz.pipelines)
    runPipeline(*module, pipeline);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  FuzzState &fuzz = state();
  fuzz.verbose = std::getenv("POSENC_FUZZ_VERBOSE") != nullptr;
  // What posenc-opt, the C API and the plugin register (one registration
  // point), without posenc-opt's test-only passes.
  posenc::registerAllDialectsAndDependencies(fuzz.registry);
  mlir::registerAllPasses();
  posenc::registerAllPasses();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();

  // Keep the pipelines this build can parse; say which ones run.
  MLIRContext probe(fuzz.registry);
  ScopedDiagnosticHandler quiet(&probe, [](Diagnostic &) { return success(); });
  const char *only = std::getenv("POSENC_FUZZ_PIPELINES");
  for (const char *pipeline : kPipelines) {
    PassManager pm(&probe);
    if (only && !llvm::StringRef(only).contains(pipeline))
      continue;
    if (succeeded(parsePassPipeline(pipeline, pm, llvm::nulls())))
      fuzz.pipelines.push_back(pipeline);
  }
  llvm::errs() << "posenc-fuzz: " << fuzz.pipelines.size() << " pipelines:";
  for (const std::string &pipeline : fuzz.pipelines)
    llvm::errs() << " " << pipeline;
  llvm::errs() << "\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 0 && data[0] == 0) {
    std::string program = posenc::fuzz::writeProgram(data + 1, size - 1);
    if (state().verbose)
      llvm::errs() << program << "\n";
    runInput(program);
    return 0;
  }
  // MLIR's lexer reads one character past the end of its buffer, expecting
  // the terminator every buffer it reads from a file has; libFuzzer's input
  // has none (ASan: heap-buffer-overflow in memchr under parseAsmSourceFile,
  // found by the first long campaign). A std::string is NUL-terminated.
  std::string text(reinterpret_cast<const char *>(data), size);
  runInput(text);
  return 0;
}
