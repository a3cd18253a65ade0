//===- RopeFrequencies.cpp - base and scaling from inverse frequencies ----===//
//
// Front ends store RoPE's inverse frequencies as a constant vector computed
// in f32 (HuggingFace `_compute_default_rope_parameters` and its llama3 /
// linear variants). Raising compares that vector with posenc's own formulas
// (computeRopeInvFreq): the parameters are solved from a few entries, then
// every entry must agree within 8 f32 ulps (the front end's own f32 pow and
// division account for a few). The angles of the raised op then differ from
// the graph's by at most that relative amount.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

/// 8 f32 ulps, relative.
static constexpr double kRelativeTolerance = 8.0 / (1 << 23);

static bool reproduces(ArrayRef<double> invFreq, double base,
                       RopeScalingAttr scaling) {
  int64_t rotaryDim = 2 * static_cast<int64_t>(invFreq.size());
  SmallVector<double> ref = computeRopeInvFreq(base, rotaryDim, scaling);
  for (auto [want, got] : llvm::zip_equal(invFreq, ref))
    if (!(std::abs(want - got) <= kRelativeTolerance * std::abs(want)))
      return false;
  return true;
}

/// `x` rounded to 6 significant digits.
static double roundish(double x) {
  if (x == 0 || !std::isfinite(x))
    return x;
  double unit = std::pow(10.0, std::floor(std::log10(std::abs(x))) - 5);
  return std::round(x / unit) * unit;
}

/// base with inv_freq[p] = base^(-2p/R) solved from entry p (> 0) of
/// `values` divided by `divisor`.
static double solveBase(ArrayRef<double> values, size_t p, double divisor) {
  double r = 2.0 * static_cast<double>(values.size());
  return std::exp(-r * std::log(values[p] * divisor) / (2.0 * p));
}

static RopeScalingAttr parseScaling(MLIRContext *ctx, StringRef text) {
  return dyn_cast_or_null<RopeScalingAttr>(parseAttribute(text, ctx));
}

static std::string printNumber(double x) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.17g", x);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

/// Tries `base` (and its rounded value) with the scaling built by `make`.
static std::optional<RopeFrequencies>
tryCandidate(ArrayRef<double> invFreq, double base,
             llvm::function_ref<RopeScalingAttr()> make) {
  RopeScalingAttr scaling = make();
  for (double b : {roundish(base), base})
    if (reproduces(invFreq, b, scaling))
      return RopeFrequencies{b, scaling};
  return std::nullopt;
}

/// llama3: the first entries keep base^(-2p/R), the last are divided by
/// `factor`, the ones between blend with a weight linear in 1/wavelength.
/// Only the ratios of (orig, low, high) are observable; low_freq_factor = 1
/// is chosen and orig, high solved from two blended entries.
static std::optional<RopeFrequencies> tryLlama3(ArrayRef<double> inv,
                                                MLIRContext *ctx) {
  size_t n = inv.size();
  double base = solveBase(inv, 1, 1.0);
  size_t kept = 1;
  while (kept + 1 < n &&
         std::abs(inv[kept + 1] - std::pow(base, -2.0 * (kept + 1) / (2.0 * n))) <
             1e-4 * inv[kept + 1])
    ++kept;
  base = solveBase(inv, kept, 1.0);
  double factor = roundish(std::pow(base, -2.0 * (n - 1) / (2.0 * n)) / inv[n - 1]);
  if (!(factor > 1.0))
    return std::nullopt;
  SmallVector<std::pair<double, double>> blended; // (unscaled, smooth)
  for (size_t p = kept + 1; p < n; ++p) {
    double u = std::pow(base, -2.0 * p / (2.0 * n));
    double smooth = (inv[p] / u - 1.0 / factor) / (1.0 - 1.0 / factor);
    if (smooth > 1e-3 && smooth < 1.0 - 1e-3)
      blended.push_back({u, smooth});
  }
  std::string text;
  if (blended.size() >= 2) {
    auto [u1, s1] = blended.front();
    auto [u2, s2] = blended.back();
    double a = (s1 - s2) / (u1 - u2), b = a * u1 - s1;
    if (!(a > 0 && b > 0))
      return std::nullopt;
    double high = roundish(1.0 + 1.0 / b);
    int64_t orig = std::llround(a * 2.0 * M_PI * (high - 1.0));
    text = "#posenc.rope_scaling<llama3, factor = " + printNumber(factor) +
           ", low_freq_factor = 1.0, high_freq_factor = " + printNumber(high) +
           ", original_max_position = " + std::to_string(orig) + ">";
  } else {
    // Too few blended entries to solve for them: HuggingFace's defaults.
    text = "#posenc.rope_scaling<llama3, factor = " + printNumber(factor) + ">";
  }
  RopeScalingAttr scaling = parseScaling(ctx, text);
  if (!scaling)
    return std::nullopt;
  return tryCandidate(inv, base, [&] { return scaling; });
}

/// The candidates for yarn's original_max_position in [lo, hi), round
/// values first: powers of two, multiples of 1024 and of 1000, then lo.
static SmallVector<int64_t> roundPositionsIn(double lo, double hi) {
  SmallVector<int64_t> out;
  auto add = [&](double v) {
    if (v >= lo && v < hi && v < 1e12)
      out.push_back(static_cast<int64_t>(v));
  };
  for (double v = 1; v < hi; v *= 2)
    add(v);
  for (double step : {1024.0, 1000.0})
    add(std::ceil(lo / step) * step);
  add(std::ceil(lo));
  return out;
}

/// A value in (lo, hi] (`upperClosed`) or [lo, hi): an integer when one
/// lies inside, else the midpoint.
static double valueIn(double lo, double hi, bool upperClosed) {
  double v = upperClosed ? std::floor(hi) : std::ceil(lo);
  bool inside = upperClosed ? (v > lo && v <= hi) : (v >= lo && v < hi);
  return inside && v > 0 ? v : 0.5 * (lo + hi);
}

/// yarn with betas other than the defaults: only the correction dims `low`
/// and `high` are observable, so for a round original_max_position, betas
/// giving exactly those dims are chosen (an integer when one fits):
/// floor(R ln(orig / (beta_fast 2 pi)) / (2 ln base)) == low and
/// ceil(R ln(orig / (beta_slow 2 pi)) / (2 ln base)) == high. Every such
/// choice gives the same frequencies; tryCandidate checks every entry.
static std::optional<RopeFrequencies>
tryYarnBetas(ArrayRef<double> inv, MLIRContext *ctx, double base,
             double factor, size_t low, double high) {
  double r = 2.0 * static_cast<double>(inv.size()), lb = std::log(base);
  double ld = static_cast<double>(low);
  for (int64_t orig : {4096, 2048, 8192, 16384, 32768, 1024, 65536, 131072}) {
    double scale = static_cast<double>(orig) / (2.0 * M_PI);
    double fast = valueIn(scale * std::exp(-2.0 * lb * (ld + 1.0) / r),
                          scale * std::exp(-2.0 * lb * ld / r), true);
    double slow = valueIn(scale * std::exp(-2.0 * lb * high / r),
                          scale * std::exp(-2.0 * lb * (high - 1.0) / r),
                          false);
    RopeScalingAttr scaling = parseScaling(
        ctx, "#posenc.rope_scaling<yarn, factor = " + printNumber(factor) +
                 ", original_max_position = " + std::to_string(orig) +
                 ", beta_fast = " + printNumber(fast) +
                 ", beta_slow = " + printNumber(slow) + ">");
    if (!scaling)
      return std::nullopt;
    if (auto found = tryCandidate(inv, base, [&] { return scaling; }))
      return found;
  }
  return std::nullopt;
}

/// yarn with the default betas (fast 32, slow 1): pairs up to the integer
/// correction dim `low` keep base^(-2p/R), pairs from `high` on are divided
/// by `factor`, the ones between blend linearly in p. low, high and factor
/// are read off the vector (the last two pairs must be fully interpolated:
/// otherwise factor and high are not separable); original_max_position is
/// any value whose correction dims are that low and high (every such value
/// gives the same frequencies), a round one when there is one.
static std::optional<RopeFrequencies> tryYarn(ArrayRef<double> inv,
                                              MLIRContext *ctx) {
  size_t n = inv.size();
  if (n < 4)
    return std::nullopt;
  double r = 2.0 * static_cast<double>(n);
  double base = solveBase(inv, 1, 1.0);
  size_t low = 1;
  while (low + 1 < n &&
         std::abs(inv[low + 1] - std::pow(base, -2.0 * (low + 1) / r)) <
             1e-4 * inv[low + 1])
    ++low;
  base = solveBase(inv, low, 1.0);
  // g(p) = ramp(p) * (1 - 1/factor).
  auto g = [&](size_t p) {
    return 1.0 - inv[p] / std::pow(base, -2.0 * static_cast<double>(p) / r);
  };
  double c = g(n - 1), step = low + 1 < n ? g(low + 1) : 0.0;
  if (!(c > 1e-3 && c < 1.0) || std::abs(g(n - 2) - c) > 1e-4 * c ||
      !(step > 0.0))
    return std::nullopt;
  double factor = roundish(1.0 / (1.0 - c));
  double high = static_cast<double>(low) + std::round(c / step);
  // floor(R ln(orig / (32 * 2 pi)) / (2 ln base)) == low and
  // ceil(R ln(orig / (1 * 2 pi)) / (2 ln base)) == high.
  double lb = std::log(base), ld = static_cast<double>(low);
  double lo = std::max(64.0 * M_PI * std::exp(2.0 * ld * lb / r),
                       2.0 * M_PI * std::exp(2.0 * (high - 1.0) * lb / r));
  double hi = std::min(64.0 * M_PI * std::exp(2.0 * (ld + 1.0) * lb / r),
                       2.0 * M_PI * std::exp(2.0 * high * lb / r));
  for (int64_t orig : roundPositionsIn(lo, hi)) {
    RopeScalingAttr scaling = parseScaling(
        ctx, "#posenc.rope_scaling<yarn, factor = " + printNumber(factor) +
                 ", original_max_position = " + std::to_string(orig) + ">");
    if (!scaling)
      return std::nullopt;
    if (auto found = tryCandidate(inv, base, [&] { return scaling; }))
      return found;
  }
  return tryYarnBetas(inv, ctx, base, factor, low, high);
}

std::optional<RopeFrequencies>
raise::recoverRopeFrequencies(ArrayRef<double> inv, MLIRContext *ctx,
                              std::string &why) {
  size_t n = inv.size();
  if (n < 2 || !llvm::all_of(inv, [](double f) {
        return std::isfinite(f) && f > 0.0;
      })) {
    why = "the inverse frequencies are not a positive vector of >= 2 entries";
    return std::nullopt;
  }
  // none (and NTK, which is none with base * factor^(R/(R-2))).
  if (auto none = tryCandidate(inv, solveBase(inv, n - 1, 1.0),
                               [] { return RopeScalingAttr(); }))
    return none;
  // linear: every entry divided by factor = 1 / inv[0].
  double factor = roundish(1.0 / inv[0]);
  if (factor != 1.0) {
    RopeScalingAttr linear = parseScaling(
        ctx, "#posenc.rope_scaling<linear, factor = " + printNumber(factor) + ">");
    if (linear)
      if (auto found = tryCandidate(inv, solveBase(inv, n - 1, factor),
                                    [&] { return linear; }))
        return found;
  }
  if (n >= 3)
    if (auto llama3 = tryLlama3(inv, ctx))
      return llama3;
  if (auto yarn = tryYarn(inv, ctx))
    return yarn;
  why = "the inverse frequencies match no position-independent posenc "
        "scaling (none, linear, ntk, llama3, yarn) within 8 f32 ulps";
  return std::nullopt;
}
