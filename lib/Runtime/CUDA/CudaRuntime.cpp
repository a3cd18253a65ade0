//===- CudaRuntime.cpp - mgpu* entry points over the CUDA driver API ------===//
//
// The host code that `--posenc-to-nvvm` produces (through upstream
// gpu-to-llvm and the gpu.binary/gpu.launch_func translation to LLVM IR) calls
// a fixed set of `mgpu*` C functions: module loading, kernel launch, streams,
// events, allocation, copies. Upstream ships them as libmlir_cuda_runtime,
// which the Debian LLVM packages do not include; this library implements the
// same ABI (the signatures of LLVM 22's lowering) over the CUDA driver API.
//
// A CUDA error ends the call it happens in: the library formats which call
// failed, the CUDA error name and description, and hands the message to the
// error handler its host installed (posencCudaSetErrorHandler; the C API's
// posencJitCall installs one that returns the message as the call's error,
// so that Python gets a PosencError and goes on). Without a handler, or when
// the handler returns (no call to end on this thread), the library prints
// the message and exits with status 1: continuing would only turn the error
// into a wrong result or a crash further away from its cause.
// posencCudaProbe, outside the mgpu* ABI, reports whether a device can run
// programs without either path.
//
// The primary context of the default device (0, or the one chosen with
// mgpuSetDefaultDevice before the first call) is made current around each
// call, so callers need no CUDA set-up of their own.
//
//===----------------------------------------------------------------------===//

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#define POSENC_CUDA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// Called with the message of a CUDA error; does not return when it can end
/// the current call (see the file comment).
using ErrorHandler = void (*)(const char *message);
std::atomic<ErrorHandler> errorHandler{nullptr};

/// Contexts this thread pushed and has not popped yet (ScopedContext), popped
/// before the error handler leaves their scopes without running their
/// destructors.
thread_local int pushedContexts = 0;

/// Hands `what` with the CUDA error to the error handler, or prints it and
/// exits with status 1; returns when `result` is CUDA_SUCCESS. (Not abort():
/// under mlir-runner that adds an LLVM crash report that blames the wrong
/// program.)
void checkCuda(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = nullptr;
  const char *description = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = result == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY"
                                             : "<unknown CUDA error>";
  if (cuGetErrorString(result, &description) != CUDA_SUCCESS || !description)
    description = "";
  const char *stubHint =
      result == CUDA_ERROR_STUB_LIBRARY
          ? "\nposenc_cuda_runtime: libcuda.so.1 is the CUDA toolkit's link "
            "stub, not an NVIDIA driver"
          : "";
  const char *driverHint =
      result == CUDA_ERROR_STUB_LIBRARY || result == CUDA_ERROR_NO_DEVICE ||
              result == CUDA_ERROR_NOT_INITIALIZED ||
              result == CUDA_ERROR_INVALID_DEVICE
          ? "\nposenc_cuda_runtime: the program needs an NVIDIA GPU and its "
            "driver (check nvidia-smi)"
          : "";
  char message[1024];
  std::snprintf(message, sizeof(message),
                "posenc_cuda_runtime: %s failed: %s (%d) %s%s%s", what, name,
                static_cast<int>(result), description, stubHint, driverHint);
  if (ErrorHandler handler = errorHandler.load()) {
    for (CUcontext popped; pushedContexts > 0; --pushedContexts)
      cuCtxPopCurrent(&popped);
    handler(message);
  }
  std::fflush(stdout);
  std::fprintf(stderr, "%s\n", message);
  std::fflush(stderr);
  std::_Exit(1);
}

#define CHECK_CUDA(call) checkCuda((call), #call)

int32_t defaultDevice = 0;

/// The primary context of the default device, retained on first use. The
/// errors are checked outside std::call_once: the error handler may leave
/// checkCuda without returning, which must not happen inside call_once.
CUcontext getPrimaryContext() {
  static std::once_flag once;
  static CUcontext context = nullptr;
  static CUresult result = CUDA_SUCCESS;
  static const char *failedCall = "";
  std::call_once(once, [] {
    CUdevice device;
    if ((result = cuInit(0)) != CUDA_SUCCESS)
      failedCall = "cuInit(0)";
    else if ((result = cuDeviceGet(&device, defaultDevice)) != CUDA_SUCCESS)
      failedCall = "cuDeviceGet(&device, defaultDevice)";
    else if ((result = cuDevicePrimaryCtxRetain(&context, device)) !=
             CUDA_SUCCESS)
      failedCall = "cuDevicePrimaryCtxRetain(&context, device)";
  });
  checkCuda(result, failedCall);
  return context;
}

/// Makes the primary context current for the lifetime of the object.
class ScopedContext {
public:
  ScopedContext() {
    CHECK_CUDA(cuCtxPushCurrent(getPrimaryContext()));
    ++pushedContexts;
  }
  ~ScopedContext() {
    CUcontext popped;
    --pushedContexts;
    CHECK_CUDA(cuCtxPopCurrent(&popped));
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;
};

/// Byte size of a dense (identity-layout) memref; exits on other layouts,
/// which cannot be registered as one contiguous range.
uint64_t denseMemRefBytes(int64_t rank, StridedMemRefType<char, 1> *descriptor,
                          int64_t elementSizeBytes) {
  int64_t *sizes = descriptor->sizes;
  int64_t *strides = sizes + rank;
  int64_t expectedStride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != expectedStride) {
      std::fprintf(stderr,
                   "posenc_cuda_runtime: cannot register a non-contiguous "
                   "memref (dim %ld has stride %ld, expected %ld)\n",
                   static_cast<long>(i), static_cast<long>(strides[i]),
                   static_cast<long>(expectedStride));
      std::fflush(stderr);
      std::_Exit(1);
    }
    expectedStride *= sizes[i];
  }
  return static_cast<uint64_t>(expectedStride) * elementSizeBytes;
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

/// Loads a cubin or fatbin (and PTX, which the driver JIT-compiles).
POSENC_CUDA_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*sizeBytes*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  CHECK_CUDA(cuModuleLoadData(&module, data));
  return module;
}

/// Loads PTX, JIT-compiling it at `optLevel`; prints the JIT log on failure.
POSENC_CUDA_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext context;
  CUmodule module = nullptr;
  char errorLog[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {errorLog, reinterpret_cast<void *>(sizeof(errorLog)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS)
    std::fprintf(stderr, "posenc_cuda_runtime: PTX JIT log:\n%s\n", errorLog);
  checkCuda(result, "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

POSENC_CUDA_EXPORT void mgpuModuleUnload(CUmodule module) {
  ScopedContext context;
  CHECK_CUDA(cuModuleUnload(module));
}

POSENC_CUDA_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                                    const char *name) {
  ScopedContext context;
  CUfunction function = nullptr;
  CUresult result = cuModuleGetFunction(&function, module, name);
  if (result != CUDA_SUCCESS)
    std::fprintf(stderr, "posenc_cuda_runtime: kernel '%s' not found\n", name);
  checkCuda(result, "cuModuleGetFunction");
  return function;
}

/// Grid and block sizes are `intptr_t` (MLIR's index) rather than CUDA's
/// unsigned int, as the lowering passes them.
POSENC_CUDA_EXPORT void
mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                 intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                 intptr_t blockZ, int32_t sharedMemBytes, CUstream stream,
                 void **params, void **extra, size_t /*paramsCount*/) {
  // An empty grid (a loop nest over a zero-size dimension) launches nothing;
  // CUDA would reject it as an invalid value.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  ScopedContext context;
  if (sharedMemBytes > 48 * 1024)
    CHECK_CUDA(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        sharedMemBytes));
  CHECK_CUDA(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                            blockZ, sharedMemBytes, stream, params, extra));
}

/// Thread-block-cluster launch (sm_90+).
POSENC_CUDA_EXPORT void mgpuLaunchClusterKernel(
    CUfunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ, int32_t sharedMemBytes,
    CUstream stream, void **params, void **extra, size_t /*paramsCount*/) {
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  ScopedContext context;
  if (sharedMemBytes > 48 * 1024)
    CHECK_CUDA(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        sharedMemBytes));
  CHECK_CUDA(cuFuncSetAttribute(
      function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
  CUlaunchAttribute attribute;
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(clusterX);
  attribute.value.clusterDim.y = static_cast<unsigned>(clusterY);
  attribute.value.clusterDim.z = static_cast<unsigned>(clusterZ);
  CUlaunchConfig config = {};
  config.gridDimX = static_cast<unsigned>(gridX);
  config.gridDimY = static_cast<unsigned>(gridY);
  config.gridDimZ = static_cast<unsigned>(gridZ);
  config.blockDimX = static_cast<unsigned>(blockX);
  config.blockDimY = static_cast<unsigned>(blockY);
  config.blockDimZ = static_cast<unsigned>(blockZ);
  config.sharedMemBytes = static_cast<unsigned>(sharedMemBytes);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK_CUDA(cuLaunchKernelEx(&config, function, params, extra));
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

POSENC_CUDA_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext context;
  CUstream stream = nullptr;
  CHECK_CUDA(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

POSENC_CUDA_EXPORT void mgpuStreamDestroy(CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuStreamDestroy(stream));
}

/// Kernel faults surface here, as the error of the synchronization.
POSENC_CUDA_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuStreamSynchronize(stream));
}

POSENC_CUDA_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ScopedContext context;
  CHECK_CUDA(cuStreamWaitEvent(stream, event, 0));
}

POSENC_CUDA_EXPORT CUevent mgpuEventCreate() {
  ScopedContext context;
  CUevent event = nullptr;
  CHECK_CUDA(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

POSENC_CUDA_EXPORT void mgpuEventDestroy(CUevent event) {
  ScopedContext context;
  CHECK_CUDA(cuEventDestroy(event));
}

POSENC_CUDA_EXPORT void mgpuEventSynchronize(CUevent event) {
  ScopedContext context;
  CHECK_CUDA(cuEventSynchronize(event));
}

POSENC_CUDA_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuEventRecord(event, stream));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// `isHostShared` (gpu.alloc host_shared, what --posenc-to-nvvm emits) gives
/// managed memory that host code and kernels both access; otherwise device
/// memory. Zero bytes give a null pointer.
POSENC_CUDA_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                      bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext context;
  CUdeviceptr pointer = 0;
  if (isHostShared)
    CHECK_CUDA(cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    CHECK_CUDA(cuMemAlloc(&pointer, sizeBytes));
  return reinterpret_cast<void *>(pointer);
}

POSENC_CUDA_EXPORT void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  if (!pointer)
    return;
  ScopedContext context;
  CHECK_CUDA(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

POSENC_CUDA_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                                   CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                           reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                           stream));
}

POSENC_CUDA_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                     size_t count, CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

POSENC_CUDA_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, CUstream stream) {
  ScopedContext context;
  CHECK_CUDA(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                              stream));
}

/// Page-locks and maps host memory so that kernels can access it (through
/// unified addressing, at the same address). Registering a range twice is
/// not an error.
POSENC_CUDA_EXPORT void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  if (!pointer || sizeBytes == 0)
    return;
  ScopedContext context;
  CUresult result = cuMemHostRegister(pointer, sizeBytes, /*Flags=*/0);
  if (result == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    return;
  checkCuda(result, "cuMemHostRegister");
}

/// `descriptor` points to a ranked memref descriptor of rank `rank`; only
/// dense (identity-layout) memrefs can be registered.
POSENC_CUDA_EXPORT void
mgpuMemHostRegisterMemRef(int64_t rank, StridedMemRefType<char, 1> *descriptor,
                          int64_t elementSizeBytes) {
  uint64_t sizeBytes = denseMemRefBytes(rank, descriptor, elementSizeBytes);
  char *pointer = descriptor->data + descriptor->offset * elementSizeBytes;
  mgpuMemHostRegister(pointer, sizeBytes);
}

POSENC_CUDA_EXPORT void mgpuMemHostUnregister(void *pointer) {
  if (!pointer)
    return;
  ScopedContext context;
  CUresult result = cuMemHostUnregister(pointer);
  if (result == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
    return;
  checkCuda(result, "cuMemHostUnregister");
}

POSENC_CUDA_EXPORT void
mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                            StridedMemRefType<char, 1> *descriptor,
                            int64_t elementSizeBytes) {
  mgpuMemHostUnregister(descriptor->data +
                        descriptor->offset * elementSizeBytes);
}

/// Chooses the device whose primary context the library uses; takes effect
/// only before the first other mgpu* call.
POSENC_CUDA_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

//===----------------------------------------------------------------------===//
// Error handling (not part of the mgpu* ABI)
//===----------------------------------------------------------------------===//

/// Installs the function a CUDA error's message goes to (null: print and
/// exit). The handler ends the current call (e.g. by longjmp to its caller,
/// as posencJitCall does) or returns, and then the process exits. Memory the
/// ended call had allocated on the device is not freed.
POSENC_CUDA_EXPORT void posencCudaSetErrorHandler(void (*handler)(const char *)) {
  errorHandler.store(handler);
}

/// mgpuMemAlloc(sizeBytes, nullptr, /*isHostShared=*/true) for callers that
/// must not exit (the Python package's argument copies): returns the
/// CUresult, writes the pointer (null for 0 bytes) or why it failed into
/// `message` (at most `size` bytes, NUL included). The device is assumed
/// usable (posencCudaProbe first).
POSENC_CUDA_EXPORT int posencCudaAllocManaged(uint64_t sizeBytes,
                                              void **pointer, char *message,
                                              size_t size) {
  *pointer = nullptr;
  if (sizeBytes == 0)
    return CUDA_SUCCESS;
  ScopedContext context;
  CUdeviceptr allocated = 0;
  CUresult result =
      cuMemAllocManaged(&allocated, sizeBytes, CU_MEM_ATTACH_GLOBAL);
  if (result != CUDA_SUCCESS) {
    const char *name = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
      name = "<unknown CUDA error>";
    if (message && size)
      std::snprintf(message, size,
                    "cuMemAllocManaged of %llu bytes failed: %s (%d)",
                    static_cast<unsigned long long>(sizeBytes), name,
                    static_cast<int>(result));
    return static_cast<int>(result);
  }
  *pointer = reinterpret_cast<void *>(allocated);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Probing (not part of the mgpu* ABI)
//===----------------------------------------------------------------------===//

/// Whether the default device can run programs, without the fatal error
/// path of the mgpu* functions: callers that must not end the process (the
/// Python package, before it JIT-compiles a program for the GPU) ask first.
/// Returns CUDA_SUCCESS (0) and writes "<name> (compute capability M.m)" to
/// `message`, or the failing CUresult (CUDA_ERROR_NO_DEVICE / INVALID_DEVICE
/// when the default device does not exist) and writes why. Writes at most
/// `size` bytes, NUL included. `major`/`minor` receive the compute
/// capability when not null.
POSENC_CUDA_EXPORT int posencCudaProbe(char *message, size_t size,
                                       int *major, int *minor) {
  auto say = [&](CUresult result, const char *what) {
    const char *name = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
      name = result == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY"
                                               : "<unknown CUDA error>";
    if (message && size)
      std::snprintf(
          message, size, "%s failed: %s (%d)%s", what, name,
          static_cast<int>(result),
          result == CUDA_ERROR_STUB_LIBRARY
              ? "; libcuda.so.1 is the CUDA toolkit's link stub, not an "
                "NVIDIA driver"
              : "");
    return static_cast<int>(result);
  };
  CUresult result = cuInit(0);
  if (result != CUDA_SUCCESS)
    return say(result, "cuInit(0)");
  int count = 0;
  result = cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS)
    return say(result, "cuDeviceGetCount");
  if (defaultDevice < 0 || defaultDevice >= count) {
    if (message && size)
      std::snprintf(message, size,
                    "no CUDA device %d (the driver reports %d device(s))",
                    static_cast<int>(defaultDevice), count);
    return static_cast<int>(count == 0 ? CUDA_ERROR_NO_DEVICE
                                       : CUDA_ERROR_INVALID_DEVICE);
  }
  CUdevice device;
  result = cuDeviceGet(&device, defaultDevice);
  if (result != CUDA_SUCCESS)
    return say(result, "cuDeviceGet");
  char name[256] = "";
  int mj = 0, mn = 0;
  if ((result = cuDeviceGetName(name, sizeof(name), device)) != CUDA_SUCCESS)
    return say(result, "cuDeviceGetName");
  if ((result = cuDeviceGetAttribute(
           &mj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)) !=
          CUDA_SUCCESS ||
      (result = cuDeviceGetAttribute(
           &mn, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)) !=
          CUDA_SUCCESS)
    return say(result, "cuDeviceGetAttribute");
  if (major)
    *major = mj;
  if (minor)
    *minor = mn;
  if (message && size)
    std::snprintf(message, size, "%s (compute capability %d.%d)", name, mj,
                  mn);
  return CUDA_SUCCESS;
}
