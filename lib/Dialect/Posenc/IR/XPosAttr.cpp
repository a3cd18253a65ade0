//===- XPosAttr.cpp - #posenc.xpos ----------------------------------------===//
//
// The xPos decay attribute of posenc.rope (see its description in
// PosencAttrs.td): parameter checks and the query/key pairing rule that
// posenc-fuse-attention and posenc.fused_attention rely on.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>

using namespace mlir;
using namespace posenc;
using posenc::detail::formatNumber;

FailureOr<APFloat> posenc::parseF64Parameter(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

void posenc::printF64Parameter(AsmPrinter &printer, const APFloat &value) {
  printer.printFloat(value);
}

LogicalResult XPosAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               XPosRole role, APFloat scaleBaseAttr,
                               APFloat gammaAttr, int64_t center) {
  double scaleBase = scaleBaseAttr.convertToDouble();
  double gamma = gammaAttr.convertToDouble();
  if (!(scaleBase > 0.0 && std::isfinite(scaleBase)))
    return emitError() << "xpos: scale_base must be a finite number > 0, got "
                       << formatNumber(scaleBase);
  // zeta_p = (2p/R + gamma) / (1 + gamma) with 2p/R in [0, 1) is > 0 for
  // every p exactly when gamma > 0 or gamma < -1.
  if (!std::isfinite(gamma) || !(gamma > 0.0 || gamma < -1.0))
    return emitError() << "xpos: gamma must be finite and > 0 or < -1 (so "
                          "that every zeta_p = (2p/R + gamma)/(1 + gamma) "
                          "is > 0), got "
                       << formatNumber(gamma);
  return success();
}

bool XPosAttr::isPartnerOf(XPosAttr other) const {
  return other && getRole() != other.getRole() &&
         getScaleBaseValue() == other.getScaleBaseValue() &&
         getGammaValue() == other.getGammaValue();
}

llvm::SmallVector<double> posenc::computeXPosLogDecay(XPosAttr xpos,
                                                      int64_t rotaryDim) {
  double gamma = xpos.getGammaValue();
  double sign = xpos.getRole() == XPosRole::query ? 1.0 : -1.0;
  llvm::SmallVector<double> logDecay;
  for (int64_t p = 0; p < rotaryDim / 2; ++p) {
    double zeta =
        (2.0 * static_cast<double>(p) / static_cast<double>(rotaryDim) +
         gamma) /
        (1.0 + gamma);
    logDecay.push_back(sign * std::log(zeta) / xpos.getScaleBaseValue());
  }
  return logDecay;
}
