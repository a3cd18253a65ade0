//===-- posenc-c/Posenc.h - C API of the posenc compiler ----------*- C -*-===//
//
// A small, stable C interface to the posenc compiler for foreign-function
// callers (the Python package binds it with ctypes): parse MLIR with the posenc
// dialect and every upstream dialect, run textual pass pipelines, describe a
// function's signature, JIT-compile a lowered module with MLIR's
// ExecutionEngine and call its functions through their packed interface.
//
// Conventions, following mlir-c:
//  - Handles are opaque structs holding one pointer; a null `ptr` means "no
//    object" and is what creation functions return on failure.
//  - Every fallible function takes a trailing `char **error`. On failure it
//    stores there a heap string with the reason (for IR, MLIR's diagnostics in
//    `file:line:col: error: message` form, with the offending source line),
//    to be released with posencStringFree; on success it stores NULL. `error`
//    may be NULL when the caller does not want the text. No function prints
//    diagnostics or aborts on bad input.
//  - Strings returned as `char *` are owned by the caller (posencStringFree).
//  - A context and everything created from it must be used by one thread at a
//    time, and modules must be destroyed before their context. A JIT is
//    independent of the context and module it was created from; its functions
//    may be called from any thread.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_C_POSENC_H
#define POSENC_C_POSENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(POSENC_CAPI_BUILDING_LIBRARY)
#define POSENC_CAPI_EXPORTED __declspec(dllexport)
#else
#define POSENC_CAPI_EXPORTED __declspec(dllimport)
#endif
#else
#define POSENC_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this interface; bumped on every incompatible change.
#define POSENC_CAPI_VERSION 1

#define POSENC_DEFINE_C_API_STRUCT(name, storage)                              \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// An MLIRContext with the posenc dialect, all upstream dialects, extensions
/// and LLVM IR translations registered.
POSENC_DEFINE_C_API_STRUCT(PosencContext, void);
/// A parsed `builtin.module`, together with the source text it came from (so
/// that later diagnostics can quote source lines).
POSENC_DEFINE_C_API_STRUCT(PosencModule, void);
/// A JIT-compiled module (mlir::ExecutionEngine).
POSENC_DEFINE_C_API_STRUCT(PosencJit, void);

#undef POSENC_DEFINE_C_API_STRUCT

/// The packed interface of a JIT-compiled function: `args[i]` points to the
/// i-th argument; for a function returning a value by value, the last entry
/// points to storage for the result.
typedef void (*PosencPackedFunction)(void **args);

//===----------------------------------------------------------------------===//
// Library
//===----------------------------------------------------------------------===//

/// Returns POSENC_CAPI_VERSION of the library actually loaded.
POSENC_CAPI_EXPORTED int posencGetCAPIVersion(void);

/// Returns the directory holding MLIR's runtime support libraries
/// (libmlir_c_runner_utils.so, libmlir_runner_utils.so) that this library was
/// built against. The string is static; do not free it.
POSENC_CAPI_EXPORTED const char *posencGetRuntimeLibraryDir(void);

/// Releases a string returned by this API. NULL is allowed.
POSENC_CAPI_EXPORTED void posencStringFree(char *str);

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

/// Creates a context. Also registers (once per process) the native JIT target
/// and all upstream and posenc passes and pipelines, so that textual pipelines
/// such as "builtin.module(posenc-cpu-pipeline)" resolve.
POSENC_CAPI_EXPORTED PosencContext posencContextCreate(void);

/// Destroys a context. Its modules must have been destroyed before.
POSENC_CAPI_EXPORTED void posencContextDestroy(PosencContext context);

/// Whether the handle is null.
static inline bool posencContextIsNull(PosencContext context) {
  return !context.ptr;
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

/// Parses and verifies `length` bytes of MLIR assembly (`source` need not be
/// NUL-terminated). `sourceName` (may be NULL) names the buffer in
/// diagnostics. Returns a null module on failure.
POSENC_CAPI_EXPORTED PosencModule posencModuleParse(PosencContext context,
                                                    const char *source,
                                                    size_t length,
                                                    const char *sourceName,
                                                    char **error);

/// Destroys a module. A null module is allowed.
POSENC_CAPI_EXPORTED void posencModuleDestroy(PosencModule module);

/// Whether the handle is null.
static inline bool posencModuleIsNull(PosencModule module) {
  return !module.ptr;
}

/// Prints the module; in the generic op form when `generic` is true. With
/// `debugInfo`, locations are printed too.
POSENC_CAPI_EXPORTED char *posencModulePrint(PosencModule module, bool generic,
                                             bool debugInfo);

/// Runs a textual pass pipeline on the module, e.g.
/// "builtin.module(posenc-cpu-pipeline)". A pipeline not anchored on
/// `builtin.module(...)` or `any(...)` is nested into `builtin.module(...)`,
/// so "canonicalize,cse" works too. Returns false, with the pipeline parse
/// error or the passes' diagnostics, on failure; the module may then be
/// partially transformed.
POSENC_CAPI_EXPORTED bool posencModuleRunPipeline(PosencModule module,
                                                  const char *pipeline,
                                                  char **error);

/// Describes the signature of a top-level `func.func` as a JSON object:
///
///   {"name": "f",
///    "arguments": [<type>, ...], "results": [<type>, ...]}
///
/// where each <type> is one of
///   {"kind": "tensor", "type": "tensor<4x?xf32>", "element_type": "f32",
///    "shape": [4, null]}                         (null: dynamic size)
///   {"kind": "memref", ... as tensor ..., "identity_layout": true,
///    "memory_space": false}                      (true: non-default space)
///   {"kind": "scalar", "type": "index"}          (integer, index, float)
///   {"kind": "other", "type": "..."}             (anything else)
/// and types are spelled as MLIR prints them. With `funcName` NULL or empty,
/// the module must define exactly one function with a body, which is
/// described. Returns NULL on failure (no such function, a declaration, ...).
POSENC_CAPI_EXPORTED char *posencModuleDescribeFunction(PosencModule module,
                                                        const char *funcName,
                                                        char **error);

/// Prepares the function `funcName` to be called from C through the JIT:
/// marks it `llvm.emit_c_interface` (so lowering emits
/// `_mlir_ciface_<funcName>`, which takes memrefs as pointers to descriptors
/// and returns memrefs or multiple results through a leading pointer to a
/// result struct), and, when `readOnlyTensorArguments`, marks its tensor
/// arguments `bufferization.writable = false` so that bufferization copies
/// rather than writes into the caller's input buffers. Call this before
/// lowering.
POSENC_CAPI_EXPORTED bool
posencModulePrepareForJit(PosencModule module, const char *funcName,
                          bool readOnlyTensorArguments, char **error);

//===----------------------------------------------------------------------===//
// JIT
//===----------------------------------------------------------------------===//

/// JIT-compiles a module lowered to the LLVM dialect for the host CPU.
/// `optLevel` in [0, 3] selects both the LLVM IR optimization and code
/// generation levels. The `numSharedLibs` paths in `sharedLibs` are loaded
/// to resolve symbols (e.g. libmlir_c_runner_utils.so); symbols of the
/// current process (libc, libm) are always visible. The module is only read;
/// the JIT does not keep a reference to it or to its context.
POSENC_CAPI_EXPORTED PosencJit posencJitCreate(PosencModule module,
                                               int optLevel,
                                               const char *const *sharedLibs,
                                               size_t numSharedLibs,
                                               char **error);

/// Destroys a JIT; function pointers obtained from it become invalid. A null
/// JIT is allowed.
POSENC_CAPI_EXPORTED void posencJitDestroy(PosencJit jit);

/// Whether the handle is null.
static inline bool posencJitIsNull(PosencJit jit) { return !jit.ptr; }

/// Returns the address of the symbol `name` (e.g. "_mlir_ciface_f"), or NULL.
POSENC_CAPI_EXPORTED void *posencJitLookup(PosencJit jit, const char *name,
                                           char **error);

/// Returns the packed wrapper of the function `name`, or NULL. For a function
/// marked `llvm.emit_c_interface`, pass "_mlir_ciface_<name>" to call the C
/// interface. Runs the module's global constructors on first use.
POSENC_CAPI_EXPORTED PosencPackedFunction
posencJitLookupPacked(PosencJit jit, const char *name, char **error);

/// Looks up the packed wrapper of `name` (see posencJitLookupPacked) and calls
/// it with `args` through posencJitCall. Returns false if the function does
/// not exist or a run-time check failed.
POSENC_CAPI_EXPORTED bool posencJitInvokePacked(PosencJit jit,
                                                const char *name, void **args,
                                                char **error);

/// Calls a packed wrapper returned by posencJitLookupPacked. A run-time check
/// of the compiled code (e.g. posenc.rope's "length of 'positions' differs
/// from the sequence dim of 'input'", a `cf.assert`) does not abort the
/// process: the call returns false and `error` holds the check's message.
/// Buffers the function allocated before the failed check are leaked. Checks
/// that fail on a thread other than the caller's (inside a parallel region)
/// still abort.
POSENC_CAPI_EXPORTED bool posencJitCall(PosencPackedFunction function,
                                        void **args, char **error);

#ifdef __cplusplus
}
#endif

#endif // POSENC_C_POSENC_H
