//===- TargetVectorWidth.cpp - vector width of the target CPU -------------===//
//
// The host's features and vector width, and --posenc-target-features, which
// records features other than the host's for the JIT.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/TargetVectorWidth.h"
#include "posenc/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCTARGETFEATURESPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace llvm;

std::string posenc::getHostCPUFeatures() {
  std::string features;
  for (const StringMapEntry<bool> &feature : sys::getHostCPUFeatures()) {
    if (!features.empty())
      features += ',';
    features += (feature.getValue() ? "+" : "-") + feature.getKey().str();
  }
  return features;
}

int64_t posenc::getVectorBitsForFeatures(StringRef features) {
  bool avx512 = false, avx = false;
  SmallVector<StringRef> list;
  features.split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef feature : list) {
    feature = feature.trim();
    bool enable = !feature.consume_front("-");
    feature.consume_front("+");
    // Enabling a feature enables those it builds on, disabling it those
    // built on it, as in LLVM (avx512f > avx2 > avx).
    if (feature == "avx512f") {
      avx512 = enable;
      avx |= enable;
    } else if (feature == "avx2") {
      avx |= enable;
      avx512 &= enable;
    } else if (feature == "avx") {
      avx = enable;
      avx512 &= enable;
    }
  }
  return avx512 ? 512 : avx ? 256 : 128;
}

int64_t posenc::getHostVectorBits() {
  return getVectorBitsForFeatures(getHostCPUFeatures());
}

int64_t posenc::resolveVectorBits(int64_t requested) {
  return requested > 0 ? requested : getHostVectorBits();
}

namespace {
struct PosencTargetFeaturesPass
    : posenc::impl::PosencTargetFeaturesPassBase<PosencTargetFeaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    SmallVector<StringRef> list;
    StringRef(features).split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef feature : list) {
      feature = feature.trim();
      if (!feature.starts_with("+") && !feature.starts_with("-")) {
        module->emitError("posenc-target-features: feature '")
            << feature << "' must start with '+' or '-'";
        return signalPassFailure();
      }
      // The x86-64 calling convention passes floats in SSE registers: LLVM
      // cannot generate the functions without them (and aborts trying).
      if (feature == "-sse" || feature == "-sse2") {
        module->emitError("posenc-target-features: '")
            << feature << "' cannot be honoured: x86-64 code passes floats "
            << "in SSE registers";
        return signalPassFailure();
      }
    }
    module->setAttr(posenc::kTargetFeaturesAttrName,
                    mlir::StringAttr::get(&getContext(), features));
  }
};
} // namespace
