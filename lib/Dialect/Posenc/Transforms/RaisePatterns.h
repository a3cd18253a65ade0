//===- RaisePatterns.h - the raising patterns, one file per form ----------===//
//
// Internal to the posenc-raise pass: each Raise*.cpp file contributes its
// patterns and a matcher that explains, for the pass's remarks, why a
// candidate was left alone.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEPATTERNS_H
#define POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEPATTERNS_H

#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace posenc::raise {

/// A softmax over dim `dim` of `input`.
struct SoftmaxMatch {
  mlir::Value input;
  int64_t dim;
};

/// Matches `p` as a softmax: `linalg.softmax`, or the decomposed form
/// `e / sum(e)` or `e * (1 / sum(e))` with `e = exp(x - max(x))`, the max a
/// reduction with a -inf or lowest-finite init and `maximumf`/`maxnumf`, the
/// sum one with a zero init and `addf`, both over the same dim and read back
/// through a broadcast. On failure `why` says what did not match (empty when
/// `p` does not look like a softmax at all).
std::optional<SoftmaxMatch> matchSoftmax(mlir::Value p, std::string &why);

/// A constant score term as the scores read it: `at(n, i, j)` for the flat
/// leading (batch, head) index n, query row i and key j of a score tensor
/// of shape `loopShape` ([lead..., Sq, Sk]), through the term's broadcasting
/// indexing map. `strides[d]` is 0 along the loop dims the term is
/// broadcast over.
struct TermView {
  TermView(llvm::ArrayRef<double> values, mlir::RankedTensorType termType,
           mlir::AffineMap map, llvm::ArrayRef<int64_t> loopShape);
  int64_t numLead() const;
  double at(int64_t n, int64_t i, int64_t j) const;

  llvm::ArrayRef<double> values;
  llvm::ArrayRef<int64_t> loopShape;
  llvm::SmallVector<int64_t> strides;
};

/// How an additive score term enters posenc.attention.
enum class BiasKind { Operand, Causal, Alibi };
struct BiasClass {
  BiasKind kind;
  llvm::SmallVector<double> slopes; ///< Alibi: one per flat leading index
};

/// Classifies the additive term `bias` of the scores, read through `map` in
/// an elementwise add over `loopShape` = [lead..., sq, sk]: a constant equal
/// to the bottom-right causal mask (0 where `j <= i + sk - sq`, -inf or the
/// lowest finite value of `elemType` elsewhere) with `sq <= sk` is
/// `Causal`; a constant ALiBi term (matchAlibiSlopes) is `Alibi`; another
/// term broadcast over the leading dims is an `Operand`. `values`, when
/// given, are the term's values (a masked_fill's mask as an additive term).
/// With dynamic sq/sk, only a mask computed from indices is known
/// (evaluateDiagonalTerm, `values` then its instance), and it is `Causal`
/// only when `equalLengths` (sq == sk proven). Fails (with `why`) for a
/// term that varies along the leading dims or a constant that hides every
/// key of a row.
mlir::FailureOr<BiasClass>
classifyBias(mlir::Value bias, mlir::AffineMap map,
             llvm::ArrayRef<int64_t> loopShape, mlir::Type elemType,
             std::optional<ConstantTensor> values, bool equalLengths,
             std::string &why);

/// The per-flat-head slopes when the constant term `t` is ALiBi up to a
/// constant per score row (see RaiseAlibi.cpp): every row of head n is
/// `c(n, i) + slope[n] * j` within the f32 rounding of the values.
std::optional<llvm::SmallVector<double>> matchAlibiSlopes(const TermView &t,
                                                          std::string &why);

/// posenc.alibi_bias `[N, sq, sk]` for the flat heads' `slopes`: the rule's
/// attributes when SPEC.md's rule reproduces them within 2 f32 ulps, the
/// explicit `slopes` operand otherwise.
mlir::Value buildAlibiBias(mlir::OpBuilder &b, mlir::Location loc,
                           llvm::ArrayRef<double> slopes, int64_t sq,
                           int64_t sk, mlir::Type elemType);

/// RoPE frequency parameters recovered from a constant inverse-frequency
/// vector.
struct RopeFrequencies {
  double base;
  RopeScalingAttr scaling; ///< null: none
};

/// Finds `base` and a position-independent scaling (none, linear, llama3,
/// yarn with the default betas; NTK is none with the adjusted base) whose inverse frequencies
/// (computeRopeInvFreq) reproduce `invFreq` (p in [0, R/2)) within 8 f32
/// ulps each. Parameters are derived from the values, then checked against
/// every entry; round-looking values are preferred when they also pass.
std::optional<RopeFrequencies> recoverRopeFrequencies(
    llvm::ArrayRef<double> invFreq, mlir::MLIRContext *ctx, std::string &why);

/// What a RoPE matcher found.
struct RopeMatch {
  mlir::Value input;     ///< x [..., S, D]
  mlir::Value positions; ///< integer positions; any shape with S elements
  mlir::DenseElementsAttr constantPositions; ///< or integral float constants
  RopeFrequencies frequencies;
  /// The constant cos and sin are multiplied by (the attention factor).
  double tableScale = 1.0;
  /// The table form (posenc.rope with cos/sin operands): the tensors the
  /// products read as cos and sin, with the indexing maps they are read
  /// through; set when the tables match no formula (`tableFormReason`
  /// says why) or arrive as they are (function arguments).
  mlir::Value cosTable, sinTable;
  mlir::AffineMap cosMap, sinMap;
  std::string tableFormReason;
  bool isTableForm() const { return static_cast<bool>(cosTable); }
};

/// Whether `table`, read through `map` by an elementwise product over `rank`
/// loops, is a [..., S, D] table broadcast over the leading dims (what
/// posenc.rope's table form takes, after inserting unit dims).
bool isBroadcastRopeTable(mlir::Value table, mlir::AffineMap map, int64_t rank);

/// `table` read through `map` by a product over `rank` loops as the
/// right-aligned [..., S, D] tensor the table form takes (an expand_shape
/// restoring the dims the map drops, or `table` itself); null when the map
/// is no such broadcast (isBroadcastRopeTable), before creating anything.
mlir::Value alignRopeTable(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value table, mlir::AffineMap map,
                           int64_t rank);

/// Replaces `root` by the table form of posenc.rope on `m.input` with
/// `m.cosTable`/`m.sinTable` brought to the right-aligned [..., S, R] form
/// the op takes (unit dims inserted where the maps broadcast); fails when
/// a map is no such broadcast.
mlir::LogicalResult replaceWithTableRope(mlir::PatternRewriter &rewriter,
                                         mlir::Operation *root,
                                         const RopeMatch &m, Layout layout,
                                         bool emitRemark);

/// Matches the angles `f = float(positions) * inv_freq` ([..., S, R/2],
/// positions along dim -2, the constant inverse frequencies along dim -1)
/// and recovers the frequencies for a rotation of `x` ([..., S, D], f32,
/// R = D). Fills `m` (all but `input`); on failure says why.
bool matchRopeAngles(mlir::Value f, mlir::Value x, RopeMatch &m,
                     std::string &why);

/// A rotation of pairs (a, b) -> (a cos - b sin, a sin + b cos), the
/// tables read along (S, pair) with the pairs along loop dim
/// `rank - pairDimFromEnd`, broadcast over the rest.
struct PairRotation {
  mlir::Value a, b;
  mlir::Value angles; ///< null when cos/sin are not of one angle tensor
  /// The tables as the products read them: right-aligned with the loops,
  /// [1.., S, P] (pairs last) or [1.., S, P, 1] (pairs before a unit dim).
  mlir::Value cos, sin;
};
/// Matches `first` = a*cos - b*sin and `second` = a*sin + b*cos (the terms
/// of each in either order).
std::optional<PairRotation> matchPairRotation(mlir::Value first,
                                              mlir::Value second,
                                              int64_t pairDimFromEnd);

/// The table form of a pair rotation of `x` whose tables matched no
/// formula (`why` says why; argument tables and tables of no one angle
/// tensor say so instead).
RopeMatch pairTableForm(const PairRotation &rot, mlir::Value x,
                        std::string why);

/// Pair tables `[rows, half]` (row-major) that are cos/sin((start + r) *
/// inv_freq[p]) of a posenc scaling (RaiseRopeTables.cpp).
struct PairTableMatch {
  int64_t start;
  RopeFrequencies frequencies;
};
std::optional<PairTableMatch> matchPairTables(llvm::ArrayRef<double> cos,
                                              llvm::ArrayRef<double> sin,
                                              int64_t rows, int64_t half,
                                              mlir::MLIRContext *ctx);

/// Matches constant `[.., S, D]` cos/sin tables (values known at compile
/// time) of a half-layout rotation of `x` as cos/sin((start + s) *
/// inv_freq[p]) with duplicated halves and a posenc scaling; fills `m`'s
/// positions (start..start+S-1, constant) and frequencies. Returns false
/// with `why` empty when the tables are not constants, with `why` set when
/// they are but do not match.
bool matchConstantRopeTables(mlir::Value cosTable, mlir::Value sinTable,
                             mlir::Value x, RopeMatch &m, std::string &why);

/// Replaces `root` by posenc.rope(x) with the [..., S, D] tables cos/sin
/// in `layout`; a remark saying `remark` when it is not empty.
mlir::LogicalResult replaceByTableRope(mlir::PatternRewriter &rewriter,
                                       mlir::Operation *root, mlir::Value x,
                                       mlir::Value cos, mlir::Value sin,
                                       Layout layout,
                                       const std::string &remark);

/// posenc.rope(x) with the [..., S, D] tables cos/sin in `layout`, not yet
/// replacing anything; a remark saying `remark` when it is not empty.
mlir::Value buildTableRope(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, mlir::Value cos, mlir::Value sin,
                           Layout layout, const std::string &remark);

/// [..., S, P] -> [..., S, 2P] with entry p in lanes 2p and 2p+1 (the
/// interleaved table form's columns of pair p): a linalg.broadcast along a
/// new last dim of 2, collapsed into the pair dim.
mlir::Value duplicateLanes(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value table);

/// Replaces `root` by the table form of posenc.rope on `m.input` from the
/// pair tables `m.cosTable`/`m.sinTable` of a PairRotation (one entry per
/// pair, [1.., S, P] or [1.., S, P, 1]): each entry in both columns of its
/// pair, `concat(t, t)` for the half layout, duplicateLanes for the
/// interleaved one. The remark gives `m.tableFormReason`.
mlir::LogicalResult replaceWithPairTableRope(mlir::PatternRewriter &rewriter,
                                             mlir::Operation *root,
                                             const RopeMatch &m, Layout layout,
                                             bool emitRemark);

/// posenc.rope(m.input, positions) with `layout`, created before `root`
/// without replacing it; fails when the positions are not one per row of
/// m.input.
mlir::FailureOr<mlir::Value> buildRope(mlir::PatternRewriter &rewriter,
                                       mlir::Operation *root,
                                       const RopeMatch &m, Layout layout,
                                       bool emitRemark);

/// Replaces `root` by posenc.rope(m.input, positions) with `layout`.
mlir::LogicalResult replaceWithRope(mlir::PatternRewriter &rewriter,
                                    mlir::Operation *root, const RopeMatch &m,
                                    Layout layout, bool emitRemark);

/// Why the `P . V` candidate `op` is not raised to posenc.attention (empty:
/// not a candidate, i.e. its left operand is no softmax-like value), or
/// std::nullopt when it would be raised.
std::optional<std::string> explainAttention(mlir::Operation *op);

/// Why the contraction `op` (a linalg.matmul or contraction generic whose
/// left operand is a softmax) was not brought into the batch_matmul form
/// of an attention (empty: not a candidate), or std::nullopt when it would
/// be (RaiseContractions.cpp).
std::optional<std::string> explainContraction(mlir::Operation *op);

/// Why the RoPE-shaped add `op` is not raised to posenc.rope (empty: not a
/// candidate), or std::nullopt when it would be raised.
std::optional<std::string> explainRope(mlir::Operation *op);

/// Why the interleaved-RoPE-shaped collapse `op` is not raised (empty: not
/// a candidate), or std::nullopt when it would be raised.
std::optional<std::string> explainInterleavedRope(mlir::Operation *op);

/// Why the add `op` with a constant table in [-1, 1] is not raised to
/// posenc.sinusoidal (empty: not a candidate), or std::nullopt when it
/// would be raised.
std::optional<std::string> explainSinusoidal(mlir::Operation *op);

/// A transpose of a GQA repeat (Meta's `repeat_kv` then `transpose(1, 2)`)
/// as the repeat of a transpose, and upstream's transpose
/// canonicalizations (RaiseTransposes.cpp).
void populateRaiseTransposePatterns(mlir::RewritePatternSet &patterns);
/// Whether `v`, through leading reshapes and transposes, is a transpose
/// those patterns will still move above a repeat (the attention raising
/// waits for it, so that it sees the repeat as GQA).
bool isTransposeOfRepeat(mlir::Value v);
void populateRaiseSinusoidalPatterns(mlir::RewritePatternSet &patterns,
                                     bool emitRemarks);
/// Batched contraction generics of an attention (the P.V of a softmax and
/// the Q.K^T of its scores) as linalg.batch_matmul (RaiseContractions.cpp).
void populateRaiseContractionPatterns(mlir::RewritePatternSet &patterns);
/// Whether `table` (through elementwise ops, reshapes, a concat and a
/// transpose) comes from a K = 1 batch_matmul of angles that those patterns
/// will still rewrite into float(positions) * inv_freq (the RoPE raising
/// waits for it rather than taking the table form).
bool isPendingOuterProduct(mlir::Value table);
void populateRaiseAttentionPatterns(mlir::RewritePatternSet &patterns,
                                    bool emitRemarks);
void populateRaiseRopePatterns(mlir::RewritePatternSet &patterns,
                               bool emitRemarks);
void populateRaiseInterleavedRopePatterns(mlir::RewritePatternSet &patterns,
                                          bool emitRemarks);
/// Meta's complex-number RoPE as torch-mlir lowers it
/// (RaiseRopeComplex.cpp).
void populateRaiseComplexRopePatterns(mlir::RewritePatternSet &patterns,
                                      bool emitRemarks);
/// ONNX RotaryEmbedding as torch-mlir lowers it: one generic gathering
/// cos/sin by position (RaiseRopeGather.cpp).
void populateRaiseGatherRopePatterns(mlir::RewritePatternSet &patterns,
                                     bool emitRemarks);
/// Why the gathering generic `op` is not raised (empty: not a candidate),
/// or std::nullopt when it would be.
std::optional<std::string> explainGatherRope(mlir::Operation *op);
/// Why the view_as_real-shaped collapse `op` is not raised as Meta's
/// complex RoPE (empty: not a candidate), or std::nullopt when it would be.
std::optional<std::string> explainComplexRope(mlir::Operation *op);

} // namespace posenc::raise

#endif // POSENC_LIB_DIALECT_POSENC_TRANSFORMS_RAISEPATTERNS_H
