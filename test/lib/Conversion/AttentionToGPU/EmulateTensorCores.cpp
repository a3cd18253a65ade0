//===- EmulateTensorCores.cpp - run the tensor-core kernel on the CPU -----===//
//
// A testing pass (test/lib: linked into posenc-opt, never installed): the
// gpu.launch of
// posenc-gpu-tensor-core-attention, as built (the same ops, the same
// fragment addressing), runs on the CPU with
// one OpenMP thread per GPU thread (omp_set_num_threads(block size) before
// each emulated launch), so that its numbers can be checked
// against the reference where no GPU is present:
//
//   gpu.launch blocks(bx, by) threads(t)    scf.for bx, scf.for by:
//     body                              ->    scf.parallel t (one OpenMP
//                                               thread each): body
//
// The warp-collective ops become shared scratch buffers and barriers
// (GOMP_barrier, libomp's; every thread of the block reaches every
// collective, as on the GPU, because the kernel calls them in uniform
// control flow):
//  - gpu.barrier: a barrier;
//  - gpu.shuffle xor: each thread stores its value, barrier, reads lane
//    l ^ offset, barrier;
//  - nvgpu.ldmatrix: each thread stores its row address, barrier; lane l
//    reads, for matrix m, row l/4 (transposed: rows 2(l%4), 2(l%4)+1 at
//    column l/4) of the 8x8 matrix whose rows lanes 8m..8m+7 addressed
//    (PTX ISA, ldmatrix), barrier;
//  - nvgpu.mma.sync / nvvm.mma.sync m16n8k16: each thread stores its A and
//    B fragment elements at the coordinates upstream's
//    nvgpu::getLaneIdAndValueIdToOperandCoord gives them, barrier, computes
//    its D elements (C + A B over k in f32) at its C coordinates, barrier.
//  - nvvm.wgmma.mma_async m64nNk16 (f16/bf16, f32 accumulator, A and B
//    K-major in shared memory): each thread computes its accumulator
//    elements, value i of warp w (of its warpgroup), lane l at row
//    16w + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2 (PTX ISA, "Matrix
//    Fragments for wgmma.mma_async.m64nNk16"), as C + sum over k < 16 of
//    A(row, k) B(col, k), the operands read through their matrix
//    descriptors: start address, leading byte offset (between core
//    matrices adjacent in K) and stride byte offset (adjacent in M/N), each
//    stored >> 4 in bits 0-13, 16-29 and 32-45; element (r, k) of a
//    no-swizzle K-major operand at start + (r/8) SBO + (k/8) LBO + (r%8) 16
//    + (k%8) 2 bytes (PTX ISA, "Matrix Descriptor Format" and "Shared
//    Memory Matrix Layout"); swizzled or transposed operands are rejected;
//    wgmma.fence, commit_group, wait_group and fence.proxy are no-ops here
//    (the emulated wgmma is synchronous).
// Workgroup tiles become buffers shared by the threads of a block. The
// shared-memory address of a workgroup global
// (memref.extract_aligned_pointer_as_index, from which descriptors are
// built) is a fixed stand-in, kWindowAddress, at which the emulated
// wgmma finds the global's buffer; one global per kernel may be addressed.
//
// The emulated semantics of the collectives are written from the PTX ISA
// and upstream's layouts, independently of the kernel's own addressing
// maps, which is what the emulation tests.
//
//===----------------------------------------------------------------------===//

#include "posenc/Conversion/AttentionToGPU/TensorCoreAttention.h"
#include "TestPasses.h"
#include "posenc/Dialect/Posenc/Utils/BuilderUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace posenc {
#define GEN_PASS_DEF_POSENCGPUEMULATETENSORCORESPASS
#include "TestPasses.h.inc"
} // namespace posenc

using namespace mlir;
using namespace posenc;

namespace {

constexpr int64_t kLanes = 32;
/// Where the emulation places the one addressed workgroup global in the
/// "shared window" (16-byte aligned, like any wgmma operand).
constexpr int64_t kWindowAddress = 1024;

class Emulator {
public:
  Emulator(gpu::LaunchOp launch, func::FuncOp barrierFn,
           func::FuncOp numThreadsFn, func::FuncOp setNumThreadsFn,
           func::FuncOp maxThreadsFn)
      : launch(launch), b(launch), loc(launch.getLoc()),
        barrierFn(barrierFn), numThreadsFn(numThreadsFn),
        setNumThreadsFn(setNumThreadsFn), maxThreadsFn(maxThreadsFn) {}

  LogicalResult run();

private:
  Value c(int64_t v) { return indexConst(b, loc, v); }
  void barrier() { func::CallOp::create(b, loc, barrierFn, ValueRange{}); }
  Value scratch(ArrayRef<int64_t> shape, Type elem) {
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, elem));
  }
  /// (row, col) of value `value` of lane `lane` in an mma operand.
  std::pair<Value, Value> coord(VectorType type, nvgpu::MatMulOperandRole role,
                                Value lane, int64_t value);

  Value shuffleXor(gpu::ShuffleOp op);
  Value ldmatrix(nvgpu::LdMatrixOp op);
  Value mma(Value a, Value bFrag, Value acc);
  FailureOr<Value> warpgroupMma(NVVM::WgmmaMmaAsyncOp op);

  gpu::LaunchOp launch;
  OpBuilder b;
  Location loc;
  func::FuncOp barrierFn, numThreadsFn, setNumThreadsFn, maxThreadsFn;
  int64_t threads = 0;
  Value tid, lane, warp, warpBase;
  Value rowSlots, colSlots, shuffleSlots, aBuf, bBuf;
  /// The addressed global's buffer (bytes) and its size.
  Value window;
  int64_t windowBytes = 0;
};

} // namespace

std::pair<Value, Value> Emulator::coord(VectorType type,
                                        nvgpu::MatMulOperandRole role,
                                        Value laneId, int64_t value) {
  FailureOr<AffineMap> map = nvgpu::getLaneIdAndValueIdToOperandCoord(
      b, loc, nvgpu::WarpMatrixInfo{type, role});
  assert(succeeded(map) && "f16 / f32 m16n8k16 layouts exist upstream");
  SmallVector<Value> operands = {laneId, c(value)};
  return {affine::AffineApplyOp::create(b, loc, map->getSubMap({0}), operands),
          affine::AffineApplyOp::create(b, loc, map->getSubMap({1}),
                                        operands)};
}

Value Emulator::shuffleXor(gpu::ShuffleOp op) {
  Value v = op.getValue();
  memref::StoreOp::create(b, loc, v, shuffleSlots, tid);
  barrier();
  Value offset = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                            op.getOffset());
  Value src = arith::AddIOp::create(
      b, loc, warpBase, arith::XOrIOp::create(b, loc, lane, offset));
  Value r = memref::LoadOp::create(b, loc, shuffleSlots, src);
  barrier();
  return r;
}

Value Emulator::ldmatrix(nvgpu::LdMatrixOp op) {
  ValueRange idx = op.getIndices();
  memref::StoreOp::create(b, loc, idx[0], rowSlots, tid);
  memref::StoreOp::create(b, loc, idx[1], colSlots, tid);
  barrier();
  auto type = cast<VectorType>(op.getType());
  int64_t tiles = type.getDimSize(0);
  bool transpose = op.getTranspose();
  SmallVector<Value> elems;
  Value q = arith::DivUIOp::create(b, loc, lane, c(4));
  Value r = arith::RemUIOp::create(b, loc, lane, c(4));
  for (int64_t m = 0; m < tiles; ++m)
    for (int64_t e = 0; e < 2; ++e) {
      // Non-transposed: the row that lane 8m + l/4 addressed, columns
      // 2(l%4) + e. Transposed: the row lane 8m + 2(l%4) + e addressed,
      // column l/4.
      Value srcLane, colOffset;
      if (!transpose) {
        srcLane = arith::AddIOp::create(b, loc, q, c(8 * m));
        colOffset = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, r, c(2)), c(e));
      } else {
        srcLane = arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, r, c(2)), c(8 * m + e));
        colOffset = q;
      }
      Value src = arith::AddIOp::create(b, loc, warpBase, srcLane);
      Value row = memref::LoadOp::create(b, loc, rowSlots, src);
      Value col = arith::AddIOp::create(
          b, loc, memref::LoadOp::create(b, loc, colSlots, src), colOffset);
      elems.push_back(memref::LoadOp::create(b, loc, op.getSrcMemref(),
                                             ValueRange{row, col}));
    }
  barrier();
  return vector::FromElementsOp::create(b, loc, type, elems);
}

Value Emulator::mma(Value a, Value bFrag, Value acc) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  // Upstream's operand types for the layouts: A [16 x 16], B [n x k] =
  // [8 x 16], C [16 x 8] (16-bit element types share one layout).
  auto aType = VectorType::get({16, 16}, Float16Type::get(ctx));
  auto bType = VectorType::get({8, 16}, Float16Type::get(ctx));
  auto cType = VectorType::get({16, 8}, f32);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t e = 0; e < 2; ++e) {
      auto [row, col] = coord(aType, nvgpu::MatMulOperandRole::A, lane,
                              2 * i + e);
      Value v = castFloat(b, loc,
                          vector::ExtractOp::create(b, loc, a,
                                                    ArrayRef<int64_t>{i, e}),
                          f32);
      memref::StoreOp::create(b, loc, v, aBuf, ValueRange{warp, row, col});
    }
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t e = 0; e < 2; ++e) {
      auto [n, k] = coord(bType, nvgpu::MatMulOperandRole::B, lane, 2 * i + e);
      Value v = castFloat(b, loc,
                          vector::ExtractOp::create(b, loc, bFrag,
                                                    ArrayRef<int64_t>{i, e}),
                          f32);
      memref::StoreOp::create(b, loc, v, bBuf, ValueRange{warp, k, n});
    }
  barrier();
  SmallVector<Value> d;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t e = 0; e < 2; ++e) {
      auto [row, col] = coord(cType, nvgpu::MatMulOperandRole::C, lane,
                              2 * i + e);
      Value init = vector::ExtractOp::create(b, loc, acc,
                                             ArrayRef<int64_t>{i, e});
      auto loop = scf::ForOp::create(
          b, loc, c(0), c(16), c(1), ValueRange{init},
          [&](OpBuilder &lb, Location l, Value k, ValueRange iter) {
            Value x = memref::LoadOp::create(lb, l, aBuf,
                                             ValueRange{warp, row, k});
            Value y = memref::LoadOp::create(lb, l, bBuf,
                                             ValueRange{warp, k, col});
            Value sum = arith::AddFOp::create(
                lb, l, iter[0], arith::MulFOp::create(lb, l, x, y));
            scf::YieldOp::create(lb, l, sum);
          });
      d.push_back(loop.getResult(0));
    }
  barrier();
  return vector::FromElementsOp::create(b, loc, cast<VectorType>(acc.getType()),
                                        d);
}

FailureOr<Value> Emulator::warpgroupMma(NVVM::WgmmaMmaAsyncOp op) {
  NVVM::WGMMATypes type = op.getTypeA();
  if ((type != NVVM::WGMMATypes::f16 && type != NVVM::WGMMATypes::bf16) ||
      op.getTypeB() != type || op.getTypeD() != NVVM::WGMMATypes::f32 ||
      op.getShape().getM() != 64 || op.getShape().getK() != 16 ||
      op.getLayoutA() != NVVM::MMALayout::row ||
      op.getLayoutB() != NVVM::MMALayout::col ||
      op.getScaleA() != NVVM::WGMMAScaleIn::one ||
      op.getScaleB() != NVVM::WGMMAScaleIn::one)
    return op.emitError("posenc-gpu-emulate-tensor-cores: only f16/bf16 "
                        "m64nNk16 wgmma with an f32 accumulator, K-major A "
                        "and B (row, col) and unit scales is emulated");
  if (!window)
    return op.emitError("posenc-gpu-emulate-tensor-cores: wgmma descriptors "
                        "must address a workgroup global of the kernel");
  Type elem = type == NVVM::WGMMATypes::f16 ? Type(b.getF16Type())
                                            : Type(b.getBF16Type());
  Type i64 = b.getI64Type(), f32 = b.getF32Type();
  Value elems =
      memref::ViewOp::create(b, loc, MemRefType::get({windowBytes / 2}, elem),
                             window, c(0), ValueRange{});
  auto k64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  auto field = [&](Value desc, int64_t shift, int64_t bits) {
    Value f = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, desc, k64(shift)),
        k64((int64_t(1) << bits) - 1));
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), f).getResult();
  };
  struct Operand {
    Value start, lbo, sbo;
  };
  auto decode = [&](Value desc) {
    Value base = field(desc, 49, 3), swizzle = field(desc, 62, 2);
    Value plain = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, c(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, swizzle, c(0)));
    cf::AssertOp::create(b, loc, plain,
                         "posenc-gpu-emulate-tensor-cores: only no-swizzle "
                         "descriptors with base offset 0 are emulated");
    auto bytes = [&](int64_t shift) {
      return arith::MulIOp::create(b, loc, field(desc, shift, 14), c(16))
          .getResult();
    };
    return Operand{bytes(0), bytes(16), bytes(32)};
  };
  Operand a = decode(op.getDescriptorA()), bo = decode(op.getDescriptorB());
  // Element (r, k) of a K-major operand, loaded as f32.
  auto load = [&](OpBuilder &lb, Location l, const Operand &x, Value r,
                  Value k) {
    auto mul = [&](Value u, Value v) {
      return arith::MulIOp::create(lb, l, u, v).getResult();
    };
    auto cst = [&](int64_t v) {
      return arith::ConstantIndexOp::create(lb, l, v).getResult();
    };
    auto div = [&](Value u, int64_t v) {
      return arith::DivUIOp::create(lb, l, u, cst(v)).getResult();
    };
    auto rem = [&](Value u, int64_t v) {
      return arith::RemUIOp::create(lb, l, u, cst(v)).getResult();
    };
    Value addr = x.start;
    for (Value term : {mul(div(r, 8), x.sbo), mul(div(k, 8), x.lbo),
                       mul(rem(r, 8), cst(16)), mul(rem(k, 8), cst(2))})
      addr = arith::AddIOp::create(lb, l, addr, term);
    Value offset = arith::SubIOp::create(lb, l, addr, cst(kWindowAddress));
    Value inside = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                         offset, cst(windowBytes - 1));
    cf::AssertOp::create(lb, l, inside,
                         "posenc-gpu-emulate-tensor-cores: a wgmma operand "
                         "element lies outside the addressed global");
    Value v = memref::LoadOp::create(lb, l, elems, div(offset, 2));
    return castFloat(lb, l, v, f32);
  };

  int64_t n = op.getShape().getN();
  Value acc = op.getInouts();
  Value rowBase = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, warp, c(4)),
                            c(16)),
      arith::DivUIOp::create(b, loc, lane, c(4)));
  Value colBase = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, c(4)), c(2));
  Value result = LLVM::PoisonOp::create(b, loc, acc.getType());
  for (int64_t i = 0; i < n / 2; ++i) {
    Value row = arith::AddIOp::create(b, loc, rowBase, c(8 * (i / 2 % 2)));
    Value col = arith::AddIOp::create(b, loc, colBase, c(8 * (i / 4) + i % 2));
    Value init = op.getScaleD() == NVVM::WGMMAScaleOut::one
                     ? Value(LLVM::ExtractValueOp::create(b, loc, acc, i))
                     : floatConst(b, loc, f32, 0.0);
    auto loop = scf::ForOp::create(
        b, loc, c(0), c(16), c(1), ValueRange{init},
        [&](OpBuilder &lb, Location l, Value k, ValueRange iter) {
          Value x = load(lb, l, a, row, k), y = load(lb, l, bo, col, k);
          Value sum = arith::AddFOp::create(lb, l, iter[0],
                                            arith::MulFOp::create(lb, l, x, y));
          scf::YieldOp::create(lb, l, sum);
        });
    result = LLVM::InsertValueOp::create(b, loc, result, loop.getResult(0), i);
  }
  return result;
}

LogicalResult Emulator::run() {
  std::optional<int64_t> blockX = getConstantIntValue(launch.getBlockSizeX());
  if (!blockX || *blockX % kLanes != 0 ||
      !matchPattern(launch.getBlockSizeY(), m_One()) ||
      !matchPattern(launch.getBlockSizeZ(), m_One()) ||
      !matchPattern(launch.getGridSizeZ(), m_One()))
    return launch.emitError("posenc-gpu-emulate-tensor-cores: expected the "
                            "tensor-core kernel's launch shape (static x "
                            "block of whole warps, 2-d grid)");
  threads = *blockX;
  int64_t warps = threads / kLanes;
  Type index = b.getIndexType(), f32 = b.getF32Type();

  // Block-shared buffers: the workgroup tiles and the collectives' slots.
  DenseMap<StringAttr, Value> tiles;
  SmallVector<memref::GetGlobalOp> gets;
  launch.getBody().walk([&](memref::GetGlobalOp get) { gets.push_back(get); });
  for (memref::GetGlobalOp get : gets) {
    if (tiles.count(get.getNameAttr().getAttr()))
      continue;
    MemRefType type = get.getType();
    tiles[get.getNameAttr().getAttr()] = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), type.getElementType()));
  }
  // The global whose address the kernel takes (for wgmma descriptors).
  StringAttr addressed;
  WalkResult walk =
      launch.getBody().walk([&](memref::ExtractAlignedPointerAsIndexOp op) {
        auto get = op.getSource().getDefiningOp<memref::GetGlobalOp>();
        if (!get || (addressed && addressed != get.getNameAttr().getAttr())) {
          op.emitError("posenc-gpu-emulate-tensor-cores: only the address "
                       "of one workgroup global per kernel is emulated");
          return WalkResult::interrupt();
        }
        addressed = get.getNameAttr().getAttr();
        return WalkResult::advance();
      });
  if (walk.wasInterrupted())
    return failure();
  if (addressed) {
    window = tiles.lookup(addressed);
    auto type = cast<MemRefType>(window.getType());
    if (type.getRank() != 1 || !type.getElementType().isInteger(8))
      return launch.emitError("posenc-gpu-emulate-tensor-cores: the "
                              "addressed workgroup global must be bytes");
    windowBytes = type.getDimSize(0);
  }
  rowSlots = scratch({threads}, index);
  colSlots = scratch({threads}, index);
  shuffleSlots = scratch({threads}, f32);
  aBuf = scratch({warps, 16, 16}, f32);
  bBuf = scratch({warps, 16, 8}, f32);

  // One OpenMP thread per GPU thread: the team of the parallel loop below
  // must have exactly `threads` threads, or the barriers would wait for
  // threads that have no iteration (or run two iterations on one thread).
  // The CPU pipeline schedules the loop dynamically (posenc-omp-schedule),
  // which keeps one iteration per thread: no thread finishes an iteration
  // before every thread of the team has reached its first barrier, each
  // holding an iteration of its own, so none is left for a second take (a
  // body without barriers would not need it: its iterations are
  // independent, each addressed by its own index).
  // The caller's setting is restored after the launch.
  Value previous = func::CallOp::create(b, loc, maxThreadsFn, ValueRange{})
                       .getResult(0);
  func::CallOp::create(
      b, loc, setNumThreadsFn,
      ValueRange{arith::ConstantIntOp::create(b, loc, threads, 32)});
  auto loopX = scf::ForOp::create(b, loc, c(0), launch.getGridSizeX(), c(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(loopX);
    func::CallOp::create(b, loc, setNumThreadsFn, ValueRange{previous});
  }
  b.setInsertionPointToStart(loopX.getBody());
  auto loopY = scf::ForOp::create(b, loc, c(0), launch.getGridSizeY(), c(1));
  b.setInsertionPointToStart(loopY.getBody());
  auto par = scf::ParallelOp::create(b, loc, ValueRange{c(0)},
                                     ValueRange{c(threads)}, ValueRange{c(1)});
  b.setInsertionPointToStart(par.getBody());
  tid = par.getInductionVars()[0];
  // The runtime may still give fewer threads (a thread limit): fail rather
  // than deadlock.
  Value team = func::CallOp::create(b, loc, numThreadsFn, ValueRange{})
                   .getResult(0);
  Value exact = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, team,
      arith::ConstantIntOp::create(b, loc, threads, 32));
  cf::AssertOp::create(b, loc, exact,
                       "posenc-gpu-emulate-tensor-cores: the OpenMP team "
                       "must have one thread per GPU thread (" +
                           std::to_string(threads) + ")");
  lane = arith::RemUIOp::create(b, loc, tid, c(kLanes));
  warp = arith::DivUIOp::create(b, loc, tid, c(kLanes));
  warpBase = arith::MulIOp::create(b, loc, warp, c(kLanes));

  IRMapping map;
  Value zero = c(0);
  map.map(launch.getBlockIds().x, loopX.getInductionVar());
  map.map(launch.getBlockIds().y, loopY.getInductionVar());
  map.map(launch.getBlockIds().z, zero);
  map.map(launch.getThreadIds().x, tid);
  map.map(launch.getThreadIds().y, zero);
  map.map(launch.getThreadIds().z, zero);
  map.map(launch.getGridSizeX(), launch.getGridSizeX());
  Block &body = launch.getBody().front();
  map.map(body.getArgument(6), launch.getGridSizeX());
  map.map(body.getArgument(7), launch.getGridSizeY());
  map.map(body.getArgument(8), launch.getGridSizeZ());
  map.map(body.getArgument(9), launch.getBlockSizeX());
  map.map(body.getArgument(10), launch.getBlockSizeY());
  map.map(body.getArgument(11), launch.getBlockSizeZ());
  for (Operation &op : body.without_terminator())
    b.clone(op, map);

  // Rewrite the clones' GPU-only ops.
  SmallVector<Operation *> toRewrite;
  par.getBody()->walk([&](Operation *op) {
    if (isa<memref::GetGlobalOp, gpu::BarrierOp, gpu::ShuffleOp,
            nvgpu::LdMatrixOp, nvgpu::MmaSyncOp, NVVM::MmaOp,
            NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaFenceAlignedOp,
            NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
            NVVM::FenceProxyOp>(op))
      toRewrite.push_back(op);
  });
  // Addresses first, while their sources are still the get_globals.
  SmallVector<memref::ExtractAlignedPointerAsIndexOp> addresses;
  par.getBody()->walk([&](memref::ExtractAlignedPointerAsIndexOp op) {
    addresses.push_back(op);
  });
  for (memref::ExtractAlignedPointerAsIndexOp op : addresses) {
    b.setInsertionPoint(op);
    op.getResult().replaceAllUsesWith(c(kWindowAddress));
    op->erase();
  }
  for (Operation *op : toRewrite) {
    b.setInsertionPoint(op);
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      Value tile = tiles.lookup(get.getNameAttr().getAttr());
      // Users are memref.load/store and nvgpu.ldmatrix, rewritten in
      // place, and memref.view, rebuilt on the tile (its type has no
      // memory space).
      for (Operation *user : llvm::make_early_inc_range(get->getUsers())) {
        auto view = dyn_cast<memref::ViewOp>(user);
        if (!view)
          continue;
        MemRefType type = view.getType();
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(view);
        Value rebuilt = memref::ViewOp::create(
            b, loc, MemRefType::get(type.getShape(), type.getElementType()),
            tile, view.getByteShift(), view.getSizes());
        view.getResult().replaceAllUsesWith(rebuilt);
        view->erase();
      }
      get.getResult().replaceAllUsesWith(tile);
    } else if (isa<gpu::BarrierOp>(op)) {
      barrier();
    } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      if (shuffle.getMode() != gpu::ShuffleMode::XOR)
        return op->emitError("posenc-gpu-emulate-tensor-cores: only xor "
                             "shuffles are emulated");
      Value r = shuffleXor(shuffle);
      shuffle.getShuffleResult().replaceAllUsesWith(r);
      shuffle.getValid().replaceAllUsesWith(
          arith::ConstantIntOp::create(b, loc, 1, 1).getResult());
    } else if (auto wgmma = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
      FailureOr<Value> d = warpgroupMma(wgmma);
      if (failed(d))
        return failure();
      wgmma.getResults().replaceAllUsesWith(*d);
    } else if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
                   NVVM::WgmmaWaitGroupSyncOp, NVVM::FenceProxyOp>(op)) {
      // Ordering only: the emulated wgmma is synchronous, and the kernel's
      // barriers order the threads' shared-memory accesses.
    } else if (auto ld = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      ld.getResult().replaceAllUsesWith(ldmatrix(ld));
    } else if (auto m = dyn_cast<nvgpu::MmaSyncOp>(op)) {
      m.getResult().replaceAllUsesWith(
          mma(m.getMatrixA(), m.getMatrixB(), m.getMatrixC()));
    } else if (auto m = dyn_cast<NVVM::MmaOp>(op)) {
      // bf16: the operands are 32-bit registers of two bf16 each (element
      // 0 in the low half), the result a struct of four f32.
      auto regsToFrag = [&](ValueRange regs) {
        SmallVector<Value> elems;
        for (Value reg : regs) {
          Value v1 = vector::BroadcastOp::create(
              b, loc, VectorType::get({1}, b.getI32Type()), reg);
          Value pair = vector::BitCastOp::create(
              b, loc, VectorType::get({2}, b.getBF16Type()), v1);
          for (int64_t e = 0; e < 2; ++e)
            elems.push_back(vector::ExtractOp::create(b, loc, pair, e));
        }
        auto type = VectorType::get(
            {static_cast<int64_t>(regs.size()), 2}, b.getBF16Type());
        return vector::FromElementsOp::create(b, loc, type, elems).getResult();
      };
      auto accType = VectorType::get({2, 2}, f32);
      Value acc = vector::FromElementsOp::create(b, loc, accType,
                                                 m.getOperandC());
      Value d = mma(regsToFrag(m.getOperandA()), regsToFrag(m.getOperandB()),
                    acc);
      for (Operation *user : llvm::make_early_inc_range(m->getUsers())) {
        auto extract = dyn_cast<LLVM::ExtractValueOp>(user);
        if (!extract || extract.getPosition().size() != 1)
          return user->emitError("posenc-gpu-emulate-tensor-cores: "
                                 "unexpected use of nvvm.mma.sync");
        int64_t i = extract.getPosition()[0];
        b.setInsertionPoint(extract);
        extract.getResult().replaceAllUsesWith(vector::ExtractOp::create(
            b, loc, d, ArrayRef<int64_t>{i / 2, i % 2}));
        extract->erase();
      }
    }
    op->erase();
  }
  launch->erase();
  return success();
}

namespace {

struct PosencGpuEmulateTensorCoresPass
    : posenc::impl::PosencGpuEmulateTensorCoresPassBase<
          PosencGpuEmulateTensorCoresPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) {
      if (launch->hasAttr(kTensorCoreKernelAttr))
        launches.push_back(launch);
    });
    if (launches.empty())
      return;
    OpBuilder b(module.getBodyRegion());
    auto declare = [&](StringRef name, FunctionType type) {
      if (auto fn = module.lookupSymbol<func::FuncOp>(name))
        return fn;
      auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
      fn.setPrivate();
      return fn;
    };
    func::FuncOp barrierFn =
        declare("GOMP_barrier", b.getFunctionType({}, {}));
    func::FuncOp numThreadsFn = declare(
        "omp_get_num_threads", b.getFunctionType({}, {b.getI32Type()}));
    func::FuncOp setNumThreadsFn = declare(
        "omp_set_num_threads", b.getFunctionType({b.getI32Type()}, {}));
    func::FuncOp maxThreadsFn = declare(
        "omp_get_max_threads", b.getFunctionType({}, {b.getI32Type()}));
    for (gpu::LaunchOp launch : launches)
      if (failed(Emulator(launch, barrierFn, numThreadsFn, setNumThreadsFn,
                          maxThreadsFn)
                     .run()))
        return signalPassFailure();
    // The workgroup globals are unused now.
    SmallVector<memref::GlobalOp> globals(module.getOps<memref::GlobalOp>());
    for (memref::GlobalOp global : globals)
      if (isa_and_nonnull<gpu::AddressSpaceAttr>(global.getType().getMemorySpace()) &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global->erase();
  }
};

} // namespace
