//===- RaiseRopeGather.cpp - one gathering generic -> posenc.rope ---------===//
//
// ONNX's RotaryEmbedding as torch-mlir lowers it to linalg: one generic over
// x's shape [B, H, S, D] whose body reads the position of its (b, s) from
// position_ids, gathers cos_cache[pos, c] and sin_cache[pos, c] with
// tensor.extract, reads the pair's partner x[b, h, s, j] and yields
//
//   x[d] * cos_cache[pos, c] + sign * x[j] * sin_cache[pos, c]
//
// with (c, j, sign) = (d mod R/2, the other half, - for the first half) in
// the half layout and (d / 2, d xor 1, - for even d) interleaved. The index
// arithmetic can be spelled many ways, so the body is not matched by its
// spelling: it is evaluated for every column d, the indices as integers
// (the leading loop indices and the position symbolic), the float values
// as polynomials in the x, cos_cache and sin_cache elements it reads. The
// generic is the rotation iff every column's polynomial is exactly the one
// above; any other index arithmetic or sign leaves it alone.
//
// Raised: when the caches are constants whose rows i are cos/sin(i *
// inv_freq) of a posenc scaling (matchPairTables, start 0), the attribute
// form with the positions ([B, S] per batch); otherwise the table form
// with cos/sin gathered by the positions (a generic with the same
// tensor.extract: an exact copy), each entry put in both columns of its
// pair.
//
//===----------------------------------------------------------------------===//

#include "RaisePatterns.h"
#include "RaiseUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <map>

using namespace mlir;
using namespace posenc;
using namespace posenc::raise;

namespace {

/// An integer in the body: a constant, loop index `k` (k < rank - 1), or
/// the position of the row.
struct Int {
  enum Kind { Const, Lead, Pos } kind;
  int64_t v = 0;
  bool operator==(const Int &o) const { return kind == o.kind && v == o.v; }
};

/// A float as a polynomial in the elements read: atoms x[col] (kind 0),
/// cache0[pos, c] (1), cache1[pos, c] (2), encoded kind * 2^32 + index.
using Monomial = SmallVector<int64_t, 2>;
using Poly = std::map<Monomial, double>;

/// Evaluates a generic's body for output column `col`.
struct BodyEval {
  linalg::GenericOp g;
  int64_t rank, col;
  Value x;            ///< the rotated input (a block argument or extracts)
  Value positions;    ///< [B, S] or [S], read at (b, s)
  SmallVector<Value, 2> caches; ///< in order of first use
  DenseMap<Value, Int> ints{};
  DenseMap<Value, Poly> floats{};

  std::optional<Int> evalInt(Value v);
  std::optional<Poly> evalFloat(Value v);
  bool isRow(ValueRange indices, ArrayRef<int64_t> dims);
  std::optional<Poly> evalExtract(tensor::ExtractOp e);
};

} // namespace

std::optional<Int> BodyEval::evalInt(Value v) {
  if (auto it = ints.find(v); it != ints.end())
    return it->second;
  std::optional<Int> r;
  Operation *op = v.getDefiningOp();
  auto arg = dyn_cast<BlockArgument>(v);
  if (arg && arg.getOwner() == g.getBody() && positions &&
      arg.getArgNumber() < g.getNumDpsInputs() &&
      g.getDpsInputOperand(arg.getArgNumber())->get() == positions) {
    r = Int{Int::Pos};
  } else if (std::optional<int64_t> c = getConstantIntValue(v)) {
    r = Int{Int::Const, *c};
  } else if (auto index = dyn_cast_or_null<linalg::IndexOp>(op)) {
    int64_t k = index.getDim();
    r = k == rank - 1 ? Int{Int::Const, col} : Int{Int::Lead, k};
  } else if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp,
                             arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(
                 op)) {
    r = evalInt(op->getOperand(0));
  } else if (auto e = dyn_cast_or_null<tensor::ExtractOp>(op)) {
    // position_ids[b, s] (or [s]) read in the body
    ArrayRef<int64_t> dims = e.getIndices().size() == 2
                                 ? ArrayRef<int64_t>{0, rank - 2}
                                 : ArrayRef<int64_t>{rank - 2};
    if ((!positions || positions == e.getTensor()) &&
        e.getIndices().size() <= 2 && isRow(e.getIndices(), dims)) {
      positions = e.getTensor();
      r = Int{Int::Pos};
    }
  } else if (auto sel = dyn_cast_or_null<arith::SelectOp>(op)) {
    std::optional<Int> c = evalInt(sel.getCondition());
    if (c && c->kind == Int::Const)
      r = evalInt(c->v ? sel.getTrueValue() : sel.getFalseValue());
  } else if (op && op->getNumOperands() == 2 && op->getNumResults() == 1) {
    std::optional<Int> a = evalInt(op->getOperand(0));
    std::optional<Int> b = evalInt(op->getOperand(1));
    // Arithmetic on constants only: the position and the leading indices
    // must reach the extracts untouched.
    if (a && b && a->kind == Int::Const && b->kind == Int::Const) {
      int64_t p = a->v, q = b->v;
      std::optional<int64_t> out;
      if (isa<arith::AddIOp>(op)) out = p + q;
      else if (isa<arith::SubIOp>(op)) out = p - q;
      else if (isa<arith::MulIOp>(op)) out = p * q;
      else if (isa<arith::DivSIOp, arith::DivUIOp>(op) && q > 0 && p >= 0)
        out = p / q;
      else if (isa<arith::RemSIOp, arith::RemUIOp>(op) && q > 0 && p >= 0)
        out = p % q;
      else if (isa<arith::FloorDivSIOp>(op) && q > 0)
        out = (p >= 0 ? p : p - q + 1) / q;
      else if (isa<arith::XOrIOp>(op)) out = p ^ q;
      else if (isa<arith::AndIOp>(op)) out = p & q;
      else if (isa<arith::OrIOp>(op)) out = p | q;
      else if (isa<arith::MinSIOp>(op)) out = std::min(p, q);
      else if (isa<arith::MaxSIOp>(op)) out = std::max(p, q);
      else if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
        using P = arith::CmpIPredicate;
        switch (cmp.getPredicate()) {
        case P::eq: out = p == q; break;
        case P::ne: out = p != q; break;
        case P::slt: case P::ult: out = p < q; break;
        case P::sle: case P::ule: out = p <= q; break;
        case P::sgt: case P::ugt: out = p > q; break;
        case P::sge: case P::uge: out = p >= q; break;
        }
      }
      if (out)
        r = Int{Int::Const, *out};
    }
  }
  if (r)
    ints[v] = *r;
  return r;
}

/// Whether `indices` are the loop indices `dims` (a unit dim's index may
/// have folded to 0).
bool BodyEval::isRow(ValueRange indices, ArrayRef<int64_t> dims) {
  if (indices.size() != dims.size())
    return false;
  auto shape = cast<ShapedType>(g.getResultTypes()[0]).getShape();
  for (auto [index, d] : llvm::zip(indices, dims)) {
    std::optional<Int> i = evalInt(index);
    bool ok = d == rank - 1 ? false
              : i && ((i->kind == Int::Lead && i->v == d) ||
                      (i->kind == Int::Const && i->v == 0 && shape[d] == 1));
    if (!ok)
      return false;
  }
  return true;
}

static Poly atom(int64_t kind, int64_t index) {
  return Poly{{Monomial{kind * (int64_t(1) << 32) + index}, 1.0}};
}

std::optional<Poly> BodyEval::evalExtract(tensor::ExtractOp e) {
  ValueRange idx = e.getIndices();
  int64_t n = idx.size();
  // x[b, h, s, c]: the leading indices are the loop's, the column constant.
  if (n == rank && (!x || e.getTensor() == x)) {
    SmallVector<int64_t> lead;
    for (int64_t d = 0; d + 1 < rank; ++d)
      lead.push_back(d);
    std::optional<Int> c = evalInt(idx.back());
    if (c && c->kind == Int::Const && isRow(idx.drop_back(), lead)) {
      x = e.getTensor();
      return atom(0, c->v);
    }
  }
  // cache[pos, c]
  if (n == 2) {
    std::optional<Int> p = evalInt(idx[0]), c = evalInt(idx[1]);
    if (!p || p->kind != Int::Pos || !c || c->kind != Int::Const)
      return std::nullopt;
    auto *it = llvm::find(caches, e.getTensor());
    if (it == caches.end()) {
      if (caches.size() == 2)
        return std::nullopt;
      caches.push_back(e.getTensor());
      it = caches.end() - 1;
    }
    return atom(1 + (it - caches.begin()), c->v);
  }
  return std::nullopt;
}

static Poly add(Poly a, const Poly &b, double sign) {
  for (auto &[m, c] : b)
    if ((a[m] += sign * c) == 0)
      a.erase(m);
  return a;
}

static Poly mul(const Poly &a, const Poly &b) {
  Poly r;
  for (auto &[ma, ca] : a)
    for (auto &[mb, cb] : b) {
      Monomial m(ma);
      m.append(mb.begin(), mb.end());
      llvm::sort(m);
      if ((r[m] += ca * cb) == 0)
        r.erase(m);
    }
  return r;
}

std::optional<Poly> BodyEval::evalFloat(Value v) {
  if (auto it = floats.find(v); it != floats.end())
    return it->second;
  std::optional<Poly> r;
  Operation *op = v.getDefiningOp();
  auto arg = dyn_cast<BlockArgument>(v);
  FloatAttr cst;
  if (arg && arg.getOwner() == g.getBody() &&
      arg.getArgNumber() < g.getNumDpsInputs()) {
    OpOperand *in = g.getDpsInputOperand(arg.getArgNumber());
    if (g.getMatchingIndexingMap(in).isIdentity() &&
        in->get().getType() == g.getResultTypes()[0] &&
        (!x || x == in->get())) {
      x = in->get();
      r = atom(0, col);
    }
  } else if (matchPattern(v, m_Constant(&cst))) {
    r = Poly{{Monomial{}, cst.getValueAsDouble()}};
  } else if (auto e = dyn_cast_or_null<tensor::ExtractOp>(op)) {
    r = evalExtract(e);
  } else if (isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(op)) {
    r = evalFloat(op->getOperand(0));
  } else if (isa_and_nonnull<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    std::optional<Int> i = evalInt(op->getOperand(0));
    if (i && i->kind == Int::Const)
      r = Poly{{Monomial{}, static_cast<double>(i->v)}};
  } else if (auto neg = dyn_cast_or_null<arith::NegFOp>(op)) {
    if (std::optional<Poly> a = evalFloat(neg.getOperand()))
      r = add(Poly(), *a, -1);
  } else if (auto sel = dyn_cast_or_null<arith::SelectOp>(op)) {
    std::optional<Int> c = evalInt(sel.getCondition());
    if (c && c->kind == Int::Const)
      r = evalFloat(c->v ? sel.getTrueValue() : sel.getFalseValue());
  } else if (isa_and_nonnull<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op)) {
    std::optional<Poly> a = evalFloat(op->getOperand(0));
    std::optional<Poly> b = a ? evalFloat(op->getOperand(1)) : std::nullopt;
    if (b)
      r = isa<arith::MulFOp>(op) ? mul(*a, *b)
                                 : add(*a, *b, isa<arith::SubFOp>(op) ? -1 : 1);
  }
  if (r)
    floats[v] = *r;
  return r;
}

namespace {
/// A gathering rotation: x, the positions, the cos/sin caches [M, R/2].
struct GatherRope {
  Value x, positions, cosCache, sinCache;
  Layout layout;
};
} // namespace

/// The positions operand of `g`: an integer input read at (b, s) or (s).
static Value positionsInput(linalg::GenericOp g) {
  int64_t rank = g.getNumLoops();
  MLIRContext *ctx = g.getContext();
  for (OpOperand *in : g.getDpsInputOperands()) {
    if (!getElementTypeOrSelf(in->get().getType()).isSignlessInteger())
      continue;
    AffineMap map = g.getMatchingIndexingMap(in);
    if (map == AffineMap::get(rank, 0,
                              {getAffineDimExpr(0, ctx),
                               getAffineDimExpr(rank - 2, ctx)},
                              ctx) ||
        map == AffineMap::get(rank, 0, getAffineDimExpr(rank - 2, ctx)))
      return in->get();
  }
  return Value();
}

/// Column `d`'s expected (cache index, partner, sign) in `layout`.
static std::tuple<int64_t, int64_t, double> pairOf(int64_t d, int64_t dim,
                                                   Layout layout) {
  int64_t h = dim / 2;
  if (layout == Layout::interleaved)
    return {d / 2, d ^ 1, d % 2 ? 1.0 : -1.0};
  return d < h ? std::make_tuple(d, d + h, -1.0)
               : std::make_tuple(d - h, d - h, 1.0);
}

/// Matches `out` (see the file header); `why` is empty for a non-candidate.
static std::optional<GatherRope> matchGatherRope(Value out, std::string &why) {
  why = "";
  auto g = out.getDefiningOp<linalg::GenericOp>();
  if (!g || g.getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() || g.getNumLoops() < 3 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return std::nullopt;
  // A candidate gathers from rank-2 tensors defined outside the body.
  int64_t gathers = 0;
  g.getBody()->walk([&](tensor::ExtractOp e) {
    gathers += e.getIndices().size() == 2 &&
               e.getTensor().getParentBlock() != g.getBody();
  });
  auto type = cast<RankedTensorType>(out.getType());
  int64_t rank = type.getRank(), dim = type.getShape().back();
  if (gathers < 2 || ShapedType::isDynamic(dim) || dim % 2 || dim < 2)
    return std::nullopt;
  why = "the body does not compute x[d] * cos[pos, c] + sign * x[j] * "
        "sin[pos, c] of one pair layout (half or interleaved) in every column";
  BodyEval state{g, rank, 0, Value(), positionsInput(g), {}};
  SmallVector<Poly> polys;
  for (int64_t d = 0; d < dim; ++d) {
    BodyEval eval{g, rank, d, state.x, state.positions, state.caches};
    std::optional<Poly> p = eval.evalFloat(
        cast<linalg::YieldOp>(g.getBody()->getTerminator()).getValues()[0]);
    if (!p)
      return std::nullopt;
    polys.push_back(*p);
    state.x = eval.x;
    state.positions = eval.positions;
    state.caches = eval.caches;
  }
  if (!state.x || !state.positions || state.caches.size() != 2)
    return std::nullopt;
  const int64_t k = int64_t(1) << 32;
  for (Layout layout : {Layout::half, Layout::interleaved})
    for (int cosIs = 1; cosIs <= 2; ++cosIs) {
      bool ok = true;
      for (int64_t d = 0; ok && d < dim; ++d) {
        auto [c, j, sign] = pairOf(d, dim, layout);
        // x atoms are the column itself (kind 0).
        Monomial cosTerm{d, cosIs * k + c}, sinTerm{j, (3 - cosIs) * k + c};
        llvm::sort(cosTerm);
        llvm::sort(sinTerm);
        ok = polys[d] == Poly{{cosTerm, 1.0}, {sinTerm, sign}};
      }
      if (ok)
        return GatherRope{state.x, state.positions, state.caches[cosIs - 1],
                          state.caches[2 - cosIs], layout};
    }
  return std::nullopt;
}

/// cache[positions[...], c] as a [..positions' shape, R/2] tensor: a
/// generic whose body is the graph's own tensor.extract.
static Value gatherTable(OpBuilder &b, Location loc, Value cache,
                         Value positions) {
  auto posType = cast<RankedTensorType>(positions.getType());
  auto cacheType = cast<RankedTensorType>(cache.getType());
  int64_t n = posType.getRank() + 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, positions);
  sizes.push_back(tensor::getMixedSize(b, loc, cache, 1));
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, cacheType.getElementType());
  AffineMap id = b.getMultiDimIdentityMap(n);
  SmallVector<AffineMap> maps = {id.getMajorSubMap(n - 1), id};
  SmallVector<utils::IteratorType> iterators(n, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), positions, init, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value row = arith::IndexCastOp::create(nb, l, nb.getIndexType(),
                                                      args[0]);
               Value c = linalg::IndexOp::create(nb, l, n - 1);
               linalg::YieldOp::create(
                   nb, l, tensor::ExtractOp::create(nb, l, cache,
                                                    ValueRange{row, c})
                              .getResult());
             })
      .getResult(0);
}

/// The gathered [B, S, R/2] (or [S, R/2]) table as the table form's
/// [B, 1.., S, R] (or [S, R]) for an input of rank `rank`.
static Value tableOf(OpBuilder &b, Location loc, Value gathered, Layout layout,
                     int64_t rank) {
  auto type = cast<RankedTensorType>(gathered.getType());
  int64_t n = type.getRank();
  Value t = layout == Layout::half
                ? tensor::ConcatOp::create(b, loc, n - 1,
                                           ValueRange{gathered, gathered})
                      .getResult()
                : duplicateLanes(b, loc, gathered);
  if (n == 2 || rank == 3)
    return t;
  auto full = cast<RankedTensorType>(t.getType());
  SmallVector<int64_t> shape = {full.getDimSize(0)};
  ReassociationIndices lead = {0};
  for (int64_t d = 1; d + 2 < rank; ++d) {
    lead.push_back(d);
    shape.push_back(1);
  }
  shape.append({full.getDimSize(1), full.getDimSize(2)});
  SmallVector<ReassociationIndices> groups = {lead, {rank - 2}, {rank - 1}};
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, full.getElementType()), t, groups);
}

namespace {

struct RaiseGatherRope : OpRewritePattern<linalg::GenericOp> {
  RaiseGatherRope(MLIRContext *ctx, bool remarks)
      : OpRewritePattern(ctx), remarks(remarks) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::string why;
    std::optional<GatherRope> g = matchGatherRope(op->getResult(0), why);
    if (!g)
      return rewriter.notifyMatchFailure(op, why);
    auto cacheType = cast<RankedTensorType>(g->cosCache.getType());
    auto xType = cast<RankedTensorType>(g->x.getType());
    auto posType = cast<RankedTensorType>(g->positions.getType());
    int64_t rank = xType.getRank();
    if (xType != op.getResultTypes()[0])
      return rewriter.notifyMatchFailure(op, "the rotated tensor is not x");
    if (posType.getShape() != ArrayRef<int64_t>{xType.getDimSize(0),
                                                xType.getDimSize(rank - 2)} &&
        posType.getShape() != ArrayRef<int64_t>{xType.getDimSize(rank - 2)})
      return rewriter.notifyMatchFailure(
          op, "the positions are not [B, S] or [S] of x");
    if (cacheType != g->sinCache.getType() ||
        cacheType.getDimSize(1) != xType.getShape().back() / 2)
      return rewriter.notifyMatchFailure(
          op, "the caches are not [max_position, D/2] tables of one type");
    std::optional<SmallVector<double>> cos = getConstantValues(g->cosCache);
    std::optional<SmallVector<double>> sin = getConstantValues(g->sinCache);
    std::string reason = "the caches are function arguments";
    if (cos && sin) {
      std::optional<PairTableMatch> formula =
          matchPairTables(*cos, *sin, cacheType.getDimSize(0),
                          cacheType.getDimSize(1), op.getContext());
      RopeMatch m;
      m.input = g->x;
      m.positions = g->positions;
      if (formula && formula->start == 0) {
        m.frequencies = formula->frequencies;
        if (succeeded(replaceWithRope(rewriter, op, m, g->layout, remarks)))
          return success();
      }
      reason = "the constant caches are not cos/sin(i * inv_freq) of a posenc "
               "scaling";
    } else if (!isa<BlockArgument>(g->cosCache) ||
               !isa<BlockArgument>(g->sinCache)) {
      reason = "the caches are not constants";
    }
    Location loc = op.getLoc();
    Value c = gatherTable(rewriter, loc, g->cosCache, g->positions);
    Value s = gatherTable(rewriter, loc, g->sinCache, g->positions);
    c = tableOf(rewriter, loc, c, g->layout, xType.getRank());
    s = tableOf(rewriter, loc, s, g->layout, xType.getRank());
    return replaceByTableRope(rewriter, op, g->x, c, s, g->layout,
                              remarks ? "cos/sin gathered by position: " + reason
                                      : std::string());
  }

  bool remarks;
};

} // namespace

std::optional<std::string> raise::explainGatherRope(Operation *op) {
  if (op->getNumResults() != 1)
    return std::string();
  std::string why;
  if (matchGatherRope(op->getResult(0), why))
    return std::nullopt;
  return why;
}

void raise::populateRaiseGatherRopePatterns(RewritePatternSet &patterns,
                                            bool emitRemarks) {
  patterns.add<RaiseGatherRope>(patterns.getContext(), emitRemarks);
}
