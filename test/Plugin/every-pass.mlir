// Every posenc pass and pipeline, by name, through the stock mlir-opt with
// libPosencPlugin.so loaded (the plugin registers what posenc-opt and the C
// API register: include/posenc/InitAllPasses.h). Each run checks that the
// pass did its work on a small valid input: this file's posenc program, or
// Inputs/buffers.mlir for the passes that run on buffers and vectors.
//
// The stock mlir-opt is not instrumented: it cannot load an ASan build's plugin.
// UNSUPPORTED: sanitizer
//
// Tensor level: fusion, the reference lowering, the decomposition and its
// vector tiles, the standalone RoPE lowering, the tensor-core kernel.
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention)" | FileCheck %s --check-prefix=FUSE
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-to-linalg)" | FileCheck %s --check-prefix=LINALG
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-decompose-attention)" \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSE
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-decompose-attention{vector-layout=1}, func.func(posenc-vectorize-attention-tiles))" \
// RUN:   | FileCheck %s --check-prefix=VECTORIZE
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-lower-rope)" | FileCheck %s --check-prefix=ROPE
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-target-features{features=-avx512f})" | FileCheck %s --check-prefix=FEATURES
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-gpu-tensor-core-attention)" \
// RUN:   | FileCheck %s --check-prefix=TENSORCORE
//
// GPU preparation on tensors, and the FMA attention kernel's mapping.
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-to-linalg, func.func(convert-elementwise-to-linalg), posenc-gpu-fuse-elementwise)" \
// RUN:   | FileCheck %s --check-prefix=GPUFUSE
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-fuse-attention, posenc-decompose-attention{query-tile=64 key-tile=32}, \
// RUN:   posenc-to-linalg, func.func(convert-elementwise-to-linalg), canonicalize, posenc-gpu-fuse-elementwise, cse, \
// RUN:   one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, \
// RUN:   buffer-deallocation-pipeline, convert-bufferization-to-memref, posenc-gpu-map-attention{block-size=64})" \
// RUN:   | FileCheck %s --check-prefix=MAPATTENTION
//
// Buffers and vectors (Inputs/buffers.mlir).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/buffers.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-copy-constants)" | FileCheck %S/Inputs/buffers.mlir --check-prefix=COPY
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/buffers.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-map-parallel-loops{block-size=32})" | FileCheck %S/Inputs/buffers.mlir --check-prefix=MAPLOOPS
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/buffers.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-managed-allocs)" | FileCheck %S/Inputs/buffers.mlir --check-prefix=MANAGED
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/buffers.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-gpu-unroll-private-loops)" | FileCheck %S/Inputs/buffers.mlir --check-prefix=UNROLL
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/buffers.mlir \
// RUN:   --pass-pipeline="builtin.module(func.func(posenc-lower-attention-vectors))" | FileCheck %S/Inputs/buffers.mlir --check-prefix=VECTORS
//
// A linalg.softmax that raising left alone (test/Pipelines' own input).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/../Pipelines/decompose-aggregates.mlir \
// RUN:   --pass-pipeline="builtin.module(func.func(posenc-decompose-aggregates))" | FileCheck %S/../Pipelines/decompose-aggregates.mlir
//
// Strided tile copies as vector row loops (test/Pipelines' own input).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/../Pipelines/vectorize-copies.mlir \
// RUN:   --split-input-file --pass-pipeline="builtin.module(func.func(posenc-vectorize-copies))" | FileCheck %S/../Pipelines/vectorize-copies.mlir
// Decode prefetches spread over a key step's loops (its own test input).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/../Conversion/DecomposeAttention/spread-decode-prefetches.mlir \
// RUN:   --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(posenc-spread-decode-prefetches,canonicalize))" \
// RUN:   | FileCheck %S/../Conversion/DecomposeAttention/spread-decode-prefetches.mlir
// A schedule for the OpenMP loops (test/Pipelines' own input).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/../Pipelines/omp-schedule.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-omp-schedule)" | FileCheck %S/../Pipelines/omp-schedule.mlir
// Results as destination arguments (test/Pipelines' own input).
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/../Pipelines/results-to-destinations.mlir \
// RUN:   --split-input-file --pass-pipeline="builtin.module(posenc-results-to-destinations{function=f})" \
// RUN:   | FileCheck %S/../Pipelines/results-to-destinations.mlir --check-prefix=REWRITE
//
// Front-end input: TOSA imported, then attention raised to posenc.
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %S/Inputs/tosa-attention.mlir \
// RUN:   --pass-pipeline="builtin.module(posenc-import-tosa, posenc-raise)" | FileCheck %S/Inputs/tosa-attention.mlir --check-prefix=RAISE
//
// The pipelines, and the pass that reports unusable pipeline options.
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-cpu-pipeline)" | FileCheck %s --check-prefix=CPU
// RUN: %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-to-nvvm{format=llvm})" | FileCheck %s --check-prefix=NVVM
// RUN: not %stock_mlir_opt --load-dialect-plugin=%posenc_plugin --load-pass-plugin=%posenc_plugin %s \
// RUN:   --pass-pipeline="builtin.module(posenc-to-nvvm-config-error{message=bad})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CONFIG
//
// Nothing is forgotten: the posenc passes and pipelines the plugin registers
// are those of posenc-opt less its test-only passes (test/lib), and each of
// them is run above (pass_coverage.py reads this file's RUN lines).
// RUN: %stock_mlir_opt --load-pass-plugin=%posenc_plugin --help > %t.plugin-help
// RUN: posenc-opt --help > %t.posenc-opt-help
// RUN: %python %S/Inputs/pass_coverage.py --plugin-help %t.plugin-help \
// RUN:   --tool-help %t.posenc-opt-help --test-only posenc-gpu-emulate-tensor-cores \
// RUN:   --runs %s | FileCheck %s --check-prefix=COVERAGE

// FUSE-LABEL:  func.func @rope_attention
// FUSE:          posenc.fused_attention
// FUSE-NOT:      posenc.attention
// FUSE:          return

// LINALG-LABEL: func.func @rope_attention
// LINALG-NOT:    posenc.
// LINALG:        linalg.generic
// LINALG:        return

// DECOMPOSE-LABEL: func.func @rope_attention
// DECOMPOSE-NOT:   posenc.
// DECOMPOSE:       scf.forall
// DECOMPOSE:         scf.for
// DECOMPOSE:       return

// VECTORIZE-LABEL: func.func @rope_attention
// VECTORIZE:       scf.forall
// VECTORIZE:         vector.contract
// VECTORIZE:       return

// FEATURES: module attributes {posenc.target_features = "-avx512f"}

// ROPE-LABEL:  func.func @rope_only
// ROPE-NOT:      posenc.rope
// ROPE:          scf.forall
// ROPE:            vector.transfer_read
// ROPE:          return

// TENSORCORE-LABEL: func.func @f16_attention
// TENSORCORE-NOT:   posenc.
// TENSORCORE:       gpu.launch
// TENSORCORE:         nvgpu.mma.sync
// TENSORCORE:       return

// The sinusoidal table fuses into the add: one generic is left.
// GPUFUSE-LABEL: func.func @add_table
// GPUFUSE:         linalg.generic
// GPUFUSE-NOT:     linalg.generic
// GPUFUSE:         return

// MAPATTENTION-LABEL: func.func @rope_attention
// MAPATTENTION:         gpu.launch
// MAPATTENTION-SAME:      workgroup(
// MAPATTENTION:         return

// CPU-LABEL:   llvm.func @rope_attention
// CPU-NOT:       posenc.
// CPU:           llvm.return

// NVVM-LABEL:  llvm.func @rope_attention
// NVVM:          gpu.launch_func
// NVVM:          llvm.return
// NVVM:        gpu.binary @rope_attention_kernel

// CONFIG: error: posenc-to-nvvm: bad

// COVERAGE: every posenc pass and pipeline of the plugin is run: {{[0-9]+}}

func.func @rope_attention(%q: tensor<1x4x6x8xf32>, %k: tensor<1x2x6x8xf32>,
                          %v: tensor<1x2x6x8xf32>, %pos: tensor<6xi32>) -> tensor<1x4x6x8xf32> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64} : tensor<1x4x6x8xf32>, tensor<6xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64} : tensor<1x2x6x8xf32>, tensor<6xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x4x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32> -> tensor<1x4x6x8xf32>
  return %o : tensor<1x4x6x8xf32>
}

func.func @rope_only(%x: tensor<1x2x16x64xf32>, %pos: tensor<16xi32>) -> tensor<1x2x16x64xf32> {
  %r = posenc.rope %x, %pos layout half : tensor<1x2x16x64xf32>, tensor<16xi32>
  return %r : tensor<1x2x16x64xf32>
}

func.func @f16_attention(%q: tensor<1x2x32x64xf16>, %k: tensor<1x2x32x64xf16>,
                         %v: tensor<1x2x32x64xf16>) -> tensor<1x2x32x64xf16> {
  %o = posenc.attention %q, %k, %v
      : tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16> -> tensor<1x2x32x64xf16>
  return %o : tensor<1x2x32x64xf16>
}

func.func @add_table(%x: tensor<16x64xf32>, %pos: tensor<16xi32>) -> tensor<16x64xf32> {
  %t = posenc.sinusoidal %pos : tensor<16xi32> -> tensor<16x64xf32>
  %r = arith.addf %x, %t : tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
