//===- Autocast.cpp - --amp-autocast --------------------------------------===//
//
// Whole-graph precision assignment and cast placement. The algorithm and the
// default op lists are documented in docs/autocast.md.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/PrecisionPolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPAUTOCAST
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The precision an op runs in.
enum class Precision {
  Unset,
  Low,       ///< compute type in, compute type out
  High,      ///< original (f32) types in and out
  HighLowIO, ///< computes in f32, reads and writes the compute type
};

struct Decision {
  PrecisionCategory category = PrecisionCategory::Follow;
  Precision precision = Precision::Unset;
  /// Whether its f32 results spread keep-fp32 to promote/follow consumers:
  /// true for keep-fp32 ops, ops forced to f32 and ops step 1 made f32.
  bool spreadsKeepFp32 = false;
  std::string reason;
};

/// Where a value's precision comes from, for the placement rules.
enum class Origin {
  Low,      ///< in the compute type (a low op, a low-typed input)
  HighOp,   ///< from a keep-fp32 op, or a constant the compute type lacks
  HighType, ///< f32 but not a keep-fp32 result (an argument, a user cast)
  Flexible, ///< a constant exact in the compute type: any precision
  None,     ///< not a floating-point tensor
};

std::string describeLoc(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

/// `text` inside a DOT string: quotes and backslashes escaped, line breaks
/// as DOT writes them.
std::string dotEscape(StringRef text) {
  std::string escaped;
  for (char c : text) {
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "' at " +
         describeLoc(op->getLoc());
}

std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

int64_t byteWidth(Type element) {
  return (element.getIntOrFloatBitWidth() + 7) / 8;
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

Type withElementType(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

/// The type an f32 op gives a value: f32 for f16/bf16, unchanged for f32
/// and f64.
Type highType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  Type element = tensor.getElementType();
  if (element.isF16() || element.isBF16())
    return tensor.clone(Float32Type::get(type.getContext()));
  return type;
}

/// Whether every element of `attr` converts to `target` without rounding.
bool isExactIn(DenseElementsAttr attr, FloatType target) {
  if (!isa<FloatType>(attr.getElementType()))
    return false;
  for (APFloat value : attr.getValues<APFloat>()) {
    bool losesInfo = false;
    APFloat::opStatus status = value.convert(
        target.getFloatSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    if (losesInfo || (status & (APFloat::opOverflow | APFloat::opInexact)))
      return false;
  }
  return true;
}

DenseElementsAttr convertConstant(DenseElementsAttr attr, FloatType target) {
  return cast<DenseFPElementsAttr>(attr).mapValues(
      target, [&](const APFloat &value) {
        APFloat converted = value;
        bool losesInfo = false;
        converted.convert(target.getFloatSemantics(),
                          APFloat::rmNearestTiesToEven, &losesInfo);
        return converted.bitcastToAPInt();
      });
}

/// What compute-type fp8 adds: which GEMMs become FP8, in what formats.
struct Fp8Options {
  bool enabled = false;
  /// The gradient's format in the backward GEMMs: e5m2 (HYBRID) or e4m3.
  FloatType gradFormat;
  /// Whether the first and last linear layers stay in the base type.
  bool keepFirstLast = true;
  /// Delayed scaling (else current): each FP8 GEMM's scales, amax history
  /// of `history` steps and overflow counts are buffers of its function.
  bool delayed = false;
  int64_t history = 1024;
  double margin = 0.0;
  bool mostRecent = false;
};

/// Places the casts of one function.
class FunctionAutocast {
public:
  FunctionAutocast(func::FuncOp func, FloatType lowType,
                   const PrecisionPolicy &policy, bool keepFp32LowIO,
                   const Fp8Options &fp8)
      : func(func), lowType(lowType), policy(policy),
        keepFp32LowIO(keepFp32LowIO), fp8(fp8) {}

  /// Sorts constants into exact and pinned ones and records in `decisions`
  /// the category of every op with a PrecisionOpInterface (the policy's,
  /// else the interface's default).
  LogicalResult classify();
  /// Gives every classified op a precision: the placement rules of
  /// docs/autocast.md, in order.
  void assignPrecisions();
  /// Places the casts and retypes the results; folds bias adds last.
  void rewrite();
  /// Under compute-type fp8, makes the eligible low GEMMs FP8 GEMMs (or
  /// fails on an amp.fp8 = true it cannot honour).
  LogicalResult assignFp8();
  /// Delayed scaling: gives each FP8 GEMM autocast made its state, three
  /// buffers after the function's arguments (`<weight>.fp8_scale`,
  /// `.fp8_amax_history`, `.fp8_overflows`), the scales its operand.
  LogicalResult addDelayedScaling(ArrayRef<MatmulOp> gemms);

  llvm::json::Object report();
  /// Adds to `entry` (a decision of the report) the figures of `op` a
  /// per-layer summary shows: result, bytes, FLOPs, parameters read.
  void addLayerFigures(Operation *op, llvm::json::Object &entry);
  std::string summaryLine();
  void emitRemarks();
  void writeDot(llvm::raw_ostream &os);

private:
  bool participates(Operation *op) const { return decisions.count(op); }
  /// The parameter `value` is, directly or through a cast, or null.
  BlockArgument parameterOf(Value value);
  Origin originOf(Value value) const;
  Operation *lowSourceOf(Value value) const;
  bool isFree(Operation *op) const;
  SmallVector<unsigned> precisionOperands(Operation *op) const;
  std::optional<unsigned> narrowedTarget(Operation *op) const;
  bool offersLowIO(Operation *op) const;
  Value getOrCreateCast(Value value, Type target);
  void removeCastChains();
  void foldBiasAdds();

  func::FuncOp func;
  FloatType lowType;
  const PrecisionPolicy &policy;
  bool keepFp32LowIO;
  const Fp8Options &fp8;
  /// Each matmul's FP8 choice and why, under compute-type fp8.
  llvm::MapVector<Operation *, std::string> fp8Reasons;
  int64_t fp8Gemms = 0, fp8Matmuls = 0;

  SmallVector<Operation *> ops; // body in order, terminator included
  llvm::MapVector<Operation *, Decision> decisions;
  /// Constants exact in the compute type.
  llvm::DenseSet<Operation *> flexibleConstants;
  /// Constants the compute type cannot hold exactly, kept in f32.
  llvm::MapVector<Operation *, std::string> pinnedConstants;
  llvm::DenseMap<Value, Type> originalTypes;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  /// The casts the pass created that are still in the IR; the report reads
  /// them as they are at the end (chain removal may rewire them).
  SmallVector<CastOp> createdCasts;
  /// Flexible constants that had uses before the rewrite.
  llvm::DenseSet<Operation *> usedConstants;
  Operation *lastArgCast = nullptr;
  /// Bias adds folded into the low-precision matmul before them.
  int64_t foldedBiasAdds = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Classification
//===----------------------------------------------------------------------===//

LogicalResult FunctionAutocast::classify() {
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    for (Value result : op->getResults())
      originalTypes[result] = result.getType();
  for (BlockArgument arg : func.getArguments())
    originalTypes[arg] = arg.getType();

  for (Operation *op : ops) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1 &&
        isFloatTensor(op->getResult(0).getType())) {
      DenseElementsAttr value;
      if (matchPattern(op->getResult(0), m_Constant(&value)) &&
          isExactIn(value, lowType)) {
        flexibleConstants.insert(op);
        if (!op->use_empty())
          usedConstants.insert(op);
      } else {
        std::string why;
        llvm::raw_string_ostream os(why);
        os << "a value of the constant is not exactly representable in "
           << lowType;
        if (value) {
          for (APFloat element : value.getValues<APFloat>()) {
            bool losesInfo = false;
            APFloat converted = element;
            converted.convert(lowType.getFloatSemantics(),
                              APFloat::rmNearestTiesToEven, &losesInfo);
            if (losesInfo) {
              SmallString<16> text, rounded;
              element.toString(text);
              converted.toString(rounded);
              os << " (" << text << " would become " << rounded << ")";
              break;
            }
          }
        }
        pinnedConstants[op] = why;
      }
      continue;
    }
    auto precisionOp = dyn_cast<PrecisionOpInterface>(op);
    if (!precisionOp)
      continue;
    Decision decision;
    decision.category = precisionOp.getDefaultPrecisionCategory();
    std::string source = "default category";
    if (std::optional<PrecisionCategory> category =
            policy.lookup(op->getName().getStringRef())) {
      decision.category = *category;
      source = policy.getSource(op->getName().getStringRef()).str();
    }
    if (auto forced = op->getAttrOfType<TypeAttr>(kPrecisionAttrName)) {
      Type type = forced.getValue();
      if (type.isF32()) {
        decision.precision = Precision::High;
        decision.spreadsKeepFp32 = true;
      } else if (type == lowType) {
        decision.precision = Precision::Low;
      } else {
        return op->emitOpError()
               << "forces " << type << " but the compute type is " << lowType;
      }
      decision.reason = "forced by " + std::string(kPrecisionAttrName);
      if (auto why = op->getAttrOfType<StringAttr>(kPrecisionReasonAttrName))
        decision.reason += " (" + why.str() + ")";
    } else if (decision.category == PrecisionCategory::LowerPrecision) {
      decision.precision = Precision::Low;
      decision.reason = "lower-precision (" + source + ")";
    } else if (decision.category == PrecisionCategory::KeepFp32) {
      decision.precision = Precision::High;
      decision.spreadsKeepFp32 = true;
      decision.reason = "keep-fp32 (" + source + ")";
    }
    decisions[op] = decision;
  }
  return success();
}

bool FunctionAutocast::isFree(Operation *op) const {
  auto it = decisions.find(op);
  return it != decisions.end() && it->second.precision == Precision::Unset;
}

SmallVector<unsigned> FunctionAutocast::precisionOperands(Operation *op) const {
  SmallVector<unsigned> indices;
  auto precisionOp = cast<PrecisionOpInterface>(op);
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    if (precisionOp.isPrecisionOperand(i))
      indices.push_back(i);
  return indices;
}

/// For a loss: its first label or target (a precision operand after the
/// input) that the compute type would narrow, if any. Under
/// keep-fp32-low-io only the input, an activation, may be narrowed.
std::optional<unsigned> FunctionAutocast::narrowedTarget(Operation *op) const {
  if (!op->hasTrait<OpTrait::amp::LossFamily>())
    return std::nullopt;
  for (unsigned i : precisionOperands(op)) {
    Type original = originalTypes.lookup(op->getOperand(i));
    if (i != 0 && isFloatTensor(original) &&
        getElementTypeOrSelf(original) != lowType)
      return i;
  }
  return std::nullopt;
}

/// Whether `op`, a keep-fp32 op in f32, may compute in f32 with
/// lower-precision input and output: with keep-fp32-low-io, or for an op
/// made for it (batch norm, as cuDNN runs it), where its input is in lower
/// precision. It does unless a loss's label or target would be narrowed
/// (narrowedTarget).
bool FunctionAutocast::offersLowIO(Operation *op) const {
  auto it = decisions.find(op);
  if (it == decisions.end())
    return false;
  const Decision &decision = it->second;
  auto precisionOp = dyn_cast<PrecisionOpInterface>(op);
  bool ownLowIO = precisionOp && precisionOp.keepsLowPrecisionIO();
  return (keepFp32LowIO || ownLowIO) && decision.precision == Precision::High &&
         decision.category == PrecisionCategory::KeepFp32 &&
         !op->hasAttr(kPrecisionAttrName) && op->getNumOperands() > 0 &&
         originOf(op->getOperand(0)) == Origin::Low;
}

Origin FunctionAutocast::originOf(Value value) const {
  if (!isFloatTensor(value.getType()))
    return Origin::None;
  Type element =
      cast<RankedTensorType>(originalTypes.lookup(value)).getElementType();
  Operation *def = value.getDefiningOp();
  if (!def)
    return element == lowType ? Origin::Low : Origin::HighType;
  if (flexibleConstants.count(def))
    return Origin::Flexible;
  if (pinnedConstants.count(def))
    return Origin::HighOp;
  auto it = decisions.find(def);
  if (it == decisions.end())
    return element == lowType ? Origin::Low : Origin::HighType;
  switch (it->second.precision) {
  case Precision::Low:
  case Precision::HighLowIO:
    return Origin::Low;
  case Precision::High:
    return it->second.spreadsKeepFp32 ? Origin::HighOp : Origin::HighType;
  case Precision::Unset:
    return Origin::None;
  }
  llvm_unreachable("unknown precision");
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

void FunctionAutocast::assignPrecisions() {
  // 1. keep-fp32 spreads forward through promote/follow ops, but not from
  // an op that will read and write the compute type (step 3): its results
  // are in lower precision.
  for (Operation *op : ops) {
    if (!isFree(op))
      continue;
    for (unsigned i : precisionOperands(op)) {
      Value operand = op->getOperand(i);
      Operation *def = operand.getDefiningOp();
      if (originOf(operand) != Origin::HighOp ||
          (offersLowIO(def) && !narrowedTarget(def)))
        continue;
      Decision &decision = decisions[op];
      decision.precision = Precision::High;
      decision.spreadsKeepFp32 = true;
      decision.reason = pinnedConstants.count(def)
                            ? "f32 constant input " + describeOp(def)
                            : "keep-fp32 spreads from " + describeOp(def);
      break;
    }
  }

  // 2. Promote/follow ops between two low-precision ops stay low.
  llvm::DenseMap<Operation *, Operation *> lowUpstream; // op -> a low source
  for (Operation *op : ops) {
    if (!isFree(op))
      continue;
    for (unsigned i : precisionOperands(op)) {
      Operation *def = op->getOperand(i).getDefiningOp();
      if (!def)
        continue;
      if (participates(def) &&
          decisions.lookup(def).precision == Precision::Low) {
        lowUpstream[op] = def;
        break;
      }
      if (Operation *source = lowUpstream.lookup(def)) {
        lowUpstream[op] = source;
        break;
      }
    }
  }
  llvm::DenseMap<Operation *, Operation *> lowDownstream; // op -> a low user
  for (Operation *op : llvm::reverse(ops)) {
    if (!isFree(op))
      continue;
    for (Operation *user : op->getUsers()) {
      if (!participates(user))
        continue;
      bool asPrecisionOperand =
          llvm::any_of(precisionOperands(user), [&](unsigned i) {
            return user->getOperand(i).getDefiningOp() == op;
          });
      if (!asPrecisionOperand)
        continue;
      if (decisions.lookup(user).precision == Precision::Low) {
        lowDownstream[op] = user;
        break;
      }
      if (Operation *target = lowDownstream.lookup(user)) {
        lowDownstream[op] = target;
        break;
      }
    }
  }
  for (Operation *op : ops) {
    if (!isFree(op) || !lowUpstream.count(op) || !lowDownstream.count(op))
      continue;
    Decision &decision = decisions[op];
    decision.precision = Precision::Low;
    decision.reason = "between lower-precision ops " +
                      describeOp(lowUpstream[op]) + " and " +
                      describeOp(lowDownstream[op]);
  }

  // 3. The rest take the widest of their inputs.
  for (Operation *op : ops) {
    if (!participates(op))
      continue;
    Decision &decision = decisions[op];
    if (decision.precision == Precision::Unset) {
      Value widest, low;
      for (unsigned i : precisionOperands(op)) {
        Origin origin = originOf(op->getOperand(i));
        if ((origin == Origin::HighOp || origin == Origin::HighType) && !widest)
          widest = op->getOperand(i);
        if (origin == Origin::Low && !low)
          low = op->getOperand(i);
      }
      auto describe = [&](Value value) {
        if (auto arg = dyn_cast<BlockArgument>(value))
          return describeArgument(func, arg.getArgNumber());
        return describeOp(value.getDefiningOp());
      };
      if (widest) {
        decision.precision = Precision::High;
        decision.reason = "widest input is f32 (" + describe(widest) + ")";
      } else if (low) {
        decision.precision = Precision::Low;
        decision.reason = "follows its input (" + describe(low) + ")";
      } else {
        decision.precision = Precision::High;
        decision.reason = "no low-precision input";
      }
    }
    // Keep-fp32 ops fed in low precision may keep their I/O low: all of
    // them with keep-fp32-low-io, those made for it (batch norm) always.
    if (offersLowIO(op)) {
      // Only activations are narrowed: a loss's labels and targets keep
      // their type (an f32 regression target above 65504 is inf in f16).
      // A loss whose target the compute type would narrow stays f32.
      if (std::optional<unsigned> target = narrowedTarget(op)) {
        decision.reason +=
            "; f32 I/O despite keep-fp32-low-io: its target (operand #" +
            std::to_string(*target) + ", " +
            typeName(originalTypes.lookup(op->getOperand(*target))) +
            ") keeps its type";
      } else {
        decision.precision = Precision::HighLowIO;
        decision.reason += "; computes in f32 with " +
                           std::string(stringifyPrecisionCategory(
                               PrecisionCategory::LowerPrecision)) +
                           (keepFp32LowIO ? " I/O (keep-fp32-low-io)"
                                          : " I/O (as cuDNN runs it)");
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

Value FunctionAutocast::getOrCreateCast(Value value, Type target) {
  if (value.getType() == target)
    return value;
  // An exact user cast in front: convert its source instead (no chains).
  if (auto inner = value.getDefiningOp<CastOp>()) {
    auto source = cast<FloatType>(
        cast<RankedTensorType>(inner.getInput().getType()).getElementType());
    auto middle = cast<FloatType>(inner.getType().getElementType());
    if (isExactConversion(source, middle))
      return getOrCreateCast(inner.getInput(), target);
  }
  auto key = std::make_pair(value, target);
  if (Value cached = casts.lookup(key))
    return cached;

  OpBuilder builder(func.getContext());
  Operation *def = value.getDefiningOp();
  Location loc = def ? def->getLoc() : func.getLoc();
  auto targetElement =
      cast<FloatType>(cast<RankedTensorType>(target).getElementType());
  Value result;
  if (def && flexibleConstants.count(def)) {
    // Exact by construction: a new constant, no cast.
    DenseElementsAttr attr;
    (void)matchPattern(value, m_Constant(&attr));
    builder.setInsertionPointAfter(def);
    result =
        builder.create<ConstantOp>(loc, convertConstant(attr, targetElement))
            .getResult();
  } else {
    if (def) {
      builder.setInsertionPointAfter(def);
    } else if (lastArgCast) {
      builder.setInsertionPointAfter(lastArgCast);
    } else {
      builder.setInsertionPointToStart(&func.getBody().front());
    }
    auto castOp = builder.create<CastOp>(loc, target, value);
    if (!def)
      lastArgCast = castOp;
    result = castOp.getResult();
    createdCasts.push_back(castOp);
  }
  casts[key] = result;
  return result;
}

void FunctionAutocast::rewrite() {
  for (Operation *op : ops) {
    auto it = decisions.find(op);
    if (it == decisions.end()) {
      // Anything else (return, calls, user casts) sees its original types.
      for (OpOperand &operand : op->getOpOperands())
        if (isFloatTensor(operand.get().getType()))
          operand.set(getOrCreateCast(operand.get(),
                                      originalTypes.lookup(operand.get())));
      continue;
    }
    Precision precision = it->second.precision;
    SmallVector<unsigned> indices = precisionOperands(op);
    // Low I/O: the activation goes low; a norm's weight and bias go f32
    // (they may differ), a loss's labels and targets keep their type (which
    // is the compute type: assignPrecisions() saw to that), every other op
    // needs matching operands.
    bool isNorm = op->hasTrait<OpTrait::amp::NormalizationFamily>();
    bool isLossOp = op->hasTrait<OpTrait::amp::LossFamily>();
    for (unsigned i : indices) {
      Value operand = op->getOperand(i);
      Type original = originalTypes.lookup(operand);
      bool lowIO = precision == Precision::HighLowIO;
      Type type;
      if (precision == Precision::Low ||
          (lowIO && (i == 0 || (!isNorm && !isLossOp))))
        type = withElementType(original, lowType);
      else if (lowIO && isLossOp)
        type = original;
      else
        type = highType(original);
      op->setOperand(i, getOrCreateCast(operand, type));
    }
    // Non-precision float operands (none today) keep their types.
    for (OpOperand &operand : op->getOpOperands())
      if (!llvm::is_contained(indices, operand.getOperandNumber()) &&
          isFloatTensor(operand.get().getType()))
        operand.set(getOrCreateCast(operand.get(),
                                    originalTypes.lookup(operand.get())));

    bool lowResults =
        precision == Precision::Low || precision == Precision::HighLowIO;
    // A loss is a scalar read by the loss scaler: it keeps its type, as
    // does a result whose type the op fixes (an accumulator's).
    bool isLoss = op->hasTrait<OpTrait::amp::LossFamily>();
    auto precisionOp = cast<PrecisionOpInterface>(op);
    for (OpResult result : op->getResults()) {
      if (!isFloatTensor(result.getType()) || isLoss ||
          !precisionOp.isPrecisionResult(result.getResultNumber()))
        continue;
      result.setType(lowResults ? withElementType(result.getType(), lowType)
                                : highType(result.getType()));
    }
    // Low GEMMs accumulate in f32; any accumulator must still hold the
    // (new) operand type exactly.
    auto f32 = Float32Type::get(op->getContext());
    auto fixAccumulator = [&](auto accOp) {
      TypeAttr acc = accOp.getAccTypeAttr();
      auto operand = cast<FloatType>(getElementTypeOrSelf(op->getOperand(0)));
      if (!acc ? isa<MatmulOp, Conv2dOp>(op) && precision == Precision::Low
               : !isExactConversion(operand, cast<FloatType>(acc.getValue())))
        accOp.setAccTypeAttr(TypeAttr::get(f32));
    };
    TypeSwitch<Operation *>(op).Case<MatmulOp, Conv2dOp, SumOp, MeanOp>(
        fixAccumulator);
  }
  // Constants whose every use moved to a converted copy.
  for (Operation *op : usedConstants)
    if (op->use_empty())
      op->erase();
  removeCastChains();
  foldBiasAdds();
}

/// Why `matmul`'s shape rules out cuBLASLt's FP8 GEMMs for it or for one
/// of its two backward GEMMs, or empty: each of M (all rows), N and K must
/// be a multiple of 16 (every dimension is some GEMM's K, and FP8 rows
/// start on 16 bytes).
static std::string fp8ShapeProblem(MatmulOp matmul) {
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto out = cast<RankedTensorType>(matmul.getType());
  int64_t rank = out.getRank();
  int64_t rows = out.getNumElements() / out.getDimSize(rank - 1);
  int64_t n = out.getDimSize(rank - 1);
  int64_t k = matmul.getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                       : lhs.getShape().back();
  if (rows % 16 == 0 && n % 16 == 0 && k % 16 == 0)
    return {};
  return "its rows (" + std::to_string(rows) + "), columns (" +
         std::to_string(n) + ") and inner dimension (" + std::to_string(k) +
         ") are not all multiples of 16, which cuBLASLt's FP8 GEMMs need";
}

BlockArgument FunctionAutocast::parameterOf(Value value) {
  if (auto castOp = value.getDefiningOp<CastOp>())
    value = castOp.getInput();
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner()->getParentOp() != func.getOperation() ||
      !func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName))
    return {};
  return arg;
}

LogicalResult FunctionAutocast::assignFp8() {
  if (!fp8.enabled)
    return success();
  // The linear layers (a parameter operand) the recipe may make FP8, in
  // program order.
  SmallVector<MatmulOp> linear;
  SmallVector<MatmulOp> all;
  func.walk([&](MatmulOp matmul) { all.push_back(matmul); });
  std::string base = typeName(lowType);
  for (MatmulOp matmul : all) {
    auto decision = decisions.find(matmul);
    auto forced = matmul->getAttrOfType<BoolAttr>(kFp8AttrName);
    std::string &reason = fp8Reasons[matmul];
    if (decision == decisions.end() ||
        decision->second.precision != Precision::Low) {
      if (forced && forced.getValue())
        return matmul.emitError()
               << "amp.fp8 = true on a matmul that autocast keeps in f32 ("
               << (decision == decisions.end() ? std::string("not classified")
                                               : decision->second.reason)
               << "); an FP8 GEMM reads the compute type";
      reason = "not FP8: it runs in f32";
      continue;
    }
    if (std::string problem = fp8ShapeProblem(matmul); !problem.empty()) {
      if (forced && forced.getValue())
        return matmul.emitError() << "amp.fp8 = true on a matmul that cannot "
                                     "be an FP8 GEMM: "
                                  << problem;
      reason = "kept in " + base + ", not FP8: " + problem;
      continue;
    }
    if (matmul.isFp8()) {
      reason = "an FP8 GEMM as written (its formats kept)";
      continue;
    }
    if (forced) {
      reason = forced.getValue() ? "FP8, forced by amp.fp8 = true"
                                 : "kept in " + base + " by amp.fp8 = false";
      continue;
    }
    if (!parameterOf(matmul.getLhs()) && !parameterOf(matmul.getRhs())) {
      reason = "kept in " + base +
               ", not FP8: a product of two activations (attention's), "
               "which the FP8 recipes keep in " +
               base;
      continue;
    }
    linear.push_back(matmul);
    reason = "FP8: a linear layer";
  }
  if (fp8.keepFirstLast && !linear.empty()) {
    fp8Reasons[linear.front()] =
        "kept in " + base +
        ", not FP8: the first linear layer, which the FP8 recipes keep in "
        "higher precision (amp.fp8 = true overrides)";
    if (linear.size() > 1)
      fp8Reasons[linear.back()] =
          "kept in " + base +
          ", not FP8: the last linear layer (the output head), which the FP8 "
          "recipes keep in higher precision (amp.fp8 = true overrides)";
  }
  auto e4m3 = TypeAttr::get(Float8E4M3FNType::get(func.getContext()));
  SmallVector<MatmulOp> made;
  for (auto &[op, reason] : fp8Reasons) {
    if (cast<MatmulOp>(op).isFp8())
      ++fp8Gemms;
    if (!StringRef(reason).starts_with("FP8"))
      continue;
    auto matmul = cast<MatmulOp>(op);
    matmul.setLhsFp8Attr(e4m3);
    matmul.setRhsFp8Attr(e4m3);
    matmul.setGradFp8Attr(TypeAttr::get(fp8.gradFormat));
    reason += ": e4m3 operands, gradient in " +
              std::string(fp8.gradFormat.isFloat8E5M2() ? "e5m2" : "e4m3") +
              (fp8.delayed ? ", per-tensor delayed scaling"
                           : ", per-tensor current scaling");
    made.push_back(matmul);
    ++fp8Gemms;
  }
  if (fp8.delayed && failed(addDelayedScaling(made)))
    return failure();
  fp8Matmuls = static_cast<int64_t>(fp8Reasons.size());
  // Convolutions have no FP8 path yet (cuDNN's FP8 convolutions are not
  // called): those in the base type say so.
  func.walk([&](Conv2dOp conv) {
    auto decision = decisions.find(conv);
    if (decision != decisions.end() &&
        decision->second.precision == Precision::Low)
      fp8Reasons[conv] =
          "kept in " + base + ", not FP8: convolutions have no FP8 path yet";
  });
  for (auto &[op, reason] : fp8Reasons)
    if (auto it = decisions.find(op); it != decisions.end())
      it->second.reason += "; " + reason;
  return success();
}

LogicalResult FunctionAutocast::addDelayedScaling(ArrayRef<MatmulOp> gemms) {
  if (gemms.empty())
    return success();
  auto module = func->getParentOfType<ModuleOp>();
  bool called = false;
  if (module)
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(func, module))
      called = llvm::any_of(*uses, [](const SymbolTable::SymbolUse &use) {
        return isa<CallOpInterface>(use.getUser());
      });
  if (called)
    return func.emitError()
           << "amp-autocast: fp8-scaling=delayed adds the FP8 GEMMs' scaling "
              "state to @"
           << func.getSymName() << " as arguments, and @" << func.getSymName()
           << " is called; delayed scaling needs the FP8 GEMMs in the model "
              "function itself";
  llvm::StringSet<> names;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (StringRef name = getArgumentName(func, i); !name.empty())
      names.insert(name);
  OpBuilder b(func.getContext());
  auto f32 = b.getF32Type();
  auto vector = RankedTensorType::get({3}, f32);
  auto history = RankedTensorType::get({fp8.history, 3}, f32);
  auto recipe = b.getDictionaryAttr(
      {b.getNamedAttr("amax_compute",
                      b.getStringAttr(fp8.mostRecent ? "most_recent" : "max")),
       b.getNamedAttr("margin", b.getF64FloatAttr(fp8.margin))});
  for (auto [k, gemm] : llvm::enumerate(gemms)) {
    MatmulOp matmul = gemm;
    BlockArgument weight = parameterOf(matmul.getRhs());
    if (!weight)
      weight = parameterOf(matmul.getLhs());
    std::string prefix =
        weight ? getArgumentName(func, weight.getArgNumber()).str() : "";
    if (prefix.empty())
      prefix = "fp8_gemm" + std::to_string(k);
    Value scales;
    for (auto [suffix, type, initial] :
         {std::tuple<StringRef, Type, double>{".fp8_scale", vector, 1.0},
          {".fp8_amax_history", history, 0.0},
          {".fp8_overflows", vector, 0.0}}) {
      std::string name = prefix + suffix.str();
      if (!names.insert(name).second)
        return matmul.emitError()
               << "amp-autocast: fp8-scaling=delayed names this FP8 GEMM's "
                  "state '"
               << name << "', which an argument of @" << func.getSymName()
               << " already holds; rename it";
      unsigned index = func.getNumArguments();
      NamedAttrList attrs;
      attrs.set(AmpDialect::kNameAttrName, b.getStringAttr(name));
      attrs.set(AmpDialect::kBufferAttrName,
                initial == 0.0 ? Attribute(b.getUnitAttr())
                               : Attribute(b.getF64FloatAttr(initial)));
      (void)func.insertArgument(
          index, type, attrs.getDictionary(b.getContext()), matmul.getLoc());
      if (!scales)
        scales = func.getArgument(index);
    }
    matmul.getScalesMutable().assign(scales);
    matmul.setFp8ScaleIndex(ArrayRef<int64_t>{0, 1, 2});
    matmul->setAttr(kFp8DelayedAttrName, recipe);
  }
  return success();
}

void FunctionAutocast::foldBiasAdds() {
  // A low-precision matmul rounds its product, and a bias add after it
  // rounds again: the second rounding can cancel a sum to exactly zero. The
  // add joins the matmul instead, which adds the bias in its f32
  // accumulator and rounds once, as F.linear and a GEMM epilogue do. An f32
  // add after the product's widening cast makes the matmul's result f32.
  SmallVector<AddOp> adds;
  func.walk([&](AddOp add) { adds.push_back(add); });
  for (AddOp add : adds) {
    for (unsigned i : {0u, 1u}) {
      Value product = add->getOperand(i);
      Value bias = add->getOperand(1 - i);
      auto widen = product.getDefiningOp<CastOp>();
      if (widen && widen.getResult().hasOneUse() &&
          llvm::is_contained(createdCasts, widen))
        product = widen.getInput();
      else
        widen = nullptr;
      auto matmul = product.getDefiningOp<MatmulOp>();
      if (!matmul || matmul.getBias() || !product.hasOneUse())
        continue;
      auto decision = decisions.find(matmul);
      if (decision == decisions.end() ||
          decision->second.precision != Precision::Low)
        continue;
      RankedTensorType type = add.getType();
      auto biasType = cast<RankedTensorType>(bias.getType());
      if (type.getShape() != matmul.getType().getShape() ||
          (!widen && type != matmul.getType()) || biasType.getRank() != 1 ||
          biasType.getDimSize(0) != type.getShape().back() ||
          biasType.getElementType() != type.getElementType())
        continue;
      // The matmul's only user is the add (or the cast the add reads), and
      // its operands come before it: it may run just before the add, where
      // the bias is defined.
      matmul->moveBefore(add);
      matmul.getBiasMutable().assign(bias);
      matmul.getResult().setType(type);
      add.getResult().replaceAllUsesWith(matmul.getResult());
      decision->second.reason += "; the bias add at " +
                                 describeLoc(add.getLoc()) +
                                 " is folded in (one rounding)";
      decisions.erase(add);
      add->erase();
      if (widen) {
        llvm::erase(createdCasts, widen);
        widen->erase();
      }
      ++foldedBiasAdds;
      break;
    }
  }
}

void FunctionAutocast::removeCastChains() {
  // cast(cast(x : A) : B) : C reads x directly when A -> B is exact, and
  // disappears when C is A; casts left without uses go. Only exact
  // rewrites: a rounding cast is never skipped.
  SmallVector<CastOp> castOps;
  func.walk([&](CastOp op) { castOps.push_back(op); });
  for (CastOp op : castOps) {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner)
      continue;
    auto source = cast<FloatType>(
        cast<RankedTensorType>(inner.getInput().getType()).getElementType());
    auto middle = cast<FloatType>(inner.getType().getElementType());
    if (!isExactConversion(source, middle))
      continue;
    op.getInputMutable().assign(inner.getInput());
    if (op.getInput().getType() == op.getType())
      op.getResult().replaceAllUsesWith(op.getInput());
  }
  for (CastOp op : llvm::reverse(castOps)) {
    if (!op->use_empty())
      continue;
    llvm::erase(createdCasts, op);
    op->erase();
  }
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

static std::string formatBytes(int64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.1f ", value) << units[unit];
  return text;
}

/// `total + bytes`, held at INT64_MAX: the cast traffic of the report.
static int64_t addBytes(int64_t total, int64_t bytes) {
  int64_t sum = 0;
  return llvm::AddOverflow(total, bytes, sum) ? INT64_MAX : sum;
}

/// Bytes a cast reads and writes per step (each side fits: the cast's
/// tensors verified).
static int64_t castBytes(CastOp op) {
  auto from = cast<RankedTensorType>(op.getInput().getType());
  int64_t count = from.getNumElements();
  return addBytes(count * byteWidth(from.getElementType()),
                  count * byteWidth(op.getType().getElementType()));
}

static StringRef precisionName(Precision precision) {
  switch (precision) {
  case Precision::Low:
    return "low";
  case Precision::High:
    return "f32";
  case Precision::HighLowIO:
    return "f32 with low I/O";
  case Precision::Unset:
    return "unset";
  }
  llvm_unreachable("unknown precision");
}

std::string FunctionAutocast::summaryLine() {
  int64_t converted = 0;
  for (const auto &entry : decisions)
    converted += entry.second.precision == Precision::Low;
  int64_t bytes = 0;
  for (CastOp op : createdCasts)
    bytes = addBytes(bytes, castBytes(op));
  std::string text;
  llvm::raw_string_ostream(text)
      << "converted " << converted << "/" << decisions.size() << " ops to "
      << lowType << " with " << createdCasts.size() << " casts ("
      << formatBytes(bytes) << " cast traffic per step)";
  if (foldedBiasAdds)
    llvm::raw_string_ostream(text)
        << ", " << foldedBiasAdds << " bias add"
        << (foldedBiasAdds == 1 ? "" : "s") << " folded into matmuls";
  if (fp8.enabled)
    llvm::raw_string_ostream(text)
        << ", " << fp8Gemms << " of " << fp8Matmuls << " matmuls FP8 GEMMs";
  return text;
}

void FunctionAutocast::addLayerFigures(Operation *op,
                                       llvm::json::Object &entry) {
  // What a per-layer summary shows of the op: its first result, the bytes
  // of its results (what it adds to the activations), its forward FLOPs
  // (null where it has no count) and the parameters it reads, directly or
  // through their casts.
  if (op->getNumResults())
    entry["result"] = typeName(op->getResult(0).getType());
  int64_t resultBytes = 0;
  for (Value result : op->getResults())
    if (auto tensor = dyn_cast<RankedTensorType>(result.getType()))
      if (std::optional<int64_t> bytes = getCheckedByteSize(tensor))
        resultBytes = addBytes(resultBytes, *bytes);
  entry["result_bytes"] = resultBytes;
  std::optional<int64_t> flops;
  if (auto counted = dyn_cast<FlopCountOpInterface>(op))
    flops = counted.getForwardFlops();
  entry["flops"] =
      flops ? llvm::json::Value(*flops) : llvm::json::Value(nullptr);
  llvm::json::Array params;
  int64_t paramElements = 0;
  llvm::SmallPtrSet<Value, 4> seen;
  for (Value operand : op->getOperands()) {
    BlockArgument arg = parameterOf(operand);
    if (!arg || !seen.insert(arg).second)
      continue;
    params.push_back(getArgumentName(func, arg.getArgNumber()));
    paramElements += cast<RankedTensorType>(arg.getType()).getNumElements();
  }
  entry["params"] = std::move(params);
  entry["param_elements"] = paramElements;
}

llvm::json::Object FunctionAutocast::report() {
  llvm::json::Array opsJson;
  for (const auto &[op, decision] : decisions) {
    // The type it computes in, read off the rewritten op.
    Type type;
    for (Value result : op->getResults())
      if (isFloatTensor(result.getType()) && !type)
        type = getElementTypeOrSelf(result.getType());
    if (!type || op->hasTrait<OpTrait::amp::LossFamily>())
      for (Value operand : op->getOperands())
        if (isFloatTensor(operand.getType())) {
          type = getElementTypeOrSelf(operand.getType());
          break;
        }
    if (decision.precision == Precision::HighLowIO)
      type = Float32Type::get(op->getContext());
    llvm::json::Object entry{
        {"op", op->getName().getStringRef()},
        {"loc", describeLoc(op->getLoc())},
        {"category", stringifyPrecisionCategory(decision.category)},
        {"precision", precisionName(decision.precision)},
        {"type", type ? typeName(type) : std::string("none")},
        {"reason", decision.reason},
    };
    if (fp8.enabled && fp8Reasons.count(op)) {
      auto matmul = dyn_cast<MatmulOp>(op);
      entry["fp8"] =
          matmul && matmul.isFp8()
              ? llvm::json::Value(llvm::json::Object{
                    {"lhs", typeName(*matmul.getLhsFp8())},
                    {"rhs", typeName(*matmul.getRhsFp8())},
                    {"grad", matmul.getGradFp8() ? llvm::json::Value(typeName(
                                                       *matmul.getGradFp8()))
                                                 : llvm::json::Value(nullptr)}})
              : llvm::json::Value(nullptr);
      entry["fp8_reason"] = fp8Reasons.lookup(op);
    }
    addLayerFigures(op, entry);
    opsJson.push_back(std::move(entry));
  }
  llvm::json::Array castsJson;
  int64_t totalBytes = 0;
  for (CastOp op : createdCasts) {
    Value source = op.getInput();
    std::string what;
    if (auto arg = dyn_cast<BlockArgument>(source)) {
      what = describeArgument(func, arg.getArgNumber());
      if (func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName))
        what += " (parameter, cast once per step)";
    } else {
      what = "result of " + describeOp(source.getDefiningOp());
    }
    totalBytes = addBytes(totalBytes, castBytes(op));
    castsJson.push_back(llvm::json::Object{
        {"value", what},
        {"from", typeName(getElementTypeOrSelf(source.getType()))},
        {"to", typeName(op.getType().getElementType())},
        {"shape", typeName(source.getType())},
        {"bytes", castBytes(op)},
    });
  }
  llvm::json::Array pinned;
  for (const auto &[op, why] : pinnedConstants)
    pinned.push_back(llvm::json::Object{{"loc", describeLoc(op->getLoc())},
                                        {"reason", why}});
  int64_t converted = 0;
  for (const auto &entry : decisions)
    converted += entry.second.precision == Precision::Low;
  llvm::json::Object result{
      {"function", func.getSymName()},
      {"compute_type", typeName(lowType)},
      {"summary",
       llvm::json::Object{{"line", summaryLine()},
                          {"converted_ops", converted},
                          {"ops", static_cast<int64_t>(decisions.size())},
                          {"casts", static_cast<int64_t>(createdCasts.size())},
                          {"cast_bytes_per_step", totalBytes}}},
      {"ops", std::move(opsJson)},
      {"casts", std::move(castsJson)},
      {"constants_kept_in_f32", std::move(pinned)},
  };
  if (fp8.enabled)
    (*result.getObject("summary"))["fp8_gemms"] = fp8Gemms;
  return result;
}

void FunctionAutocast::emitRemarks() {
  for (const auto &[op, decision] : decisions)
    op->emitRemark() << "amp-autocast: "
                     << (decision.precision == Precision::Low
                             ? typeName(lowType)
                             : precisionName(decision.precision).str())
                     << ", " << decision.reason;
  for (const auto &[op, why] : pinnedConstants)
    op->emitRemark() << "amp-autocast: constant kept in f32: " << why;
  func.emitRemark() << "amp-autocast: " << summaryLine();
}

/// `names` as one line, those of one module written once: "bn1.{weight,
/// bias, running_mean}" for bn1.weight, bn1.bias and bn1.running_mean.
static std::string listNames(ArrayRef<std::string> names) {
  StringRef module = StringRef(names.front()).rsplit('.').first;
  bool shared = names.size() > 1 && module != names.front() &&
                llvm::all_of(names, [&](StringRef name) {
                  return name.starts_with(module) &&
                         name.size() > module.size() &&
                         name[module.size()] == '.';
                });
  std::string text;
  for (StringRef name : names)
    text += (text.empty() ? "" : ", ") +
            (shared ? name.drop_front(module.size() + 1) : name).str();
  return shared ? (module + ".{" + text + "}").str() : text;
}

void FunctionAutocast::writeDot(llvm::raw_ostream &os) {
  // Parameters, buffers (running statistics) and their casts are no
  // nodes: the op that reads them lists them (a ResNet has 60 and 36), so
  // the graph shows the data flow. Other arguments are ellipses.
  auto parameterName = [&](Value value) -> std::optional<std::string> {
    if (auto castOp = value.getDefiningOp<CastOp>())
      value = castOp.getInput();
    auto arg = dyn_cast<BlockArgument>(value);
    if (!arg ||
        (!func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName) &&
         !func.getArgAttr(arg.getArgNumber(), AmpDialect::kBufferAttrName)))
      return std::nullopt;
    StringRef name = getArgumentName(func, arg.getArgNumber());
    return name.empty() ? "%arg" + std::to_string(arg.getArgNumber())
                        : dotEscape(name);
  };
  auto isParameterCast = [&](Operation &op) {
    return isa<CastOp>(op) && parameterName(op.getResult(0)).has_value();
  };
  llvm::DenseMap<Operation *, int> ids;
  int next = 0;
  os << "  subgraph \"cluster_" << func.getSymName() << "\" {\n"
     << "    label=\"@" << func.getSymName() << ": " << summaryLine()
     << "\";\n";
  std::string prefix = func.getSymName().str() + "_";
  for (BlockArgument arg : func.getArguments()) {
    if (parameterName(arg))
      continue;
    // The model's name of the argument where it has one.
    StringRef name = getArgumentName(func, arg.getArgNumber());
    std::string label = name.empty()
                            ? "%arg" + std::to_string(arg.getArgNumber())
                            : dotEscape(name);
    os << "    \"" << prefix << "arg" << arg.getArgNumber()
       << "\" [shape=ellipse, style=filled, fillcolor=\"#dddddd\", label=\""
       << label << "\\n"
       << typeName(arg.getType()) << "\"];\n";
  }
  for (Operation &op : func.getBody().front()) {
    if (isParameterCast(op))
      continue;
    int id = next++;
    ids[&op] = id;
    StringRef color = "#dddddd"; // other ops
    // Computing in f32 with low-precision inputs and outputs (a batch
    // norm): f32's colour inside the compute type's frame.
    bool lowIO = false;
    if (isa<CastOp>(op)) {
      color = "#ffe066";
    } else if (auto it = decisions.find(&op); it != decisions.end()) {
      color = it->second.precision == Precision::Low ? "#8fd18f" : "#f4a582";
      lowIO = it->second.precision == Precision::HighLowIO;
    }
    os << "    \"" << prefix << id << "\" [shape=box, style=filled, "
       << (lowIO ? "color=\"#1b7837\", penwidth=3, " : "") << "fillcolor=\""
       << color << "\", label=\"" << op.getName().getStringRef();
    if (op.getNumResults() == 1)
      os << "\\n" << typeName(op.getResult(0).getType());
    if (lowIO)
      os << "\\nf32 compute, " << typeName(lowType) << " in and out";
    SmallVector<std::string> parameters;
    for (Value operand : op.getOperands())
      if (std::optional<std::string> name = parameterName(operand))
        parameters.push_back(*name);
    if (!parameters.empty())
      os << "\\n" << listNames(parameters);
    os << "\"];\n";
    for (Value operand : op.getOperands()) {
      if (parameterName(operand))
        continue;
      os << "    \"" << prefix;
      if (auto arg = dyn_cast<BlockArgument>(operand))
        os << "arg" << arg.getArgNumber();
      else
        os << ids.lookup(operand.getDefiningOp());
      os << "\" -> \"" << prefix << id << "\";\n";
    }
  }
  os << "  }\n";
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct AmpAutocastPass
    : amp::SuggestingOptions<amp::impl::AmpAutocastBase<AmpAutocastPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override;
};
} // namespace

void AmpAutocastPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();
  FloatType lowType;
  Fp8Options fp8;
  switch (computeType) {
  case ComputeType::f16:
    lowType = Float16Type::get(context);
    break;
  case ComputeType::bf16:
    lowType = BFloat16Type::get(context);
    break;
  case ComputeType::fp8:
    lowType = BFloat16Type::get(context);
    fp8.enabled = true;
    break;
  case ComputeType::fp8_f16:
    lowType = Float16Type::get(context);
    fp8.enabled = true;
    break;
  case ComputeType::none:
    emitOptionError(context)
        << "amp-autocast: compute-type=none casts nothing; expected f16 or "
           "bf16 (--amp-train-step takes none, and runs no autocast)";
    return signalPassFailure();
  }

  if (fp8Gradients == "e5m2") {
    fp8.gradFormat = Float8E5M2Type::get(context);
  } else if (fp8Gradients == "e4m3") {
    fp8.gradFormat = Float8E4M3FNType::get(context);
  } else {
    emitOptionError(context)
        << "amp-autocast: unknown fp8-gradients '" << fp8Gradients
        << "'; expected e5m2 (HYBRID: e4m3 forward, e5m2 gradients) or e4m3 "
           "(e4m3 throughout)";
    return signalPassFailure();
  }
  fp8.keepFirstLast = fp8KeepFirstLast;
  if (fp8Scaling != "current" && fp8Scaling != "delayed") {
    emitOptionError(context)
        << "amp-autocast: unknown fp8-scaling '" << fp8Scaling
        << "'; expected current (this step's amax) or delayed (an amax "
           "history kept as step state)";
    return signalPassFailure();
  }
  fp8.delayed = fp8Scaling == "delayed";
  if (fp8AmaxCompute != "max" && fp8AmaxCompute != "most-recent") {
    emitOptionError(context)
        << "amp-autocast: unknown fp8-amax-compute '" << fp8AmaxCompute
        << "'; expected max (the history's largest) or most-recent";
    return signalPassFailure();
  }
  fp8.mostRecent = fp8AmaxCompute == "most-recent";
  if (fp8AmaxHistory < 1 || fp8AmaxHistory > (int64_t(1) << 20)) {
    emitOptionError(context) << "amp-autocast: fp8-amax-history "
                             << static_cast<int64_t>(fp8AmaxHistory)
                             << " is outside [1, 1048576] steps";
    return signalPassFailure();
  }
  fp8.history = fp8AmaxHistory;
  if (!std::isfinite(fp8Margin)) {
    emitOptionError(context) << "amp-autocast: fp8-margin must be finite";
    return signalPassFailure();
  }
  fp8.margin = fp8Margin;
  if (!fp8.delayed &&
      (fp8AmaxHistory != 1024 || fp8Margin != 0.0 || fp8AmaxCompute != "max")) {
    emitOptionError(context)
        << "amp-autocast: fp8-amax-history, fp8-margin and fp8-amax-compute "
           "configure delayed scaling; add fp8-scaling=delayed";
    return signalPassFailure();
  }

  PrecisionPolicy policy;
  if (!policyFile.empty()) {
    FailureOr<PrecisionPolicy> fromFile =
        PrecisionPolicy::parseFile(policyFile, context);
    if (failed(fromFile))
      return signalPassFailure();
    policy = std::move(*fromFile);
  }
  PrecisionPolicy options;
  Location optionLoc = UnknownLoc::get(context);
  for (const std::string &name : allowOps)
    if (failed(options.set(name, PrecisionCategory::LowerPrecision, "allow",
                           optionLoc)))
      return signalPassFailure();
  for (const std::string &name : denyOps)
    if (failed(
            options.set(name, PrecisionCategory::KeepFp32, "deny", optionLoc)))
      return signalPassFailure();
  policy.overrideWith(options);

  // The reports name arguments as the source does.
  if (failed(nameArgumentsFromSource(module)))
    return signalPassFailure();
  llvm::json::Array functions;
  std::string dot;
  llvm::raw_string_ostream dotStream(dot);
  // custom_fwd(cast_inputs=torch.float32): a function with amp.cast_inputs
  // and its backward run in f32, their inputs cast up (each op pinned,
  // saying why).
  OpBuilder pin(context);
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(AmpDialect::kCastInputsAttrName))
      continue;
    std::string reason =
        ("custom_fwd(cast_inputs=f32) of @" + func.getSymName()).str();
    SmallVector<func::FuncOp, 2> pinned{func};
    if (auto name = func->getAttrOfType<FlatSymbolRefAttr>(
            AmpDialect::kCustomVJPAttrName))
      if (auto backward = module.lookupSymbol<func::FuncOp>(name))
        pinned.push_back(backward);
    for (func::FuncOp target : pinned)
      target.walk([&](PrecisionOpInterface op) {
        if (op->hasAttr(kPrecisionAttrName))
          return;
        op->setAttr(kPrecisionAttrName, TypeAttr::get(pin.getF32Type()));
        op->setAttr(kPrecisionReasonAttrName, pin.getStringAttr(reason));
      });
  }
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!llvm::hasSingleElement(func.getBody())) {
      func.emitError("amp-autocast handles single-block functions only");
      return signalPassFailure();
    }
    FunctionAutocast autocast(func, lowType, policy, keepFp32LowIO, fp8);
    if (failed(autocast.classify()))
      return signalPassFailure();
    autocast.assignPrecisions();
    autocast.rewrite();
    if (failed(autocast.assignFp8()))
      return signalPassFailure();
    if (emitRemarks)
      autocast.emitRemarks();
    functions.push_back(autocast.report());
    if (!dotFile.empty())
      autocast.writeDot(dotStream);
  }

  auto writeFile = [&](StringRef path, StringRef text) -> LogicalResult {
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
    if (!file)
      return emitOptionError(context)
             << "amp-autocast: cannot write " << path << ": " << error;
    file->os() << text;
    file->keep();
    return success();
  };
  if (!reportFile.empty()) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                     {"functions", std::move(functions)}}))
       << "\n";
    if (failed(writeFile(reportFile, text)))
      return signalPassFailure();
  }
  if (!dotFile.empty()) {
    std::string text =
        "digraph amp_autocast {\n"
        "  node [fontname=\"monospace\"];\n"
        "  subgraph cluster_legend {\n"
        "    label=\"precision\";\n"
        "    legend_low [shape=box, style=filled, fillcolor=\"#8fd18f\", "
        "label=\"" +
        typeName(lowType) +
        "\"];\n"
        "    legend_f32 [shape=box, style=filled, fillcolor=\"#f4a582\", "
        "label=\"f32\"];\n"
        "    legend_low_io [shape=box, style=filled, color=\"#1b7837\", "
        "penwidth=3, fillcolor=\"#f4a582\", label=\"f32 compute, " +
        typeName(lowType) +
        " in and out\"];\n"
        "    legend_cast [shape=box, style=filled, fillcolor=\"#ffe066\", "
        "label=\"cast\"];\n"
        "    legend_other [shape=box, style=filled, fillcolor=\"#dddddd\", "
        "label=\"other\"];\n"
        "  }\n" +
        dot + "}\n";
    if (failed(writeFile(dotFile, text)))
      return signalPassFailure();
  }
}
