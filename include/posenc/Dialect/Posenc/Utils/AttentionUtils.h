//===- AttentionUtils.h - attention building blocks -------------*- C++ -*-===//
//
// The pieces of attention math that every lowering of posenc.attention,
// posenc.rel_pos_attention and posenc.fused_attention needs, defined once so
// that the reference lowering, the CPU decomposition and the GPU kernels
// cannot drift apart (the formulas are those of the op descriptions):
//
//   - the causal mask j > i + (Sk - Sq) and the keys it leaves to a row block,
//     over a KV cache (kv_lengths): the keys of batch b, j < kv_lengths[b],
//     and the causal alignment at that length, i' = i + (kv_lengths[b] - Sq)
//     (Utils/Masks.cpp),
//   - Shaw's bucket clamp(j - (i + Sk - Sq), -K, K) + K, T5's logarithmic
//     bucket of the same distance, DeBERTa's log buckets (Utils/Buckets.cpp),
//   - the online-softmax step (safe max, exp against it, final division)
//     (Utils/OnlineSoftmax.cpp),
//   - the RoPE inverse-frequency table and the position cos/sin tables
//     (Utils/RopeTables.cpp),
//   - the run-time shape checks of dims the verifiers see only as dynamic
//     (Utils/RuntimeChecks.cpp).
//
// The scalar builders take index/float Values and a builder, so they serve a
// linalg.generic body, an scf loop and a GPU kernel alike; since the arith
// ops they create are elementwise, they also accept vectors of the same
// element types (vector-tile callers).
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_UTILS_ATTENTIONUTILS_H
#define POSENC_DIALECT_POSENC_UTILS_ATTENTIONUTILS_H

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/Builders.h"

#include <optional>
#include <utility>

namespace posenc {

//===----------------------------------------------------------------------===//
// Masks and relative positions
//===----------------------------------------------------------------------===//

/// The relative position j - (i + shift) of key `j` seen from query row `i`,
/// with `shift` = Sk - Sq (the last query row sits at the last key).
mlir::Value buildRelativeDistance(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value i, mlir::Value j,
                                  mlir::Value shift);

/// The causal mask as an i1: true where key `j` is in the future of query
/// row `i`, j > i + shift.
mlir::Value buildCausalMask(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value i, mlir::Value j, mlir::Value shift);

/// `score`, or -inf where the i1 `masked` is set.
mlir::Value buildMaskedScore(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value masked, mlir::Value score);

/// How many keys the query rows [.., rowEnd) may see under the causal rule,
/// max(rowEnd + shift, 0) (not clamped to Sk): the key loops of a row block
/// end there instead of masking whole tiles.
mlir::Value buildCausalKeyBound(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value rowEnd, mlir::Value shift);

/// The keys one batch of attention over a KV cache sees: `length` =
/// kv_lengths[b] as an index (keys j >= length do not exist) and `shift` =
/// length - Sq, the causal alignment at the sequence's own end (the `shift`
/// of buildCausalMask and buildRelativeDistance).
struct CacheKeyRange {
  mlir::Value length, shift;
};

/// The CacheKeyRange of `lengthElement`, an element of kv_lengths (iN), for
/// `sq` query rows.
CacheKeyRange buildCacheKeyRange(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value lengthElement, mlir::Value sq);

/// The CacheKeyRange of batch `batch` (an index) of the tensor `kvLengths`.
CacheKeyRange buildCacheKeyRangeOfBatch(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value kvLengths,
                                        mlir::Value batch, mlir::Value sq);

/// True where key `j` lies past the keys that exist, j >= `length`.
mlir::Value buildPastLengthMask(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value j, mlir::Value length);

/// The mask of attention over a KV cache for query row `i` and key `j`:
/// buildPastLengthMask, or (with `causal`) buildCausalMask at the range's
/// shift.
mlir::Value buildCacheMask(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value i, mlir::Value j,
                           const CacheKeyRange &range, bool causal);

/// Shaw's bucket clamp(dist, -K, K) + K of the relative distance `dist`
/// (buildRelativeDistance), K = `maxDist`: the row of rel_key / rel_value.
mlir::Value buildShawBucket(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value dist, int64_t maxDist);

/// The parameters of T5's bucket function (posenc.t5_bias): NB buckets,
/// max_distance, and whether the buckets are bidirectional.
struct T5BucketParams {
  int64_t numBuckets;
  int64_t maxDistance;
  bool bidirectional;
};

/// T5's bucket (posenc.t5_bias's description) of the relative distance
/// `dist` = j - i' (an index, buildRelativeDistance), as an index in
/// [0, NB): HuggingFace's `_relative_position_bucket` with its float32
/// arithmetic, the f32 logarithm correctly rounded (log in f64, rounded to
/// f32) so that the bucket does not depend on the target's log.
mlir::Value buildT5Bucket(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value dist, const T5BucketParams &params);

/// The bucket parameters of posenc.t5_bias `op`.
T5BucketParams getT5BucketParams(T5BiasOp op);
/// The bucket parameters of the t5_table term of `op` (which has one), with
/// posenc.t5_bias's default max_distance.
T5BucketParams getT5BucketParams(FusedAttentionOp op);

//===----------------------------------------------------------------------===//
// Online softmax
//===----------------------------------------------------------------------===//

/// The running row max to subtract: `m`, or 0 where m = -inf (a row with no
/// unmasked score yet), so that exp(-inf - m) is 0 rather than NaN.
mlir::Value buildSafeRowMax(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value m);

/// exp(x - safe(mNew)) (buildSafeRowMax): the rescale factor
/// alpha = exp(m - m') with x the previous max, or the probability
/// p = exp(s - m') with x a score.
mlir::Value buildOnlineSoftmaxExp(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value x, mlir::Value mNew);

/// The final division acc / l, 0 where l = 0 (a fully masked row).
mlir::Value buildSoftmaxNormalize(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value acc, mlir::Value l);

//===----------------------------------------------------------------------===//
// RoPE tables
//===----------------------------------------------------------------------===//

/// The type RoPE angles are computed in: f64 for `exact`, f32 for `fast`.
mlir::FloatType rotaryAngleType(mlir::MLIRContext *ctx,
                                AnglePrecision precision);

/// The RoPE inverse-frequency table of `rope` as a constant
/// tensor<R/2 x angleType> (the fused op's verifier rejects
/// sequence-length-dependent scalings, so it is known at compile time).
mlir::Value buildRotaryInvFreqConstant(mlir::OpBuilder &b, mlir::Location loc,
                                       RotaryAttr rope,
                                       mlir::FloatType angleType);

/// The inverse-frequency table of posenc.rope `op` as
/// tensor<R/2 x angleType>: a constant when it is known at compile time,
/// else computed from L = max(positions) + 1 (dynamic NTK, LongRoPE).
mlir::Value buildRopeInvFreqTable(mlir::OpBuilder &b, mlir::Location loc,
                                  RopeOp op, mlir::Value positions,
                                  mlir::FloatType angleType);

/// cos and sin of the RoPE angles of every position in `positions`
/// (tensor<S x iN>, or per batch tensor<B x S x iN>), as the two results of
/// one linalg.generic, tensor<S x R/2 x c> (tensor<B x S x R/2 x c>), with the attention factor applied
/// (buildRotaryCosSin's math), from `invFreq` (buildRotaryInvFreqConstant).
/// Position-only tables: a tile prologue reads them instead of evaluating
/// cos and sin for every tile it rotates.
std::pair<mlir::Value, mlir::Value>
buildRotaryTables(mlir::OpBuilder &b, mlir::Location loc, RotaryAttr rope,
                  mlir::Value positions, mlir::Value invFreq,
                  mlir::FloatType c);

/// The indices of the element of the table-form cos/sin `table` ([..., S, R],
/// broadcast right-aligned against the input; posenc.rope's table form)
/// that the input element at `ivs` (all its indices) reads at column
/// `column`: static unit leading dims of the table read index 0.
llvm::SmallVector<mlir::Value> ropeTableIndices(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value table,
                                                llvm::ArrayRef<mlir::Value> ivs,
                                                mlir::Value column);

/// Run-time checks (cf.assert, prefixed by `what`) that every dim of the
/// table-form `table` the verifier saw as dynamic equals the aligned dim of
/// `input` (a leading dim that is not a static 1 is not broadcast).
void buildRopeTableChecks(mlir::OpBuilder &b, mlir::Location loc,
                          const llvm::Twine &what, mlir::Value table,
                          mlir::Value input);

//===----------------------------------------------------------------------===//
// Run-time shape checks
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// xPos decay (XPosDecay.cpp)
//===----------------------------------------------------------------------===//

/// xPos's per-pair log decay (computeXPosLogDecay) as a constant
/// tensor<R/2 x c>.
mlir::Value buildXPosLogDecayConstant(mlir::OpBuilder &b, mlir::Location loc,
                                      XPosAttr xpos, int64_t rotaryDim,
                                      mlir::FloatType c);

/// xPos's decay exp((position - center) * logDecay): `position` an iN (or a
/// vector of iN), `center` an i64, `logDecay` a float (or a vector of them)
/// whose type the result has. The offset is exact in i64; its conversion and
/// the exponent are in logDecay's element type.
mlir::Value buildXPosDecay(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value position, mlir::Value center,
                           mlir::Value logDecay);

/// `cos` and `sin` (buildRotaryCosSin's) multiplied by xPos's decay
/// exp((position - center) * logDecay), so that rotating with them applies
/// the decay after the rotation. `position` is an iN (or a vector of iN),
/// `center` an i64, `logDecay` of cos's type (an element of
/// buildXPosLogDecayConstant, or a vector of them). The offset is exact in
/// i64; its conversion and the exponent are in cos's element type.
std::pair<mlir::Value, mlir::Value>
applyXPosDecay(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cos,
               mlir::Value sin, mlir::Value position, mlir::Value center,
               mlir::Value logDecay);

/// Run-time checks (cf.assert, messages prefixed by `opName`) of the q/k/v
/// dims that a verifier could only check as compatible: every lead dim
/// except `groupedDim` (GQA heads, where k/v's is checked against each
/// other only), D of query vs key, Sk of value vs key.
void buildAttentionShapeChecks(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::StringRef opName, mlir::Value q,
                               mlir::Value k, mlir::Value v,
                               std::optional<int64_t> groupedDim);

/// Run-time checks of the `kvLengths` operand of `opName` over the cache
/// `key` ([B, ..., Smax, D]): its length equals B (dim 0 of `query`) and
/// every value lies in [0, Smax] (SPEC.md: a length outside is a reported
/// run-time error; the C API returns it as an error).
void buildKVLengthsChecks(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::StringRef opName, mlir::Value kvLengths,
                          mlir::Value query, mlir::Value key);

/// Run-time check that per-batch positions [B, S] (`positions` of rank 2)
/// have the batch dim of `input` (dim 0); nothing for positions [S].
void buildPerBatchPositionsCheck(mlir::OpBuilder &b, mlir::Location loc,
                                 const llvm::Twine &what,
                                 mlir::Value positions,
                                 mlir::Value input);

/// Run-time checks of Transformer-XL's tables (posenc.xl_attention, the xl
/// term of posenc.fused_attention) that the verifier could only see as
/// dynamic: `rel` [[H x] L x D] has L = Sq + Sk - 1 rows and the query's H
/// and D, `contentBias` and `positionBias` [H x D] the query's H and D.
/// Messages are prefixed by `opName` and name the operand (`names`: rel,
/// content bias, position bias).
void buildXlTableChecks(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::StringRef opName,
                        llvm::ArrayRef<llvm::StringRef> names, mlir::Value rel,
                        mlir::Value contentBias, mlir::Value positionBias,
                        mlir::Value query, mlir::Value key);

/// buildAttentionShapeChecks for `op`, plus the lengths of its positions
/// and its kv_lengths (buildKVLengthsChecks). Every lowering of
/// posenc.fused_attention emits them before its loops.
void buildFusedAttentionRuntimeChecks(mlir::OpBuilder &b, FusedAttentionOp op);

//===----------------------------------------------------------------------===//
// DeBERTa's relative positions (posenc.disentangled_attention)
//===----------------------------------------------------------------------===//

/// The parameters of DeBERTa-v2's log buckets: bucket_size
/// (position_buckets) and max_position (max_relative_positions).
struct DebertaBucketParams {
  int64_t bucketSize;
  int64_t maxPosition;
};

/// DeBERTa-v2's log bucket (posenc.disentangled_attention's description) of
/// the relative position `rel` = i - j (an index): HuggingFace's
/// `make_log_bucket_position` with its float32 arithmetic, each f32
/// logarithm correctly rounded (log in f64, rounded to f32), so that the
/// bucket does not depend on the target's log.
mlir::Value buildDebertaBucket(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value rel,
                               const DebertaBucketParams &params);

/// The row clamp(r + k, 0, 2k - 1) of posenc.disentangled_attention's
/// position tables for query row `i` and key `j` (indices): r = i - j,
/// bucketed by buildDebertaBucket when `buckets` is set; k = `span`. It is
/// both the c2p index c and the p2c index c' (equal: the bucket is odd).
mlir::Value buildDisentangledIndex(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value i, mlir::Value j, int64_t span,
                                   std::optional<DebertaBucketParams> buckets);

/// The bucket parameters of `op`, none when it has no position_buckets.
std::optional<DebertaBucketParams>
getDebertaBucketParams(DisentangledAttentionOp op);
/// Run-time checks of a DeBERTa position table `table` ([H x] 2k x D; null:
/// none) that the verifier could only see as dynamic: the query's D and,
/// per head, its H. Messages are prefixed by `opName` and name the operand
/// `name`.
void buildDebertaTableChecks(mlir::OpBuilder &b, mlir::Location loc,
                             llvm::StringRef opName, mlir::Value table,
                             llvm::StringRef name, mlir::Value q);

/// The bucket parameters of the DeBERTa term of `op`, none without
/// deberta_position_buckets.
std::optional<DebertaBucketParams>
getDebertaBucketParams(FusedAttentionOp op);

} // namespace posenc

#endif // POSENC_DIALECT_POSENC_UTILS_ATTENTIONUTILS_H
