//===- TensorCoreAttention.cpp - f16/bf16 attention on tensor cores -------===//
//
// FlashAttention-2's warp-level algorithm on mma.sync m16n8k16 (sm_80+),
// for posenc.fused_attention with f16 or bf16 operands:
//
//   cos/sin tables of the RoPE positions [S x R/2] (before the launch)
//   gpu.launch blocks(lead dims linearized, query tile) threads(32 * warps)
//     stage the Q tile (RoPE prologue applied, rounded to the element type as
//       posenc.rope stores it) into shared memory; each warp loads the A
//       fragments of its 16 rows with ldmatrix and keeps them in registers
//     for each key tile (causal: up to the block's last query row):
//       stage K (RoPE) and V tiles into shared memory (rows past Sk are 0)
//       S = Q K^T: mma.sync per (8 keys, 16 dims), B fragments by ldmatrix
//       per score element (the accumulator layout gives its row i and key j):
//         scale, score_mod (the region, cloned), causal / Sk mask
//       online softmax on the fragments: row max and sum over the 4 lanes
//         that hold a row (shuffle xor 1, 2), rescale O
//       O += P V: the accumulators of two neighbouring 8-key blocks are
//         exactly the A fragment of a 16-key block (P rounded to the
//         element type), V's B fragments by ldmatrix.trans
//     O / l rounded to the element type, written from the fragments
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
// With warpgroup-mma (sm_90a), both products are wgmma.mma_async
// m64nNk16 of one warpgroup (the block's 4 warps, 64 query rows) on
// operands in shared memory, read through matrix descriptors:
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
//   mma.sync C layout above, 16 w rows down and repeated over N / 8 column
//   blocks (PTX ISA, "Matrix Fragments for wgmma.mma_async.m64nNk16"), so
//   the softmax code is shared. P goes through shared memory because MLIR
//   22's nvvm.wgmma.mma_async takes A only by descriptor.
//
// Why not upstream's vector-to-gpu (vector.contract -> nvgpu.mma.sync): it
// converts matmul-shaped vector code, but an online softmax needs reductions
// across the lanes of a fragment and per-element (i, j) for the score_mod
// region and masks, which it does not distribute. The mma, ldmatrix and
// shuffle ops are upstream's (nvgpu, gpu); only bf16 mma goes straight to
// nvvm.mma.sync because MLIR 22's nvgpu-to-nvvm cannot type a bf16
// nvgpu.mma.sync ("failed to deduce operand PTX types").
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/AttentionToGPU/TensorCoreAttention.h"
#include "posenc/Conversion/DecomposeAttention/DecomposeAttention.h"
#include "posenc/Conversion/Passes.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUTENSORCOREATTENTIONPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

static constexpr int64_t kLanes = 32;
/// Padding of a shared-memory tile row, in elements: rows 16 bytes apart in
/// bank order, so the 8 row addresses of one ldmatrix hit distinct banks.
static constexpr int64_t kRowPad = 8;

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

AffineMap posenc::getWarpgroupOperandIndexMap(MLIRContext *ctx) {
  AffineExpr row = getAffineDimExpr(0, ctx), col = getAffineDimExpr(1, ctx);
  return AffineMap::get(
      2, 0, {row.floorDiv(8), col.floorDiv(8), row % 8, col % 8}, ctx);
}

/// Shared-memory bytes of the warpgroup-MMA kernel: Q [64 x D], K [Bn x D]
/// (P [64 x Bn] over it), V^T [Dv x Bn], 16-bit elements.
static int64_t warpgroupTileBytes(int64_t d, int64_t dv, int64_t bn) {
  return 2 * (64 * d + std::max(bn * d, 64 * bn) + dv * bn);
}

static int64_t staticDim(Value v, int64_t dim) {
  return cast<ShapedType>(v.getType()).getDimSize(dim);
}

std::string posenc::whyNotTensorCores(FusedAttentionOp op,
                                      const TensorCoreAttentionOptions &o) {
  Type elem = cast<ShapedType>(op.getQuery().getType()).getElementType();
  if (!elem.isF16() && !elem.isBF16())
    return "element type is not f16 or bf16";
  for (Value v : {op.getKey(), op.getValue()})
    if (cast<ShapedType>(v.getType()).getElementType() != elem)
      return "query, key and value element types differ";
  int64_t rank = cast<ShapedType>(op.getQuery().getType()).getRank();
  int64_t d = staticDim(op.getQuery(), rank - 1);
  int64_t dv = staticDim(op.getValue(), rank - 1);
  if (ShapedType::isDynamic(d) || d % 16 != 0 || d > 128)
    return "head dim D must be static, a multiple of 16 and at most 128";
  if (ShapedType::isDynamic(dv) || dv % 8 != 0 || dv > 128)
    return "value head dim must be static, a multiple of 8 and at most 128";
  if (op.getRelValue())
    return "the rel_value term is not computed on tensor cores";
  if (o.warps < 1 || o.warps > 32 || o.keyTile < 16 || o.keyTile % 16 != 0)
    return "warps must be in [1, 32] and key-tile a positive multiple of 16";
  if (o.warpgroupMma && (o.warps != 4 || o.keyTile > 256))
    return "warpgroup MMA needs warps = 4 and key-tile at most 256";
  int64_t rowsK = std::max(16 * o.warps, o.keyTile);
  int64_t bytes =
      o.warpgroupMma ? warpgroupTileBytes(d, dv, o.keyTile)
                     : (rowsK * (d + kRowPad) + o.keyTile * (dv + kRowPad)) * 2;
  if (bytes > o.maxWorkgroupBytes)
    return "tiles need " + std::to_string(bytes) +
           " bytes of shared memory, above " +
           std::to_string(o.maxWorkgroupBytes);
  Block &body = op.getScoreModBlock();
  for (Operation &inner : body.without_terminator()) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      auto arg = dyn_cast<BlockArgument>(extract.getTensor());
      if (arg && arg.getOwner() == &body)
        continue;
      return "score_mod extracts from a tensor that is not a mods operand";
    }
    if (inner.getNumRegions() != 0)
      return "score_mod has an op with regions ('" +
             inner.getName().getStringRef().str() + "')";
    for (Type t : llvm::concat<const Type>(inner.getOperandTypes(),
                                          inner.getResultTypes()))
      if (isa<ShapedType>(t))
        return "score_mod has an op on tensors ('" +
               inner.getName().getStringRef().str() + "')";
  }
  return "";
}

namespace {

/// Builds the kernel of one op. Index arithmetic is on `index`; fragments
/// are SSA values unrolled over the static tile (D, Dv, key tile).
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, FusedAttentionOp op,
                const TensorCoreAttentionOptions &o)
      : b(b), loc(loc), op(op), o(o) {}

  Value build();

private:
  Value c(int64_t v) { return indexConst(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value divu(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, c(y));
  }
  Value remu(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, c(y));
  }
  Value f32(double v) { return floatConst(b, loc, b.getF32Type(), v); }
  /// Result `result` of `map` applied to `operands`.
  Value apply(AffineMap map, unsigned result, ValueRange operands) {
    return affine::AffineApplyOp::create(b, loc, map.getSubMap({result}),
                                         operands);
  }

  Value toBuffer(Value tensor);
  /// Buffers of the [S x R/2] cos and sin tables of `rope` at `positions`.
  std::pair<Value, Value> rotaryTables(RotaryAttr rope, Value positions);
  /// How a staged tile is stored: [rows][cols + pad] (ldmatrix), in the
  /// wgmma K-major layout with rows on M/N, or transposed (V^T: cols on N).
  enum class TileLayout { Padded, Warpgroup, WarpgroupTransposed };
  /// Stages rows [rowStart, rowStart + rows) of `src` (zeros past `seqLen`)
  /// into the shared `tile`, rotated with the `cosT`/`sinT` tables when
  /// `rope` is set.
  void stageTile(Value src, ArrayRef<Value> lead, Value rowStart, Value seqLen,
                 int64_t rows, int64_t cols, RotaryAttr rope, Value cosT,
                 Value sinT, Value tile,
                 TileLayout layout = TileLayout::Padded);
  /// Indices of element (row, col) of a wgmma operand buffer.
  SmallVector<Value> warpgroupIndex(Value row, Value col);
  /// Makes generic-proxy stores to shared memory visible to wgmma (the
  /// async proxy), then a block barrier.
  void fenceForWarpgroupMma();
  /// The wgmma matrix descriptor of the K-major operand at byte `offset` of
  /// the shared window, `cols` (K) columns wide.
  Value descriptor(int64_t offset, int64_t cols);
  /// acc += A B^T: one wgmma.mma_async m64n{n}k16 batch over `steps` k16
  /// steps (fence, the wgmmas, commit, wait 0). A and B are K-major at byte
  /// offsets `aOff` and `bOff`, `aCols` and `bCols` columns wide. `acc`
  /// holds n / 8 accumulator vectors in the mma.sync C layout.
  SmallVector<Value> warpgroupMma(int64_t aOff, int64_t aCols, int64_t bOff,
                                  int64_t bCols, int64_t n, int64_t steps,
                                  ArrayRef<Value> acc);
  Value ldmatrix(Value tile, Value row, Value col, int64_t tiles,
                 bool transpose);
  Value mma(Value a, Value bFrag, Value acc);
  Value quadReduce(Value v, bool isMax);
  Value scoreMod(Value s, ArrayRef<Value> lead, Value i, Value j);

  OpBuilder &b;
  Location loc;
  FusedAttentionOp op;
  const TensorCoreAttentionOptions &o;

  Type elemType;
  Value threadId, lane, warp;
  /// wgmma: the address of the shared window, as i64.
  Value windowAddr;
  /// score_mod operands inside the kernel: buffers for tensors.
  SmallVector<Value> mods;
};

} // namespace

Value KernelBuilder::toBuffer(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                           /*read_only=*/true);
}

std::pair<Value, Value> KernelBuilder::rotaryTables(RotaryAttr rope,
                                                    Value positions) {
  FloatType angleType = rope.getPrecision() == AnglePrecision::exact
                            ? b.getF64Type()
                            : b.getF32Type();
  Value invFreq = buildRotaryInvFreqConstant(b, loc, rope, angleType);
  auto [cosT, sinT] =
      buildRotaryTables(b, loc, rope, positions, invFreq, b.getF32Type());
  return {toBuffer(cosT), toBuffer(sinT)};
}

void KernelBuilder::stageTile(Value src, ArrayRef<Value> lead, Value rowStart,
                              Value seqLen, int64_t rows, int64_t cols,
                              RotaryAttr rope, Value cosT, Value sinT,
                              Value tile, TileLayout layout) {
  int64_t threads = kLanes * o.warps;
  auto loop = scf::ForOp::create(b, loc, threadId, c(rows * cols), c(threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value idx = loop.getInductionVar();
  Value r = divu(idx, cols), d = remu(idx, cols);
  Value row = add(rowStart, r);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, seqLen);
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &, Location) {
        SmallVector<Value> at(lead);
        at.append({row, d});
        Value x = memref::LoadOp::create(b, loc, src, at);
        if (rope) {
          FloatType f = b.getF32Type();
          RotaryPairIndex p = buildRotaryPairIndex(b, loc, d, rope.getLayout(),
                                                   rope.getRotaryDim());
          at.back() = p.partner;
          Value y = castFloat(b, loc, memref::LoadOp::create(b, loc, src, at), f);
          Value cs = memref::LoadOp::create(b, loc, cosT, ValueRange{row, p.pair});
          Value sn = memref::LoadOp::create(b, loc, sinT, ValueRange{row, p.pair});
          Value rot = buildRotatedElement(b, loc, castFloat(b, loc, x, f), y,
                                          cs, sn, p.isFirst);
          x = arith::SelectOp::create(b, loc, p.inRotary,
                                      castFloat(b, loc, rot, elemType), x);
        }
        scf::YieldOp::create(b, loc, x);
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, floatConst(b, loc, elemType, 0.0));
      });
  SmallVector<Value> at = {r, d};
  if (layout == TileLayout::Warpgroup)
    at = warpgroupIndex(r, d);
  else if (layout == TileLayout::WarpgroupTransposed)
    at = warpgroupIndex(d, r);
  memref::StoreOp::create(b, loc, ifOp.getResult(0), tile, at);
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
                                               int64_t n, int64_t steps,
                                               ArrayRef<Value> acc) {
  MLIRContext *ctx = b.getContext();
  Type f = b.getF32Type();
  auto structType =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(n / 2, f));
  // Value i of the struct is element (i / 2 % 2, i % 2) of block i / 4.
  Value d = LLVM::PoisonOp::create(b, loc, structType);
  for (int64_t i = 0; i < n / 2; ++i) {
    Value e = vector::ExtractOp::create(b, loc, acc[i / 4],
                                        ArrayRef<int64_t>{i / 2 % 2, i % 2});
    d = LLVM::InsertValueOp::create(b, loc, d, e, i);
  }
  NVVM::WGMMATypes type =
      elemType.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < steps; ++kk) {
    // One k16 step is two core matrices along K: 256 bytes further.
    Value descA = descriptor(aOff + 256 * kk, aCols);
    Value descB = descriptor(bOff + 256 * kk, bCols);
    d = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, structType, d, descA, descB,
        NVVM::MMAShapeAttr::get(ctx, 64, n, 16), type, type,
        NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col, NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> out;
  auto accType = VectorType::get({2, 2}, f);
  for (int64_t nb = 0; nb < n / 8; ++nb) {
    SmallVector<Value> e;
    for (int64_t j = 0; j < 4; ++j)
      e.push_back(LLVM::ExtractValueOp::create(b, loc, d, 4 * nb + j));
    out.push_back(vector::FromElementsOp::create(b, loc, accType, e));
  }
  return out;
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
  auto regs = [&](Value frag, int64_t n) {
    SmallVector<Value> out;
    for (int64_t i = 0; i < n; ++i) {
      Value pair = vector::ExtractOp::create(b, loc, frag, i);
      Value bits = vector::BitCastOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), pair);
      out.push_back(vector::ExtractOp::create(b, loc, bits, 0));
    }
    return out;
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
  Value out = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(VectorType::get({2, 2}, f), 0.0f));
  for (int64_t i = 0; i < 4; ++i) {
    Value e = LLVM::ExtractValueOp::create(b, loc, res, i);
    out = vector::InsertOp::create(b, loc, e, out,
                                   ArrayRef<int64_t>{i / 2, i % 2});
  }
  return out;
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

/// The score_mod region applied to score `s` of query row `i`, key `j`
/// (identity when the region only yields the score).
Value KernelBuilder::scoreMod(Value s, ArrayRef<Value> lead, Value i,
                              Value j) {
  Block &body = op.getScoreModBlock();
  if (body.without_terminator().empty())
    return s;
  IRMapping map;
  unsigned a = 0;
  map.map(body.getArgument(a++), s);
  for (Value l : lead)
    map.map(body.getArgument(a++), l);
  map.map(body.getArgument(a++), i);
  map.map(body.getArgument(a++), j);
  for (Value m : mods)
    map.map(body.getArgument(a++), m);
  for (Operation &inner : body.without_terminator()) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      SmallVector<Value> indices;
      for (Value idx : extract.getIndices())
        indices.push_back(map.lookupOrDefault(idx));
      Value loaded = memref::LoadOp::create(
          b, loc, map.lookup(extract.getTensor()), indices);
      map.map(extract.getResult(), loaded);
      continue;
    }
    b.clone(inner, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}

Value KernelBuilder::build() {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  auto qType = cast<RankedTensorType>(q.getType());
  int64_t rank = qType.getRank(), n = rank - 2;
  elemType = qType.getElementType();
  int64_t d = qType.getDimSize(rank - 1);
  int64_t dv = staticDim(v, rank - 1);
  int64_t bm = 16 * o.warps, bn = o.keyTile;
  int64_t threads = kLanes * o.warps;
  bool wg = o.warpgroupMma;
  // wgmma: byte offsets in the shared window (P over K).
  int64_t qOff = 0, kOff = 2 * bm * d,
          vOff = kOff + 2 * std::max(bn * d, bm * bn);
  bool causal = op.getCausal();
  double scale = op.getScaleOrDefault();
  RotaryAttr qRope = op.getQRopeAttr(), kRope = op.getKRopeAttr();

  buildFusedAttentionRuntimeChecks(b, op);

  // Host side: buffers, sizes, the grid.
  Value qBuf = toBuffer(q), kBuf = toBuffer(k), vBuf = toBuffer(v);
  // RoPE angles: position-only cos/sin tables computed once (their own
  // elementwise kernel), not per element of every staged tile.
  Value qCos, qSin, kCos, kSin;
  if (kRope)
    std::tie(kCos, kSin) = rotaryTables(kRope, op.getKPositions());
  if (qRope) {
    if (qRope == kRope && op.getQPositions() == op.getKPositions())
      std::tie(qCos, qSin) = std::make_pair(kCos, kSin);
    else
      std::tie(qCos, qSin) = rotaryTables(qRope, op.getQPositions());
  }
  for (Value m : op.getModOperands())
    mods.push_back(isa<RankedTensorType>(m.getType()) ? toBuffer(m) : m);

  SmallVector<Value> qSizes, outDynSizes;
  for (int64_t i = 0; i < rank; ++i)
    qSizes.push_back(memref::DimOp::create(b, loc, qBuf, i));
  Value sq = qSizes[n];
  Value sk = memref::DimOp::create(b, loc, kBuf, n);
  Value hkv = n >= 1 ? Value(memref::DimOp::create(b, loc, kBuf, n - 1))
                     : Value();
  Value group = n >= 1 ? Value(arith::DivUIOp::create(b, loc, qSizes[n - 1],
                                                      hkv))
                       : Value();
  SmallVector<int64_t> outShape(qType.getShape());
  outShape.back() = dv;
  auto outType = MemRefType::get(outShape, elemType);
  for (int64_t i = 0; i < rank - 1; ++i)
    if (outType.isDynamicDim(i))
      outDynSizes.push_back(qSizes[i]);
  Value out = memref::AllocOp::create(b, loc, outType, outDynSizes,
                                      b.getI64IntegerAttr(64));

  Value numQTiles = arith::CeilDivUIOp::create(b, loc, sq, c(bm));
  Value numLead = c(1);
  for (int64_t i = 0; i < n; ++i)
    numLead = mul(numLead, qSizes[i]);
  Value numKTiles = arith::CeilDivUIOp::create(b, loc, sk, c(bn));
  Value shift = arith::SubIOp::create(b, loc, sk, sq);

  // Shared tiles: K (and Q before the key loop) and V, private
  // memref.globals in workgroup memory (kernel outlining copies them into
  // the gpu.module). Not launch attributions: the buffer deallocation
  // pipeline, which runs after this pass, would take attribution block
  // arguments for owned buffers.
  int64_t rowsK = std::max(bm, bn);
  std::string base = "__posenc_tc_";
  auto module = op->getParentOfType<ModuleOp>();
  auto makeGlobal = [&](StringRef name, int64_t rows, int64_t cols) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({rows, cols + kRowPad}, elemType,
                                MemRefLayoutAttrInterface(), space);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto global = memref::GlobalOp::create(
        b, loc, name, b.getStringAttr("private"), type, Attribute(),
        /*constant=*/false, b.getI64IntegerAttr(16));
    SymbolTable(module).insert(global); // Renames on a clash.
    return global;
  };
  memref::GlobalOp kGlobal, vGlobal, windowGlobal;
  if (wg) {
    // One window for the four operands, so that their descriptors are
    // offsets from one address; 128-byte aligned.
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({warpgroupTileBytes(d, dv, bn)}, b.getI8Type(),
                                MemRefLayoutAttrInterface(), space);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    windowGlobal = memref::GlobalOp::create(
        b, loc, base + "wgmma_tiles", b.getStringAttr("private"), type,
        Attribute(), /*constant=*/false, b.getI64IntegerAttr(128));
    SymbolTable(module).insert(windowGlobal);
  } else {
    kGlobal = makeGlobal(base + "k_tile", rowsK, d);
    vGlobal = makeGlobal(base + "v_tile", bn, dv);
  }

  // Zero blocks (Sq = 0 or an empty lead dim) must not launch.
  Value nonEmpty = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numQTiles, c(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numLead, c(0)));
  auto guardIf = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
  OpBuilder::InsertionGuard hostGuard(b);
  b.setInsertionPointToStart(guardIf.thenBlock());
  // Lead dims (batch x heads, possibly over 65535) on x, whose limit is
  // 2^31 - 1; query tiles on y (up to 65535 x 64 rows).
  auto launch = gpu::LaunchOp::create(b, loc, numLead, numQTiles, c(1),
                                      c(threads), c(1), c(1));
  launch->setAttr(kTensorCoreKernelAttr, b.getUnitAttr());
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());

  Value qTile, kTile, pTile, vTile;
  if (wg) {
    Value window = memref::GetGlobalOp::create(b, loc, windowGlobal.getType(),
                                               windowGlobal.getSymName());
    windowAddr = arith::IndexCastOp::create(
        b, loc, b.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, window));
    auto view = [&](int64_t offset, int64_t rows, int64_t cols) {
      auto type = MemRefType::get({rows / 8, cols / 8, 8, 8}, elemType,
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
  } else {
    kTile = memref::GetGlobalOp::create(b, loc, kGlobal.getType(),
                                        kGlobal.getSymName());
    vTile = memref::GetGlobalOp::create(b, loc, vGlobal.getType(),
                                        vGlobal.getSymName());
  }
  threadId = launch.getThreadIds().x;
  lane = remu(threadId, kLanes);
  warp = divu(threadId, kLanes);
  Value q0 = mul(launch.getBlockIds().y, c(bm));

  // Lead indices of the block (innermost fastest) and of its K/V head.
  SmallVector<Value> lead(n), kvLead;
  Value linear = launch.getBlockIds().x;
  for (int64_t i = n - 1; i >= 0; --i) {
    lead[i] = arith::RemUIOp::create(b, loc, linear, qSizes[i]);
    linear = arith::DivUIOp::create(b, loc, linear, qSizes[i]);
  }
  kvLead = lead;
  if (n >= 1)
    kvLead[n - 1] = arith::DivUIOp::create(b, loc, lead[n - 1], group);

  // Q: mma.sync: staged through the K tile, A fragments kept in registers;
  // wgmma: staged once, read by descriptor.
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> qFrags;
  if (wg) {
    stageTile(qBuf, lead, q0, sq, bm, d, qRope, qCos, qSin, qTile,
              TileLayout::Warpgroup);
    fenceForWarpgroupMma();
  } else {
    stageTile(qBuf, lead, q0, sq, bm, d, qRope, qCos, qSin, kTile);
    gpu::BarrierOp::create(b, loc);
    AffineMap qMap = getTensorCoreLoadAddressMap(ctx, TensorCoreLoad::QueryA);
    Value aRow = add(mul(warp, c(16)), apply(qMap, 0, lane));
    Value aCol = apply(qMap, 1, lane);
    for (int64_t kk = 0; kk < d / 16; ++kk)
      qFrags.push_back(ldmatrix(kTile, aRow, add(aCol, c(16 * kk)), 4, false));
    gpu::BarrierOp::create(b, loc);
  }

  // Key tiles: all, or (causal) up to the last query row of the block.
  Value upper = numKTiles;
  if (causal) {
    Value lastRowEnd = arith::MinUIOp::create(b, loc, add(q0, c(bm)), sq);
    Value keysNeeded =
        arith::MaxSIOp::create(b, loc, add(lastRowEnd, shift), c(0));
    upper = arith::MinUIOp::create(
        b, loc, numKTiles, arith::CeilDivUIOp::create(b, loc, keysNeeded, c(bn)));
  }

  // Loop state: running max and sum of rows g and g+8, the O fragments.
  double negInf = -std::numeric_limits<double>::infinity();
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> init = {f32(negInf), f32(negInf), f32(0.0), f32(0.0)};
  for (int64_t nd = 0; nd < dv / 8; ++nd)
    init.push_back(zeroAcc);
  AffineMap accMap = getTensorCoreAccumulatorMap(ctx);
  Value rowBase = add(q0, mul(warp, c(16)));
  Value rows[2], cols[2];
  for (int64_t i = 0; i < 2; ++i) {
    // Row of register i, column of element i (the map is separable).
    rows[i] = add(rowBase, apply(accMap, 0, {lane, c(i), c(0)}));
    cols[i] = apply(accMap, 1, {lane, c(0), c(i)});
  }

  auto keyLoop = scf::ForOp::create(b, loc, c(0), upper, c(1), init);
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(keyLoop.getBody());
    ValueRange iter = keyLoop.getRegionIterArgs();
    Value m[2] = {iter[0], iter[1]}, l[2] = {iter[2], iter[3]};
    SmallVector<Value> acc(iter.begin() + 4, iter.end());
    Value k0 = mul(keyLoop.getInductionVar(), c(bn));

    stageTile(kBuf, kvLead, k0, sk, bn, d, kRope, kCos, kSin, kTile,
              wg ? TileLayout::Warpgroup : TileLayout::Padded);
    stageTile(vBuf, kvLead, k0, sk, bn, dv, RotaryAttr(), Value(), Value(),
              vTile, wg ? TileLayout::WarpgroupTransposed : TileLayout::Padded);
    if (wg)
      fenceForWarpgroupMma();
    else
      gpu::BarrierOp::create(b, loc);

    SmallVector<Value> s;
    if (wg) {
      // S = Q K^T: K is the K-major B operand [Bn x D].
      s = warpgroupMma(qOff, d, kOff, d, bn, d / 16,
                       SmallVector<Value>(bn / 8, zeroAcc));
    } else {
      // S = Q K^T, 8 keys at a time: ldmatrix (not transposed) of K rows
      // gives the B fragment of K^T.
      AffineMap kMap = getTensorCoreLoadAddressMap(ctx, TensorCoreLoad::KeyB);
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
    }

    // Scores: scale, score_mod, masks; element (v, e) of block nb is row
    // rows[v], key k0 + 8 nb + 2t + e.
    Value scaleV = f32(scale), ninf = f32(negInf);
    SmallVector<std::array<Value, 4>> x(bn / 8);
    Value rowMax[2] = {ninf, ninf};
    for (int64_t nb = 0; nb < bn / 8; ++nb)
      for (int64_t vi = 0; vi < 2; ++vi)
        for (int64_t e = 0; e < 2; ++e) {
          Value j = add(k0, add(cols[e], c(8 * nb)));
          Value sc = vector::ExtractOp::create(b, loc, s[nb],
                                               ArrayRef<int64_t>{vi, e});
          sc = arith::MulFOp::create(b, loc, sc, scaleV);
          sc = scoreMod(sc, lead, rows[vi], j);
          Value masked = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::uge, j, sk);
          if (causal)
            masked = arith::OrIOp::create(
                b, loc, masked,
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j,
                                      add(rows[vi], shift)));
          sc = arith::SelectOp::create(b, loc, masked, ninf, sc);
          x[nb][2 * vi + e] = sc;
          rowMax[vi] = arith::MaximumFOp::create(b, loc, rowMax[vi], sc);
        }

    // Online softmax. A row with every score so far masked keeps max -inf;
    // its exponentials are taken against 0 so that they are 0, not NaN.
    SmallVector<Value> next;
    Value alpha[2], mSafe[2], mNew[2];
    for (int64_t vi = 0; vi < 2; ++vi) {
      mNew[vi] = arith::MaximumFOp::create(b, loc, m[vi],
                                           quadReduce(rowMax[vi], true));
      Value isInf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          mNew[vi], ninf);
      mSafe[vi] = arith::SelectOp::create(b, loc, isInf, f32(0.0), mNew[vi]);
      alpha[vi] = math::ExpOp::create(
          b, loc, arith::SubFOp::create(b, loc, m[vi], mSafe[vi]));
    }
    Value rowSum[2] = {f32(0.0), f32(0.0)};
    SmallVector<Value> p(bn / 8 * 4);
    for (int64_t nb = 0; nb < bn / 8; ++nb)
      for (int64_t vi = 0; vi < 2; ++vi)
        for (int64_t e = 0; e < 2; ++e) {
          Value pe = math::ExpOp::create(
              b, loc,
              arith::SubFOp::create(b, loc, x[nb][2 * vi + e], mSafe[vi]));
          rowSum[vi] = arith::AddFOp::create(b, loc, rowSum[vi], pe);
          p[nb * 4 + 2 * vi + e] = pe;
        }
    // l is kept per lane (this lane's columns) and summed over the quad at
    // the end: alpha is the same on the four lanes of a row.
    next.push_back(mNew[0]);
    next.push_back(mNew[1]);
    for (int64_t vi = 0; vi < 2; ++vi)
      next.push_back(arith::AddFOp::create(
          b, loc, arith::MulFOp::create(b, loc, l[vi], alpha[vi]),
          rowSum[vi]));
    Value alphaVec = vector::FromElementsOp::create(
        b, loc, accType, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
    for (Value &a : acc)
      a = arith::MulFOp::create(b, loc, a, alphaVec);

    if (wg) {
      // O += P V: P [64 x Bn] (rounded to the element type) over the K
      // tile, once every warp's S wgmma has read it; V^T is the K-major B
      // operand [Dv x Bn].
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
      acc = warpgroupMma(kOff, bn, vOff, bn, dv, bn / 16, acc);
    } else {
      // O += P V, 16 keys at a time: the C fragments of key blocks 2kk2 and
      // 2kk2+1 are the A fragment (rows g, g+8; keys 2t.., 2t+8..).
      // ldmatrix x2 transposed of V rows gives B: lane l addresses key row
      // l % 8 + 8 ((l / 8) % 2).
      auto fragType = VectorType::get({4, 2}, elemType);
      AffineMap vMap = getTensorCoreLoadAddressMap(ctx, TensorCoreLoad::ValueB);
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
    next.append(acc.begin(), acc.end());
    // The next iteration overwrites the tiles.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, next);
  }

  // O / l, rounded to the element type, written from the fragments.
  for (int64_t vi = 0; vi < 2; ++vi) {
    Value lSum = quadReduce(keyLoop.getResult(2 + vi), false);
    Value zero = f32(0.0);
    Value isZero = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                         lSum, zero);
    Value inv = arith::SelectOp::create(
        b, loc, isZero, zero, arith::DivFOp::create(b, loc, f32(1.0), lSum));
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rows[vi], sq);
    auto store = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard storeGuard(b);
    b.setInsertionPointToStart(store.thenBlock());
    for (int64_t nd = 0; nd < dv / 8; ++nd)
      for (int64_t e = 0; e < 2; ++e) {
        Value val = vector::ExtractOp::create(
            b, loc, keyLoop.getResult(4 + nd), ArrayRef<int64_t>{vi, e});
        val = castFloat(b, loc, arith::MulFOp::create(b, loc, val, inv),
                        elemType);
        SmallVector<Value> at(lead);
        at.push_back(rows[vi]);
        at.push_back(add(cols[e], c(8 * nd)));
        memref::StoreOp::create(b, loc, val, out, at);
      }
  }
  b.setInsertionPointAfter(guardIf);
  return bufferization::ToTensorOp::create(b, loc, op.getResult().getType(),
                                           out, /*restrict=*/true,
                                           /*writable=*/true);
}

namespace {

struct TensorCoreAttentionPattern : OpRewritePattern<FusedAttentionOp> {
  TensorCoreAttentionPattern(MLIRContext *ctx,
                             const TensorCoreAttentionOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(FusedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    // Left to --posenc-decompose-attention, which reports the form.
    if (!describeUnloweredKVCacheForm(op).empty())
      return rewriter.notifyMatchFailure(op, describeUnloweredKVCacheForm(op));
    TensorCoreAttentionOptions chosen = options;
    std::string why = whyNotTensorCores(op, chosen);
    // What wgmma cannot take (a window over the shared-memory budget) may
    // still fit the mma.sync kernel.
    if (!why.empty() && chosen.warpgroupMma) {
      chosen.warpgroupMma = false;
      why = whyNotTensorCores(op, chosen);
    }
    if (!why.empty())
      return rewriter.notifyMatchFailure(op, why);
    KernelBuilder builder(rewriter, op.getLoc(), op, chosen);
    Value result = builder.build();
    rewriter.replaceOp(op, result);
    return success();
  }

  TensorCoreAttentionOptions options;
};

/// gpu.barrier declares no memory effects, and the ownership-based buffer
/// deallocation, which the pipelines run after this pass (the kernel is
/// built on tensors), rejects ops with unknown effects. A barrier orders the
/// block's reads and writes: it reads and writes memory.
struct BarrierMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<BarrierMemoryEffects,
                                             gpu::BarrierOp> {
  void getEffects(
      Operation *op,
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
          &effects) const {
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

/// The wgmma ops and fence.proxy declare no memory effects either: the
/// fences and wgmma's commit/wait order memory accesses (read and write),
/// wgmma.mma_async reads its operands from shared memory.
template <typename OpTy, bool Writes>
struct OrderingMemoryEffects : MemoryEffectOpInterface::ExternalModel<
                                   OrderingMemoryEffects<OpTy, Writes>, OpTy> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    effects.emplace_back(MemoryEffects::Read::get());
    if (Writes)
      effects.emplace_back(MemoryEffects::Write::get());
  }
};

/// nvvm.mma.sync (the bf16 mma) declares no memory effects either; it has
/// none.
struct MmaNoMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<MmaNoMemoryEffects, NVVM::MmaOp> {
  void getEffects(
      Operation *op,
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
          &effects) const {}
};

struct PosencGpuTensorCoreAttentionPass
    : posenc::impl::PosencGpuTensorCoreAttentionPassBase<
          PosencGpuTensorCoreAttentionPass> {
  using Base::Base;
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerTensorCoreAttentionExternalModels(registry);
  }
  void runOnOperation() override {
    TensorCoreAttentionOptions options;
    options.warps = warps;
    options.keyTile = keyTile;
    options.warpgroupMma = warpgroupMma;
    if (warpgroupMma && (options.warps != 4 || options.keyTile > 256)) {
      getOperation()->emitError()
          << "posenc-gpu-tensor-core-attention: warpgroup-mma runs one "
             "warpgroup per block: warps must be 4 (got "
          << options.warps
          << ") and key-tile at most 256, the largest wgmma N (got "
          << options.keyTile << ")";
      return signalPassFailure();
    }
    if (options.warps < 1 || options.warps > 32 || options.keyTile < 16 ||
        options.keyTile % 16) {
      getOperation()->emitError()
          << "posenc-gpu-tensor-core-attention: warps (" << options.warps
          << ") must be in [1, 32] (at most 1024 threads per block) and "
             "key-tile ("
          << options.keyTile << ") a positive multiple of 16";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populatePosencGpuTensorCoreAttentionPatterns(patterns, options);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};

} // namespace

void posenc::populatePosencGpuTensorCoreAttentionPatterns(
    RewritePatternSet &patterns, const TensorCoreAttentionOptions &options) {
  patterns.add<TensorCoreAttentionPattern>(patterns.getContext(), options);
}

void posenc::registerTensorCoreAttentionExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    std::optional<RegisteredOperationName> barrier =
        RegisteredOperationName::lookup(gpu::BarrierOp::getOperationName(),
                                        ctx);
    if (barrier && !barrier->hasInterface<MemoryEffectOpInterface>())
      gpu::BarrierOp::attachInterface<BarrierMemoryEffects>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, NVVM::NVVMDialect *) {
    std::optional<RegisteredOperationName> mma =
        RegisteredOperationName::lookup(NVVM::MmaOp::getOperationName(), ctx);
    if (mma && !mma->hasInterface<MemoryEffectOpInterface>())
      NVVM::MmaOp::attachInterface<MmaNoMemoryEffects>(*ctx);
    auto attach = [&](auto op, auto model) {
      using OpTy = decltype(op);
      std::optional<RegisteredOperationName> name =
          RegisteredOperationName::lookup(OpTy::getOperationName(), ctx);
      if (name && !name->hasInterface<MemoryEffectOpInterface>())
        OpTy::template attachInterface<decltype(model)>(*ctx);
    };
    attach(NVVM::WgmmaMmaAsyncOp(),
           OrderingMemoryEffects<NVVM::WgmmaMmaAsyncOp, false>());
    attach(NVVM::WgmmaFenceAlignedOp(),
           OrderingMemoryEffects<NVVM::WgmmaFenceAlignedOp, true>());
    attach(NVVM::WgmmaGroupSyncAlignedOp(),
           OrderingMemoryEffects<NVVM::WgmmaGroupSyncAlignedOp, true>());
    attach(NVVM::WgmmaWaitGroupSyncOp(),
           OrderingMemoryEffects<NVVM::WgmmaWaitGroupSyncOp, true>());
    attach(NVVM::FenceProxyOp(),
           OrderingMemoryEffects<NVVM::FenceProxyOp, true>());
  });
}
