// A BLOOM-style attention block: ALiBi biases for 12 heads (not a power of
// two, so the interleaved slope rule applies) added to the scores of causal
// attention.
func.func @attention(%q: tensor<1x12x16x32xf32>, %k: tensor<1x12x16x32xf32>,
                     %v: tensor<1x12x16x32xf32>) -> tensor<1x12x16x32xf32> {
  %bias = posenc.alibi_bias : tensor<12x16x16xf32>
  %o = posenc.attention %q, %k, %v bias(%bias : tensor<12x16x16xf32>) {causal}
      : tensor<1x12x16x32xf32>, tensor<1x12x16x32xf32>, tensor<1x12x16x32xf32>
      -> tensor<1x12x16x32xf32>
  return %o : tensor<1x12x16x32xf32>
}
