// A LLaMA-3-style attention block: RoPE (half layout, base 500000, llama3
// frequency scaling) on the queries and keys, grouped-query attention (8 query
// heads over 2 key/value heads) and a causal mask. The sequence length is
// dynamic, as front ends emit it.
func.func @attention(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>,
                     %v: tensor<1x2x?x64xf32>, %pos: tensor<?xi32>)
    -> tensor<1x8x?x64xf32> {
  %qr = posenc.rope %q, %pos layout half {base = 5.0e+05 : f64,
      scaling = #posenc.rope_scaling<llama3, factor = 8.0, original_max_position = 8192>}
      : tensor<1x8x?x64xf32>, tensor<?xi32>
  %kr = posenc.rope %k, %pos layout half {base = 5.0e+05 : f64,
      scaling = #posenc.rope_scaling<llama3, factor = 8.0, original_max_position = 8192>}
      : tensor<1x2x?x64xf32>, tensor<?xi32>
  %o = posenc.attention %qr, %kr, %v {causal}
      : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>
      -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}
