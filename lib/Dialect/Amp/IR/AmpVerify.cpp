//===- AmpVerify.cpp - checks shared by amp verifiers ---------------------===//

#include "AmpVerify.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

std::string amp::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return text;
}

LogicalResult amp::emitOptional(std::optional<Location> loc, StringRef opName,
                                const Twine &message) {
  if (loc)
    emitError(*loc) << "'" << opName << "' op " << message;
  return failure();
}

RankedTensorType amp::getStaticTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor : RankedTensorType();
}

LogicalResult amp::verifyDimInRange(Operation *op, StringRef attrName,
                                    int64_t dim, int64_t rank) {
  if (dim >= 0 && dim < rank)
    return success();
  return op->emitOpError() << attrName << " " << dim
                           << " is out of range for a rank-" << rank
                           << " tensor";
}

LogicalResult amp::verifySameElementType(Operation *op, StringRef lhsName,
                                         Type lhs, StringRef rhsName,
                                         Type rhs) {
  Type lhsElement = getElementTypeOrSelf(lhs);
  Type rhsElement = getElementTypeOrSelf(rhs);
  if (lhsElement == rhsElement)
    return success();
  return op->emitOpError() << lhsName << " and " << rhsName
                           << " element types differ: " << lhsElement << " vs "
                           << rhsElement
                           << " (insert an amp.cast to change precision)";
}

LogicalResult amp::verifyResultShape(Operation *op, ArrayRef<int64_t> expected,
                                     Type result, Type elementType) {
  auto resultType = cast<RankedTensorType>(result);
  if (resultType.getShape() != expected)
    return op->emitOpError()
           << "result shape " << formatShape(resultType.getShape())
           << " does not match the expected " << formatShape(expected);
  if (elementType && resultType.getElementType() != elementType)
    return op->emitOpError()
           << "result element type " << resultType.getElementType()
           << " does not match the expected " << elementType;
  return success();
}

LogicalResult amp::verifyAccumulatorType(Operation *op, FloatType acc,
                                         FloatType operand) {
  if (isExactConversion(operand, acc))
    return success();
  return op->emitOpError() << "accumulator type " << acc << " cannot hold "
                           << operand << " operands exactly";
}

LogicalResult amp::verifyNormalizedParam(Operation *op, RankedTensorType input,
                                         int64_t axis, StringRef name,
                                         Value param) {
  if (!param)
    return success();
  ArrayRef<int64_t> expected = input.getShape().drop_front(axis);
  auto paramType = cast<RankedTensorType>(param.getType());
  if (paramType.getShape() == expected)
    return success();
  return op->emitOpError() << name << " shape "
                           << formatShape(paramType.getShape())
                           << " does not match the normalised shape "
                           << formatShape(expected);
}

LogicalResult amp::verifyScalarLoss(Operation *op, Type result) {
  if (cast<RankedTensorType>(result).getRank() == 0)
    return success();
  return op->emitOpError() << "result must be a 0-d tensor, got " << result;
}

LogicalResult amp::inferBroadcastType(std::optional<Location> loc,
                                      StringRef opName, TypeRange operands,
                                      Type elementType,
                                      SmallVectorImpl<Type> &inferred) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Type type : operands) {
    RankedTensorType tensor = getStaticTensorType(type);
    if (!tensor)
      return emitOptional(loc, opName,
                          "operands must be statically shaped tensors");
    shapes.push_back(tensor.getShape());
  }
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(shapes, shape))) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(
        shapes, os, [&](ArrayRef<int64_t> s) { os << formatShape(s); },
        " and ");
    return emitOptional(loc, opName,
                        "operand shapes " + text +
                            " are not broadcast-compatible");
  }
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}
