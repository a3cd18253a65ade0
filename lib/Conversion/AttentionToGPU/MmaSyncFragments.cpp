//===- MmaSyncFragments.cpp - mma.sync fragments of the tensor-core kernel ===//
//
// The warp-level half of posenc-gpu-tensor-core-attention: mma.sync m16n8k16
// (sm_80+) on register fragments loaded from shared memory by ldmatrix.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), with
// g = lane / 4 and t = lane % 4:
//   A 16x16: vector<4x2>, [0] = (g, 2t..2t+1), [1] = (g+8, 2t..), [2] = (g,
//            2t+8..), [3] = (g+8, 2t+8..)
//   B 16x8:  vector<2x2>, [0] = (k = 2t..2t+1, n = g), [1] = (k = 2t+8.., g)
//   C 16x8:  vector<2x2>, [0] = (g, 2t..2t+1), [1] = (g+8, 2t..2t+1)
// The addresses and coordinates come from getTensorCoreLoadAddressMap and
// getTensorCoreAccumulatorMap; unittests/TensorCoreLayoutTest.cpp checks
// them against ldmatrix's definition and upstream's
// nvgpu::getLaneIdAndValueIdToOperandCoord.
//
// Only bf16 mma goes straight to nvvm.mma.sync: MLIR 22's nvgpu-to-nvvm
// cannot type a bf16 nvgpu.mma.sync ("failed to deduce operand PTX types").
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::tensor_core;

AffineMap posenc::getTensorCoreLoadAddressMap(MLIRContext *ctx,
                                              TensorCoreLoad load) {
  AffineExpr lane = getAffineDimExpr(0, ctx);
  AffineExpr row8 = lane % 8, matrix = lane.floorDiv(8);
  switch (load) {
  case TensorCoreLoad::QueryA:
    // Matrices (rows 0-7, cols 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15):
    // registers a0a1, a2a3, a4a5, a6a7.
    return AffineMap::get(1, 0, {row8 + (matrix % 2) * 8, (matrix.floorDiv(2)) * 8},
                          ctx);
  case TensorCoreLoad::KeyB:
    // Matrices (keys 0-7, dims 0-7), (keys 0-7, dims 8-15): b0b1, b2b3.
    // Lanes 16-31 are ignored by x2; their addresses repeat lanes 0-15.
    return AffineMap::get(1, 0, {row8, (matrix % 2) * 8}, ctx);
  case TensorCoreLoad::ValueB:
    // Transposed matrices (keys 0-7, dims 0-7), (keys 8-15, dims 0-7).
    return AffineMap::get(1, 0, {row8 + (matrix % 2) * 8,
                                 getAffineConstantExpr(0, ctx)},
                          ctx);
  }
  llvm_unreachable("unknown TensorCoreLoad");
}

AffineMap posenc::getTensorCoreAccumulatorMap(MLIRContext *ctx) {
  AffineExpr lane = getAffineDimExpr(0, ctx), reg = getAffineDimExpr(1, ctx),
             elem = getAffineDimExpr(2, ctx);
  return AffineMap::get(3, 0, {lane.floorDiv(4) + reg * 8, (lane % 4) * 2 + elem},
                        ctx);
}

Value KernelBuilder::ldmatrix(Value tile, Value row, Value col, int64_t tiles,
                              bool transpose) {
  auto type = VectorType::get({tiles, 2}, elemType);
  return nvgpu::LdMatrixOp::create(b, loc, type, tile, ValueRange{row, col},
                                   b.getBoolAttr(transpose),
                                   b.getI32IntegerAttr(tiles));
}

Value KernelBuilder::mma(Value a, Value bFrag, Value acc) {
  if (elemType.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, acc,
                                    ArrayRef<int64_t>{16, 8, 16});
  // bf16: nvvm.mma.sync on the fragments' 32-bit registers.
  auto regs = [&](Value frag, int64_t count) {
    SmallVector<Value> words;
    for (int64_t i = 0; i < count; ++i) {
      Value pair = vector::ExtractOp::create(b, loc, frag, i);
      Value bits = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      words.push_back(vector::ExtractOp::create(b, loc, bits, 0));
    }
    return words;
  };
  SmallVector<Value> accElems;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      accElems.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{i, j}));
  Type f = b.getF32Type();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f, f, f, f});
  Value res = NVVM::MmaOp::create(
      b, loc, resultType, regs(a, 4), regs(bFrag, 2), accElems,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                    NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  Value result = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(VectorType::get({2, 2}, f), 0.0f));
  for (int64_t i = 0; i < 4; ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, res, i);
    result = vector::InsertOp::create(b, loc, e, result,
                                      ArrayRef<int64_t>{i / 2, i % 2});
  }
  return result;
}

/// Max or sum of `v` over the four lanes 4g..4g+3 that hold one row of an
/// accumulator fragment.
Value KernelBuilder::quadReduce(Value v, bool isMax) {
  for (int32_t offset : {1, 2}) {
    Value other = gpu::ShuffleOp::create(b, loc, v, offset, kLanes,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    v = isMax ? Value(arith::MaximumFOp::create(b, loc, v, other))
              : Value(arith::AddFOp::create(b, loc, v, other));
  }
  return v;
}

void KernelBuilder::loadQueryFragments() {
  // Q is staged through the K tile.
  AffineMap qMap =
      getTensorCoreLoadAddressMap(b.getContext(), TensorCoreLoad::QueryA);
  Value aRow = add(mul(warp, c(16)), apply(qMap, 0, lane));
  Value aCol = apply(qMap, 1, lane);
  for (int64_t kk = 0; kk < d / 16; ++kk)
    qFrags.push_back(ldmatrix(kTile, aRow, add(aCol, c(16 * kk)), 4, false));
}

SmallVector<Value> KernelBuilder::mmaSyncScores() {
  // S = Q K^T, 8 keys at a time: ldmatrix (not transposed) of K rows
  // gives the B fragment of K^T.
  SmallVector<Value> s;
  AffineMap kMap =
      getTensorCoreLoadAddressMap(b.getContext(), TensorCoreLoad::KeyB);
  Value bRow = apply(kMap, 0, lane);
  Value bCol = apply(kMap, 1, lane);
  for (int64_t nb = 0; nb < bn / 8; ++nb) {
    Value sAcc = zeroAcc;
    for (int64_t kk = 0; kk < d / 16; ++kk) {
      Value frag = ldmatrix(kTile, add(bRow, c(8 * nb)),
                            add(bCol, c(16 * kk)), 2, false);
      sAcc = mma(qFrags[kk], frag, sAcc);
    }
    s.push_back(sAcc);
  }
  return s;
}

void KernelBuilder::mmaSyncAccumulate(ArrayRef<Value> p,
                                      SmallVectorImpl<Value> &acc) {
  // O += P V, 16 keys at a time: the C fragments of key blocks 2kk2 and
  // 2kk2+1 are the A fragment (rows g, g+8; keys 2t.., 2t+8..).
  // ldmatrix x2 transposed of V rows gives B: lane l addresses key row
  // l % 8 + 8 ((l / 8) % 2).
  auto fragType = VectorType::get({4, 2}, elemType);
  AffineMap vMap =
      getTensorCoreLoadAddressMap(b.getContext(), TensorCoreLoad::ValueB);
  Value vRow = apply(vMap, 0, lane);
  for (int64_t kk2 = 0; kk2 < bn / 16; ++kk2) {
    SmallVector<Value> pe;
    for (int64_t half = 0; half < 2; ++half) // key block 2kk2 + half
      for (int64_t vi = 0; vi < 2; ++vi)     // row g or g+8
        for (int64_t e = 0; e < 2; ++e)
          pe.push_back(castFloat(
              b, loc, p[(2 * kk2 + half) * 4 + 2 * vi + e], elemType));
    Value pFrag = vector::FromElementsOp::create(b, loc, fragType, pe);
    for (int64_t nd = 0; nd < dv / 8; ++nd) {
      Value frag = ldmatrix(vTile, add(vRow, c(16 * kk2)),
                            add(apply(vMap, 1, lane), c(8 * nd)), 2, true);
      acc[nd] = mma(pFrag, frag, acc[nd]);
    }
  }
}
