// RUN: posenc-opt %s --posenc-import-tosa --posenc-raise | FileCheck %s --check-prefix=RAISE
// RUN: posenc-opt %s --posenc-import-tosa --posenc-cpu-pipeline="raise=false" --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=UNRAISED
// RUN: posenc-opt %s --posenc-import-tosa --posenc-cpu-pipeline --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=FUSED
// RUN: posenc-opt %s --posenc-import-tosa --posenc-to-nvvm="format=isa" --mlir-print-ir-after=posenc-decompose-attention 2>&1 | FileCheck %s --check-prefix=FUSED

// A LLaMA-style attention block written the way a TOSA exporter writes it
// (test/python/tosa_blocks.py, llama_block(24, 4, 2, 64, llama3)): q/k/v
// projections reshaped and transposed to [1, H, S, D]; RoPE with
// HuggingFace's float32 inverse frequencies for base 500000 and llama3
// scaling, multiplied in the graph by the position_ids argument; GQA 4/2 by
// tosa.tile; scores scaled by 1/8; HuggingFace's causal mask holding the
// lowest finite f32; softmax; tosa.matmul with V.
//
// Raised: exactly one posenc.attention (causal, K/V keeping 2 heads) fed by
// two posenc.rope, recovered as base 500000 with llama3 scaling.
// RAISE-LABEL: func.func @llama_block(
// RAISE-COUNT-2: posenc.rope {{.*}} layout half {base = 5.000000e+05 : f64, scaling = #posenc.rope_scaling<llama3, factor = 8.000000e+00, low_freq_factor = 1.000000e+00, high_freq_factor = 4.000000e+00, original_max_position = 8192>}
// RAISE-NOT: posenc.rope
// RAISE: posenc.attention {{.*}} {causal, scale = 1.250000e-01 : f64} : tensor<4x24x64xf32>, tensor<2x24x64xf32>, tensor<2x24x64xf32> -> tensor<4x24x64xf32>
// RAISE-NOT: posenc.attention
// RAISE-NOT: linalg.batch_matmul
// RAISE-NOT: math.exp
//
// Through posenc-cpu-pipeline (and posenc-to-nvvm, which raises the same
// way), after the attention decomposition: the
// unraised graph materializes the 24 x 24 scores and the rotated Q and K
// (elementwise generics over [1, H, 24, 64]); the raised one reads Q/K/V
// tiles from the transposed projections, rotating them as they are loaded,
// and has neither.
// UNRAISED: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x24x64xf32>)
// UNRAISED: linalg.batch_matmul {{.*}} -> tensor<4x24x24xf32>
// FUSED-LABEL: IR Dump After PosencDecomposeAttentionPass
// FUSED-NOT: 24x24
// FUSED-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x{{[24]}}x24x64xf32>)
// FUSED-NOT: = posenc.
// FUSED: scf.forall
// FUSED-NOT: 24x24
// FUSED-NOT: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x{{[24]}}x24x64xf32>)
// FUSED: llvm.func @llama_block

func.func @llama_block(%q_proj: tensor<1x24x256xf32>, %k_proj: tensor<1x24x128xf32>, %v_proj: tensor<1x24x128xf32>, %position_ids: tensor<1x24xi32>) -> tensor<1x24x256xf32> {
    %t1 = tosa.const_shape {values = dense<[1, 24, 4, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t2 = tosa.reshape %q_proj, %t1 : (tensor<1x24x256xf32>, !tosa.shape<4>) -> tensor<1x24x4x64xf32>
    %t3 = tosa.transpose %t2 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x24x4x64xf32>) -> tensor<1x4x24x64xf32>
    %t4 = tosa.const_shape {values = dense<[1, 24, 2, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t5 = tosa.reshape %k_proj, %t4 : (tensor<1x24x128xf32>, !tosa.shape<4>) -> tensor<1x24x2x64xf32>
    %t6 = tosa.transpose %t5 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x24x2x64xf32>) -> tensor<1x2x24x64xf32>
    %t7 = tosa.const_shape {values = dense<[1, 24, 2, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t8 = tosa.reshape %v_proj, %t7 : (tensor<1x24x128xf32>, !tosa.shape<4>) -> tensor<1x24x2x64xf32>
    %t9 = tosa.transpose %t8 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x24x2x64xf32>) -> tensor<1x2x24x64xf32>
    %t10 = "tosa.const"() {values = dense<[[[1.0000000e+00, 6.6360122e-01, 4.4036663e-01, 2.9222780e-01, 1.9392276e-01, 1.2868738e-01, 8.5397102e-02, 5.6669619e-02, 3.7606031e-02, 2.4955409e-02, 1.6560441e-02, 1.0989529e-02, 7.2926651e-03, 4.8394212e-03, 3.2114461e-03, 1.3718937e-03, 5.2484602e-04, 1.7850779e-04, 7.7846555e-05, 5.1659074e-05, 3.4281024e-05, 2.2748927e-05, 1.5096218e-05, 1.0017868e-05, 6.6478706e-06, 4.4115345e-06, 2.9274997e-06, 1.9426925e-06, 1.2891732e-06, 8.5549692e-07, 5.6770881e-07, 3.7673229e-07]]]> : tensor<1x1x32xf32>} : () -> tensor<1x1x32xf32>
    %t11 = tosa.const_shape {values = dense<[1, 24, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t12 = tosa.reshape %position_ids, %t11 : (tensor<1x24xi32>, !tosa.shape<3>) -> tensor<1x24x1xi32>
    %t13 = tosa.cast %t12 : (tensor<1x24x1xi32>) -> tensor<1x24x1xf32>
    %t14 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t15 = tosa.mul %t13, %t10, %t14 : (tensor<1x24x1xf32>, tensor<1x1x32xf32>, tensor<1xi8>) -> tensor<1x24x32xf32>
    %t16 = tosa.concat %t15, %t15 {axis = 2 : i32} : (tensor<1x24x32xf32>, tensor<1x24x32xf32>) -> tensor<1x24x64xf32>
    %t17 = tosa.cos %t16 : (tensor<1x24x64xf32>) -> tensor<1x24x64xf32>
    %t18 = tosa.sin %t16 : (tensor<1x24x64xf32>) -> tensor<1x24x64xf32>
    %t19 = tosa.const_shape {values = dense<[1, 1, 24, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t20 = tosa.reshape %t17, %t19 : (tensor<1x24x64xf32>, !tosa.shape<4>) -> tensor<1x1x24x64xf32>
    %t21 = tosa.const_shape {values = dense<[1, 1, 24, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t22 = tosa.reshape %t18, %t21 : (tensor<1x24x64xf32>, !tosa.shape<4>) -> tensor<1x1x24x64xf32>
    %t23 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t24 = tosa.const_shape {values = dense<[1, 4, 24, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t25 = tosa.slice %t3, %t23, %t24 : (tensor<1x4x24x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x24x32xf32>
    %t26 = tosa.const_shape {values = dense<[0, 0, 0, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t27 = tosa.const_shape {values = dense<[1, 4, 24, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t28 = tosa.slice %t3, %t26, %t27 : (tensor<1x4x24x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x24x32xf32>
    %t29 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t30 = tosa.negate %t28, %t29, %t29 : (tensor<1x4x24x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x24x32xf32>
    %t31 = tosa.concat %t30, %t25 {axis = 3 : i32} : (tensor<1x4x24x32xf32>, tensor<1x4x24x32xf32>) -> tensor<1x4x24x64xf32>
    %t32 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t33 = tosa.mul %t3, %t20, %t32 : (tensor<1x4x24x64xf32>, tensor<1x1x24x64xf32>, tensor<1xi8>) -> tensor<1x4x24x64xf32>
    %t34 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t35 = tosa.mul %t31, %t22, %t34 : (tensor<1x4x24x64xf32>, tensor<1x1x24x64xf32>, tensor<1xi8>) -> tensor<1x4x24x64xf32>
    %t36 = tosa.add %t33, %t35 : (tensor<1x4x24x64xf32>, tensor<1x4x24x64xf32>) -> tensor<1x4x24x64xf32>
    %t37 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t38 = tosa.const_shape {values = dense<[1, 2, 24, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t39 = tosa.slice %t6, %t37, %t38 : (tensor<1x2x24x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x24x32xf32>
    %t40 = tosa.const_shape {values = dense<[0, 0, 0, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t41 = tosa.const_shape {values = dense<[1, 2, 24, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t42 = tosa.slice %t6, %t40, %t41 : (tensor<1x2x24x64xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x24x32xf32>
    %t43 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t44 = tosa.negate %t42, %t43, %t43 : (tensor<1x2x24x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x24x32xf32>
    %t45 = tosa.concat %t44, %t39 {axis = 3 : i32} : (tensor<1x2x24x32xf32>, tensor<1x2x24x32xf32>) -> tensor<1x2x24x64xf32>
    %t46 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t47 = tosa.mul %t6, %t20, %t46 : (tensor<1x2x24x64xf32>, tensor<1x1x24x64xf32>, tensor<1xi8>) -> tensor<1x2x24x64xf32>
    %t48 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t49 = tosa.mul %t45, %t22, %t48 : (tensor<1x2x24x64xf32>, tensor<1x1x24x64xf32>, tensor<1xi8>) -> tensor<1x2x24x64xf32>
    %t50 = tosa.add %t47, %t49 : (tensor<1x2x24x64xf32>, tensor<1x2x24x64xf32>) -> tensor<1x2x24x64xf32>
    %t51 = tosa.const_shape {values = dense<[1, 2, 1, 24, 64]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t52 = tosa.reshape %t50, %t51 : (tensor<1x2x24x64xf32>, !tosa.shape<5>) -> tensor<1x2x1x24x64xf32>
    %t53 = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t54 = tosa.tile %t52, %t53 : (tensor<1x2x1x24x64xf32>, !tosa.shape<5>) -> tensor<1x2x2x24x64xf32>
    %t55 = tosa.const_shape {values = dense<[1, 4, 24, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t56 = tosa.reshape %t54, %t55 : (tensor<1x2x2x24x64xf32>, !tosa.shape<4>) -> tensor<1x4x24x64xf32>
    %t57 = tosa.const_shape {values = dense<[1, 2, 1, 24, 64]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t58 = tosa.reshape %t9, %t57 : (tensor<1x2x24x64xf32>, !tosa.shape<5>) -> tensor<1x2x1x24x64xf32>
    %t59 = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %t60 = tosa.tile %t58, %t59 : (tensor<1x2x1x24x64xf32>, !tosa.shape<5>) -> tensor<1x2x2x24x64xf32>
    %t61 = tosa.const_shape {values = dense<[1, 4, 24, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t62 = tosa.reshape %t60, %t61 : (tensor<1x2x2x24x64xf32>, !tosa.shape<4>) -> tensor<1x4x24x64xf32>
    %t63 = tosa.transpose %t56 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x4x24x64xf32>) -> tensor<1x4x64x24xf32>
    %t64 = tosa.const_shape {values = dense<[4, 24, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t65 = tosa.reshape %t36, %t64 : (tensor<1x4x24x64xf32>, !tosa.shape<3>) -> tensor<4x24x64xf32>
    %t66 = tosa.const_shape {values = dense<[4, 64, 24]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t67 = tosa.reshape %t63, %t66 : (tensor<1x4x64x24xf32>, !tosa.shape<3>) -> tensor<4x64x24xf32>
    %t68 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t69 = tosa.matmul %t65, %t67, %t68, %t68 : (tensor<4x24x64xf32>, tensor<4x64x24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x24x24xf32>
    %t70 = "tosa.const"() {values = dense<[[[0.125]]]> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
    %t71 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t72 = tosa.mul %t69, %t70, %t71 : (tensor<4x24x24xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x24x24xf32>
    %t73 = tosa.const_shape {values = dense<[1, 4, 24, 24]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t74 = tosa.reshape %t72, %t73 : (tensor<4x24x24xf32>, !tosa.shape<4>) -> tensor<1x4x24x24xf32>
    %t75 = "tosa.const"() {values = dense<[[[[ 0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00, -3.4028235e+38],
   [ 0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00,  0.0000000e+00]]]]> : tensor<1x1x24x24xf32>} : () -> tensor<1x1x24x24xf32>
    %t76 = tosa.add %t74, %t75 : (tensor<1x4x24x24xf32>, tensor<1x1x24x24xf32>) -> tensor<1x4x24x24xf32>
    %t77 = tosa.reduce_max %t76 {axis = 3 : i32} : (tensor<1x4x24x24xf32>) -> tensor<1x4x24x1xf32>
    %t78 = tosa.sub %t76, %t77 : (tensor<1x4x24x24xf32>, tensor<1x4x24x1xf32>) -> tensor<1x4x24x24xf32>
    %t79 = tosa.exp %t78 : (tensor<1x4x24x24xf32>) -> tensor<1x4x24x24xf32>
    %t80 = tosa.reduce_sum %t79 {axis = 3 : i32} : (tensor<1x4x24x24xf32>) -> tensor<1x4x24x1xf32>
    %t81 = tosa.reciprocal %t80 : (tensor<1x4x24x1xf32>) -> tensor<1x4x24x1xf32>
    %t82 = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
    %t83 = tosa.mul %t79, %t81, %t82 : (tensor<1x4x24x24xf32>, tensor<1x4x24x1xf32>, tensor<1xi8>) -> tensor<1x4x24x24xf32>
    %t84 = tosa.const_shape {values = dense<[4, 24, 24]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t85 = tosa.reshape %t83, %t84 : (tensor<1x4x24x24xf32>, !tosa.shape<3>) -> tensor<4x24x24xf32>
    %t86 = tosa.const_shape {values = dense<[4, 24, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t87 = tosa.reshape %t62, %t86 : (tensor<1x4x24x64xf32>, !tosa.shape<3>) -> tensor<4x24x64xf32>
    %t88 = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %t89 = tosa.matmul %t85, %t87, %t88, %t88 : (tensor<4x24x24xf32>, tensor<4x24x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x24x64xf32>
    %t90 = tosa.const_shape {values = dense<[1, 4, 24, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %t91 = tosa.reshape %t89, %t90 : (tensor<4x24x64xf32>, !tosa.shape<4>) -> tensor<1x4x24x64xf32>
    %t92 = tosa.transpose %t91 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x24x64xf32>) -> tensor<1x24x4x64xf32>
    %t93 = tosa.const_shape {values = dense<[1, 24, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %t94 = tosa.reshape %t92, %t93 : (tensor<1x24x4x64xf32>, !tosa.shape<3>) -> tensor<1x24x256xf32>
    return %t94 : tensor<1x24x256xf32>
}
