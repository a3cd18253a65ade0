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
// The products are the warp's mma.sync m16n8k16 on register fragments
// (MmaSyncFragments.cpp, with the fragment layouts) or, with warpgroup-mma
// (sm_90a), wgmma.mma_async of the block's warpgroup on operands in shared
// memory (WarpgroupMma.cpp, with the operand layout and descriptors); the
// kernel is built phase by phase in TensorCoreKernel.cpp.
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

#include "TensorCoreKernelBuilder.h"

#include "posenc/Conversion/AttentionToGPU/TensorCoreAttention.h"
#include "posenc/Conversion/Passes.h"

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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUTENSORCOREATTENTIONPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;
using namespace posenc::tensor_core;

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
  if (op.getRelKey())
    return "the rel_key term is not computed on tensor cores";
  if (op.getRelValue())
    return "the rel_value term is not computed on tensor cores";
  if (op.getT5Table())
    return "the t5_table term is not computed on tensor cores";
  if (op.getXlRel())
    return "the xl term (a band product per key tile, read along its "
           "diagonals) is not computed on tensor cores; the FMA kernel "
           "takes it per score";
  if (op.hasDebertaTerms())
    return "DeBERTa's terms (band products per key tile, gathered by "
           "distance) are not computed on tensor cores; the FMA kernel takes "
           "them per score";
  if (RotaryAttr q = op.getQRopeAttr(); q && q.getXpos())
    return "the xPos decay is not applied on tensor cores";
  if (op.getQCos() || op.getKCos())
    return "RoPE cos/sin tables (the table form of posenc.rope) are not read "
           "on tensor cores";
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

struct TensorCoreAttentionPattern : OpRewritePattern<FusedAttentionOp> {
  TensorCoreAttentionPattern(MLIRContext *ctx,
                             const TensorCoreAttentionOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(FusedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    // The KV-cache forms (kv_lengths, half K/V under an f32 query,
    // per-batch positions) are left to the decomposition's FMA kernel.
    std::string form = describeKVCacheForm(op);
    if (!form.empty())
      return rewriter.notifyMatchFailure(op, "uses " + form);
    // So are decode shapes when asked (--posenc-to-nvvm's decode schedule).
    int64_t sq = op.getQuery().getType().getDimSize(
        op.getQuery().getType().getRank() - 2);
    if (options.leaveDecodeRows > 0 && !ShapedType::isDynamic(sq) &&
        sq <= options.leaveDecodeRows)
      return rewriter.notifyMatchFailure(op, "decode shape (Sq <= " +
                                                 std::to_string(
                                                     options.leaveDecodeRows) +
                                                 "): left to the decode "
                                                 "schedule");
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
    options.leaveDecodeRows = leaveDecodeRows;
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
