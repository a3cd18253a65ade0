//===- PosencMath.cpp - RoPE frequencies and ALiBi slopes -----------------===//
//
// The formulas are documented once, on #posenc.rope_scaling and
// posenc.alibi_bias (PosencAttrs.td / PosencOps.td); they follow the
// HuggingFace rope utilities and BLOOM/ggml's ALiBi slopes.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencMath.h"

#include <algorithm>
#include <cmath>

using namespace posenc;

llvm::SmallVector<double> posenc::computeRopeInvFreq(double base,
                                                     int64_t rotaryDim,
                                                     RopeScalingAttr scaling,
                                                     int64_t seqLen) {
  const double r = static_cast<double>(rotaryDim);
  const int64_t half = rotaryDim / 2;
  RopeScalingKind kind = scaling ? scaling.getKind() : RopeScalingKind::none;
  double factor = scaling ? scaling.getFactorValue() : 1.0;
  double orig = scaling ? static_cast<double>(scaling.getOriginalMaxPosition())
                        : 0.0;

  // Kinds that change the base first.
  if (kind == RopeScalingKind::ntk)
    base *= std::pow(factor, r / (r - 2.0));
  if (kind == RopeScalingKind::dynamic) {
    double len = std::max(static_cast<double>(seqLen), orig);
    base *= std::pow(factor * len / orig - (factor - 1.0), r / (r - 2.0));
  }

  llvm::SmallVector<double> invFreq(half);
  for (int64_t p = 0; p < half; ++p)
    invFreq[p] = std::pow(base, -2.0 * static_cast<double>(p) / r);

  switch (kind) {
  case RopeScalingKind::none:
  case RopeScalingKind::ntk:
  case RopeScalingKind::dynamic:
    break;
  case RopeScalingKind::linear:
    for (double &f : invFreq)
      f /= factor;
    break;
  case RopeScalingKind::yarn: {
    auto correctionDim = [&](double rotations) {
      return r * std::log(orig / (rotations * 2.0 * M_PI)) /
             (2.0 * std::log(base));
    };
    double low = std::max(std::floor(correctionDim(scaling.getBetaFastValue())), 0.0);
    double high =
        std::min(std::ceil(correctionDim(scaling.getBetaSlowValue())), r - 1.0);
    if (low == high)
      high += 0.001;
    for (int64_t p = 0; p < half; ++p) {
      double ramp = std::clamp((static_cast<double>(p) - low) / (high - low),
                               0.0, 1.0);
      invFreq[p] = invFreq[p] / factor * ramp + invFreq[p] * (1.0 - ramp);
    }
    break;
  }
  case RopeScalingKind::llama3: {
    double lowWavelen = orig / scaling.getLowFreqFactorValue();
    double highWavelen = orig / scaling.getHighFreqFactorValue();
    for (double &f : invFreq) {
      double wavelen = 2.0 * M_PI / f;
      if (wavelen < highWavelen)
        continue;
      if (wavelen > lowWavelen) {
        f /= factor;
        continue;
      }
      double smooth = (orig / wavelen - scaling.getLowFreqFactorValue()) /
                      (scaling.getHighFreqFactorValue() - scaling.getLowFreqFactorValue());
      f = (1.0 - smooth) * f / factor + smooth * f;
    }
    break;
  }
  case RopeScalingKind::longrope: {
    llvm::ArrayRef<double> ext = static_cast<double>(seqLen) > orig
                                     ? scaling.getLongFactorValues()
                                     : scaling.getShortFactorValues();
    for (int64_t p = 0; p < half && p < static_cast<int64_t>(ext.size()); ++p)
      invFreq[p] /= ext[p];
    break;
  }
  }
  return invFreq;
}

llvm::SmallVector<double> posenc::computeAlibiSlopes(int64_t numHeads,
                                                     double maxBias) {
  auto powerOfTwoSlopes = [&](int64_t n) {
    llvm::SmallVector<double> slopes;
    for (int64_t h = 0; h < n; ++h)
      slopes.push_back(std::pow(2.0, -maxBias * static_cast<double>(h + 1) /
                                         static_cast<double>(n)));
    return slopes;
  };
  int64_t c = 1;
  while (c * 2 <= numHeads)
    c *= 2;
  llvm::SmallVector<double> slopes = powerOfTwoSlopes(c);
  if (c == numHeads)
    return slopes;
  llvm::SmallVector<double> extra = powerOfTwoSlopes(2 * c);
  for (int64_t i = 0; static_cast<int64_t>(slopes.size()) < numHeads; i += 2)
    slopes.push_back(extra[i]);
  return slopes;
}
