// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise=remarks=true -split-input-file -verify-diagnostics | FileCheck %s

// apply_rotary_pos_emb with cos/sin folded into dense constants [1, 1, S, D]
// (torch.export folds them when the positions are static), written as a
// TOSA exporter writes it (test/python/tosa_blocks.py,
// rope_constant_tables(2, 4, 8, start=3)). Matched by value: base 10000,
// positions 3..6.

// CHECK-LABEL: func.func @folded_tables(
// CHECK: %[[P:.*]] = arith.constant dense<[3, 4, 5, 6]> : tensor<4xi32>
// CHECK: posenc.rope %arg0, %[[P]] layout half : tensor<1x2x4x8xf32>, tensor<4xi32>
func.func @folded_tables(%x: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
    %t1 = "tosa.const"() {values = dense<[[[[-0.9899925 ,  0.9553365 ,  0.99955004,  0.9999955 , -0.9899925 ,  0.9553365 ,  0.99955004,  0.9999955 ],
   [-0.6536436 ,  0.921061  ,  0.9992001 ,  0.999992  , -0.6536436 ,  0.921061  ,  0.9992001 ,  0.999992  ],
   [ 0.28366217,  0.87758255,  0.99875027,  0.9999875 ,  0.28366217,  0.87758255,  0.99875027,  0.9999875 ],
   [ 0.96017027,  0.8253356 ,  0.99820054,  0.999982  ,  0.96017027,  0.8253356 ,  0.99820054,  0.999982  ]]]]> : tensor<1x1x4x8xf32>} : () -> tensor<1x1x4x8xf32>
    %t2 = "tosa.const"() {values = dense<[[[[ 0.14112     ,  0.29552022  ,  0.0299955   ,  0.0029999956,  0.14112     ,  0.29552022  ,  0.0299955   ,  0.0029999956],
   [-0.7568025   ,  0.38941833  ,  0.039989334 ,  0.0039999895, -0.7568025   ,  0.38941833  ,  0.039989334 ,  0.0039999895],
   [-0.9589243   ,  0.47942555  ,  0.049979165 ,  0.0049999794, -0.9589243   ,  0.47942555  ,  0.049979165 ,  0.0049999794],
   [-0.2794155   ,  0.5646425   ,  0.059964005 ,  0.005999964 , -0.2794155   ,  0.5646425   ,  0.059964005 ,  0.005999964 ]]]]> : tensor<1x1x4x8xf32>} : () -> tensor<1x1x4x8xf32>
    %t3 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t4 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.slice %x, %t3, %t4 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t6 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t7 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t8 = tosa.slice %x, %t6, %t7 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t9 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t10 = tosa.negate %t8, %t9, %t9 : (tensor<1x2x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
    %t11 = tosa.concat %t10, %t5 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    %t12 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t13 = tosa.mul %x, %t1, %t12 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t14 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t15 = tosa.mul %t11, %t2, %t14 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    // expected-remark @below {{raised to posenc.rope (half layout)}}
    %t16 = tosa.add %t13, %t15 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %t16 : tensor<1x2x4x8xf32>
}

// -----

// Near miss: one pair of the cos table is off by 1e-3 at row 2: no
// rotation table, left alone.
// The tables match no formula: the table form of posenc.rope, exactly
// x*cos + rotate_half(x)*sin with the graph's own tables.
// CHECK-LABEL: func.func @perturbed_table(
// CHECK: posenc.rope %arg0 tables(
func.func @perturbed_table(%x: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
    %t1 = "tosa.const"() {values = dense<[[[[-0.9899925 ,  0.9553365 ,  0.99955004,  0.9999955 , -0.9899925 ,  0.9553365 ,  0.99955004,  0.9999955 ],
   [-0.6536436 ,  0.921061  ,  0.9992001 ,  0.999992  , -0.6536436 ,  0.921061  ,  0.9992001 ,  0.999992  ],
   [ 0.28366217,  0.87858254,  0.99875027,  0.9999875 ,  0.28366217,  0.87858254,  0.99875027,  0.9999875 ],
   [ 0.96017027,  0.8253356 ,  0.99820054,  0.999982  ,  0.96017027,  0.8253356 ,  0.99820054,  0.999982  ]]]]> : tensor<1x1x4x8xf32>} : () -> tensor<1x1x4x8xf32>
    %t2 = "tosa.const"() {values = dense<[[[[ 0.14112     ,  0.29552022  ,  0.0299955   ,  0.0029999956,  0.14112     ,  0.29552022  ,  0.0299955   ,  0.0029999956],
   [-0.7568025   ,  0.38941833  ,  0.039989334 ,  0.0039999895, -0.7568025   ,  0.38941833  ,  0.039989334 ,  0.0039999895],
   [-0.9589243   ,  0.47942555  ,  0.049979165 ,  0.0049999794, -0.9589243   ,  0.47942555  ,  0.049979165 ,  0.0049999794],
   [-0.2794155   ,  0.5646425   ,  0.059964005 ,  0.005999964 , -0.2794155   ,  0.5646425   ,  0.059964005 ,  0.005999964 ]]]]> : tensor<1x1x4x8xf32>} : () -> tensor<1x1x4x8xf32>
    %t3 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t4 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.slice %x, %t3, %t4 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t6 = tosa.const_shape {values = dense<[0, 0, 0, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t7 = tosa.const_shape {values = dense<[1, 2, 4, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t8 = tosa.slice %x, %t6, %t7 : (tensor<1x2x4x8xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x4x4xf32>
    %t9 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t10 = tosa.negate %t8, %t9, %t9 : (tensor<1x2x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4x4xf32>
    %t11 = tosa.concat %t10, %t5 {axis = 3 : i32} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
    %t12 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t13 = tosa.mul %x, %t1, %t12 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    %t14 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t15 = tosa.mul %t11, %t2, %t14 : (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1xi8>) -> tensor<1x2x4x8xf32>
    // expected-remark @below {{raised to posenc.rope table form (half layout): the constant cos/sin tables are not cos/sin((start + s) * inv_freq) of a posenc scaling, the halves duplicated}}
    %t16 = tosa.add %t13, %t15 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %t16 : tensor<1x2x4x8xf32>
}
