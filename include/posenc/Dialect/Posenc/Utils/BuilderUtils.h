//===- BuilderUtils.h - IR building blocks shared by the lowerings -*- C++
//-*-===//
//
// Small builders every posenc lowering needs (scalar casts and constants,
// linalg.generic plumbing) and the RoPE math, written once so that the
// reference lowering, the fused decomposition, the GPU kernels and the
// standalone RoPE lowering (whose vector rows use the row helpers below)
// emit the same arithmetic for the same formula of the op descriptions.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_UTILS_BUILDERUTILS_H
#define POSENC_DIALECT_POSENC_UTILS_BUILDERUTILS_H

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace posenc {

/// The type element computations run in: f32 for f16/bf16/f32, f64 for f64.
mlir::FloatType computeTypeFor(mlir::Type elementType);

/// Converts a float scalar or vector to `to` (extf / truncf / nothing).
mlir::Value castFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      mlir::Type to);

/// A float constant; a splat when `type` is a vector or tensor type.
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double value);
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// Emits a run-time check (cf.assert with `message`) that dim `da` of the
/// ranked tensor `a` equals dim `db` of `b2`, when at least one of them is
/// dynamic (static mismatches are verifier errors).
void assertDimsEqual(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                     int64_t da, mlir::Value b2, int64_t db,
                     const llvm::Twine &message);

/// A 1-d constant tensor of `values` rounded to `elementType` (the RoPE
/// inverse-frequency and ALiBi slope tables).
mlir::Value constantTable(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::ArrayRef<double> values,
                          mlir::FloatType elementType);

/// `numParallel` parallel iterators followed by `numReduction` reductions.
llvm::SmallVector<mlir::utils::IteratorType>
iterators(int64_t numParallel, int64_t numReduction = 0);

/// A linalg.generic with one result (the type of `init`).
mlir::Value
buildGeneric(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
             mlir::Value init, llvm::ArrayRef<mlir::AffineMap> maps,
             llvm::ArrayRef<mlir::utils::IteratorType> its,
             llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                     mlir::ValueRange)>
                 body);

/// Terminates a linalg.generic body with one value.
void yieldValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Where dim `d` of a RoPE row sits (posenc.rope's description): the index of
/// its frequency, whether it is the first element of its pair, its partner
/// dim, and whether it is rotated at all (d < rotary_dim). Dims past
/// rotary_dim get pair 0 and partner d, so every index stays in bounds.
struct RotaryPairIndex {
  mlir::Value pair, isFirst, partner, inRotary;
};
RotaryPairIndex buildRotaryPairIndex(mlir::OpBuilder &b, mlir::Location loc,
                                     mlir::Value d, Layout layout,
                                     int64_t rotaryDim);

/// cos and sin of theta = pos * invFreq, computed in `angleType` (f32: fast,
/// f64: exact), converted to `computeType` and scaled by `attentionFactor`.
/// With a vector of positions (and `invFreq` a vector of `angleType` of the
/// same shape) cos and sin are vectors of `computeType`.
/// `reduceAngleInF64` (f32 angles only): the f32 theta is reduced modulo
/// pi/2 in f64 before cos/sin, so that polynomial cos/sin (vector lowering)
/// are as accurate as libm's on the same f32 theta at large angles.
std::pair<mlir::Value, mlir::Value>
buildRotaryCosSin(mlir::OpBuilder &b, mlir::Location loc, mlir::Value position,
                  mlir::Value invFreq, mlir::FloatType angleType,
                  mlir::FloatType computeType, double attentionFactor,
                  bool reduceAngleInF64 = false);

/// The rotated value of element `x` whose pair partner is `y`:
/// (a, b) -> (a cos - b sin, a sin + b cos), i.e. x cos - y sin for the first
/// element of a pair and x cos + y sin for the second. Scalars or vectors.
/// The sign of the partner's term is stated once, in BuilderUtils.cpp, for
/// every form of the rotation below.
mlir::Value buildRotatedElement(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, mlir::Value y, mlir::Value cos,
                                mlir::Value sin, bool isFirst);
/// The same with `isFirst` an i1 value (a select between both forms).
mlir::Value buildRotatedElement(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x, mlir::Value y, mlir::Value cos,
                                mlir::Value sin, mlir::Value isFirst);

/// Per-lane tables of a row of interleaved pairs from the per-pair
/// `cosPairs` and `sinPairs` (vectors of R/2): lanes 2p and 2p+1 both take
/// pair p, and the sin of each lane carries the sign of its partner's term in
/// buildRotatedElement (-sin on the first lane of a pair, exact), so that
/// applyRotaryBySignedSin needs no sign select per vector. Returns
/// (cos, signed sin), vectors of R.
std::pair<mlir::Value, mlir::Value>
buildInterleavedRotaryLanes(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value cosPairs, mlir::Value sinPairs);

/// A per-lane sin vector of whole interleaved pairs with the sign of each
/// lane's partner term in buildRotatedElement applied (-sin on the first
/// lane of a pair, exact), for applyRotaryBySignedSin.
mlir::Value signRotaryLanes(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value sinLanes);

/// The pair partners of a vector `x` of whole interleaved pairs (an even
/// number of lanes): its lanes exchanged two by two.
mlir::Value swapRotaryPairLanes(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value x);

/// posenc.rope on vectors whose sin table carries the rotation's sign
/// (buildInterleavedRotaryLanes): x cos + partner sin'.
mlir::Value applyRotaryBySignedSin(mlir::OpBuilder &b, mlir::Location loc,
                                   mlir::Value x, mlir::Value partner,
                                   mlir::Value cos, mlir::Value signedSin);

/// The trip count of every dimension of `loop` (max(ub - lb, 0) ceildiv
/// step: an empty dimension gives 0, not a huge unsigned count) appended to
/// `tripCounts`; returns their product.
mlir::Value
buildParallelLoopTripCounts(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::scf::ParallelOp loop,
                            llvm::SmallVectorImpl<mlir::Value> &tripCounts);

/// The induction values of `loop` at linear iteration `linear`, innermost
/// dimension fastest (so consecutive GPU threads touch consecutive elements).
llvm::SmallVector<mlir::Value>
delinearizeParallelLoop(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value linear, mlir::scf::ParallelOp loop,
                        llvm::ArrayRef<mlir::Value> tripCounts);

} // namespace posenc

#endif // POSENC_DIALECT_POSENC_UTILS_BUILDERUTILS_H
