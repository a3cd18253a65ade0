// posenc-gpu-emulate-tensor-cores (testing): the tensor-core kernel's launch
// becomes host loops over the grid around an scf.parallel over the block's
// 128 threads, with the team size set (and restored) through libomp; the
// warp collectives become scratch buffers and GOMP_barrier calls; no GPU op
// is left. Execution: test/Integration/GPU/attention-tensor-cores-emulated.mlir.
// RUN: posenc-opt %s --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-gpu-tensor-core-attention, posenc-gpu-emulate-tensor-cores)" | FileCheck %s
// RUN: posenc-opt %s --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-gpu-tensor-core-attention, posenc-gpu-emulate-tensor-cores)" \
// RUN:   | FileCheck %s --check-prefix=NOGPU
// The warpgroup-MMA kernel: the workgroup window becomes one byte buffer with
// the operand views on it, the kernel's address of it a fixed stand-in
// (1024), each wgmma a loop over k that reads through the decoded
// descriptors; nothing of the GPU is left either.
// RUN: posenc-opt %s --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-gpu-tensor-core-attention{warpgroup-mma=1}, posenc-gpu-emulate-tensor-cores)" \
// RUN:   | FileCheck %s --check-prefix=WG
// RUN: posenc-opt %s --pass-pipeline="builtin.module(posenc-fuse-attention, \
// RUN:   posenc-gpu-tensor-core-attention{warpgroup-mma=1}, posenc-gpu-emulate-tensor-cores)" \
// RUN:   | FileCheck %s --check-prefix=NOGPU

// CHECK-DAG:   func.func private @GOMP_barrier()
// CHECK-DAG:   func.func private @omp_set_num_threads(i32)
// CHECK-LABEL: func.func @attention_f16
// CHECK-NOT:     gpu.launch
// CHECK:         %[[PREV:.*]] = func.call @omp_get_max_threads()
// CHECK:         func.call @omp_set_num_threads(%c128_i32)
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.parallel ({{.*}}) = (%{{.*}}) to (%c128{{.*}}) step (%{{.*}})
// CHECK:               func.call @omp_get_num_threads()
// CHECK:               cf.assert
// CHECK:               func.call @GOMP_barrier()
// CHECK:         func.call @omp_set_num_threads(%[[PREV]])
// WG-LABEL:   func.func @attention_f16
// (D = 32, key tile 64: 2 (64 x 32 + 64 x 64 + 32 x 64) bytes.)
// WG:           %[[WIN:.*]] = memref.alloc() : memref<16384xi8>
// WG:           scf.parallel
// WG-DAG:         memref.view %[[WIN]][%c0{{.*}}][] : memref<16384xi8> to memref<8x4x8x8xf16>
// WG-DAG:         arith.index_cast %c1024{{.*}} : index to i64
// WG:             memref.view %[[WIN]][%c0{{.*}}][] : memref<16384xi8> to memref<8192xf16>
// WG:             cf.assert {{.*}} "posenc-gpu-emulate-tensor-cores: only no-swizzle descriptors with base offset 0 are emulated"
// WG:             scf.for {{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// WG:               cf.assert {{.*}} "posenc-gpu-emulate-tensor-cores: a wgmma operand element lies outside the addressed global"
// WG:             llvm.insertvalue
// The positive match makes an empty output fail; the NOT lines cover
// everything after the module's first token.
// NOGPU: {{^}}module
// NOGPU-NOT: nvgpu.
// NOGPU-NOT: nvvm.
// NOGPU-NOT: gpu.shuffle
// NOGPU-NOT: gpu.barrier
// NOGPU-NOT: gpu.launch
// NOGPU-NOT: #gpu.address_space<workgroup>
func.func @attention_f16(%q: tensor<1x2x40x32xf16>, %k: tensor<1x2x40x32xf16>,
                         %v: tensor<1x2x40x32xf16>) -> tensor<1x2x40x32xf16> {
  %o = posenc.attention %q, %k, %v {causal}
      : tensor<1x2x40x32xf16>, tensor<1x2x40x32xf16>, tensor<1x2x40x32xf16>
      -> tensor<1x2x40x32xf16>
  return %o : tensor<1x2x40x32xf16>
}

