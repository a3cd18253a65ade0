// RUN: posenc-opt %s --posenc-to-linalg | FileCheck %s

// The reference lowering of posenc.xl_attention: q + u and q + v once, the
// [Sq, Sk] content product, the [Sq, L] position product (the paper's table;
// the reference may materialize it), the scores reading its row
// t = i' - j + Sq - 1 by index, then the masked softmax and P V. With
// dynamic Sq/Sk, L = Sq + Sk - 1 is checked at run time.

// CHECK-LABEL: func.func @xl_static
// CHECK-NOT: cf.assert
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x5x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x5x7xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x5x8xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x5x11xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<2x3x5x11xf32>
func.func @xl_static(%q: tensor<2x3x5x8xf32>, %k: tensor<2x3x7x8xf32>,
                     %r: tensor<11x8xf32>, %u: tensor<3x8xf32>)
    -> tensor<2x3x5x8xf32> {
  %o = posenc.xl_attention %q, %k, %k rel(%r : tensor<11x8xf32>)
      content_bias(%u : tensor<3x8xf32>) position_bias(%u : tensor<3x8xf32>)
      {causal} : tensor<2x3x5x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x8xf32>
      -> tensor<2x3x5x8xf32>
  return %o : tensor<2x3x5x8xf32>
}

// CHECK-LABEL: func.func @xl_dynamic
// CHECK: cf.assert %{{.*}}, "posenc.xl_attention: 'rel' does not have Sq + Sk - 1 rows"
func.func @xl_dynamic(%q: tensor<1x3x?x8xf16>, %k: tensor<1x3x?x8xf16>,
                      %r: tensor<3x?x8xf16>, %u: tensor<3x8xf16>)
    -> tensor<1x3x?x8xf16> {
  %o = posenc.xl_attention %q, %k, %k rel(%r : tensor<3x?x8xf16>)
      content_bias(%u : tensor<3x8xf16>) position_bias(%u : tensor<3x8xf16>)
      : tensor<1x3x?x8xf16>, tensor<1x3x?x8xf16>, tensor<1x3x?x8xf16>
      -> tensor<1x3x?x8xf16>
  return %o : tensor<1x3x?x8xf16>
}
