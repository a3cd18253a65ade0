//===- PosencToLinalgPatterns.h - patterns by op family ---------*- C++ -*-===//
//
// Internal to lib/Conversion/PosencToLinalg: the op families' pattern sets
// (RopeToLinalg.cpp, AlibiToLinalg.cpp, AttentionToLinalg.cpp), gathered by
// populatePosencToLinalgPatterns, and the small builders they share
// (PosencToLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_POSENCTOLINALG_POSENCTOLINALGPATTERNS_H
#define LIB_CONVERSION_POSENCTOLINALG_POSENCTOLINALGPATTERNS_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace posenc {
namespace reference {

/// posenc.sinusoidal and posenc.rope.
void populateRopeToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// posenc.alibi_bias.
void populateAlibiToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// posenc.t5_bias.
void populateT5BiasToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// posenc.attention, posenc.rel_pos_attention and posenc.xl_attention.
void populateAttentionToLinalgPatterns(mlir::RewritePatternSet &patterns);
/// posenc.disentangled_attention.
void populateDisentangledAttentionToLinalgPatterns(
    mlir::RewritePatternSet &patterns);

/// The end of the reference attention (AttentionToLinalg.cpp): the masked
/// row softmax of `scores` ([lead..., Sq, Sk] in the f32/f64 compute type,
/// masked entries -inf, fully masked rows giving zeros) times `v`
/// ([lead..., Sk, Dv], the same lead dims), as [lead..., Sq, Dv] of
/// `resultElementType`.
mlir::Value buildSoftmaxTimesValue(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value scores, mlir::Value v,
                                   mlir::Type resultElementType);

/// The sizes of all dims of a ranked tensor value as OpFoldResults.
llvm::SmallVector<mlir::OpFoldResult>
mixedSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor);

/// tensor.empty of `sizes` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         mlir::Type elementType, double value);

/// Replaces `op` by `value`, casting to the op's declared result type when
/// the verifier accepted a result that is only compatible (more or less
/// static) with the computed one.
void replaceWithResultType(mlir::ConversionPatternRewriter &rewriter,
                           mlir::Operation *op, mlir::Value value);

/// linalg.index of every loop 0..numLoops-1 of the enclosing generic.
llvm::SmallVector<mlir::Value>
loopIndices(mlir::OpBuilder &b, mlir::Location loc, int64_t numLoops);

/// Converts an integer position to the float type `to` (signed).
mlir::Value positionToFloat(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value pos, mlir::Type to);

} // namespace reference
} // namespace posenc

#endif // LIB_CONVERSION_POSENCTOLINALG_POSENCTOLINALGPATTERNS_H
