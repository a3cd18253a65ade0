// The op and pass reference is generated from ODS by the mlir-doc target
// (scripts/setup.sh builds it); check that every op and pass is documented.
// RUN: FileCheck %s --check-prefix=OPS --input-file=%posenc_obj/docs/Posenc/PosencDialect.md
// RUN: FileCheck %s --check-prefix=PASSES --input-file=%posenc_obj/docs/Posenc/PosencConversionPasses.md
// RUN: FileCheck %s --check-prefix=NO-TEST-PASSES --input-file=%posenc_obj/docs/Posenc/PosencConversionPasses.md
// RUN: FileCheck %s --check-prefix=PIPELINE-PASSES --input-file=%posenc_obj/docs/Posenc/PosencPipelinesPasses.md

// OPS-DAG: ### `posenc.alibi_bias`
// OPS-DAG: ### `posenc.attention`
// OPS-DAG: ### `posenc.rel_pos_attention`
// OPS-DAG: ### `posenc.rope`
// OPS-DAG: ### `posenc.sinusoidal`
// OPS-DAG: rope_scaling
// PASSES-DAG: `-posenc-to-linalg`
// The GPU preparation passes of --posenc-to-nvvm, with their options.
// PASSES-DAG: `-posenc-gpu-fuse-elementwise`
// PASSES-DAG: `-posenc-gpu-copy-constants`
// PASSES-DAG: `-posenc-gpu-map-parallel-loops`
// PASSES-DAG: -block-size : Threads per block (in [1, 1024])
// PASSES-DAG: `-posenc-gpu-managed-allocs`
// The test-only pass (test/lib) is not in the user-facing reference.
// NO-TEST-PASSES-NOT: -posenc-gpu-emulate-tensor-cores
// PIPELINE-PASSES: `-posenc-to-nvvm-config-error`

// The posenc-raise pass and its option are in the generated pass reference.
// RUN: FileCheck %s --check-prefix=TRANSFORMS --input-file=%posenc_obj/docs/Posenc/PosencTransformsPasses.md
// TRANSFORMS-DAG: `-posenc-fuse-attention`
// TRANSFORMS-DAG: `-posenc-raise`
// TRANSFORMS-DAG: -remarks
