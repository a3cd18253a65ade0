//===- WarpgroupMma.cpp - wgmma operands of the tensor-core kernel --------===//
//
// The warpgroup half of posenc-gpu-tensor-core-attention (warpgroup-mma,
// sm_90a): both products are wgmma.mma_async m64nNk16 of one warpgroup (the
// block's 4 warps, 64 query rows) on operands in shared memory, read
// through matrix descriptors:
//   Q [64 x D], K [Bn x D], P [64 x Bn] and V^T [Dv x Bn], each in the
//   no-swizzle K-major layout (8 x 8 core matrices of 128 contiguous bytes;
//   getWarpgroupOperandIndexMap; CUTLASS's canonical INTERLEAVE K-major
//   layout ((8,m),(T,2)):((1T,SBO),(1,LBO))), P over K's bytes once S is
//   computed;
//   S = Q K^T: D / 16 wgmma m64n{Bn}k16; O += P V: Bn / 16 wgmma
//   m64n{Dv}k16 on the rescaled O registers. Generic-proxy stores to shared
//   memory are followed by fence.proxy.async before the barrier that
//   precedes a wgmma; every batch is wgmma.fence, the wgmmas, commit_group,
//   wait_group 0. The accumulator layout of warp w of the warpgroup is the
//   mma.sync C layout (MmaSyncFragments.cpp), 16 w rows down and repeated
//   over N / 8 column blocks (PTX ISA, "Matrix Fragments for
//   wgmma.mma_async.m64nNk16"), so the softmax code is shared. P goes
//   through shared memory because MLIR 22's nvvm.wgmma.mma_async takes A
//   only by descriptor.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace posenc;
using namespace posenc::tensor_core;

AffineMap posenc::getWarpgroupOperandIndexMap(MLIRContext *ctx) {
  AffineExpr row = getAffineDimExpr(0, ctx), col = getAffineDimExpr(1, ctx);
  return AffineMap::get(
      2, 0, {row.floorDiv(8), col.floorDiv(8), row % 8, col % 8}, ctx);
}

int64_t posenc::tensor_core::warpgroupTileBytes(int64_t d, int64_t dv,
                                                int64_t bn) {
  return 2 * (64 * d + std::max(bn * d, 64 * bn) + dv * bn);
}

void KernelBuilder::declareWarpgroupWindow() {
  // One window for the four operands, so that their descriptors are
  // offsets from one address; 128-byte aligned.
  auto module = op->getParentOfType<ModuleOp>();
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({warpgroupTileBytes(d, dv, bn)}, b.getI8Type(),
                              MemRefLayoutAttrInterface(), space);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  windowGlobal = memref::GlobalOp::create(
      b, loc, "__posenc_tc_wgmma_tiles", b.getStringAttr("private"), type,
      Attribute(), /*constant=*/false, b.getI64IntegerAttr(128));
  SymbolTable(module).insert(windowGlobal); // Renames on a clash.
}

void KernelBuilder::viewWarpgroupWindow() {
  Value window = memref::GetGlobalOp::create(b, loc, windowGlobal.getType(),
                                             windowGlobal.getSymName());
  windowAddr = arith::IndexCastOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, window));
  auto view = [&](int64_t offset, int64_t numRows, int64_t numCols) {
    auto type = MemRefType::get({numRows / 8, numCols / 8, 8, 8}, elemType,
                                MemRefLayoutAttrInterface(),
                                windowGlobal.getType().getMemorySpace());
    return memref::ViewOp::create(b, loc, type, window, c(offset),
                                  ValueRange{})
        .getResult();
  };
  qTile = view(qOff, bm, d);
  kTile = view(kOff, bn, d);
  pTile = view(kOff, bm, bn);
  vTile = view(vOff, dv, bn);
}

SmallVector<Value> KernelBuilder::warpgroupIndex(Value row, Value col) {
  AffineMap map = getWarpgroupOperandIndexMap(b.getContext());
  SmallVector<Value> at;
  for (unsigned i = 0; i < 4; ++i)
    at.push_back(apply(map, i, {row, col}));
  return at;
}

void KernelBuilder::fenceForWarpgroupMma() {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b, loc);
}

Value KernelBuilder::descriptor(int64_t offset, int64_t cols) {
  // PTX ISA, "Matrix Descriptor Format": bits 0-13 start address >> 4,
  // 16-29 leading byte offset >> 4 (K-adjacent core matrices: 128 bytes),
  // 32-45 stride byte offset >> 4 (M/N-adjacent: (cols / 8) * 128 bytes),
  // base offset 0, swizzle mode (bits 62-63) 0 = none.
  Type i64 = b.getI64Type();
  auto k = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value addr = arith::AddIOp::create(b, loc, windowAddr, k(offset));
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, k(4)), k(0x3FFF));
  int64_t lbo = 128, sbo = cols / 8 * 128;
  int64_t fixed = ((lbo >> 4) << 16) | ((sbo >> 4) << 32);
  return arith::OrIOp::create(b, loc, start, k(fixed));
}

SmallVector<Value> KernelBuilder::warpgroupMma(int64_t aOff, int64_t aCols,
                                               int64_t bOff, int64_t bCols,
                                               int64_t nDim, int64_t steps,
                                               ArrayRef<Value> acc) {
  MLIRContext *ctx = b.getContext();
  Type f = b.getF32Type();
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(nDim / 2, f));
  // Value i of the struct is element (i / 2 % 2, i % 2) of block i / 4.
  Value accStruct = LLVM::PoisonOp::create(b, loc, structType);
  for (int64_t i = 0; i < nDim / 2; ++i) {
    Value e = vector::ExtractOp::create(b, loc, acc[i / 4],
                                        ArrayRef<int64_t>{i / 2 % 2, i % 2});
    accStruct = LLVM::InsertValueOp::create(b, loc, accStruct, e, i);
  }
  NVVM::WGMMATypes type =
      elemType.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < steps; ++kk) {
    // One k16 step is two core matrices along K: 256 bytes further.
    Value descA = descriptor(aOff + 256 * kk, aCols);
    Value descB = descriptor(bOff + 256 * kk, bCols);
    accStruct = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, structType, accStruct, descA, descB,
        NVVM::MMAShapeAttr::get(ctx, 64, nDim, 16), type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> result;
  for (int64_t nb = 0; nb < nDim / 8; ++nb) {
    SmallVector<Value> e;
    for (int64_t j = 0; j < 4; ++j)
      e.push_back(LLVM::ExtractValueOp::create(b, loc, accStruct, 4 * nb + j));
    result.push_back(vector::FromElementsOp::create(b, loc, accType, e));
  }
  return result;
}

SmallVector<Value> KernelBuilder::warpgroupScores() {
  // S = Q K^T: K is the K-major B operand [Bn x D].
  return warpgroupMma(qOff, d, kOff, d, bn, d / 16,
                      SmallVector<Value>(bn / 8, zeroAcc));
}

void KernelBuilder::warpgroupAccumulate(ArrayRef<Value> p,
                                        SmallVectorImpl<Value> &acc) {
  // O += P V: P [64 x Bn] (rounded to the element type) over the K tile,
  // once every warp's S wgmma has read it; V^T is the K-major B operand
  // [Dv x Bn].
  gpu::BarrierOp::create(b, loc);
  for (int64_t nb = 0; nb < bn / 8; ++nb)
    for (int64_t vi = 0; vi < 2; ++vi)
      for (int64_t e = 0; e < 2; ++e) {
        Value row = arith::SubIOp::create(b, loc, rows[vi], q0);
        Value key = add(cols[e], c(8 * nb));
        memref::StoreOp::create(
            b, loc, castFloat(b, loc, p[nb * 4 + 2 * vi + e], elemType),
            pTile, warpgroupIndex(row, key));
      }
  fenceForWarpgroupMma();
  SmallVector<Value> next = warpgroupMma(kOff, bn, vOff, bn, dv, bn / 16, acc);
  acc.assign(next.begin(), next.end());
}
