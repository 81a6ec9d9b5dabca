//===- AmpDialect.cpp - amp dialect ---------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"

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
  addInterfaces<AmpInlinerInterface>();
}

Operation *AmpDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<DenseElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, elements);
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

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  if (attribute.getName() == kNameAttrName)
    return verifyArgumentName(op, argIndex, attribute.getValue());
  if (attribute.getName() != kParamAttrName &&
      attribute.getName() != kStateAttrName &&
      attribute.getName() != kLossScaleAttrName)
    return op->emitError() << "unknown amp argument attribute '"
                           << attribute.getName().getValue() << "'";
  if (attribute.getName() == kStateAttrName) {
    // Unit: the state starts at zero; a float: it starts at that value.
    if (!isa<UnitAttr, FloatAttr>(attribute.getValue()))
      return op->emitError() << "'" << kStateAttrName
                             << "' must be a unit attribute or the initial "
                                "value as a float";
    return success();
  }
  if (attribute.getName() == kLossScaleAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << kLossScaleAttrName
                             << "' must be a unit attribute";
    return success();
  }
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << kParamAttrName
                           << "' must be a unit attribute";
  // Read the type from the signature: declarations have no region.
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << kParamAttrName
                           << "' marks function arguments only";
  Type type = function.getArgumentTypes()[argIndex];
  auto tensor = dyn_cast<RankedTensorType>(type);
  Type element = tensor ? tensor.getElementType() : Type();
  if (!tensor || !tensor.hasStaticShape() ||
      !(element.isF16() || element.isBF16() || element.isF32() ||
        element.isF64()))
    return op->emitError()
           << "'" << kParamAttrName << "' on argument #" << argIndex
           << " needs a statically shaped f16, bf16, f32 or f64 tensor, got "
           << type;
  return success();
}

LogicalResult AmpDialect::verifyRegionResultAttribute(
    Operation *op, unsigned regionIndex, unsigned resultIndex,
    NamedAttribute attribute) {
  return op->emitError() << "unknown amp result attribute '"
                         << attribute.getName().getValue() << "'";
}

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  if (attribute.getName() == kSeedAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || !isa<ConstantOp>(op))
      return op->emitError() << "'" << kSeedAttrName
                             << "' is a unit attribute of an amp.constant";
    return success();
  }
  if (attribute.getName() == kLossScalingAttrName) {
    if (!isa<DictionaryAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kLossScalingAttrName
                             << "' is a dictionary on a function";
    return success();
  }
  if (attribute.getName() == kGradientOfAttrName) {
    if (!isa<FlatSymbolRefAttr>(attribute.getValue()) ||
        !isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << kGradientOfAttrName
                             << "' names a function (@f) on a function";
    return success();
  }
  // The backend's annotations (Transforms/Backend.h).
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  if (name == "amp.kernel" || name == "amp.arena_size" ||
      name == "amp.scratch") {
    if (!isa<IntegerAttr>(value))
      return op->emitError() << "'" << name << "' is an integer";
    return success();
  }
  if (name == "amp.epilogue") {
    auto text = dyn_cast<StringAttr>(value);
    if (!text || !isa<MatmulOp>(op) ||
        (text.getValue() != "bias" && text.getValue() != "bias_relu"))
      return op->emitError()
             << "'amp.epilogue' is \"bias\" or \"bias_relu\" on an amp.matmul";
    return success();
  }
  if (name == "amp.place") {
    auto places = dyn_cast<ArrayAttr>(value);
    if (!places || places.size() != op->getNumResults() ||
        !llvm::all_of(places, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError()
             << "'amp.place' is an array of one string per result";
    return success();
  }
  if (name == "amp.memory") {
    if (!isa<DictionaryAttr>(value) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'amp.memory' is a dictionary on a function";
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
