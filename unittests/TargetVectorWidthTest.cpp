//===- TargetVectorWidthTest.cpp - vector width from CPU features ---------===//

#include "posenc/Conversion/TargetVectorWidth.h"

#include "gtest/gtest.h"

using namespace posenc;

namespace {

TEST(TargetVectorWidth, WidestRegisterOfTheFeatures) {
  EXPECT_EQ(getVectorBitsForFeatures("+sse2,+avx,+avx2,+fma,+avx512f"), 512);
  EXPECT_EQ(getVectorBitsForFeatures("+sse2,+avx,+avx2,+fma,-avx512f"), 256);
  EXPECT_EQ(getVectorBitsForFeatures("+avx"), 256);
  EXPECT_EQ(getVectorBitsForFeatures("+sse4.2"), 128);
  EXPECT_EQ(getVectorBitsForFeatures(""), 128);
}

TEST(TargetVectorWidth, LaterEntriesOverrideAndImply) {
  // A host with AVX-512, then the pipeline's -avx512f: AVX2 code.
  EXPECT_EQ(getVectorBitsForFeatures("+avx,+avx2,+avx512f,-avx512f"), 256);
  // Disabling AVX (or AVX2) disables AVX-512, which builds on it.
  EXPECT_EQ(getVectorBitsForFeatures("+avx,+avx2,+avx512f,-avx"), 128);
  EXPECT_EQ(getVectorBitsForFeatures("+avx,+avx2,+avx512f,-avx2"), 256);
  // Enabling AVX-512 implies AVX.
  EXPECT_EQ(getVectorBitsForFeatures("-avx,+avx512f"), 512);
  EXPECT_EQ(getVectorBitsForFeatures(" +avx2 , -avx512f "), 256);
}

TEST(TargetVectorWidth, HostFeaturesGiveAKnownWidth) {
  int64_t bits = getHostVectorBits();
  EXPECT_TRUE(bits == 128 || bits == 256 || bits == 512) << bits;
}

} // namespace
