//===- TensorCoreKernel.cpp - phases of the tensor-core attention kernel --===//
//
// KernelBuilder::build, phase by phase (the algorithm is described in
// TensorCoreAttention.cpp):
//
//   buildHostSetup      run-time checks, operand buffers, RoPE cos/sin
//                       tables, sizes, the result buffer
//   declareSharedTiles  the K/V tiles (mma.sync) or the operand window
//                       (wgmma) as workgroup memref.globals
//   buildLaunch         the guarded gpu.launch, thread and lead indices
//   stageQuery          the Q tile (RoPE applied) in shared memory
//   buildKeyLoop        for each key tile: buildKeyTileStep (stage K and V,
//                       S = Q K^T, buildScores, the online softmax,
//                       O += P V)
//   buildEpilogue       O / l written from the fragments
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernelBuilder.h"

#include "posenc/Dialect/Posenc/Utils/AttentionUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>

using namespace mlir;
using namespace posenc;
using namespace posenc::tensor_core;

static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

KernelBuilder::KernelBuilder(OpBuilder &b, Location loc, FusedAttentionOp op,
                             const TensorCoreAttentionOptions &o)
    : b(b), loc(loc), op(op), o(o) {
  qType = cast<RankedTensorType>(op.getQuery().getType());
  rank = qType.getRank();
  n = rank - 2;
  elemType = qType.getElementType();
  d = qType.getDimSize(rank - 1);
  dv = staticDim(op.getValue(), rank - 1);
  bm = 16 * o.warps;
  bn = o.keyTile;
  wg = o.warpgroupMma;
  qOff = 0;
  kOff = 2 * bm * d;
  vOff = kOff + 2 * std::max(bn * d, bm * bn);
  causal = op.getCausal();
  scale = op.getScaleOrDefault();
  qRope = op.getQRopeAttr();
  kRope = op.getKRopeAttr();
}

Value KernelBuilder::toBuffer(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                           /*read_only=*/true);
}

std::pair<Value, Value> KernelBuilder::rotaryTables(RotaryAttr rope,
                                                    Value positions) {
  FloatType angleType = rope.getPrecision() == AnglePrecision::exact
                            ? b.getF64Type()
                            : b.getF32Type();
  Value invFreq = buildRotaryInvFreqConstant(b, loc, rope, angleType);
  auto [cosT, sinT] =
      buildRotaryTables(b, loc, rope, positions, invFreq, b.getF32Type());
  return {toBuffer(cosT), toBuffer(sinT)};
}

void KernelBuilder::stageTile(Value src, ArrayRef<Value> leadIdx,
                              Value rowStart, Value seqLen, int64_t numRows,
                              int64_t numCols, RotaryAttr rope, Value cosT,
                              Value sinT, Value tile, TileLayout layout) {
  int64_t threads = kLanes * o.warps;
  auto loop =
      scf::ForOp::create(b, loc, threadId, c(numRows * numCols), c(threads));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value idx = loop.getInductionVar();
  Value r = divu(idx, numCols), col = remu(idx, numCols);
  Value row = add(rowStart, r);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, seqLen);
  auto ifOp = scf::IfOp::create(
      b, loc, valid,
      [&](OpBuilder &, Location) {
        SmallVector<Value> at(leadIdx);
        at.append({row, col});
        Value x = memref::LoadOp::create(b, loc, src, at);
        if (rope) {
          FloatType f = b.getF32Type();
          RotaryPairIndex p = buildRotaryPairIndex(
              b, loc, col, rope.getLayout(), rope.getRotaryDim());
          at.back() = p.partner;
          Value y =
              castFloat(b, loc, memref::LoadOp::create(b, loc, src, at), f);
          Value cs =
              memref::LoadOp::create(b, loc, cosT, ValueRange{row, p.pair});
          Value sn =
              memref::LoadOp::create(b, loc, sinT, ValueRange{row, p.pair});
          Value rot = buildRotatedElement(b, loc, castFloat(b, loc, x, f), y,
                                          cs, sn, p.isFirst);
          x = arith::SelectOp::create(b, loc, p.inRotary,
                                      castFloat(b, loc, rot, elemType), x);
        }
        scf::YieldOp::create(b, loc, x);
      },
      [&](OpBuilder &, Location) {
        scf::YieldOp::create(b, loc, floatConst(b, loc, elemType, 0.0));
      });
  SmallVector<Value> at = {r, col};
  if (layout == TileLayout::Warpgroup)
    at = warpgroupIndex(r, col);
  else if (layout == TileLayout::WarpgroupTransposed)
    at = warpgroupIndex(col, r);
  memref::StoreOp::create(b, loc, ifOp.getResult(0), tile, at);
}

/// The score_mod region applied to score `s` of query row `i`, key `j`
/// (identity when the region only yields the score).
Value KernelBuilder::scoreMod(Value s, ArrayRef<Value> leadIdx, Value i,
                              Value j) {
  Block &body = op.getScoreModBlock();
  if (body.without_terminator().empty())
    return s;
  IRMapping map;
  unsigned a = 0;
  map.map(body.getArgument(a++), s);
  for (Value l : leadIdx)
    map.map(body.getArgument(a++), l);
  map.map(body.getArgument(a++), i);
  map.map(body.getArgument(a++), j);
  for (Value m : mods)
    map.map(body.getArgument(a++), m);
  for (Operation &inner : body.without_terminator()) {
    if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      SmallVector<Value> indices;
      for (Value idx : extract.getIndices())
        indices.push_back(map.lookupOrDefault(idx));
      Value loaded = memref::LoadOp::create(
          b, loc, map.lookup(extract.getTensor()), indices);
      map.map(extract.getResult(), loaded);
      continue;
    }
    b.clone(inner, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}

void KernelBuilder::buildHostSetup() {
  buildFusedAttentionRuntimeChecks(b, op);

  // Host side: buffers, sizes, the grid.
  qBuf = toBuffer(op.getQuery());
  kBuf = toBuffer(op.getKey());
  vBuf = toBuffer(op.getValue());
  // RoPE angles: position-only cos/sin tables computed once (their own
  // elementwise kernel), not per element of every staged tile.
  if (kRope)
    std::tie(kCos, kSin) = rotaryTables(kRope, op.getKPositions());
  if (qRope) {
    if (qRope == kRope && op.getQPositions() == op.getKPositions())
      std::tie(qCos, qSin) = std::make_pair(kCos, kSin);
    else
      std::tie(qCos, qSin) = rotaryTables(qRope, op.getQPositions());
  }
  for (Value m : op.getModOperands())
    mods.push_back(isa<RankedTensorType>(m.getType()) ? toBuffer(m) : m);

  SmallVector<Value> outDynSizes;
  for (int64_t i = 0; i < rank; ++i)
    qSizes.push_back(memref::DimOp::create(b, loc, qBuf, i));
  sq = qSizes[n];
  sk = memref::DimOp::create(b, loc, kBuf, n);
  Value hkv = n >= 1 ? Value(memref::DimOp::create(b, loc, kBuf, n - 1))
                     : Value();
  group = n >= 1 ? Value(arith::DivUIOp::create(b, loc, qSizes[n - 1], hkv))
                 : Value();
  SmallVector<int64_t> outShape(qType.getShape());
  outShape.back() = dv;
  auto outType = MemRefType::get(outShape, elemType);
  for (int64_t i = 0; i < rank - 1; ++i)
    if (outType.isDynamicDim(i))
      outDynSizes.push_back(qSizes[i]);
  out = memref::AllocOp::create(b, loc, outType, outDynSizes,
                                b.getI64IntegerAttr(64));

  numQTiles = arith::CeilDivUIOp::create(b, loc, sq, c(bm));
  numLead = c(1);
  for (int64_t i = 0; i < n; ++i)
    numLead = mul(numLead, qSizes[i]);
  numKTiles = arith::CeilDivUIOp::create(b, loc, sk, c(bn));
  shift = arith::SubIOp::create(b, loc, sk, sq);
}

void KernelBuilder::declareSharedTiles() {
  // Shared tiles: K (and Q before the key loop) and V, private
  // memref.globals in workgroup memory (kernel outlining copies them into
  // the gpu.module). Not launch attributions: the buffer deallocation
  // pipeline, which runs after this pass, would take attribution block
  // arguments for owned buffers.
  if (wg)
    return declareWarpgroupWindow();
  int64_t rowsK = std::max(bm, bn);
  std::string base = "__posenc_tc_";
  auto module = op->getParentOfType<ModuleOp>();
  auto makeGlobal = [&](StringRef name, int64_t numRows, int64_t numCols) {
    auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                            gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get({numRows, numCols + kRowPad}, elemType,
                                MemRefLayoutAttrInterface(), space);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto global = memref::GlobalOp::create(
        b, loc, name, b.getStringAttr("private"), type, Attribute(),
        /*constant=*/false, b.getI64IntegerAttr(16));
    SymbolTable(module).insert(global); // Renames on a clash.
    return global;
  };
  kGlobal = makeGlobal(base + "k_tile", rowsK, d);
  vGlobal = makeGlobal(base + "v_tile", bn, dv);
}

scf::IfOp KernelBuilder::buildLaunch() {
  // Zero blocks (Sq = 0 or an empty lead dim) must not launch.
  Value nonEmpty = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numQTiles, c(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, numLead, c(0)));
  auto guardIf = scf::IfOp::create(b, loc, nonEmpty, /*withElse=*/false);
  b.setInsertionPointToStart(guardIf.thenBlock());
  // Lead dims (batch x heads, possibly over 65535) on x, whose limit is
  // 2^31 - 1; query tiles on y (up to 65535 x 64 rows).
  int64_t threads = kLanes * o.warps;
  auto launch = gpu::LaunchOp::create(b, loc, numLead, numQTiles, c(1),
                                      c(threads), c(1), c(1));
  launch->setAttr(kTensorCoreKernelAttr, b.getUnitAttr());
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());

  if (wg) {
    viewWarpgroupWindow();
  } else {
    kTile = memref::GetGlobalOp::create(b, loc, kGlobal.getType(),
                                        kGlobal.getSymName());
    vTile = memref::GetGlobalOp::create(b, loc, vGlobal.getType(),
                                        vGlobal.getSymName());
  }
  threadId = launch.getThreadIds().x;
  lane = remu(threadId, kLanes);
  warp = divu(threadId, kLanes);
  q0 = mul(launch.getBlockIds().y, c(bm));

  // Lead indices of the block (innermost fastest) and of its K/V head.
  lead.resize(n);
  Value linear = launch.getBlockIds().x;
  for (int64_t i = n - 1; i >= 0; --i) {
    lead[i] = arith::RemUIOp::create(b, loc, linear, qSizes[i]);
    linear = arith::DivUIOp::create(b, loc, linear, qSizes[i]);
  }
  kvLead = lead;
  if (n >= 1)
    kvLead[n - 1] = arith::DivUIOp::create(b, loc, lead[n - 1], group);
  return guardIf;
}

void KernelBuilder::stageQuery() {
  // Q: mma.sync: staged through the K tile, A fragments kept in registers;
  // wgmma: staged once, read by descriptor.
  if (wg) {
    stageTile(qBuf, lead, q0, sq, bm, d, qRope, qCos, qSin, qTile,
              TileLayout::Warpgroup);
    fenceForWarpgroupMma();
  } else {
    stageTile(qBuf, lead, q0, sq, bm, d, qRope, qCos, qSin, kTile);
    gpu::BarrierOp::create(b, loc);
    loadQueryFragments();
    gpu::BarrierOp::create(b, loc);
  }
}

Value KernelBuilder::keyTileCount() {
  if (!causal)
    return numKTiles;
  Value lastRowEnd = arith::MinUIOp::create(b, loc, add(q0, c(bm)), sq);
  Value keysNeeded = buildCausalKeyBound(b, loc, lastRowEnd, shift);
  return arith::MinUIOp::create(
      b, loc, numKTiles, arith::CeilDivUIOp::create(b, loc, keysNeeded, c(bn)));
}

scf::ForOp KernelBuilder::buildKeyLoop(Value upper) {
  // Loop state: running max and sum of rows g and g+8, the O fragments.
  accType = VectorType::get({2, 2}, b.getF32Type());
  zeroAcc = arith::ConstantOp::create(b, loc,
                                      DenseElementsAttr::get(accType, 0.0f));
  SmallVector<Value> init = {f32(kNegInf), f32(kNegInf), f32(0.0), f32(0.0)};
  for (int64_t nd = 0; nd < dv / 8; ++nd)
    init.push_back(zeroAcc);
  AffineMap accMap = getTensorCoreAccumulatorMap(b.getContext());
  Value rowBase = add(q0, mul(warp, c(16)));
  for (int64_t i = 0; i < 2; ++i) {
    // Row of register i, column of element i (the map is separable).
    rows[i] = add(rowBase, apply(accMap, 0, {lane, c(i), c(0)}));
    cols[i] = apply(accMap, 1, {lane, c(0), c(i)});
  }

  auto keyLoop = scf::ForOp::create(b, loc, c(0), upper, c(1), init);
  OpBuilder::InsertionGuard loopGuard(b);
  b.setInsertionPointToStart(keyLoop.getBody());
  Value k0 = mul(keyLoop.getInductionVar(), c(bn));
  SmallVector<Value> next = buildKeyTileStep(k0, keyLoop.getRegionIterArgs());
  scf::YieldOp::create(b, loc, next);
  return keyLoop;
}

SmallVector<std::array<Value, 4>>
KernelBuilder::buildScores(ArrayRef<Value> s, Value k0, Value scaleV,
                           Value (&rowMax)[2]) {
  // Element (v, e) of block nb is row rows[v], key k0 + 8 nb + 2t + e.
  SmallVector<std::array<Value, 4>> x(bn / 8);
  for (int64_t nb = 0; nb < bn / 8; ++nb)
    for (int64_t vi = 0; vi < 2; ++vi)
      for (int64_t e = 0; e < 2; ++e) {
        Value j = add(k0, add(cols[e], c(8 * nb)));
        Value sc = vector::ExtractOp::create(b, loc, s[nb],
                                             ArrayRef<int64_t>{vi, e});
        sc = arith::MulFOp::create(b, loc, sc, scaleV);
        sc = scoreMod(sc, lead, rows[vi], j);
        Value masked =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, j, sk);
        if (causal)
          masked = arith::OrIOp::create(
              b, loc, masked, buildCausalMask(b, loc, rows[vi], j, shift));
        sc = buildMaskedScore(b, loc, masked, sc);
        x[nb][2 * vi + e] = sc;
        rowMax[vi] = arith::MaximumFOp::create(b, loc, rowMax[vi], sc);
      }
  return x;
}

void KernelBuilder::buildSoftmaxUpdate(Value (&m)[2], Value (&l)[2],
                                       ArrayRef<std::array<Value, 4>> x,
                                       Value (&rowMax)[2],
                                       SmallVectorImpl<Value> &acc,
                                       SmallVectorImpl<Value> &p,
                                       SmallVectorImpl<Value> &next) {
  // A row with every score so far masked keeps max -inf; its exponentials
  // are taken against 0 so that they are 0, not NaN.
  Value alpha[2], mSafe[2], mNew[2];
  for (int64_t vi = 0; vi < 2; ++vi) {
    mNew[vi] = arith::MaximumFOp::create(b, loc, m[vi],
                                         quadReduce(rowMax[vi], true));
    mSafe[vi] = buildSafeRowMax(b, loc, mNew[vi]);
    alpha[vi] = math::ExpOp::create(
        b, loc, arith::SubFOp::create(b, loc, m[vi], mSafe[vi]));
  }
  Value rowSum[2] = {f32(0.0), f32(0.0)};
  p.assign(bn / 8 * 4, Value());
  for (int64_t nb = 0; nb < bn / 8; ++nb)
    for (int64_t vi = 0; vi < 2; ++vi)
      for (int64_t e = 0; e < 2; ++e) {
        Value pe = math::ExpOp::create(
            b, loc,
            arith::SubFOp::create(b, loc, x[nb][2 * vi + e], mSafe[vi]));
        rowSum[vi] = arith::AddFOp::create(b, loc, rowSum[vi], pe);
        p[nb * 4 + 2 * vi + e] = pe;
      }
  // l is kept per lane (this lane's columns) and summed over the quad at
  // the end: alpha is the same on the four lanes of a row.
  next.push_back(mNew[0]);
  next.push_back(mNew[1]);
  for (int64_t vi = 0; vi < 2; ++vi)
    next.push_back(arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, l[vi], alpha[vi]), rowSum[vi]));
  Value alphaVec = vector::FromElementsOp::create(
      b, loc, accType, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
  for (Value &a : acc)
    a = arith::MulFOp::create(b, loc, a, alphaVec);
}

SmallVector<Value> KernelBuilder::buildKeyTileStep(Value k0, ValueRange iter) {
  Value m[2] = {iter[0], iter[1]}, l[2] = {iter[2], iter[3]};
  SmallVector<Value> acc(iter.begin() + 4, iter.end());

  stageTile(kBuf, kvLead, k0, sk, bn, d, kRope, kCos, kSin, kTile,
            wg ? TileLayout::Warpgroup : TileLayout::Padded);
  stageTile(vBuf, kvLead, k0, sk, bn, dv, RotaryAttr(), Value(), Value(),
            vTile, wg ? TileLayout::WarpgroupTransposed : TileLayout::Padded);
  if (wg)
    fenceForWarpgroupMma();
  else
    gpu::BarrierOp::create(b, loc);

  SmallVector<Value> s = wg ? warpgroupScores() : mmaSyncScores();
  Value scaleV = f32(scale), ninf = f32(kNegInf);
  Value rowMax[2] = {ninf, ninf};
  SmallVector<std::array<Value, 4>> x =
      buildScores(s, k0, scaleV, rowMax);

  SmallVector<Value> p, next;
  buildSoftmaxUpdate(m, l, x, rowMax, acc, p, next);
  if (wg)
    warpgroupAccumulate(p, acc);
  else
    mmaSyncAccumulate(p, acc);
  next.append(acc.begin(), acc.end());
  // The next iteration overwrites the tiles.
  gpu::BarrierOp::create(b, loc);
  return next;
}

void KernelBuilder::buildEpilogue(scf::ForOp keyLoop) {
  for (int64_t vi = 0; vi < 2; ++vi) {
    Value lSum = quadReduce(keyLoop.getResult(2 + vi), false);
    // 1 / l (0 for a fully masked row), once per row: the outputs are
    // multiplied by it.
    Value inv = buildSoftmaxNormalize(b, loc, f32(1.0), lSum);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rows[vi], sq);
    auto store = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard storeGuard(b);
    b.setInsertionPointToStart(store.thenBlock());
    for (int64_t nd = 0; nd < dv / 8; ++nd)
      for (int64_t e = 0; e < 2; ++e) {
        Value val = vector::ExtractOp::create(
            b, loc, keyLoop.getResult(4 + nd), ArrayRef<int64_t>{vi, e});
        val = castFloat(b, loc, arith::MulFOp::create(b, loc, val, inv),
                        elemType);
        SmallVector<Value> at(lead);
        at.push_back(rows[vi]);
        at.push_back(add(cols[e], c(8 * nd)));
        memref::StoreOp::create(b, loc, val, out, at);
      }
  }
}

Value KernelBuilder::build() {
  buildHostSetup();
  declareSharedTiles();
  scf::IfOp guardIf;
  {
    OpBuilder::InsertionGuard hostGuard(b);
    guardIf = buildLaunch();
    stageQuery();
    scf::ForOp keyLoop = buildKeyLoop(keyTileCount());
    buildEpilogue(keyLoop);
  }
  b.setInsertionPointAfter(guardIf);
  return bufferization::ToTensorOp::create(b, loc, op.getResult().getType(),
                                           out, /*restrict=*/true,
                                           /*writable=*/true);
}
