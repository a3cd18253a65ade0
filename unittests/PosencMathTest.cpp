//===- PosencMathTest.cpp - RoPE frequency and ALiBi slope tables ---------===//
//
// Expected values are worked out by hand from the formulas in docs/spec.md, not
// copied from the code under test.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencDialect.h"
#include "posenc/Dialect/Posenc/IR/PosencMath.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace posenc;

namespace {

class PosencMathTest : public ::testing::Test {
protected:
  PosencMathTest() { ctx.loadDialect<PosencDialect>(); }

  /// #posenc.rope_scaling built directly (the parser is tested in lit).
  RopeScalingAttr scaling(RopeScalingKind kind, double factor,
                          int64_t orig = 0, double low = 1.0,
                          double high = 4.0,
                          llvm::ArrayRef<double> shortF = {},
                          llvm::ArrayRef<double> longF = {}) {
    auto arr = [&](llvm::ArrayRef<double> v) {
      return v.empty() ? mlir::DenseF64ArrayAttr()
                       : mlir::DenseF64ArrayAttr::get(&ctx, v);
    };
    return RopeScalingAttr::get(&ctx, kind, llvm::APFloat(factor), orig,
                                llvm::APFloat(32.0), llvm::APFloat(1.0),
                                llvm::APFloat(low), llvm::APFloat(high),
                                std::nullopt, arr(shortF), arr(longF));
  }

  mlir::MLIRContext ctx;
};

TEST_F(PosencMathTest, UnscaledInvFreq) {
  // base 10000, R = 4: inv_freq = [10000^0, 10000^(-2/4)] = [1, 0.01].
  auto f = computeRopeInvFreq(10000.0, 4, nullptr);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 0.01, 1e-15);
}

TEST_F(PosencMathTest, LinearDividesByFactor) {
  auto f = computeRopeInvFreq(10000.0, 4,
                              scaling(RopeScalingKind::linear, 2.0));
  EXPECT_DOUBLE_EQ(f[0], 0.5);
  EXPECT_NEAR(f[1], 0.005, 1e-15);
}

TEST_F(PosencMathTest, NtkScalesTheBase) {
  // base' = 10000 * 4^(4/2) = 160000; inv_freq[1] = 160000^(-1/2) = 1/400.
  auto f = computeRopeInvFreq(10000.0, 4, scaling(RopeScalingKind::ntk, 4.0));
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 1.0 / 400.0, 1e-15);
}

TEST_F(PosencMathTest, DynamicNtkOnlyPastOriginalLength) {
  auto dyn = scaling(RopeScalingKind::dynamic, 2.0, /*orig=*/100);
  // L <= orig: unchanged (at L == orig the formula gives base too; L = 50
  // is where a missing max(L, orig) would shrink the base).
  auto at = computeRopeInvFreq(10000.0, 4, dyn, 100);
  EXPECT_NEAR(at[1], 0.01, 1e-15);
  auto below = computeRopeInvFreq(10000.0, 4, dyn, 50);
  EXPECT_NEAR(below[1], 0.01, 1e-15);
  // L = 200: base' = 10000 * (2*200/100 - 1)^2 = 90000; inv = 1/300.
  auto above = computeRopeInvFreq(10000.0, 4, dyn, 200);
  EXPECT_NEAR(above[1], 1.0 / 300.0, 1e-15);
}

TEST_F(PosencMathTest, Llama3Bands) {
  // base 100, R = 4: inv_freq = [1, 0.1], wavelengths [2pi, 20pi].
  // orig 64, low 1, high 4: band edges 16 and 64. 2pi < 16 keeps pair 0;
  // 20pi = 62.83 is in the smooth band.
  auto f = computeRopeInvFreq(100.0, 4,
                              scaling(RopeScalingKind::llama3, 8.0, 64));
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  double smooth = (64.0 / (20.0 * M_PI) - 1.0) / 3.0;
  EXPECT_NEAR(f[1], (1.0 - smooth) * 0.1 / 8.0 + smooth * 0.1, 1e-15);
  // orig 16: the band is [4, 16], pair 1 (62.83) is past it: divided.
  auto g = computeRopeInvFreq(100.0, 4,
                              scaling(RopeScalingKind::llama3, 8.0, 16));
  EXPECT_NEAR(g[1], 0.1 / 8.0, 1e-15);
}

TEST_F(PosencMathTest, LongRopePicksTheFactorListByLength) {
  double shortF[] = {1.0, 2.0}, longF[] = {4.0, 8.0};
  auto lr = scaling(RopeScalingKind::longrope, 1.0, 10, 1.0, 4.0, shortF,
                    longF);
  auto s = computeRopeInvFreq(10000.0, 4, lr, 10);
  auto l = computeRopeInvFreq(10000.0, 4, lr, 11);
  EXPECT_DOUBLE_EQ(s[0], 1.0);
  EXPECT_NEAR(s[1], 0.005, 1e-15);
  EXPECT_DOUBLE_EQ(l[0], 0.25);
  EXPECT_NEAR(l[1], 0.01 / 8.0, 1e-15);
}

TEST_F(PosencMathTest, AlibiSlopesPowerOfTwo) {
  auto s = computeAlibiSlopes(8, 8.0);
  ASSERT_EQ(s.size(), 8u);
  for (int h = 0; h < 8; ++h)
    EXPECT_DOUBLE_EQ(s[h], std::ldexp(1.0, -(h + 1)));
}

TEST_F(PosencMathTest, AlibiSlopesNotPowerOfTwo) {
  // 5 heads: the 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8, then the 8-head
  // slopes at even indices: 2^-1.
  auto s = computeAlibiSlopes(5, 8.0);
  double want[] = {0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256, 0.5};
  ASSERT_EQ(s.size(), 5u);
  for (int h = 0; h < 5; ++h)
    EXPECT_DOUBLE_EQ(s[h], want[h]);
  // 12 heads: 2^-1..2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  auto t = computeAlibiSlopes(12, 8.0);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_DOUBLE_EQ(t[7], 1.0 / 256);
  EXPECT_NEAR(t[8], std::pow(2.0, -0.5), 1e-15);
  EXPECT_NEAR(t[11], std::pow(2.0, -3.5), 1e-15);
}

} // namespace
