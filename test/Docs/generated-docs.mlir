// The op and pass reference is generated from ODS by the mlir-doc target
// (scripts/setup.sh builds it); check that every op and pass is documented.
// RUN: FileCheck %s --check-prefix=OPS --input-file=%posenc_obj/docs/Posenc/PosencDialect.md
// RUN: FileCheck %s --check-prefix=PASSES --input-file=%posenc_obj/docs/Posenc/PosencConversionPasses.md

// OPS-DAG: ### `posenc.alibi_bias`
// OPS-DAG: ### `posenc.attention`
// OPS-DAG: ### `posenc.rel_pos_attention`
// OPS-DAG: ### `posenc.rope`
// OPS-DAG: ### `posenc.sinusoidal`
// OPS-DAG: rope_scaling
// PASSES: `-posenc-to-linalg`
