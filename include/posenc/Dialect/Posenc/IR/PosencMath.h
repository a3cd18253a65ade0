//===- PosencMath.h - frequency and slope tables ----------------*- C++ -*-===//
//
// The compile-time parts of the encodings' math, shared by every lowering
// (reference, fused, GPU) so that they cannot drift apart. The formulas are
// the ones documented on #posenc.rope_scaling and posenc.alibi_bias.
//
//===----------------------------------------------------------------------===//

#ifndef POSENC_DIALECT_POSENC_IR_POSENCMATH_H
#define POSENC_DIALECT_POSENC_IR_POSENCMATH_H

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "llvm/ADT/SmallVector.h"

namespace posenc {

/// RoPE inverse frequencies inv_freq[p], p in [0, rotaryDim/2), in float64,
/// for `base` adjusted by `scaling` (may be null = none). For the kinds that
/// depend on the run-time sequence length (dynamic, longrope), `seqLen` is
/// L = max(positions) + 1.
llvm::SmallVector<double> computeRopeInvFreq(double base, int64_t rotaryDim,
                                             RopeScalingAttr scaling,
                                             int64_t seqLen = 0);

/// xPos's per-pair log decay s * ln(zeta_p) / scale_base, p in
/// [0, rotaryDim/2), zeta_p = (2p/R + gamma)/(1 + gamma), s = +1 for the
/// query role and -1 for the key role (see #posenc.xpos), in float64: pair p
/// of a row at `pos` decays by exp((pos - center) * logDecay[p]).
llvm::SmallVector<double> computeXPosLogDecay(XPosAttr xpos,
                                              int64_t rotaryDim);

/// ALiBi slopes of all `numHeads` heads of a model (see posenc.alibi_bias).
llvm::SmallVector<double> computeAlibiSlopes(int64_t numHeads, double maxBias);

} // namespace posenc

#endif // POSENC_DIALECT_POSENC_IR_POSENCMATH_H
