// RUN: posenc-opt %s --posenc-to-linalg | FileCheck %s

// The reference lowering of the table form of posenc.rope: one generic over
// the input; each element reads its partner and the cos/sin entries of its
// own column (broadcast dims of the tables read index 0; columns >= R read
// column 0 and pass the input through), in f32 for f16 input. The table's
// dynamic sequence dim is checked against the input's at run time.

// CHECK-LABEL: func.func @rope_tables
// CHECK: cf.assert %{{.*}}, "posenc.rope: dim 2 of the cos/sin tables differs from dim 2 of the input"
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<2x8x?x64xf16>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[S:.*]] = linalg.index 2 : index
// CHECK: %[[D:.*]] = linalg.index 3 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[D]], %c32 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[D]], %c16 : index
// CHECK: %[[X:.*]] = arith.extf %in : f16 to f32
// CHECK: %[[COL:.*]] = arith.select %[[IN]], %[[D]], %{{.*}} : index
// CHECK: %[[COS:.*]] = tensor.extract %arg1[%[[B]], %{{.*}}, %[[S]], %[[COL]]] : tensor<2x1x?x32xf32>
// CHECK: %[[SIN:.*]] = tensor.extract %arg2[%[[B]], %{{.*}}, %[[S]], %[[COL]]] : tensor<2x1x?x32xf32>
// CHECK: %[[XC:.*]] = arith.mulf %[[X]], %[[COS]] : f32
// CHECK: %[[YS:.*]] = arith.mulf %{{.*}}, %[[SIN]] : f32
// CHECK: %[[SUB:.*]] = arith.subf %[[XC]], %[[YS]] : f32
// CHECK: %[[ADD:.*]] = arith.addf %[[XC]], %[[YS]] : f32
// CHECK: arith.select %[[FIRST]], %[[SUB]], %[[ADD]] : f32
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.select %[[IN]], %[[T]], %in : f16
func.func @rope_tables(%x: tensor<2x8x?x64xf16>, %c: tensor<2x1x?x32xf32>, %s: tensor<2x1x?x32xf32>) -> tensor<2x8x?x64xf16> {
  %0 = posenc.rope %x tables(%c, %s : tensor<2x1x?x32xf32>, tensor<2x1x?x32xf32>) layout half : tensor<2x8x?x64xf16>
  return %0 : tensor<2x8x?x64xf16>
}
