//===- SpreadPrefetches.cpp - decode prefetches spread over a key step ----===//
//
// --posenc-spread-decode-prefetches: a decode key step's prefetches of the
// next key tile (DecodeSchedule.cpp, prefetchKeyTile) moved from one burst
// at the step's start into the iterations of its contraction loops.
//
// Why: a burst of a few hundred to a couple of thousand prefetches waits for
// the core's few cache-miss buffers in the load queue, and the step's own
// loads (its compute) wait behind it, so a step takes about its compute plus
// its memory time. Spread evenly over the step's register-tile loops, the
// same prefetches overlap the compute. The interleaved forms
// (InterleavedPrefetch.cpp, and a 16-row one since removed) spread them per
// register tile, clumps of 64-256 lines between 128-2048 FMAs, which a C
// model of the 16-row step measured no faster than the burst; one or two lines
// per iteration of the innermost loop (16 FMAs) measured twice as fast from
// memory (docs/pipelines.md, "Prefetches spread over the key step"). Those
// innermost loops exist only after --posenc-vectorize-attention-tiles, so this
// runs as a pass of its own, after bufferization, on the loops the
// decomposition marked.
//
// Upstream has no pass that distributes side-effecting ops over the
// iterations of other loops; software pipelining (scf::pipelineForLoop)
// overlaps the stages of one loop, not a loop with its siblings.
//
//===----------------------------------------------------------------------===//

#include "TileBuilders.h"

#include "posenc/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCSPREADDECODEPREFETCHESPASS
#include "posenc/Conversion/Passes.h.inc"
} // namespace posenc

using namespace mlir;
using posenc::decompose::kSpreadPrefetchAlternateAttr;
using posenc::decompose::kSpreadPrefetchBetweenAttr;
using posenc::decompose::kSpreadPrefetchRowsAttr;

namespace {

/// The trip count of `loop` when its bounds and step are constants.
std::optional<int64_t> staticTrips(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : llvm::divideCeil(*ub - *lb, *step);
}

/// An innermost loop holding a vector.contract, with the loops from the
/// key step's body down to it (outermost first), all of static trip count.
struct ContractionNest {
  SmallVector<scf::ForOp> loops;
  int64_t iterations = 1;
};

/// The nest of `inner` up to the op of `body` that holds it, if every op
/// on the way is an scf.for of static trip count.
std::optional<ContractionNest> nestOf(scf::ForOp inner, Block &body) {
  ContractionNest nest;
  for (Operation *op = inner;; op = op->getParentOp()) {
    auto loop = dyn_cast<scf::ForOp>(op);
    std::optional<int64_t> trips = loop ? staticTrips(loop) : std::nullopt;
    if (!trips)
      return std::nullopt;
    nest.loops.insert(nest.loops.begin(), loop);
    nest.iterations *= *trips;
    if (op->getBlock() == &body)
      return nest;
  }
}

/// The contraction nests among the ops of `body` after `last`, in order.
/// Nests without static trip counts are left out: the prefetches go to
/// the others.
SmallVector<ContractionNest> contractionNests(Block &body, Operation *last) {
  SmallVector<ContractionNest> nests;
  for (Operation &op :
       llvm::make_range(std::next(last->getIterator()), body.end())) {
    op.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      Block *inner = loop.getBody();
      bool innermost = llvm::none_of(
          *inner, [](Operation &o) { return o.getNumRegions() > 0; });
      if (!innermost || llvm::none_of(*inner, [](Operation &o) {
            return isa<vector::ContractionOp>(o);
          }))
        return;
      if (std::optional<ContractionNest> nest = nestOf(loop, body))
        nests.push_back(*nest);
    });
  }
  return nests;
}

/// The most rows per iteration issued as straight-line code when N is a
/// multiple of I (more take a loop).
constexpr int64_t kMaxRowsUnrolled = 8;

/// How issueSpreadRows hands N rows to I iterations: a whole number per
/// iteration (at most kMaxRowsUnrolled), one every whole number of
/// iterations (fewer rows than iterations), or else by ceil bounds (a
/// division and a loop of 0 or 1 trips per iteration).
enum class SpreadForm { PerIteration, EveryNth, Bounds };

SpreadForm spreadForm(int64_t rows, int64_t iterations) {
  if (rows <= 0 || iterations <= 0)
    return SpreadForm::Bounds;
  if (rows % iterations == 0 && rows / iterations <= kMaxRowsUnrolled)
    return SpreadForm::PerIteration;
  if (iterations % rows == 0)
    return SpreadForm::EveryNth;
  return SpreadForm::Bounds;
}

/// A marked loop of prefetches over rows, and its rows' place among all the
/// marked loops of the step: rows [first, first + bound), or, when the
/// step's `turns` loops take turns (kSpreadPrefetchAlternateAttr), the rows
/// u with u mod turns = index, its row u / turns.
struct Burst {
  scf::ForOp loop;
  int64_t first, bound;
  int64_t index = 0, turns = 0;

  /// Whether the step's row u, a constant, is one of this loop's.
  bool holds(int64_t u) const {
    return turns > 0 ? u % turns == index : u >= first && u < first + bound;
  }
};

/// The row of `burst` that the step's row u is (its body, cloned), when u is
/// one of the burst's rows and that row lies below the burst loop's own
/// upper bound.
void issueRowOf(OpBuilder &b, Location loc, Value u, Burst burst) {
  Value lower = burst.loop.getLowerBound(), row, cond;
  if (burst.turns > 0) {
    // Row u / turns of the loop whose turn u mod turns is.
    Value turns = arith::ConstantIndexOp::create(b, loc, burst.turns);
    row = b.createOrFold<arith::AddIOp>(
        loc, lower, b.createOrFold<arith::DivUIOp>(loc, u, turns));
    cond = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq,
        b.createOrFold<arith::RemUIOp>(loc, u, turns),
        arith::ConstantIndexOp::create(b, loc, burst.index));
  } else {
    // Row u - first of the loop whose rows [first, first + bound) hold u.
    Value firstV = arith::ConstantIndexOp::create(b, loc, burst.first);
    Value endV =
        arith::ConstantIndexOp::create(b, loc, burst.first + burst.bound);
    row = b.createOrFold<arith::AddIOp>(
        loc, lower, b.createOrFold<arith::SubIOp>(loc, u, firstV));
    cond =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, u, endV);
    if (burst.first > 0) {
      Value atOrAfter = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::uge, u, firstV);
      cond = b.createOrFold<arith::AndIOp>(loc, atOrAfter, cond);
    }
  }
  Value inBounds = b.createOrFold<arith::CmpIOp>(
      loc, arith::CmpIPredicate::slt, row, burst.loop.getUpperBound());
  cond = b.createOrFold<arith::AndIOp>(loc, cond, inBounds);
  scf::IfOp::create(b, loc, cond, [&](OpBuilder &b, Location loc) {
    IRMapping map;
    map.map(burst.loop.getInductionVar(), row);
    for (Operation &op : burst.loop.getBody()->without_terminator())
      b.clone(op, map);
    scf::YieldOp::create(b, loc);
  });
}

/// At the start of the nest's innermost body: the iteration's index g in
/// the step's contraction iterations (`base` + its index in the nest), and
/// the burst rows [ceil(g N / I), ceil((g + 1) N / I)) of that iteration,
/// each cloned from its burst's body under its burst's own bound. When N is
/// a multiple of I (a spread of cache lines, AttentionSchedule::
/// spreadLines: 4 lines per iteration for the 4-row f32 step) each
/// iteration issues the N / I rows from g N / I, with no division and no
/// loop; when I is a multiple of N, every (I / N)-th iteration issues one.
/// (Testing only the bursts whose rows meet the nest's rows, known
/// statically, measured 1.03-1.04x slower for the 4-row f16 step and level
/// for f32; testing an iteration's 4 lines of the 4-row f32 step once, with
/// one address for all four, 1.10-1.16x slower from memory though level
/// with no prefetch in cache: neither done.)
void issueSpreadRows(const ContractionNest &nest, int64_t base,
                     int64_t iterations, ArrayRef<Burst> bursts, int64_t rows,
                     int64_t first = 0) {
  scf::ForOp inner = nest.loops.back();
  Location loc = inner.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(inner.getBody());
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // `row` + first (no op for the even spread, whose rows start at 0).
  auto offset = [&](Value row) {
    return first == 0
               ? row
               : b.createOrFold<arith::AddIOp>(loc, row, constant(first));
  };
  Value g = constant(0);
  for (scf::ForOp loop : nest.loops) {
    Value offset = b.createOrFold<arith::SubIOp>(loc, loop.getInductionVar(),
                                                 loop.getLowerBound());
    Value index = b.createOrFold<arith::DivUIOp>(loc, offset, loop.getStep());
    Value scaled =
        b.createOrFold<arith::MulIOp>(loc, g, constant(*staticTrips(loop)));
    g = b.createOrFold<arith::AddIOp>(loc, scaled, index);
  }
  g = b.createOrFold<arith::AddIOp>(loc, g, constant(base));
  auto issue = [&](OpBuilder &b, Location loc, Value u) {
    for (const Burst &burst : bursts)
      issueRowOf(b, loc, u, burst);
  };
  SpreadForm form = spreadForm(rows, iterations);
  if (form == SpreadForm::PerIteration) {
    // k = N / I rows per iteration: [g k, g k + k).
    int64_t k = rows / iterations;
    Value from = offset(b.createOrFold<arith::MulIOp>(loc, g, constant(k)));
    for (int64_t r = 0; r < k; ++r)
      issue(b, loc, b.createOrFold<arith::AddIOp>(loc, from, constant(r)));
    return;
  }
  if (form == SpreadForm::EveryNth) {
    // Fewer rows than iterations, s = I / N a whole number (a 4-row f16
    // step: s = 2; a 16-row f32 step: s = 8): iteration g issues row g / s
    // when s divides g. One remainder test per iteration, where the ceil
    // bounds below cost a dozen index ops and a loop of 0 or 1 trips (about
    // a quarter of the 4-row f16 step's time in cache, docs/pipelines.md).
    Value s = constant(iterations / rows);
    Value rem = b.createOrFold<arith::RemUIOp>(loc, g, s);
    Value onRow = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                rem, constant(0));
    scf::IfOp::create(b, loc, onRow, [&](OpBuilder &b, Location loc) {
      issue(b, loc, offset(b.createOrFold<arith::DivUIOp>(loc, g, s)));
      scf::YieldOp::create(b, loc);
    });
    return;
  }
  // ceil(x N / I) for x = g and g + 1.
  auto rowAt = [&](Value x) {
    Value scaled = b.createOrFold<arith::MulIOp>(loc, x, constant(rows));
    Value rounded =
        b.createOrFold<arith::AddIOp>(loc, scaled, constant(iterations - 1));
    return b.createOrFold<arith::DivUIOp>(loc, rounded, constant(iterations));
  };
  Value from = offset(rowAt(g));
  Value gNext = b.createOrFold<arith::AddIOp>(loc, g, constant(1));
  Value to = offset(rowAt(gNext));
  scf::ForOp::create(b, loc, from, to, constant(1), ValueRange{},
                     [&](OpBuilder &b, Location loc, Value u, ValueRange) {
                       issue(b, loc, u);
                       scf::YieldOp::create(b, loc);
                     });
}

/// The prefetches one row of `burst` issues (its body's), or 0 when its
/// body holds anything else that is not index arithmetic.
int64_t prefetchesPerRow(Burst burst) {
  int64_t prefetches = 0;
  for (Operation &op : burst.loop.getBody()->without_terminator()) {
    if (isa<memref::PrefetchOp>(op))
      ++prefetches;
    else if (op.getNumRegions() > 0 || !isPure(&op))
      return 0;
  }
  return prefetches;
}

/// The most groups the rows handed to the ops between two contraction nests
/// are issued in (4 and 8 groups of the 4-row f32 step's 32 lines measured
/// alike, one group 0.96x; docs/pipelines.md).
constexpr int64_t kMaxGapGroups = 8;

/// Rows [first, first + count) of the bursts issued among `ops` (the ops
/// between two contraction nests, in order): in groups of consecutive rows,
/// group p right before op p |ops| / groups, each row under its burst's own
/// bound.
void issueGapRows(ArrayRef<Operation *> ops, int64_t first, int64_t count,
                  ArrayRef<Burst> bursts) {
  int64_t groups = std::min<int64_t>(
      {kMaxGapGroups, count, static_cast<int64_t>(ops.size())});
  for (int64_t p = 0; p < groups; ++p) {
    Operation *at = ops[p * ops.size() / groups];
    OpBuilder b(at);
    Location loc = at->getLoc();
    for (int64_t u = first + p * count / groups,
                 end = first + (p + 1) * count / groups;
         u < end; ++u) {
      for (const Burst &burst : bursts) {
        if (!burst.holds(u))
          continue;
        issueRowOf(b, loc, arith::ConstantIndexOp::create(b, loc, u), burst);
      }
    }
  }
}

/// The spread of a step marked kSpreadPrefetchBetweenAttr: each nest keeps
/// the rows the even spread gives it (nest j: N I_j / I, in order), but the
/// ops between nest j - 1 and nest j (the score reduction and the softmax
/// of a decode step, which issue no prefetch of their own: the memory
/// idles while they run) issue the first I_j / r of nest j's rows (r: the
/// prefetches per row, so one cache line per iteration of nest j), and
/// nest j the rest. The 4-row f32 step: 32 of P V's 128 lines go to the
/// softmax, P V issues 3 per iteration instead of 4; the 4-row f16/bf16
/// step: 8 of its 16 V rows, P V one every 4 iterations instead of 2.
/// False, with nothing changed, where a nest's rows would need the ceil
/// bounds (SpreadForm::Bounds) or no nest has ops before it to take rows.
bool spreadWithGaps(ArrayRef<ContractionNest> nests, ArrayRef<Burst> bursts,
                    int64_t rows, int64_t iterations) {
  int64_t perRow = prefetchesPerRow(bursts.front());
  if (perRow == 0 || llvm::any_of(bursts, [&](Burst burst) {
        return prefetchesPerRow(burst) != perRow;
      }))
    return false;
  struct Share {
    int64_t first, count, gap = 0;
    SmallVector<Operation *> gapOps;
  };
  SmallVector<Share> shares;
  int64_t first = 0;
  bool anyGap = false;
  for (auto [j, nest] : llvm::enumerate(nests)) {
    if ((rows * nest.iterations) % iterations != 0)
      return false;
    Share share{first, rows * nest.iterations / iterations};
    Operation *prev = j > 0 ? nests[j - 1].loops.front() : nullptr;
    Operation *own = nest.loops.front();
    if (prev && prev->isBeforeInBlock(own)) {
      for (Operation *op = prev->getNextNode(); op != own;
           op = op->getNextNode())
        share.gapOps.push_back(op);
      int64_t gap = nest.iterations / perRow;
      if (!share.gapOps.empty() && nest.iterations % perRow == 0 &&
          gap < share.count)
        share.gap = gap;
    }
    if (spreadForm(share.count - share.gap, nest.iterations) ==
        SpreadForm::Bounds)
      return false;
    anyGap |= share.gap > 0;
    first += share.count;
    shares.push_back(std::move(share));
  }
  if (!anyGap)
    return false;
  for (auto [nest, share] : llvm::zip_equal(nests, shares)) {
    issueGapRows(share.gapOps, share.first, share.gap, bursts);
    issueSpreadRows(nest, /*base=*/0, nest.iterations, bursts,
                    share.count - share.gap, share.first + share.gap);
  }
  return true;
}

/// Spreads the marked loops of one key step (`bursts`, ops of one block, in
/// order) over the step's contraction nests; keeps them as a burst when the
/// step has none.
void spreadStep(ArrayRef<scf::ForOp> marked) {
  SmallVector<Burst> bursts;
  int64_t rows = 0;
  bool unitSteps = true;
  bool between = llvm::any_of(marked, [](scf::ForOp loop) {
    return loop->hasAttr(kSpreadPrefetchBetweenAttr);
  });
  bool alternate = llvm::any_of(marked, [](scf::ForOp loop) {
    return loop->hasAttr(kSpreadPrefetchAlternateAttr);
  });
  for (scf::ForOp loop : marked) {
    loop->removeAttr(kSpreadPrefetchBetweenAttr);
    loop->removeAttr(kSpreadPrefetchAlternateAttr);
    int64_t bound =
        cast<IntegerAttr>(loop->getAttr(kSpreadPrefetchRowsAttr)).getInt();
    loop->removeAttr(kSpreadPrefetchRowsAttr);
    bursts.push_back({loop, rows, bound});
    rows += bound;
    unitSteps &= getConstantIntValue(loop.getStep()) == int64_t(1);
  }
  // Rows are counted one per iteration: other steps stay a burst.
  if (!unitSteps)
    return;
  // In turns: only loops of one bound (rows u and u + 1 one row apart in
  // each), else in order.
  if (alternate && bursts.size() > 1 &&
      llvm::all_of(bursts, [&](const Burst &burst) {
        return burst.bound == bursts.front().bound;
      })) {
    for (auto [index, burst] : llvm::enumerate(bursts)) {
      burst.index = index;
      burst.turns = bursts.size();
    }
  }
  Operation *last = marked.back();
  for (scf::ForOp loop : marked)
    if (last->isBeforeInBlock(loop))
      last = loop;
  SmallVector<ContractionNest> nests =
      contractionNests(*last->getBlock(), last);
  int64_t iterations = 0;
  for (const ContractionNest &nest : nests)
    iterations += nest.iterations;
  if (iterations == 0 || rows == 0)
    return;
  if (!between || !spreadWithGaps(nests, bursts, rows, iterations)) {
    int64_t base = 0;
    for (const ContractionNest &nest : nests) {
      issueSpreadRows(nest, base, iterations, bursts, rows);
      base += nest.iterations;
    }
  }
  for (scf::ForOp loop : marked)
    loop.erase();
}

struct PosencSpreadDecodePrefetchesPass
    : posenc::impl::PosencSpreadDecodePrefetchesPassBase<
          PosencSpreadDecodePrefetchesPass> {
  using Base::Base;

  void runOnOperation() override {
    // The marked loops of each key step, grouped by the block they are in.
    llvm::MapVector<Block *, SmallVector<scf::ForOp>> steps;
    WalkResult checked = getOperation().walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kSpreadPrefetchRowsAttr))
        return WalkResult::advance();
      if (failed(checkMarked(loop)))
        return WalkResult::interrupt();
      steps[loop->getBlock()].push_back(loop);
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();
    for (auto &[block, marked] : steps)
      spreadStep(marked);
  }

  /// A marked loop is the decomposition's: a positive bound, an index
  /// induction variable (its rows are counted in index arithmetic) and no
  /// results (it is deleted once spread).
  static LogicalResult checkMarked(scf::ForOp loop) {
    Attribute mark = loop->getAttr(kSpreadPrefetchRowsAttr);
    auto bound = dyn_cast<IntegerAttr>(mark);
    if (!bound || bound.getInt() <= 0)
      return loop->emitOpError() << "expects '" << kSpreadPrefetchRowsAttr
                                 << "' to be a positive integer, got " << mark;
    if (!loop.getInductionVar().getType().isIndex())
      return loop->emitOpError()
             << "marked '" << kSpreadPrefetchRowsAttr
             << "' expects an index induction variable, got "
             << loop.getInductionVar().getType();
    if (loop.getNumResults() != 0)
      return loop->emitOpError()
             << "marked '" << kSpreadPrefetchRowsAttr
             << "' expects no results (loop-carried values), got "
             << loop.getNumResults();
    return success();
  }
};

} // namespace
