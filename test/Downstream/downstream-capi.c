/*===- downstream-capi.c - the posenc C API from another CMake project ----===*
 *
 * Parses a posenc program, lowers it with the CPU pipeline, JIT-compiles it
 * and calls it: probe(p) is entry [0, 0] of the sinusoidal table of position
 * p, i.e. sin(p).
 *
 *===----------------------------------------------------------------------===*/

#include "posenc-c/Posenc.h"

#include <stdio.h>
#include <string.h>

static const char *program =
    "func.func @probe(%p: i32) -> f32 {\n"
    "  %pos = tensor.from_elements %p : tensor<1xi32>\n"
    "  %t = posenc.sinusoidal %pos : tensor<1xi32> -> tensor<1x4xf32>\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %v = tensor.extract %t[%c0, %c0] : tensor<1x4xf32>\n"
    "  return %v : f32\n"
    "}\n";

static int fail(const char *what, char *error) {
  fprintf(stderr, "%s: %s\n", what, error ? error : "(no message)");
  posencStringFree(error);
  return 1;
}

int main(void) {
  char *error = NULL;
  printf("posenc C API version %d\n", posencGetCAPIVersion());
  PosencContext context = posencContextCreate();
  PosencModule module = posencModuleParse(context, program, strlen(program),
                                          "probe.mlir", &error);
  if (posencModuleIsNull(module))
    return fail("parse", error);
  if (!posencModulePrepareForJit(module, "probe", true, &error))
    return fail("prepare", error);
  if (!posencModuleRunPipeline(module, "posenc-cpu-pipeline", &error))
    return fail("pipeline", error);
  PosencJit jit = posencJitCreate(module, 2, NULL, 0, &error);
  if (posencJitIsNull(jit))
    return fail("jit", error);

  int status = 0;
  for (int p = 1; p <= 2; ++p) {
    float result = 0.0f;
    void *args[] = {&p, &result};
    if (!posencJitInvokePacked(jit, "_mlir_ciface_probe", args, &error)) {
      status = fail("call", error);
      break;
    }
    printf("probe(%d) = %.6f\n", p, result);
  }
  posencJitDestroy(jit);
  posencModuleDestroy(module);
  posencContextDestroy(context);
  return status;
}
