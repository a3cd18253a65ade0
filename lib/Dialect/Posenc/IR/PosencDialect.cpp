//===- PosencDialect.cpp - posenc dialect and attributes ------------------===//

#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace posenc;
using posenc::detail::formatNumber;

#include "posenc/Dialect/Posenc/IR/PosencDialect.cpp.inc"
#include "posenc/Dialect/Posenc/IR/PosencEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "posenc/Dialect/Posenc/IR/PosencAttrs.cpp.inc"

void PosencDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "posenc/Dialect/Posenc/IR/PosencOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "posenc/Dialect/Posenc/IR/PosencAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// RopeScalingAttr
//===----------------------------------------------------------------------===//

namespace {
/// The parameters of #posenc.rope_scaling, with the per-kind defaults of the
/// attribute's description.
struct ScalingParams {
  RopeScalingKind kind = RopeScalingKind::none;
  double factor = 1.0;
  int64_t originalMaxPosition = 0;
  double betaFast = 32.0, betaSlow = 1.0;
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;
  std::optional<double> attentionFactor;
  SmallVector<double> shortFactor, longFactor;

  explicit ScalingParams(RopeScalingKind kind) : kind(kind) {
    if (kind == RopeScalingKind::llama3) {
      factor = 8.0;
      originalMaxPosition = 8192;
    }
  }
};
} // namespace

/// The keys each kind accepts, in printing order.
static ArrayRef<StringRef> keysOfKind(RopeScalingKind kind) {
  static const StringRef none[] = {""};
  static const StringRef factorOnly[] = {"factor"};
  static const StringRef dynamic[] = {"factor", "original_max_position"};
  static const StringRef yarn[] = {"factor", "original_max_position",
                                   "beta_fast", "beta_slow",
                                   "attention_factor"};
  static const StringRef llama3[] = {"factor", "low_freq_factor",
                                     "high_freq_factor",
                                     "original_max_position"};
  static const StringRef longrope[] = {"short_factor", "long_factor",
                                       "original_max_position",
                                       "attention_factor"};
  switch (kind) {
  case RopeScalingKind::none:
    return ArrayRef<StringRef>(none).drop_front();
  case RopeScalingKind::linear:
  case RopeScalingKind::ntk:
    return factorOnly;
  case RopeScalingKind::dynamic:
    return dynamic;
  case RopeScalingKind::yarn:
    return yarn;
  case RopeScalingKind::llama3:
    return llama3;
  case RopeScalingKind::longrope:
    return longrope;
  }
  return {};
}

/// The keys a kind needs because they have no default (see the table of the
/// attribute's description).
static ArrayRef<StringRef> requiredKeysOfKind(RopeScalingKind kind) {
  static const StringRef factorOnly[] = {"factor"};
  static const StringRef withOrig[] = {"factor", "original_max_position"};
  static const StringRef longrope[] = {"short_factor", "long_factor",
                                       "original_max_position"};
  switch (kind) {
  case RopeScalingKind::none:
  case RopeScalingKind::llama3:
    return {};
  case RopeScalingKind::linear:
  case RopeScalingKind::ntk:
    return factorOnly;
  case RopeScalingKind::dynamic:
  case RopeScalingKind::yarn:
    return withOrig;
  case RopeScalingKind::longrope:
    return longrope;
  }
  return {};
}

Attribute RopeScalingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseKeyword(&kindName))
    return {};
  std::optional<RopeScalingKind> kind = symbolizeRopeScalingKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc)
        << "unknown rope scaling kind '" << kindName
        << "' (expected none, linear, ntk, dynamic, yarn, llama3 or longrope)";
    return {};
  }
  ScalingParams params(*kind);
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!llvm::is_contained(keysOfKind(*kind), key)) {
      parser.emitError(keyLoc) << "rope scaling kind '" << kindName
                               << "' takes no parameter '" << key << "'";
      return {};
    }
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "duplicate rope scaling parameter '" << key
                               << "'";
      return {};
    }
    auto parseArray = [&](SmallVectorImpl<double> &out) -> ParseResult {
      return parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            double v;
            if (parser.parseFloat(v))
              return failure();
            out.push_back(v);
            return success();
          });
    };
    ParseResult result = success();
    double value = 0.0;
    if (key == "original_max_position") {
      result = parser.parseInteger(params.originalMaxPosition);
    } else if (key == "short_factor") {
      result = parseArray(params.shortFactor);
    } else if (key == "long_factor") {
      result = parseArray(params.longFactor);
    } else {
      result = parser.parseFloat(value);
      if (key == "factor")
        params.factor = value;
      else if (key == "beta_fast")
        params.betaFast = value;
      else if (key == "beta_slow")
        params.betaSlow = value;
      else if (key == "low_freq_factor")
        params.lowFreqFactor = value;
      else if (key == "high_freq_factor")
        params.highFreqFactor = value;
      else if (key == "attention_factor")
        params.attentionFactor = value;
    }
    if (failed(result))
      return {};
  }
  SMLoc endLoc = parser.getCurrentLocation();
  if (parser.parseGreater())
    return {};
  for (StringRef key : requiredKeysOfKind(*kind)) {
    if (!seen.contains(key)) {
      parser.emitError(endLoc) << "rope scaling kind '" << kindName
                               << "' requires parameter '" << key << "'";
      return {};
    }
  }
  MLIRContext *ctx = parser.getContext();
  std::optional<APFloat> attentionFactor;
  if (params.attentionFactor)
    attentionFactor = APFloat(*params.attentionFactor);
  auto array = [&](ArrayRef<double> values) {
    return values.empty() ? DenseF64ArrayAttr()
                          : DenseF64ArrayAttr::get(ctx, values);
  };
  return parser.getChecked<RopeScalingAttr>(
      ctx, params.kind, APFloat(params.factor), params.originalMaxPosition,
      APFloat(params.betaFast), APFloat(params.betaSlow),
      APFloat(params.lowFreqFactor), APFloat(params.highFreqFactor),
      attentionFactor, array(params.shortFactor), array(params.longFactor));
}

void RopeScalingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyRopeScalingKind(getKind());
  auto printArray = [&](ArrayRef<double> values) {
    printer << "[";
    llvm::interleaveComma(values, printer,
                          [&](double v) { printer.printFloat(APFloat(v)); });
    printer << "]";
  };
  for (StringRef key : keysOfKind(getKind())) {
    if (key == "attention_factor" && !getAttentionFactor())
      continue;
    printer << ", " << key << " = ";
    if (key == "factor")
      printer.printFloat(getFactor());
    else if (key == "original_max_position")
      printer << getOriginalMaxPosition();
    else if (key == "beta_fast")
      printer.printFloat(getBetaFast());
    else if (key == "beta_slow")
      printer.printFloat(getBetaSlow());
    else if (key == "low_freq_factor")
      printer.printFloat(getLowFreqFactor());
    else if (key == "high_freq_factor")
      printer.printFloat(getHighFreqFactor());
    else if (key == "attention_factor")
      printer.printFloat(*getAttentionFactor());
    else if (key == "short_factor")
      printArray(getShortFactorValues());
    else if (key == "long_factor")
      printArray(getLongFactorValues());
  }
  printer << ">";
}

std::string posenc::detail::formatNumber(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

LogicalResult
RopeScalingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        RopeScalingKind kind, APFloat factorAttr,
                        int64_t originalMaxPosition, APFloat betaFastAttr,
                        APFloat betaSlowAttr, APFloat lowFreqFactorAttr,
                        APFloat highFreqFactorAttr,
                        std::optional<APFloat> attentionFactorAttr,
                        DenseF64ArrayAttr shortFactorAttr,
                        DenseF64ArrayAttr longFactorAttr) {
  double factor = factorAttr.convertToDouble();
  double betaFast = betaFastAttr.convertToDouble();
  double betaSlow = betaSlowAttr.convertToDouble();
  double lowFreqFactor = lowFreqFactorAttr.convertToDouble();
  double highFreqFactor = highFreqFactorAttr.convertToDouble();
  std::optional<double> attentionFactor;
  if (attentionFactorAttr)
    attentionFactor = attentionFactorAttr->convertToDouble();
  ArrayRef<double> shortFactor, longFactor;
  if (shortFactorAttr)
    shortFactor = shortFactorAttr.asArrayRef();
  if (longFactorAttr)
    longFactor = longFactorAttr.asArrayRef();
  StringRef kindName = stringifyRopeScalingKind(kind);
  bool usesFactor = kind != RopeScalingKind::none &&
                    kind != RopeScalingKind::longrope;
  auto isFinitePositive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (usesFactor && !isFinitePositive(factor))
    return emitError() << "rope scaling '" << kindName
                       << "': factor must be a finite number > 0, got "
                       << formatNumber(factor);
  bool usesOrig = kind == RopeScalingKind::dynamic ||
                  kind == RopeScalingKind::yarn ||
                  kind == RopeScalingKind::llama3 ||
                  kind == RopeScalingKind::longrope;
  if (usesOrig && originalMaxPosition <= 0)
    return emitError() << "rope scaling '" << kindName
                       << "': original_max_position must be > 0, got "
                       << originalMaxPosition;
  if (kind == RopeScalingKind::yarn &&
      !(isFinitePositive(betaFast) && isFinitePositive(betaSlow)))
    return emitError() << "rope scaling 'yarn': beta_fast ("
                       << formatNumber(betaFast) << ") and beta_slow ("
                       << formatNumber(betaSlow)
                       << ") must be finite numbers > 0";
  if (kind == RopeScalingKind::llama3 &&
      !(isFinitePositive(lowFreqFactor) && std::isfinite(highFreqFactor) &&
        highFreqFactor > lowFreqFactor))
    return emitError() << "rope scaling 'llama3': expected 0 < "
                          "low_freq_factor < high_freq_factor (finite), got "
                       << formatNumber(lowFreqFactor) << " and "
                       << formatNumber(highFreqFactor);
  if (attentionFactor && !isFinitePositive(*attentionFactor))
    return emitError() << "rope scaling '" << kindName
                       << "': attention_factor must be a finite number > 0, "
                          "got "
                       << formatNumber(*attentionFactor);
  if (kind == RopeScalingKind::longrope) {
    if (shortFactor.empty() || shortFactor.size() != longFactor.size())
      return emitError() << "rope scaling 'longrope': short_factor ("
                         << shortFactor.size() << " values) and long_factor ("
                         << longFactor.size()
                         << " values) must be non-empty and of equal length";
    for (double v : llvm::concat<const double>(shortFactor, longFactor))
      if (!isFinitePositive(v))
        return emitError() << "rope scaling 'longrope': every factor must be "
                              "a finite number > 0, got "
                           << formatNumber(v);
  }
  return success();
}

double RopeScalingAttr::getEffectiveAttentionFactor() const {
  if (getAttentionFactor())
    return getAttentionFactor()->convertToDouble();
  if (getKind() == RopeScalingKind::yarn)
    return getFactorValue() <= 1.0 ? 1.0
                                   : 0.1 * std::log(getFactorValue()) + 1.0;
  return 1.0;
}

bool RopeScalingAttr::dependsOnSequenceLength() const {
  return getKind() == RopeScalingKind::dynamic ||
         getKind() == RopeScalingKind::longrope;
}
