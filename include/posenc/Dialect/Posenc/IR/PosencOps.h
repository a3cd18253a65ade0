//===- PosencOps.h - posenc operations --------------------------*- C++ -*-===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCOPS_H
#define POSENC_DIALECT_POSENC_IR_POSENCOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <string>

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"

namespace posenc {
/// The operands of a rotary prologue of posenc.fused_attention (custom
/// assembly directive): `%positions : type` or
/// `tables %cos, %sin : type, type`.
mlir::ParseResult parseRotaryOperands(
    mlir::OpAsmParser &parser,
    std::optional<mlir::OpAsmParser::UnresolvedOperand> &positions,
    mlir::Type &positionsType,
    std::optional<mlir::OpAsmParser::UnresolvedOperand> &cos,
    std::optional<mlir::OpAsmParser::UnresolvedOperand> &sin,
    mlir::Type &cosType, mlir::Type &sinType);
void printRotaryOperands(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                         mlir::Value positions, mlir::Type positionsType,
                         mlir::Value cos, mlir::Value sin, mlir::Type cosType,
                         mlir::Type sinType);
} // namespace posenc

#define GET_OP_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencOps.h.inc"

namespace posenc {

/// Verifies the `kv_lengths` operand of posenc.attention and
/// posenc.fused_attention: a `tensor<B x iN>` with B = dim 0 of a query of
/// rank >= 4. Reports a diagnostic on `op` and fails otherwise.
mlir::LogicalResult verifyKVLengths(mlir::Operation *op,
                                    mlir::RankedTensorType lengthsType,
                                    mlir::RankedTensorType queryType);

/// The KV-cache form of SPEC.md's additions that `op` (posenc.attention,
/// posenc.fused_attention or posenc.rope) uses -- `kv_lengths`, per-batch
/// positions, or key/value of an element type other than the query's -- by
/// name, or "" when it uses none.
std::string describeKVCacheForm(mlir::Operation *op);

/// Verifies the T5 term of posenc.fused_attention (`t5_table` and its
/// attributes) as posenc.t5_bias's verifier does (PosencRelativeOps.cpp).
mlir::LogicalResult verifyFusedT5Term(FusedAttentionOp op);

/// Verifies the Transformer-XL term of posenc.fused_attention (`xl_rel`,
/// `xl_content_bias`, `xl_position_bias`: all or none) as
/// posenc.xl_attention's verifier does (PosencRelativeOps.cpp).
mlir::LogicalResult verifyFusedXlTerm(FusedAttentionOp op);

/// Verifies DeBERTa's terms of posenc.fused_attention (`deberta_pos_key`,
/// `deberta_pos_query` and their bucket attributes) as
/// posenc.disentangled_attention's verifier does (PosencDisentangledOps.cpp).
mlir::LogicalResult verifyFusedDebertaTerm(FusedAttentionOp op);

/// The checks posenc.attention, posenc.rel_pos_attention and
/// posenc.xl_attention share (PosencOps.cpp): equal ranks >= minRank, equal
/// leading dims, q/k head dims, k/v sequence dims, element types and a
/// result [..., Sq, Dv]; `numHeadDims` is 1 when dim -3 is a head dim the
/// caller checks. With `mixedKeyValueType`, key and value share an element
/// type that may differ from query's.
mlir::LogicalResult verifyQKVResult(mlir::Operation *op, mlir::Value q,
                                    mlir::Value k, mlir::Value v,
                                    mlir::RankedTensorType resultType,
                                    int64_t minRank, int64_t numHeadDims,
                                    bool mixedKeyValueType);

/// An explicit `scale` must be finite; the default 1/sqrt(D) needs a static
/// head dim D > 0 of `queryType`.
mlir::LogicalResult verifyDefaultScale(mlir::Operation *op,
                                       std::optional<llvm::APFloat> scale,
                                       mlir::RankedTensorType queryType);

/// Why the prologues `qRope` and `kRope` (either may be null) of a
/// posenc.fused_attention cannot carry their xPos decay, or "" when they
/// can: neither has one, or they form a query/key pair (q_rope's role
/// query, k_rope's role key, same scale_base and gamma, same layout and
/// rotary_dim), so that the scores depend only on position differences and
/// the lowering may re-center per tile. posenc-fuse-attention folds no
/// other combination.
std::string describeXPosPairMismatch(RotaryAttr qRope, RotaryAttr kRope);

} // namespace posenc

#endif // POSENC_DIALECT_POSENC_IR_POSENCOPS_H
