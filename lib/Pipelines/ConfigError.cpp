//===- ConfigError.cpp - posenc-to-nvvm-config-error ----------------------===//
//
// Stands in for a whole pipeline whose options are unusable: a pipeline
// builder cannot fail, so the error is reported when the pipeline runs.
//
//===----------------------------------------------------------------------===//

#include "posenc/Pipelines/Passes.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCTONVVMCONFIGERRORPASS
#include "posenc/Pipelines/Passes.h.inc"
} // namespace posenc

namespace {
struct PosencToNVVMConfigErrorPass
    : posenc::impl::PosencToNVVMConfigErrorPassBase<
          PosencToNVVMConfigErrorPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError() << "posenc-to-nvvm: " << message;
    signalPassFailure();
  }
};
} // namespace
