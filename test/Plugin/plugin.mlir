// posenc as a plugin of the stock mlir-opt (not posenc-opt): the dialect
// plugin makes posenc ops parse, the pass plugin adds the posenc passes and
// pipelines. The stock mlir-opt builds its pass flags before it loads a pass
// plugin, so plugin passes are named in --pass-pipeline (as in upstream's
// mlir/examples/standalone), not as --posenc-to-linalg.
//
// The stock mlir-opt is not instrumented: it cannot load an ASan build's plugin.
// UNSUPPORTED: sanitizer
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin %s | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin \
// RUN:   --pass-pipeline="builtin.module(posenc-to-linalg)" %s | FileCheck %s --check-prefix=LINALG
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin \
// RUN:   --pass-pipeline="builtin.module(posenc-cpu-pipeline)" %s | FileCheck %s --check-prefix=LLVM
// RUN: %stock_mlir_opt --load-pass-plugin=%posenc_plugin --help | FileCheck %s --check-prefix=HELP
// RUN: not %stock_mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// ROUNDTRIP-LABEL: func.func @rope_attention
// ROUNDTRIP: posenc.rope %{{.*}}, %{{.*}} layout half {base = 5.000000e+05 : f64}
// ROUNDTRIP: posenc.attention {{.*}} {causal}

// LINALG-LABEL: func.func @rope_attention
// LINALG-NOT: posenc.
// LINALG: linalg.generic
// LINALG: return

// LLVM: llvm.func @rope_attention
// LLVM-NOT: posenc.

// HELP: --posenc-to-linalg
// HELP: --posenc-cpu-pipeline

// NOPLUGIN: Dialect `posenc' not found

func.func @rope_attention(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>,
                          %v: tensor<1x2x6x8xf32>, %pos: tensor<6xi32>) -> tensor<1x4x6x8xf32> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64} : tensor<1x4x6x8xf32>, tensor<6xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64} : tensor<1x2x6x8xf32>, tensor<6xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x4x6x8xf32>
  return %o : tensor<1x4x6x8xf32>
}
