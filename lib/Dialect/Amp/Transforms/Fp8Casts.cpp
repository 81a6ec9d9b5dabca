//===- Fp8Casts.cpp - --amp-fp8-casts -------------------------------------===//
//
// One amp.fp8_cast per (tensor, scale, format), shared by the FP8 GEMMs that
// read the tensor with that scale (delayed scaling gives every GEMM of a
// layer the same scales), each GEMM rewritten to read its operands K-major.
// A tensor is found through the reshape that folds an activation's batch
// dimensions into rows, so the forward GEMM (which reads [B, T, K]) and the
// weight gradient (which reads it reshaped to [B*T, K]) share one cast.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFP8CASTS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// A tensor as the GEMMs read it: its rows [R, K], and the value whose
/// reshape they are (the value itself when it is 2-D already).
struct Rows {
  Value root;
  int64_t rows, k;
};

/// `value` as rows: a 2-D value, or a reshape that folds the leading
/// dimensions of its input into rows (the same last dimension), or a value
/// of higher rank read as its rows.
Rows rowsOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t k = type.getShape().back();
  int64_t rows = type.getNumElements() / std::max<int64_t>(k, 1);
  if (auto reshape = value.getDefiningOp<ReshapeOp>()) {
    auto input = cast<RankedTensorType>(reshape.getInput().getType());
    if (type.getRank() == 2 && input.getRank() > 2 &&
        input.getShape().back() == k)
      return {reshape.getInput(), rows, k};
  }
  return {value, rows, k};
}

struct CastKey {
  Value root, scales;
  int64_t index;
  Type format;
  bool operator==(const CastKey &other) const {
    return root == other.root && scales == other.scales &&
           index == other.index && format == other.format;
  }
};

} // namespace

namespace llvm {
template <> struct DenseMapInfo<CastKey> {
  static CastKey getEmptyKey() {
    return {DenseMapInfo<Value>::getEmptyKey(), Value(), 0, Type()};
  }
  static CastKey getTombstoneKey() {
    return {DenseMapInfo<Value>::getTombstoneKey(), Value(), 0, Type()};
  }
  static unsigned getHashValue(const CastKey &key) {
    return hash_combine(key.root.getAsOpaquePointer(),
                        key.scales.getAsOpaquePointer(), key.index,
                        key.format.getAsOpaquePointer());
  }
  static bool isEqual(const CastKey &a, const CastKey &b) { return a == b; }
};
} // namespace llvm

namespace {

class Fp8Casts {
public:
  explicit Fp8Casts(func::FuncOp func) : func(func), b(func.getContext()) {}

  void run() {
    SmallVector<MatmulOp> gemms;
    func.walk([&](MatmulOp matmul) {
      if (matmul.isFp8() && matmul.getScales() && foldable(matmul))
        gemms.push_back(matmul);
    });
    for (MatmulOp matmul : gemms)
      rewrite(matmul);
    // The amaxes the casts took.
    SmallVector<Fp8AmaxOp> amaxes;
    func.walk([&](Fp8AmaxOp amax) { amaxes.push_back(amax); });
    for (Fp8AmaxOp amax : amaxes) {
      Value root = rowsOf(amax.getInput()).root;
      auto it = castOfRoot.find(root);
      if (it == castOfRoot.end())
        continue;
      amax.getResult().replaceAllUsesWith(it->second.getAmax());
      amax.erase();
    }
  }

private:
  /// Whether `matmul` reads matrices (2-D operands, or an lhs with batch
  /// dimensions that fold into rows).
  static bool foldable(MatmulOp matmul) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
    Type element = lhs.getElementType();
    if (element.isFloat8E4M3FN() || element.isFloat8E5M2())
      return false; // cast already
    return rhs.getRank() == 2 &&
           (lhs.getRank() == 2 || !matmul.getTransposeLhs());
  }

  /// The cast of `operand` (as rows) by scale `index` to `format`.
  Fp8CastOp castOf(Value operand, Value scales, int64_t index, Type format) {
    Rows rows = rowsOf(operand);
    CastKey key{rows.root, scales, index, format};
    auto it = casts.find(key);
    if (it != casts.end())
      return it->second;
    // Right after the tensor (and the scales) are defined.
    Value last = rows.root;
    if (auto scalesOp = scales.getDefiningOp();
        scalesOp && (!last.getDefiningOp() ||
                     last.getDefiningOp()->isBeforeInBlock(scalesOp)))
      last = scales;
    if (Operation *def = last.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&func.getBody().front());
    Location loc = operand.getLoc();
    Value input = rows.root;
    auto rootType = cast<RankedTensorType>(input.getType());
    if (rootType.getRank() != 2)
      input =
          b.create<ReshapeOp>(loc, rootType.clone({rows.rows, rows.k}), input);
    auto fp8Cast =
        b.create<Fp8CastOp>(loc, input, scales, index, cast<FloatType>(format));
    casts[key] = fp8Cast;
    castOfRoot.try_emplace(rows.root, fp8Cast);
    return fp8Cast;
  }

  void rewrite(MatmulOp matmul) {
    ArrayRef<int64_t> index = *matmul.getFp8ScaleIndex();
    Value scales = matmul.getScales();
    Fp8CastOp lhs =
        castOf(matmul.getLhs(), scales, index[0], *matmul.getLhsFp8());
    Fp8CastOp rhs =
        castOf(matmul.getRhs(), scales, index[1], *matmul.getRhsFp8());
    // K-major: lhs [M, K], rhs [N, K] (transposed).
    Value a = matmul.getTransposeLhs() ? lhs.getTransposed() : lhs.getData();
    Value bb = matmul.getTransposeRhs() ? rhs.getData() : rhs.getTransposed();
    auto out = cast<RankedTensorType>(matmul.getType());
    int64_t n = out.getShape().back();
    auto flat = out.clone({out.getNumElements() / n, n});
    b.setInsertionPoint(matmul);
    auto product = b.create<MatmulOp>(
        matmul.getLoc(), flat, a, bb, UnitAttr(), b.getUnitAttr(),
        matmul.getAccTypeAttr(), matmul.getBias(), matmul.getLhsFp8Attr(),
        matmul.getRhsFp8Attr(), TypeAttr(), scales,
        b.getDenseI64ArrayAttr({index[0], index[1]}));
    Value result = product.getResult();
    if (flat != out)
      result = b.create<ReshapeOp>(matmul.getLoc(), out, result);
    matmul.getResult().replaceAllUsesWith(result);
    matmul.erase();
  }

  func::FuncOp func;
  OpBuilder b;
  llvm::DenseMap<CastKey, Fp8CastOp> casts;
  /// The first cast of each tensor, whose amax is the tensor's.
  llvm::DenseMap<Value, Fp8CastOp> castOfRoot;
};

struct AmpFp8Casts : amp::impl::AmpFp8CastsBase<AmpFp8Casts> {
  void runOnOperation() override { Fp8Casts(getOperation()).run(); }
};

} // namespace
