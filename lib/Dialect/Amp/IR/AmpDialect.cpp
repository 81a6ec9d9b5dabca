//===- AmpDialect.cpp - amp dialect ---------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/IR/AmpDialect.cpp.inc"
#include "amp/Dialect/Amp/IR/AmpInterfaces.cpp.inc"

namespace {
/// amp ops are pure and hold no regions: any of them may be inlined.
struct AmpInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void AmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
      >();
  registerAttributes();
  addInterfaces<AmpInlinerInterface>();
}

ArgumentKind mlir::amp::getArgumentKind(FunctionOpInterface function,
                                        unsigned index) {
  auto has = [&](StringRef name) {
    return static_cast<bool>(function.getArgAttr(index, name));
  };
  return has(AmpDialect::kParamAttrName)            ? ArgumentKind::param
         : has(AmpDialect::kBufferAttrName)         ? ArgumentKind::buffer
         : has(AmpDialect::kRngAttrName)            ? ArgumentKind::rng
         : has(AmpDialect::kHyperParameterAttrName) ? ArgumentKind::hparam
         : has(AmpDialect::kLossPartAttrName)       ? ArgumentKind::loss_part
         : has(AmpDialect::kStateAttrName)          ? ArgumentKind::state
                                                    : ArgumentKind::input;
}

Operation *AmpDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<DenseElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
}

/// Where to report a problem with argument `argIndex` of `op`: the
/// argument's own location when `op` is a function with a body.
static InFlightDiagnostic emitArgumentError(Operation *op, unsigned argIndex) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (function && !function.isExternal() &&
      argIndex < function.getFunctionBody().getNumArguments())
    return emitError(function.getFunctionBody().getArgument(argIndex).getLoc());
  return op->emitError();
}

/// `amp.name` on argument `argIndex` of `op`: a non-empty string without
/// NUL (compiled steps write it as a C string) that no other argument of
/// the function holds. Uniqueness is checked for the whole function once,
/// at its first named argument, so that verifying stays linear in the
/// argument count.
static LogicalResult verifyArgumentName(Operation *op, unsigned argIndex,
                                        Attribute value) {
  StringRef attrName = AmpDialect::kNameAttrName;
  auto name = dyn_cast<StringAttr>(value);
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " must be a non-empty string";
  if (name.getValue().contains('\0'))
    return op->emitError() << "'" << attrName << "' on argument #" << argIndex
                           << " must not hold a NUL character";
  auto function = dyn_cast<FunctionOpInterface>(op);
  ArrayAttr argAttrs = function ? function.getArgAttrsAttr() : ArrayAttr();
  if (!argAttrs)
    return success();
  auto nameOf = [&](unsigned i) -> StringAttr {
    auto attrs = dyn_cast_or_null<DictionaryAttr>(argAttrs[i]);
    return attrs ? attrs.getAs<StringAttr>(attrName) : StringAttr();
  };
  for (unsigned i = 0; i < argIndex; ++i)
    if (nameOf(i))
      return success(); // checked at that argument
  llvm::DenseMap<StringAttr, unsigned> seen;
  for (unsigned i = argIndex, e = argAttrs.size(); i < e; ++i) {
    StringAttr other = nameOf(i);
    if (!other)
      continue;
    auto [it, inserted] = seen.try_emplace(other, i);
    if (!inserted)
      return op->emitError() << "'" << attrName << "' \"" << other.getValue()
                             << "\" names both argument #" << it->second
                             << " and argument #" << i;
  }
  return success();
}

/// The attributes that say an argument's kind (ArgumentKind), but
/// amp.state, which a step's buffers, generator, hyperparameters and loss
/// parts also hold; a parameter holds none of them.
static constexpr StringLiteral kKindAttrNames[] = {
    AmpDialect::kParamAttrName, AmpDialect::kBufferAttrName,
    AmpDialect::kRngAttrName, AmpDialect::kHyperParameterAttrName,
    AmpDialect::kLossPartAttrName};

/// Argument `argIndex` of `op` has one kind: `name`, one of
/// kKindAttrNames, is the only one of them on it, and a parameter is no
/// state.
static LogicalResult verifyOneKind(Operation *op, unsigned argIndex,
                                   StringRef name) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || !llvm::is_contained(kKindAttrNames, name))
    return success();
  auto both = [&](StringRef other) {
    return emitArgumentError(op, argIndex)
           << "argument #" << argIndex << " is both '" << name << "' and '"
           << other << "': an argument is one of a parameter, a buffer, the "
           << "generator's state, a hyperparameter, a loss part, other "
              "state or an input";
  };
  for (StringRef other : kKindAttrNames)
    if (other != name && function.getArgAttr(argIndex, other))
      return both(other);
  if (name == AmpDialect::kParamAttrName &&
      function.getArgAttr(argIndex, AmpDialect::kStateAttrName))
    return both(AmpDialect::kStateAttrName);
  return success();
}

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  if (name == kNameAttrName)
    return verifyArgumentName(op, argIndex, value);
  if (name != kParamAttrName && name != kStateAttrName &&
      name != kLossScaleAttrName && name != kHyperParameterAttrName &&
      name != kLossPartAttrName && name != kBufferAttrName &&
      name != kParamInitAttrName && name != kRngAttrName &&
      name != kShardOfAttrName && name != kMicroBatchAttrName)
    return op->emitError() << "unknown amp argument attribute '" << name << "'";
  if (failed(verifyOneKind(op, argIndex, name)))
    return failure();
  if (name == kParamInitAttrName) {
    auto init = dyn_cast<DenseF64ArrayAttr>(value);
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!init || init.size() != 2 || !(init[0] >= 0) ||
        init[0] != static_cast<double>(static_cast<int64_t>(init[0])) ||
        !std::isfinite(init[1]) || !function ||
        !function.getArgAttr(argIndex, kParamAttrName))
      return op->emitError()
             << "'" << kParamInitAttrName << "' on argument #" << argIndex
             << " must be array<f64: fan_in, initial> (a whole fan-in of 0 "
                "or more, a finite value) on an 'amp.param' argument";
    return success();
  }
  if (name == kMicroBatchAttrName) {
    auto count = dyn_cast<IntegerAttr>(value);
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto tensor =
        function
            ? dyn_cast<RankedTensorType>(function.getArgumentTypes()[argIndex])
            : RankedTensorType();
    if (!count || !count.getType().isInteger(64) || count.getInt() < 2 ||
        !tensor || tensor.getRank() != 0 || !tensor.getElementType().isF32() ||
        !function.getArgAttr(argIndex, kStateAttrName))
      return op->emitError()
             << "'" << kMicroBatchAttrName << "' on argument #" << argIndex
             << " must be the micro-batches per update (an i64, 2 or more) "
                "on a 0-d f32 'amp.state' argument";
    return success();
  }
  if (name == kShardOfAttrName) {
    auto shard = dyn_cast<DenseI64ArrayAttr>(value);
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto bad = [&] {
      return op->emitError()
             << "'" << kShardOfAttrName << "' on argument #" << argIndex
             << " must be array<i64: parameter, replicas, master> on an "
                "f32 'amp.state' argument of one dimension, naming an "
                "'amp.param' argument, a positive replica count and 0 or 1, "
                "the dimension ceil(parameter's elements / replicas)";
    };
    if (!shard || shard.size() != 3 || !function || shard[0] < 0 ||
        shard[0] >= static_cast<int64_t>(function.getNumArguments()) ||
        shard[1] < 1 || (shard[2] != 0 && shard[2] != 1) ||
        !function.getArgAttr(argIndex, kStateAttrName) ||
        !function.getArgAttr(shard[0], kParamAttrName))
      return bad();
    auto part =
        dyn_cast<RankedTensorType>(function.getArgumentTypes()[argIndex]);
    auto whole =
        dyn_cast<RankedTensorType>(function.getArgumentTypes()[shard[0]]);
    if (!part || !whole || !whole.hasStaticShape() || part.getRank() != 1 ||
        !part.getElementType().isF32())
      return bad();
    int64_t count = whole.getNumElements();
    if (part.getDimSize(0) != ReplicaShardOp::getPartSize(count, shard[1]))
      return bad();
    return success();
  }
  if (name == kStateAttrName || name == kBufferAttrName) {
    // Unit: the state starts at zero; a float: it starts at that value.
    if (!isa<UnitAttr, FloatAttr>(value))
      return op->emitError() << "'" << name
                             << "' must be a unit attribute or the initial "
                                "value as a float";
  } else if (!isa<UnitAttr>(value)) {
    return op->emitError() << "'" << name << "' must be a unit attribute";
  }
  // Read the type from the signature: declarations have no region.
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << name << "' marks function arguments only";
  Type type = function.getArgumentTypes()[argIndex];
  auto tensor = dyn_cast<RankedTensorType>(type);
  Type element = tensor ? tensor.getElementType() : Type();
  auto emit = [&] { return emitArgumentError(op, argIndex); };
  if (name == kParamAttrName && (!tensor || !tensor.hasStaticShape() ||
                                 !(element.isF16() || element.isBF16() ||
                                   element.isF32() || element.isF64())))
    return op->emitError()
           << "'" << kParamAttrName << "' on argument #" << argIndex
           << " needs a statically shaped f16, bf16, f32 or f64 tensor, got "
           << type;
  if (name == kHyperParameterAttrName) {
    if (!tensor || tensor.getRank() != 0 || !element.isF64() ||
        !function.getArgAttr(argIndex, kStateAttrName))
      return emit() << "'" << kHyperParameterAttrName << "' on argument #"
                    << argIndex
                    << " needs a 0-d f64 tensor that is also 'amp.state', got "
                    << type;
    return success();
  }
  // A buffer's starting value is checked as a state's, below.
  if (name == kBufferAttrName &&
      (!tensor || !tensor.hasStaticShape() || !isa<FloatType>(element)))
    return emit() << "'" << kBufferAttrName << "' on argument #" << argIndex
                  << " needs a statically shaped floating-point tensor, got "
                  << type;
  if (name == kRngAttrName) {
    if (!isRngStateType(type))
      return emit() << "'" << kRngAttrName << "' on argument #" << argIndex
                    << " needs a tensor<2xi64> (seed, forward pass), got "
                    << type;
    for (unsigned other = 0; other < argIndex; ++other)
      if (function.getArgAttr(other, kRngAttrName))
        return emit() << "'" << kRngAttrName << "' on argument #" << argIndex
                      << " and #" << other
                      << ": a function has one random generator";
    return success();
  }
  if (name == kLossPartAttrName) {
    if (!tensor || tensor.getRank() != 0 || !element.isF32() ||
        !function.getArgAttr(argIndex, kStateAttrName) ||
        function.getArgAttr(argIndex, kLossScaleAttrName))
      return emit() << "'" << kLossPartAttrName << "' on argument #" << argIndex
                    << " needs a 0-d f32 tensor that is also 'amp.state' "
                       "(and no loss scale), got "
                    << type;
    return success();
  }
  if (name == kLossScaleAttrName) {
    if (!tensor || tensor.getRank() != 0 || !element.isF32())
      return emit() << "'" << kLossScaleAttrName << "' on argument #"
                    << argIndex
                    << " needs a 0-d f32 tensor (the scale is kept in f32), "
                       "got "
                    << type;
    return success();
  }
  if (failed(verifyStorableTensor(emit, type,
                                  "argument #" + std::to_string(argIndex))))
    return failure();
  if (name == kStateAttrName || name == kBufferAttrName) {
    auto initial = dyn_cast<FloatAttr>(value);
    auto floatElement = dyn_cast_or_null<FloatType>(element);
    if (!initial)
      return success();
    if (!floatElement)
      return emit() << "'" << name << "' on argument #" << argIndex
                    << " gives a starting value to " << type
                    << ", which is not a floating-point tensor";
    // The value as the argument's type stores it.
    APFloat stored = initial.getValue();
    bool losesInfo = false;
    stored.convert(floatElement.getFloatSemantics(),
                   APFloat::rmNearestTiesToEven, &losesInfo);
    if (!stored.isFinite())
      return emit() << "'" << name << "' starts argument #" << argIndex
                    << " at " << initial.getValueAsDouble()
                    << ", which is not finite in " << floatElement;
    return success();
  }
  return success();
}

LogicalResult
AmpDialect::verifyRegionResultAttribute(Operation *op, unsigned regionIndex,
                                        unsigned resultIndex,
                                        NamedAttribute attribute) {
  if (attribute.getName() != kNameAttrName)
    return op->emitError() << "unknown amp result attribute '"
                           << attribute.getName().getValue() << "'";
  // An evaluation's outputs are named as the model names the values.
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty() || name.getValue().contains('\0'))
    return op->emitError() << "'" << kNameAttrName << "' on result #"
                           << resultIndex
                           << " must be a non-empty string without NUL "
                              "characters";
  auto function = dyn_cast<FunctionOpInterface>(op);
  for (unsigned i = 0, e = function ? function.getNumResults() : 0;
       i < resultIndex && i < e; ++i)
    if (function.getResultAttrOfType<StringAttr>(i, kNameAttrName) == name)
      return op->emitError() << "results #" << i << " and #" << resultIndex
                             << " are both named '" << name.getValue() << "'";
  return success();
}

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  if (attribute.getName() == kSeedAttrName) {
    auto constant = dyn_cast<ConstantOp>(op);
    auto type = constant ? dyn_cast<RankedTensorType>(constant.getType())
                         : RankedTensorType();
    if (!isa<UnitAttr>(attribute.getValue()) || !type || type.getRank() != 0 ||
        !isa<FloatType>(type.getElementType()))
      return op->emitError()
             << "'" << kSeedAttrName
             << "' is a unit attribute of a 0-d floating-point amp.constant";
    return success();
  }
  if (attribute.getName() == kInnerSeedAttrName) {
    auto constant = dyn_cast<ConstantOp>(op);
    auto type = constant ? dyn_cast<RankedTensorType>(constant.getType())
                         : RankedTensorType();
    if (!isa<UnitAttr>(attribute.getValue()) || !type || type.getRank() != 0 ||
        !(type.getElementType().isF32() || type.getElementType().isF64()))
      return op->emitError() << "'" << kInnerSeedAttrName
                             << "' is a unit attribute of a 0-d f32 (f64 in "
                                "a widened copy) amp.constant";
    return success();
  }
  if (attribute.getName() == kCustomVJPAttrName) {
    if (!isa<FlatSymbolRefAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kCustomVJPAttrName
                             << "' names a function (@f_backward) on a "
                                "function";
    return success();
  }
  if (attribute.getName() == kCastInputsAttrName) {
    auto type = dyn_cast<TypeAttr>(attribute.getValue());
    if (!type || !(type.getValue().isF32() || type.getValue().isF64()) ||
        !isa<FunctionOpInterface>(op) || !op->hasAttr(kCustomVJPAttrName))
      return op->emitError() << "'" << kCastInputsAttrName
                             << "' is f32 (f64 in a widened copy), on a "
                                "function with '"
                             << kCustomVJPAttrName << "'";
    return success();
  }
  if (attribute.getName() == kInnerGradAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || !isa<MulOp>(op))
      return op->emitError() << "'" << kInnerGradAttrName
                             << "' is a unit attribute of an amp.mul";
    return success();
  }
  if (attribute.getName() == kLossScalingAttrName) {
    // The settings are #amp.loss_scaling's to check.
    if (!isa<LossScalingAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kLossScalingAttrName
                             << "' is an #amp.loss_scaling attribute on a "
                                "function";
    return success();
  }
  if (attribute.getName() == kGradientOfAttrName ||
      attribute.getName() == kEvaluationOfAttrName) {
    if (!isa<FlatSymbolRefAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << attribute.getName().getValue()
                             << "' names a function (@f) on a function";
    return success();
  }
  // The backend's annotations (Transforms/Backend.h).
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto integer = dyn_cast<IntegerAttr>(value);
  bool isCount = integer && integer.getType().isSignlessInteger(64) &&
                 integer.getInt() >= 0;
  if (name == "amp.arena_size" || name == "amp.scratch") {
    if (!isCount)
      return op->emitError()
             << "'" << name << "' is a byte count, a non-negative i64";
    return success();
  }
  // A slice or transpose that attentions read in place (backend::
  // kAttentionViewAttr).
  constexpr StringLiteral kAttentionView = "amp.attention_view";
  if (name == kAttentionView) {
    if (!isa<UnitAttr>(value) || !isa<SliceOp, TransposeOp>(op))
      return op->emitError() << "'" << name
                             << "' is a unit attribute of an amp.slice or "
                                "amp.transpose";
    return success();
  }
  if (name == "amp.place") {
    auto places = dyn_cast<ArrayAttr>(value);
    if (!places || places.size() != op->getNumResults() ||
        !llvm::all_of(places, [](Attribute a) { return isa<PlaceAttr>(a); }) ||
        !(isa<FusionOp>(op) || op->hasTrait<OpTrait::amp::MemoryView>() ||
          op->hasAttr(kAttentionView)))
      return op->emitError() << "'amp.place' is an array of one #amp.place "
                                "per result of an amp.fusion or a view";
    return success();
  }
  if (name == "amp.memory") {
    if (!isa<MemoryAttr>(value) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'amp.memory' is an #amp.memory attribute on "
                                "a function";
    return success();
  }
  if (attribute.getName() == kPrecisionReasonAttrName) {
    if (!isa<StringAttr>(value) || !op->hasAttr(kPrecisionAttrName))
      return op->emitError()
             << "'" << kPrecisionReasonAttrName << "' is a string beside '"
             << kPrecisionAttrName << "': why the precision is forced";
    return success();
  }
  if (attribute.getName() == kFp8AttrName) {
    if (!isa<BoolAttr>(value) || !isa<MatmulOp>(op))
      return op->emitError()
             << "'" << kFp8AttrName
             << "' is a bool on an amp.matmul: whether amp-autocast makes it "
                "an FP8 GEMM";
    return success();
  }
  if (attribute.getName() == kFp8DelayedAttrName) {
    auto recipe = dyn_cast<DictionaryAttr>(value);
    auto matmul = dyn_cast<MatmulOp>(op);
    auto compute =
        recipe ? recipe.getAs<StringAttr>("amax_compute") : StringAttr();
    auto margin = recipe ? recipe.getAs<FloatAttr>("margin") : FloatAttr();
    if (!matmul || !matmul.getScales() || !recipe || recipe.size() != 2 ||
        !compute ||
        (compute.getValue() != "max" && compute.getValue() != "most_recent") ||
        !margin || !std::isfinite(margin.getValueAsDouble()))
      return op->emitError()
             << "'" << kFp8DelayedAttrName
             << "' is {amax_compute = \"max\" or \"most_recent\", margin = "
                "a finite float} on an amp.matmul with scales";
    return success();
  }
  if (attribute.getName() != kPrecisionAttrName)
    return op->emitError() << "unknown amp attribute '"
                           << attribute.getName().getValue() << "'";
  auto type = dyn_cast<TypeAttr>(attribute.getValue());
  if (!type || !(type.getValue().isF16() || type.getValue().isBF16() ||
                 type.getValue().isF32()))
    return op->emitError() << "'" << kPrecisionAttrName
                           << "' must be f16, bf16 or f32";
  if (!isa<PrecisionOpInterface>(op))
    return op->emitError() << "'" << kPrecisionAttrName
                           << "' applies to ops with a precision category";
  return success();
}
