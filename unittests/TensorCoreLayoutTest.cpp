//===- TensorCoreLayoutTest.cpp - fragment layouts of the mma kernel ------===//
//
// The tensor-core attention kernel addresses its ldmatrix loads and reads
// its accumulators through getTensorCoreLoadAddressMap and
// getTensorCoreAccumulatorMap. These tests check, for every lane, that
//  - ldmatrix (PTX ISA: lanes 8m..8m+7 give the row addresses of 8x8 matrix
//    m; lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of each matrix, or
//    with .trans rows 2(l%4), 2(l%4)+1 of column l/4) fed with those
//    addresses yields exactly the fragments upstream's
//    nvgpu::getLaneIdAndValueIdToOperandCoord defines for mma.sync m16n8k16;
//  - the accumulator map is upstream's C layout;
//  - the C fragments of two neighbouring 8-key blocks are the A fragment of
//    the 16-key block, in the register order the kernel packs P in.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/AttentionToGPU/TensorCoreAttention.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include "gtest/gtest.h"

#include <utility>

using namespace mlir;
using namespace posenc;

namespace {

using Coord = std::pair<int64_t, int64_t>;

class TensorCoreLayoutTest : public ::testing::Test {
protected:
  TensorCoreLayoutTest() : builder(&ctx), loc(UnknownLoc::get(&ctx)) {
    ctx.loadDialect<nvgpu::NVGPUDialect>();
  }

  /// Evaluates a map with constant operands.
  SmallVector<int64_t> eval(AffineMap map, ArrayRef<int64_t> operands) {
    SmallVector<Attribute> attrs;
    for (int64_t v : operands)
      attrs.push_back(builder.getIndexAttr(v));
    SmallVector<Attribute> results;
    EXPECT_TRUE(succeeded(map.constantFold(attrs, results)));
    SmallVector<int64_t> out;
    for (Attribute a : results)
      out.push_back(cast<IntegerAttr>(a).getInt());
    return out;
  }

  Coord address(TensorCoreLoad load, int64_t lane) {
    SmallVector<int64_t> rc =
        eval(getTensorCoreLoadAddressMap(&ctx, load), {lane});
    return {rc[0], rc[1]};
  }

  /// Upstream's (row, col) of value `value` of lane `lane` of an operand.
  Coord upstream(VectorType type, nvgpu::MatMulOperandRole role, int64_t lane,
                 int64_t value) {
    FailureOr<AffineMap> map = nvgpu::getLaneIdAndValueIdToOperandCoord(
        builder, loc, nvgpu::WarpMatrixInfo{type, role});
    EXPECT_TRUE(succeeded(map));
    SmallVector<int64_t> rc = eval(*map, {lane, value});
    return {rc[0], rc[1]};
  }

  /// Element `e` of register `m` that ldmatrix delivers to lane `lane`, as
  /// the (row, col) of shared memory that holds it.
  Coord ldmatrix(TensorCoreLoad load, int64_t lane, int64_t m, int64_t e,
                 bool transpose) {
    if (!transpose) {
      Coord row = address(load, 8 * m + lane / 4);
      return {row.first, row.second + 2 * (lane % 4) + e};
    }
    Coord row = address(load, 8 * m + 2 * (lane % 4) + e);
    return {row.first, row.second + lane / 4};
  }

  MLIRContext ctx;
  OpBuilder builder;
  Location loc;
};

TEST_F(TensorCoreLayoutTest, QueryLoadGivesUpstreamAFragment) {
  auto aType = VectorType::get({16, 16}, builder.getF16Type());
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t m = 0; m < 4; ++m)
      for (int64_t e = 0; e < 2; ++e)
        EXPECT_EQ(ldmatrix(TensorCoreLoad::QueryA, lane, m, e, false),
                  upstream(aType, nvgpu::MatMulOperandRole::A, lane, 2 * m + e))
            << "lane " << lane << " register " << m << " element " << e;
}

TEST_F(TensorCoreLayoutTest, KeyLoadGivesUpstreamBFragmentOfKTransposed) {
  // Upstream's B operand is [n x k]; here n = key (row of the K tile) and
  // k = head dim (column).
  auto bType = VectorType::get({8, 16}, builder.getF16Type());
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t m = 0; m < 2; ++m)
      for (int64_t e = 0; e < 2; ++e)
        EXPECT_EQ(ldmatrix(TensorCoreLoad::KeyB, lane, m, e, false),
                  upstream(bType, nvgpu::MatMulOperandRole::B, lane, 2 * m + e))
            << "lane " << lane << " register " << m << " element " << e;
}

TEST_F(TensorCoreLayoutTest, ValueLoadGivesUpstreamBFragmentOfV) {
  // P.V: k = key (row of the V tile), n = value dim (column); upstream's
  // [n x k] coordinate is (dim, key).
  auto bType = VectorType::get({8, 16}, builder.getF16Type());
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t m = 0; m < 2; ++m)
      for (int64_t e = 0; e < 2; ++e) {
        Coord smem = ldmatrix(TensorCoreLoad::ValueB, lane, m, e, true);
        EXPECT_EQ(Coord(smem.second, smem.first),
                  upstream(bType, nvgpu::MatMulOperandRole::B, lane, 2 * m + e))
            << "lane " << lane << " register " << m << " element " << e;
      }
}

TEST_F(TensorCoreLayoutTest, AccumulatorMapIsUpstreamCLayout) {
  auto cType = VectorType::get({16, 8}, builder.getF32Type());
  AffineMap acc = getTensorCoreAccumulatorMap(&ctx);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t e = 0; e < 2; ++e) {
        SmallVector<int64_t> rc = eval(acc, {lane, r, e});
        EXPECT_EQ(Coord(rc[0], rc[1]),
                  upstream(cType, nvgpu::MatMulOperandRole::C, lane, 2 * r + e))
            << "lane " << lane << " register " << r << " element " << e;
      }
}

TEST_F(TensorCoreLayoutTest, TwoScoreBlocksAreOneProbabilityAFragment) {
  // The kernel packs A register 2*half + r, element e, from element (r, e)
  // of the accumulator of key block `half` (keys 8*half..8*half+7).
  auto aType = VectorType::get({16, 16}, builder.getF16Type());
  AffineMap acc = getTensorCoreAccumulatorMap(&ctx);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t e = 0; e < 2; ++e) {
          SmallVector<int64_t> rc = eval(acc, {lane, r, e});
          EXPECT_EQ(Coord(rc[0], rc[1] + 8 * half),
                    upstream(aType, nvgpu::MatMulOperandRole::A, lane,
                             2 * (2 * half + r) + e))
              << "lane " << lane << " block " << half << " register " << r;
        }
}

} // namespace
