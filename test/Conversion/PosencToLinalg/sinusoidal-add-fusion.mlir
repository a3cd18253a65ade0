// `x + sinusoidal(pos)` (SPEC.md: the table must fuse into the add): after
// the CPU pipeline's elementwise fusion and bufferization, one loop nest
// computes sin/cos per element and adds it to x, writing straight into the
// destination; no S x D table buffer (no alloc at all) is left, and the
// final code calls no malloc. Both paths run the same fusion.
// RUN: posenc-opt %s --posenc-cpu-pipeline --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF
// RUN: posenc-opt %s --posenc-cpu-pipeline="reference=true" --mlir-print-ir-after=convert-bufferization-to-memref -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF
// RUN: posenc-opt %s --posenc-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// Without the fusion the table is a buffer of its own (so the checks above
// can fail):
// RUN: posenc-opt %s --posenc-to-linalg --convert-elementwise-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=UNFUSED

// BUF-LABEL: func.func @add_pe(
// BUF-SAME:      %[[X:.*]]: memref<128x64xf32>, %[[POS:.*]]: memref<128xi32>, %[[OUT:.*]]: memref<128x64xf32>)
// BUF-NOT:     memref.alloc
// BUF:         linalg.generic
// BUF-SAME:      ins(%[[X]], %[[POS]] : memref<128x64xf32>, memref<128xi32>) outs(%[[OUT]] : memref<128x64xf32>)
// BUF-DAG:       math.sin
// BUF-DAG:       math.cos
// BUF:           arith.addf
// BUF-NOT:     memref.alloc
// BUF-NOT:     memref.copy
// BUF:         return
// LLVM-LABEL: llvm.func @add_pe(
// LLVM-NOT:    @malloc
// LLVM:        llvm.return
// UNFUSED-LABEL: func.func @add_pe(
// UNFUSED:       memref.alloc() {{.*}} : memref<128x64xf32>
func.func @add_pe(%x: tensor<128x64xf32>, %pos: tensor<128xi32>, %out: memref<128x64xf32>) {
  %t = posenc.sinusoidal %pos layout interleaved : tensor<128xi32> -> tensor<128x64xf32>
  %y = arith.addf %x, %t : tensor<128x64xf32>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<128x64xf32>, memref<128x64xf32>) -> ()
  return
}

// Batched embeddings, the table broadcast over the batch by the add's
// indexing map: fused the same way (sin/cos computed per element).
// BUF-LABEL: func.func @add_pe_batched(
// BUF-NOT:     memref.alloc
// BUF:         linalg.generic
// BUF-SAME:      outs(%arg2 : memref<4x?x64xf16>)
// BUF:           math.sin
// BUF:           arith.addf
// BUF-NOT:     memref.alloc
// BUF:         return
#bsd = affine_map<(b, s, d) -> (b, s, d)>
#sd = affine_map<(b, s, d) -> (s, d)>
func.func @add_pe_batched(%x: tensor<4x?x64xf16>, %pos: tensor<?xi32>, %out: memref<4x?x64xf16>) {
  %t = posenc.sinusoidal %pos layout half : tensor<?xi32> -> tensor<?x64xf16>
  %c1 = arith.constant 1 : index
  %s = tensor.dim %x, %c1 : tensor<4x?x64xf16>
  %e = tensor.empty(%s) : tensor<4x?x64xf16>
  %y = linalg.generic {indexing_maps = [#bsd, #sd, #bsd], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %t : tensor<4x?x64xf16>, tensor<?x64xf16>) outs(%e : tensor<4x?x64xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %sum = arith.addf %a, %b : f16
    linalg.yield %sum : f16
  } -> tensor<4x?x64xf16>
  bufferization.materialize_in_destination %y in restrict writable %out : (tensor<4x?x64xf16>, memref<4x?x64xf16>) -> ()
  return
}
