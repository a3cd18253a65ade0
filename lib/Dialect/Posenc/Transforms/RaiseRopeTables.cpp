//===- RaiseRopeTables.cpp - RoPE from constant cos/sin tables ------------===//
//
// When the positions are static, exporters fold HuggingFace's cos/sin
// computation into dense constants (torch.export's constant folding), and
// Meta's reference code slices a precomputed `freqs_cis` buffer to the
// sequence. Those tables are `cos/sin((start + s) * inv_freq[p])`, the
// halves duplicated (half layout). They are matched by value:
//
// - the angle of row s, pair p is atan2(sin, cos), known modulo 2 pi; row 1
//   minus row 0 gives inv_freq[p] for the fast pairs, and unwrapping along
//   the rows (each step predicted from the previous estimate) gives it to
//   f32 precision from the last row for every pair;
// - `start` comes from the slowest pair, where it is unambiguous, and each
//   frequency again from the absolute angle of the last row (unwrapped
//   near its prediction), which the graph computed to an f32 ulp;
// - the frequencies are recovered with recoverRopeFrequencies (the
//   formulas of SPEC.md, within 8 f32 ulps);
// - every entry is then checked against cos/sin((start + s) * inv[p]) in
//   float64 within 8 * 2^-24 * (1 + |angle|): the graph's own f32 table errs
//   by a few ulps of the angle; a wrong start, base or layout is off by
//   O(1) in some entry.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// `a` moved by a multiple of 2 pi to lie within pi of `near`.
static double unwrapNear(double a, double near) {
  return a + 2 * M_PI * std::round((near - a) / (2 * M_PI));
}

/// Per-pair inverse frequencies of the `[s, half]` angle table `theta`
/// (modulo 2 pi), unwrapped along the rows.
static SmallVector<double> unwrapFrequencies(ArrayRef<double> theta, int64_t s,
                                             int64_t half) {
  SmallVector<double> inv(half);
  for (int64_t p = 0; p < half; ++p) {
    double f = unwrapNear(theta[half + p], theta[p]) - theta[p];
    double prev = theta[p];
    for (int64_t r = 1; r < s; ++r) {
      prev = unwrapNear(theta[r * half + p], prev + f);
      f = (prev - theta[p]) / r;
    }
    inv[p] = f;
  }
  return inv;
}

std::optional<PairTableMatch>
raise::matchPairTables(ArrayRef<double> c, ArrayRef<double> sn, int64_t s,
                       int64_t half, MLIRContext *ctx) {
  if (s < 2 || half < 1)
    return std::nullopt;
  SmallVector<double> theta(s * half);
  for (int64_t i = 0; i < s * half; ++i)
    theta[i] = std::atan2(sn[i], c[i]);
  SmallVector<double> inv = unwrapFrequencies(theta, s, half);
  // start from the slowest pair, where start * inv stays below pi; then
  // each frequency from the absolute angle of the last row, unwrapped near
  // its prediction: the graph's f32 angles err by an ulp of the angle, so
  // this is good to about an f32 ulp even at a large start.
  double start = std::round(theta[half - 1] / inv[half - 1]);
  if (!(start >= 0) || start + s >= (1 << 24))
    return std::nullopt;
  for (int64_t p = 0; p < half; ++p) {
    double n = start + s - 1;
    inv[p] = unwrapNear(theta[(s - 1) * half + p], n * inv[p]) / n;
  }
  std::string freqWhy;
  std::optional<RopeFrequencies> freqs =
      recoverRopeFrequencies(inv, ctx, freqWhy);
  if (!freqs)
    return std::nullopt;
  SmallVector<double> exact =
      computeRopeInvFreq(freqs->base, 2 * half, freqs->scaling);
  for (int64_t r = 0; r < s; ++r)
    for (int64_t p = 0; p < half; ++p) {
      double angle = (start + r) * exact[p];
      double tol = 8 * 0x1p-24 * (1 + angle);
      if (std::fabs(c[r * half + p] - std::cos(angle)) > tol ||
          std::fabs(sn[r * half + p] - std::sin(angle)) > tol)
        return std::nullopt;
    }
  return PairTableMatch{static_cast<int64_t>(start), *freqs};
}

bool raise::matchConstantRopeTables(Value cosTable, Value sinTable, Value x,
                                    RopeMatch &m, std::string &why) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t s = type.getDimSize(type.getRank() - 2);
  int64_t d = type.getShape().back();
  std::optional<SmallVector<double>> c = getConstantValues(cosTable);
  std::optional<SmallVector<double>> sn = getConstantValues(sinTable);
  if (!c || !sn)
    return false;
  why = "the constant cos/sin tables are not cos/sin((start + s) * inv_freq) "
        "of a posenc scaling, the halves duplicated";
  if (ShapedType::isDynamic(s) || s < 2 || d % 2 != 0 ||
      static_cast<int64_t>(c->size()) != s * d ||
      static_cast<int64_t>(sn->size()) != s * d ||
      !type.getElementType().isF32())
    return false;
  int64_t half = d / 2;
  SmallVector<double> pairCos(s * half), pairSin(s * half);
  for (int64_t r = 0; r < s; ++r)
    for (int64_t p = 0; p < half; ++p) {
      int64_t at = r * d + p;
      if ((*c)[at] != (*c)[at + half] || (*sn)[at] != (*sn)[at + half])
        return false; // not concat(f, f)
      pairCos[r * half + p] = (*c)[at];
      pairSin[r * half + p] = (*sn)[at];
    }
  std::optional<PairTableMatch> match =
      matchPairTables(pairCos, pairSin, s, half, x.getContext());
  if (!match)
    return false;
  SmallVector<int32_t> positions(s);
  for (int64_t r = 0; r < s; ++r)
    positions[r] = static_cast<int32_t>(match->start + r);
  m.constantPositions = DenseElementsAttr::get(
      RankedTensorType::get({s}, IntegerType::get(x.getContext(), 32)),
      ArrayRef<int32_t>(positions));
  m.frequencies = match->frequencies;
  why.clear();
  return true;
}
