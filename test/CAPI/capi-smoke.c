/*===- capi-smoke.c - end-to-end check of libPosencCAPI -------------------===*\
|*                                                                            *|
|* Usage: posenc-capi-smoke FILE.mlir                                         *|
|*                                                                            *|
|* FILE must define                                                           *|
|*   func.func @add(tensor<4x?xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>      *|
|* The program checks the error paths (parse error, bad pipeline, missing     *|
|* symbol), lowers FILE with posenc-cpu-pipeline, JIT-compiles it, calls      *|
|* @add through its C interface on 4x3 inputs and prints the result. It       *|
|* exits non-zero on any unexpected outcome.                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "posenc-c/Posenc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The C-interface descriptor of a rank-2 f32 memref. */
struct MemRef2DF32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s (%s:%d)\n", what, __FILE__, __LINE__);      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static char *readFile(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *buffer = malloc((size_t)size + 1);
  if (buffer && fread(buffer, 1, (size_t)size, file) != (size_t)size) {
    free(buffer);
    buffer = NULL;
  }
  fclose(file);
  if (buffer) {
    buffer[size] = '\0';
    *length = (size_t)size;
  }
  return buffer;
}

int main(int argc, char **argv) {
  CHECK(argc == 2, "usage: posenc-capi-smoke FILE.mlir");
  CHECK(posencGetCAPIVersion() == POSENC_CAPI_VERSION, "C API version");
  printf("version %d\n", posencGetCAPIVersion());

  size_t length = 0;
  char *source = readFile(argv[1], &length);
  CHECK(source, "read the input file");

  PosencContext context = posencContextCreate();
  CHECK(!posencContextIsNull(context), "create a context");
  char *error = NULL;

  /* A parse error comes back as text, with the location. */
  const char *broken = "func.func @broken() {\n  %0 = arith.addf\n}\n";
  PosencModule bad =
      posencModuleParse(context, broken, strlen(broken), "broken.mlir", &error);
  CHECK(posencModuleIsNull(bad) && error, "parse error reported");
  printf("parse error: %s\n", error);
  posencStringFree(error);

  PosencModule module =
      posencModuleParse(context, source, length, argv[1], &error);
  if (posencModuleIsNull(module))
    fprintf(stderr, "%s\n", error);
  CHECK(!posencModuleIsNull(module), "parse the input");
  CHECK(error == NULL, "no error on success");

  char *signature = posencModuleDescribeFunction(module, "add", &error);
  CHECK(signature, "describe @add");
  printf("signature: %s\n", signature);
  posencStringFree(signature);

  CHECK(!posencModuleDescribeFunction(module, "nope", &error) && error,
        "describe a missing function");
  printf("describe error: %s\n", error);
  posencStringFree(error);

  CHECK(!posencModuleRunPipeline(module, "no-such-pass", &error) && error,
        "unknown pass reported");
  printf("pipeline error: %s\n", error);
  posencStringFree(error);

  CHECK(posencModulePrepareForJit(module, "add", true, &error),
        "prepare @add");
  if (!posencModuleRunPipeline(module, "builtin.module(posenc-cpu-pipeline)",
                               &error)) {
    fprintf(stderr, "%s\n", error);
    CHECK(0, "lower with posenc-cpu-pipeline");
  }

  char runnerUtils[4096];
  snprintf(runnerUtils, sizeof(runnerUtils), "%s/libmlir_c_runner_utils.so",
           posencGetRuntimeLibraryDir());
  const char *libs[] = {runnerUtils};
  PosencJit jit = posencJitCreate(module, 2, libs, 1, &error);
  if (posencJitIsNull(jit))
    fprintf(stderr, "%s\n", error);
  CHECK(!posencJitIsNull(jit), "JIT-compile");
  posencModuleDestroy(module);

  CHECK(!posencJitLookupPacked(jit, "_mlir_ciface_nope", &error) && error,
        "missing symbol reported");
  printf("lookup error: %s\n", error);
  posencStringFree(error);

  float a[4][3], b[4][3];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      a[i][j] = (float)(10 * i + j);
      b[i][j] = 0.5f;
    }
  struct MemRef2DF32 aDesc = {&a[0][0], &a[0][0], 0, {4, 3}, {3, 1}};
  struct MemRef2DF32 bDesc = {&b[0][0], &b[0][0], 0, {4, 3}, {3, 1}};
  struct MemRef2DF32 result;
  memset(&result, 0, sizeof(result));
  struct MemRef2DF32 *resultPtr = &result, *aPtr = &aDesc, *bPtr = &bDesc;
  /* _mlir_ciface_add(result*, a*, b*): the packed wrapper takes a pointer
     to each of those three pointers. */
  void *args[] = {&resultPtr, &aPtr, &bPtr};
  CHECK(posencJitInvokePacked(jit, "_mlir_ciface_add", args, &error),
        "invoke @add");

  CHECK(result.sizes[0] == 4 && result.sizes[1] == 3, "result shape");
  CHECK(result.allocated != aDesc.allocated &&
            result.allocated != bDesc.allocated,
        "result in a fresh buffer");
  printf("result sizes %lld x %lld, strides %lld %lld\n",
         (long long)result.sizes[0], (long long)result.sizes[1],
         (long long)result.strides[0], (long long)result.strides[1]);
  for (int i = 0; i < 4; ++i) {
    printf("row %d:", i);
    for (int j = 0; j < 3; ++j) {
      float value = result.aligned[result.offset + i * result.strides[0] +
                                   j * result.strides[1]];
      CHECK(value == a[i][j] + 0.5f, "result value");
      printf(" %.1f", value);
    }
    printf("\n");
  }
  CHECK(a[1][1] == 11.0f, "inputs unchanged");
  free(result.allocated);

  posencJitDestroy(jit);
  posencContextDestroy(context);
  free(source);
  printf("OK\n");
  return 0;
}
