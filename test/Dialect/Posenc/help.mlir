// posenc-opt --help lists the posenc passes and pipelines.
// RUN: posenc-opt --help | FileCheck %s
// CHECK-DAG: --posenc-cpu-pipeline
// CHECK-DAG: --posenc-import-tosa
// CHECK-DAG: --posenc-raise
// CHECK-DAG: --posenc-to-linalg
