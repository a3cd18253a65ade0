//===- RopeScalingAttrTest.cpp - #posenc.rope_scaling C++ API -------------===//

#include "posenc/Dialect/Posenc/IR/PosencAttrs.h"
#include "posenc/Dialect/Posenc/IR/PosencDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace posenc;

namespace {

RopeScalingAttr parse(mlir::MLIRContext &ctx, llvm::StringRef text) {
  return llvm::dyn_cast_or_null<RopeScalingAttr>(
      mlir::parseAttribute(text, &ctx));
}

TEST(RopeScalingAttr, KindDefaultsAndEffectiveAttentionFactor) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<PosencDialect>();
  RopeScalingAttr llama = parse(ctx, "#posenc.rope_scaling<llama3>");
  ASSERT_TRUE(llama);
  EXPECT_EQ(llama.getFactorValue(), 8.0);
  EXPECT_EQ(llama.getOriginalMaxPosition(), 8192);
  EXPECT_EQ(llama.getEffectiveAttentionFactor(), 1.0);
  EXPECT_FALSE(llama.dependsOnSequenceLength());

  RopeScalingAttr yarn = parse(
      ctx, "#posenc.rope_scaling<yarn, factor = 4.0, original_max_position = 4096>");
  ASSERT_TRUE(yarn);
  EXPECT_NEAR(yarn.getEffectiveAttentionFactor(), 0.1 * std::log(4.0) + 1.0,
              1e-15);
  RopeScalingAttr dyn = parse(
      ctx,
      "#posenc.rope_scaling<dynamic, factor = 2.0, original_max_position = 16>");
  ASSERT_TRUE(dyn);
  EXPECT_TRUE(dyn.dependsOnSequenceLength());
}

} // namespace
