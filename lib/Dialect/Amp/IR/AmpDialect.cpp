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

LogicalResult AmpDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  if (attribute.getName() != kParamAttrName)
    return op->emitError() << "unknown amp argument attribute '"
                           << attribute.getName().getValue() << "'";
  if (!isa<UnitAttr>(attribute.getValue()))
    return op->emitError() << "'" << kParamAttrName
                           << "' must be a unit attribute";
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  Type type = region.getArgument(argIndex).getType();
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa<FloatType>(tensor.getElementType()))
    return op->emitError() << "'" << kParamAttrName << "' on argument #"
                           << argIndex
                           << " needs a floating-point tensor, got " << type;
  return success();
}

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  return op->emitError() << "unknown amp attribute '"
                         << attribute.getName().getValue() << "'";
}
