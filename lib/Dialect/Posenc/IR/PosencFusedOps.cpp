//===- PosencFusedOps.cpp - posenc.fused_attention and #posenc.rotary -----===//
//
// Builders, helpers and verifiers of the fused representation. The op
// classes themselves are defined by PosencOps.cpp's include of the generated
// PosencOps.cpp.inc; this file only holds their out-of-line methods.
//
//===----------------------------------------------------------------------===//

#include "posenc/Dialect/Posenc/IR/PosencOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include <cmath>

using namespace mlir;
using namespace posenc;

static std::string dimString(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}

static bool compatibleDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

//===----------------------------------------------------------------------===//
// RotaryAttr
//===----------------------------------------------------------------------===//

double RotaryAttr::getEffectiveAttentionFactor() const {
  if (FloatAttr f = getAttentionFactor())
    return f.getValueAsDouble();
  if (RopeScalingAttr scaling = getScaling())
    return scaling.getEffectiveAttentionFactor();
  return 1.0;
}

ParseResult posenc::parseRotaryOperands(
    OpAsmParser &parser, std::optional<OpAsmParser::UnresolvedOperand> &positions,
    Type &positionsType, std::optional<OpAsmParser::UnresolvedOperand> &cos,
    std::optional<OpAsmParser::UnresolvedOperand> &sin, Type &cosType,
    Type &sinType) {
  if (succeeded(parser.parseOptionalKeyword("tables"))) {
    OpAsmParser::UnresolvedOperand c, s;
    if (parser.parseOperand(c) || parser.parseComma() ||
        parser.parseOperand(s) || parser.parseColon() ||
        parser.parseType(cosType) || parser.parseComma() ||
        parser.parseType(sinType))
      return failure();
    cos = c;
    sin = s;
    return success();
  }
  OpAsmParser::UnresolvedOperand pos;
  if (parser.parseOperand(pos) || parser.parseColon() ||
      parser.parseType(positionsType))
    return failure();
  positions = pos;
  return success();
}

void posenc::printRotaryOperands(OpAsmPrinter &printer, Operation *,
                                 Value positions, Type positionsType,
                                 Value cos, Value sin, Type cosType,
                                 Type sinType) {
  if (positions) {
    printer << positions << " : " << positionsType;
    return;
  }
  if (cos && sin)
    printer << "tables " << cos << ", " << sin << " : " << cosType << ", "
            << sinType;
}

//===----------------------------------------------------------------------===//
// FusedAttentionOp
//===----------------------------------------------------------------------===//

void FusedAttentionOp::build(OpBuilder &builder, OperationState &state,
                             Type resultType, Value query, Value key,
                             Value value, ValueRange modOperands,
                             FloatAttr scale, bool causal) {
  build(builder, state, resultType, query, key, value,
        /*kv_lengths=*/Value(), /*q_positions=*/Value(),
        /*k_positions=*/Value(), /*q_cos=*/Value(), /*q_sin=*/Value(),
        /*k_cos=*/Value(), /*k_sin=*/Value(), modOperands,
        /*rel_key=*/Value(), /*rel_value=*/Value(), /*t5_table=*/Value(),
        /*xl_rel=*/Value(), /*xl_content_bias=*/Value(),
        /*xl_position_bias=*/Value(), /*deberta_pos_key=*/Value(),
        /*deberta_pos_query=*/Value(),
        /*q_rope=*/RotaryAttr(), /*k_rope=*/RotaryAttr(), scale,
        causal ? builder.getUnitAttr() : UnitAttr(),
        /*t5_max_distance=*/IntegerAttr(), /*t5_bidirectional=*/UnitAttr(),
        /*deberta_position_buckets=*/IntegerAttr(),
        /*deberta_max_relative_positions=*/IntegerAttr());
  // Identity score_mod: (score, lead..., i, j, mods...) -> score.
  auto queryType = cast<RankedTensorType>(query.getType());
  Type computeType = queryType.getElementType().isF64()
                         ? Type(builder.getF64Type())
                         : Type(builder.getF32Type());
  SmallVector<Type> argTypes = {computeType};
  argTypes.append(queryType.getRank(), builder.getIndexType());
  for (Value v : modOperands)
    argTypes.push_back(v.getType());
  Region *region = state.regions.front().get();
  Block *block = new Block();
  region->push_back(block);
  for (Type t : argTypes)
    block->addArgument(t, state.location);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location, block->getArgument(0));
}

double FusedAttentionOp::getScaleOrDefault() {
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  return 1.0 /
         std::sqrt(static_cast<double>(
             cast<RankedTensorType>(getQuery().getType()).getShape().back()));
}

FloatType FusedAttentionOp::getComputeType() {
  Type elem = cast<RankedTensorType>(getQuery().getType()).getElementType();
  if (elem.isF64())
    return Float64Type::get(getContext());
  return Float32Type::get(getContext());
}

int64_t FusedAttentionOp::getNumLeadDims() {
  return cast<RankedTensorType>(getQuery().getType()).getRank() - 2;
}

int64_t FusedAttentionOp::getMaxRelativeDistance() {
  Value table = getRelKey() ? getRelKey() : getRelValue();
  if (!table)
    return 0;
  return (cast<RankedTensorType>(table.getType()).getDimSize(0) - 1) / 2;
}

bool FusedAttentionOp::hasIdentityScoreMod() {
  Block &block = getScoreModBlock();
  if (!llvm::hasSingleElement(block))
    return false;
  auto yield = dyn_cast<YieldOp>(&block.back());
  return yield && yield.getValue() == block.getArgument(0);
}

/// Checks a rotary prologue: attribute and positions given together, the
/// positions a [S] (or per-batch [B, S]) tensor matching the input, rotary_dim
/// even and
/// <= D, a base > 1, and no sequence-length-dependent scaling (the fused
/// lowering computes inverse frequencies at compile time).
/// Checks the cos/sin tables of a table-form rotary prologue: one type
/// [S, R] (or per batch [B, S, R], rank >= 3) with S, B of the input and
/// R = rotary_dim, and a rotary without frequency parameters.
static LogicalResult verifyRotaryTables(Operation *op, StringRef which,
                                        RotaryAttr rope, Value cos, Value sin,
                                        RankedTensorType inputType) {
  if (!cos || !sin)
    return op->emitOpError("'")
           << which << "_cos' and '" << which << "_sin' must be given together";
  auto type = cast<RankedTensorType>(cos.getType());
  if (sin.getType() != type)
    return op->emitOpError("'")
           << which << "_sin' must have the type of '" << which << "_cos' ("
           << type << "), got " << sin.getType();
  int64_t rank = inputType.getRank();
  bool perBatch = type.getRank() == 3 && rank >= 3;
  if ((type.getRank() != 2 && !perBatch) ||
      !compatibleDims(type.getDimSize(type.getRank() - 2),
                      inputType.getDimSize(rank - 2)) ||
      (perBatch &&
       !compatibleDims(type.getDimSize(0), inputType.getDimSize(0))) ||
      type.getShape().back() != rope.getRotaryDim())
    return op->emitOpError("'")
           << which << "_cos' must be a tensor<S x R x F> or (rank >= 3) "
           << "tensor<B x S x R x F> with S = "
           << dimString(inputType.getDimSize(rank - 2))
           << ", B = " << dimString(inputType.getDimSize(0))
           << " and R = " << rope.getRotaryDim() << ", got " << type;
  if (rope.getScaling() || rope.getAttentionFactor() || rope.getXpos())
    return op->emitOpError("'")
           << which
           << "_rope' reads tables: scaling, attention_factor and xpos are not "
              "allowed";
  return success();
}

static LogicalResult verifyRotary(Operation *op, StringRef which,
                                  RotaryAttr rope, Value positions, Value cos,
                                  Value sin, RankedTensorType inputType) {
  if (!rope && !positions && !cos && !sin)
    return success();
  if (!rope)
    return op->emitOpError("'")
           << which << "_positions' or tables need '" << which << "_rope'";
  int64_t rank = inputType.getRank();
  int64_t d = inputType.getDimSize(rank - 1);
  int64_t r = rope.getRotaryDim();
  if (ShapedType::isDynamic(d) || r <= 0 || r % 2 != 0 || r > d)
    return op->emitOpError("'")
           << which << "_rope' rotary_dim (" << r
           << ") must be even, > 0 and <= head dim (" << dimString(d) << ")";
  if (rope.isTableForm()) {
    if (positions)
      return op->emitOpError("'")
             << which << "_rope' has no base (it reads tables) but '" << which
             << "_positions' are given";
    return verifyRotaryTables(op, which, rope, cos, sin, inputType);
  }
  if (!positions || cos || sin)
    return op->emitOpError("'")
           << which << "_rope' with a base needs '" << which
           << "_positions' and no tables";
  auto posType = cast<RankedTensorType>(positions.getType());
  bool perBatch = posType.getRank() == 2 && rank >= 3;
  if ((posType.getRank() != 1 && !perBatch) ||
      !compatibleDims(posType.getDimSize(posType.getRank() - 1),
                      inputType.getDimSize(rank - 2)) ||
      (perBatch &&
       !compatibleDims(posType.getDimSize(0), inputType.getDimSize(0))))
    return op->emitOpError("'")
           << which << "_positions' must be a tensor<S x iN> or (rank >= 3) "
           << "tensor<B x S x iN> with S = "
           << dimString(inputType.getDimSize(rank - 2))
           << " and B = " << dimString(inputType.getDimSize(0)) << ", got "
           << posType;
  double base = rope.getBaseValue();
  if (!(base > 1.0) || !std::isfinite(base))
    return op->emitOpError("'") << which << "_rope' base (" << base
                                << ") must be a finite number > 1";
  if (RopeScalingAttr scaling = rope.getScaling()) {
    if (scaling.dependsOnSequenceLength())
      return op->emitOpError("'")
             << which << "_rope' scaling '"
             << stringifyRopeScalingKind(scaling.getKind())
             << "' depends on the sequence length and is not supported in "
                "fused attention";
    RopeScalingKind kind = scaling.getKind();
    if ((kind == RopeScalingKind::ntk) && r <= 2)
      return op->emitOpError("'")
             << which << "_rope' scaling 'ntk' needs rotary_dim > 2, got " << r;
  }
  if (FloatAttr f = rope.getAttentionFactor())
    if (!(f.getValueAsDouble() > 0.0) || !std::isfinite(f.getValueAsDouble()))
      return op->emitOpError("'")
             << which << "_rope' attention_factor must be a finite number > 0";
  return success();
}

std::string posenc::describeXPosPairMismatch(RotaryAttr qRope,
                                             RotaryAttr kRope) {
  XPosAttr qx = qRope ? qRope.getXpos() : XPosAttr();
  XPosAttr kx = kRope ? kRope.getXpos() : XPosAttr();
  if (!qx && !kx)
    return "";
  if (!qx || !kx)
    return "xpos needs both 'q_rope' and 'k_rope' to carry it (the scores "
           "must depend only on position differences), got it on " +
           std::string(qx ? "'q_rope'" : "'k_rope'") + " only";
  if (qx.getRole() != XPosRole::query || kx.getRole() != XPosRole::key)
    return "xpos roles must be query on 'q_rope' and key on 'k_rope', got " +
           stringifyXPosRole(qx.getRole()).str() + " and " +
           stringifyXPosRole(kx.getRole()).str();
  if (!qx.isPartnerOf(kx))
    return "xpos scale_base and gamma must be equal on 'q_rope' and "
           "'k_rope', got (" +
           detail::formatNumber(qx.getScaleBaseValue()) + ", " +
           detail::formatNumber(qx.getGammaValue()) + ") and (" +
           detail::formatNumber(kx.getScaleBaseValue()) + ", " +
           detail::formatNumber(kx.getGammaValue()) + ")";
  if (qRope.getLayout() != kRope.getLayout() ||
      qRope.getRotaryDim() != kRope.getRotaryDim())
    return "xpos needs the same layout and rotary_dim on 'q_rope' and "
           "'k_rope' (the decay of pair p must meet pair p), got " +
           stringifyLayout(qRope.getLayout()).str() + "/" +
           std::to_string(qRope.getRotaryDim()) + " and " +
           stringifyLayout(kRope.getLayout()).str() + "/" +
           std::to_string(kRope.getRotaryDim());
  return "";
}

/// Verifies Shaw's table operand `name` (may be null): a
/// tensor<(2K+1) x `width`> (`dimName` in the message) with a static odd
/// dim 0, of the element type of 'query'.
static LogicalResult verifyShawTable(FusedAttentionOp op, StringRef name,
                                     StringRef dimName, Value table,
                                     int64_t width, Type elemType) {
  if (!table)
    return success();
  auto t = cast<RankedTensorType>(table.getType());
  if (t.getRank() != 2 || ShapedType::isDynamic(t.getDimSize(0)) ||
      t.getDimSize(0) % 2 != 1 || !compatibleDims(t.getDimSize(1), width))
    return op.emitOpError("'")
           << name << "' must be a tensor<(2K+1) x " << dimName
           << "> with a static odd dim 0 and " << dimName << " = "
           << dimString(width) << ", got " << t;
  if (t.getElementType() != elemType)
    return op.emitOpError("'")
           << name << "' must have the element type of 'query' (" << elemType
           << "), got " << t.getElementType();
  return success();
}

LogicalResult FusedAttentionOp::verify() {
  auto qt = cast<RankedTensorType>(getQuery().getType());
  auto kt = cast<RankedTensorType>(getKey().getType());
  auto vt = cast<RankedTensorType>(getValue().getType());
  RankedTensorType rt = getResult().getType();
  int64_t rank = qt.getRank();
  if (rank < 2)
    return emitOpError("'query' must have rank >= 2, got rank ") << rank;
  if (kt.getRank() != rank || vt.getRank() != rank)
    return emitOpError("'key' and 'value' must have the rank of 'query' (")
           << rank << "), got " << kt.getRank() << " and " << vt.getRank();
  if (vt.getElementType() != kt.getElementType())
    return emitOpError("'value' must have the element type of 'key' (")
           << kt.getElementType() << "), got " << vt.getElementType();
  int64_t numLead = rank - 2;
  int64_t headDim = rank >= 3 ? rank - 3 : -1;
  for (int64_t i = 0; i < numLead; ++i) {
    if (i == headDim)
      continue;
    if (!compatibleDims(qt.getDimSize(i), kt.getDimSize(i)) ||
        !compatibleDims(qt.getDimSize(i), vt.getDimSize(i)))
      return emitOpError("batch dim ")
             << i << " differs: 'query' has " << dimString(qt.getDimSize(i))
             << ", 'key' " << dimString(kt.getDimSize(i)) << ", 'value' "
             << dimString(vt.getDimSize(i));
  }
  if (headDim >= 0) {
    int64_t hq = qt.getDimSize(headDim), hk = kt.getDimSize(headDim),
            hv = vt.getDimSize(headDim);
    if (!compatibleDims(hk, hv))
      return emitOpError("'value' heads (")
             << dimString(hv) << ") must equal 'key' heads (" << dimString(hk)
             << ")";
    if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hk) &&
        (hk <= 0 || hq % hk != 0))
      return emitOpError("query heads (")
             << hq << ") must be a multiple of key/value heads (" << hk << ")";
  }
  if (!compatibleDims(qt.getDimSize(rank - 1), kt.getDimSize(rank - 1)))
    return emitOpError("head dim D of 'key' (")
           << dimString(kt.getDimSize(rank - 1))
           << ") must equal that of 'query' ("
           << dimString(qt.getDimSize(rank - 1)) << ")";
  if (!compatibleDims(kt.getDimSize(rank - 2), vt.getDimSize(rank - 2)))
    return emitOpError("sequence dim Sk of 'value' (")
           << dimString(vt.getDimSize(rank - 2))
           << ") must equal that of 'key' ("
           << dimString(kt.getDimSize(rank - 2)) << ")";
  SmallVector<int64_t> expected(qt.getShape());
  expected.back() = vt.getShape().back();
  if (rt.getElementType() != qt.getElementType() || rt.getRank() != rank ||
      !llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t i) {
        return compatibleDims(rt.getDimSize(i), expected[i]);
      }))
    return emitOpError("result type ")
           << rt << " does not match the expected "
           << RankedTensorType::get(expected, qt.getElementType())
           << " ([..., Sq, Dv] of 'query' and 'value')";
  if (std::optional<APFloat> s = getScale()) {
    if (!std::isfinite(s->convertToDouble()))
      return emitOpError("scale must be finite");
  } else if (ShapedType::isDynamic(qt.getShape().back()) ||
             qt.getShape().back() <= 0) {
    return emitOpError("the default scale 1/sqrt(D) needs a static head dim "
                       "D > 0 of 'query' (set 'scale' explicitly)");
  }
  if (Value lengths = getKvLengths())
    if (failed(verifyKVLengths(*this, cast<RankedTensorType>(lengths.getType()),
                               qt)))
      return failure();
  if (failed(verifyRotary(*this, "q", getQRopeAttr(), getQPositions(),
                          getQCos(), getQSin(), qt)) ||
      failed(verifyRotary(*this, "k", getKRopeAttr(), getKPositions(),
                          getKCos(), getKSin(), kt)))
    return failure();
  std::string xposMismatch =
      describeXPosPairMismatch(getQRopeAttr(), getKRopeAttr());
  if (!xposMismatch.empty())
    return emitOpError(xposMismatch);
  if (failed(verifyShawTable(*this, "rel_value", "Dv", getRelValue(),
                             vt.getShape().back(), qt.getElementType())) ||
      failed(verifyShawTable(*this, "rel_key", "D", getRelKey(),
                             qt.getShape().back(), qt.getElementType())))
    return failure();
  if (failed(verifyFusedT5Term(*this)) || failed(verifyFusedXlTerm(*this)) ||
      failed(verifyFusedDebertaTerm(*this)))
    return failure();
  if (getRelKey() && getRelValue()) {
    int64_t kb = cast<RankedTensorType>(getRelKey().getType()).getDimSize(0);
    int64_t vb = cast<RankedTensorType>(getRelValue().getType()).getDimSize(0);
    if (kb != vb)
      return emitOpError("'rel_key' and 'rel_value' must have the same "
                         "number of buckets 2K+1: 'rel_key' has ")
             << kb << ", 'rel_value' " << vb;
  }
  return success();
}

LogicalResult FusedAttentionOp::verifyRegions() {
  Block &block = getScoreModBlock();
  int64_t rank = cast<RankedTensorType>(getQuery().getType()).getRank();
  FloatType computeType = getComputeType();
  size_t expectedArgs = 1 + rank + getModOperands().size();
  if (block.getNumArguments() != expectedArgs)
    return emitOpError("score_mod must have ")
           << expectedArgs << " arguments (score, " << rank << " indices, "
           << getModOperands().size() << " mod operands), got "
           << block.getNumArguments();
  if (block.getArgument(0).getType() != computeType)
    return emitOpError("score_mod argument 0 (the score) must be ")
           << computeType << ", got " << block.getArgument(0).getType();
  for (int64_t i = 0; i < rank; ++i)
    if (!block.getArgument(1 + i).getType().isIndex())
      return emitOpError("score_mod argument ")
             << 1 + i << " must be index, got "
             << block.getArgument(1 + i).getType();
  for (auto [idx, v] : llvm::enumerate(getModOperands()))
    if (block.getArgument(1 + rank + idx).getType() != v.getType())
      return emitOpError("score_mod argument ")
             << 1 + rank + idx << " must have the type of mod operand " << idx
             << " (" << v.getType() << "), got "
             << block.getArgument(1 + rank + idx).getType();
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(&block.back());
  if (!yield)
    return emitOpError("score_mod must end with posenc.yield");
  if (yield.getValue().getType() != computeType)
    return emitOpError("score_mod must yield ")
           << computeType << ", got " << yield.getValue().getType();
  return success();
}
