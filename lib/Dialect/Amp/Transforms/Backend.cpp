//===- Backend.cpp - what the backend passes and the emitter share --------===//

#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::amp;

bool backend::isElementwise(Operation *op) {
  return isa<CastOp, NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp,
             SigmoidOp, ReluOp, GeluOp, PowOp, AddOp, SubOp, MulOp, DivOp,
             MaximumOp, MinimumOp, SelectOp, CompareOp, ReluGradOp, GeluGradOp,
             BroadcastToOp, IotaOp, ConstantOp>(op);
}

bool backend::isView(Operation *op) { return isa<ReshapeOp>(op); }

int64_t backend::getByteSize(Type type, int64_t floatBytes16) {
  // checkCompilable checked that it fits.
  return *getCheckedByteSize(cast<RankedTensorType>(type), floatBytes16);
}

int64_t backend::getScratchBytes(Operation *op) {
  auto loss = dyn_cast<CrossEntropyOp>(op);
  if (!loss)
    return 0;
  auto logits = cast<RankedTensorType>(loss.getLogits().getType());
  int64_t rows =
      cast<RankedTensorType>(loss.getLabels().getType()).getNumElements();
  return rows * (logits.getElementType().isF64() ? 8 : 4);
}

std::optional<int64_t> backend::getKernel(Operation *op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(kKernelAttr))
    return attr.getInt();
  return std::nullopt;
}

SmallVector<unsigned> backend::getThreadedArguments(func::FuncOp func) {
  SmallVector<unsigned> threaded;
  bool scaled = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, AmpDialect::kParamAttrName) &&
        !func.getArgAttr(i, AmpDialect::kStateAttrName))
      continue;
    scaled |= static_cast<bool>(
        func.getArgAttr(i, AmpDialect::kLossScaleAttrName));
    threaded.push_back(i);
  }
  if (func.getNumResults() != threaded.size() + (scaled ? 2 : 1))
    return {};
  for (auto [k, i] : llvm::enumerate(threaded))
    if (func.getResultTypes()[k] != func.getArgumentTypes()[i])
      return {};
  return threaded;
}

std::optional<unsigned> backend::getReplacedOperand(Operation *update,
                                                    unsigned result) {
  if (result >= update->getNumResults())
    return std::nullopt;
  // Operands: param, grad, then the state in result order.
  if (isa<SgdUpdateOp>(update))
    return 0u;
  if (isa<SgdMomentumUpdateOp, AdamwUpdateOp>(update))
    return result == 0 ? 0u : result + 1;
  return std::nullopt;
}

SmallVector<Operation *> backend::getGuardSelects(Operation *update) {
  if (!getReplacedOperand(update, 0))
    return {};
  SmallVector<Operation *> selects;
  Value condition;
  for (OpResult result : update->getResults()) {
    auto select = dyn_cast_or_null<SelectOp>(
        result.hasOneUse() ? *result.getUsers().begin() : nullptr);
    if (!select || select.getOnTrue() != result ||
        select.getOnFalse() != update->getOperand(*getReplacedOperand(
                                   update, result.getResultNumber())) ||
        select.getType() != result.getType() ||
        cast<RankedTensorType>(select.getCondition().getType())
                .getNumElements() != 1 ||
        (condition && select.getCondition() != condition))
      return {};
    condition = select.getCondition();
    selects.push_back(select);
  }
  return selects;
}

/// Element types the generated code loads and stores.
static bool isSupportedElement(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.getWidth() == 1 || integer.getWidth() == 32 ||
                     integer.getWidth() == 64);
}

static LogicalResult checkType(Location loc, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << "the backend needs static shapes; " << what
                          << " is " << type;
  if (!isSupportedElement(tensor.getElementType()))
    return emitError(loc) << "the backend cannot store " << what << " of type "
                          << type;
  // Values no amp op verified (arguments only returned, say) included.
  if (failed(verifyStorableTensor([&] { return emitError(loc); }, type, what)))
    return failure();
  if (!getCheckedByteSize(tensor, 4))
    return emitError(loc) << what << " of type " << type
                          << " is too large: its size as f32, which the "
                             "memory report gives, does not fit in 64 bits";
  return success();
}

LogicalResult backend::checkCompilable(func::FuncOp func) {
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError() << "the backend compiles functions with one "
                               "block; @"
                            << func.getSymName() << " has "
                            << (func.isExternal() ? "no body" : "several");
  for (BlockArgument arg : func.getArguments())
    if (failed(checkType(arg.getLoc(), arg.getType(),
                         "argument #" + Twine(arg.getArgNumber()))))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (op == func.getOperation() || isa<func::ReturnOp>(op))
      return WalkResult::advance();
    if (isa<func::CallOp>(op))
      return op->emitError() << "the backend compiles one function; inline "
                                "the calls first (--inline)";
    if (!isa<AmpDialect>(op->getDialect()))
      return op->emitError() << "'" << op->getName()
                             << "' is not supported by the backend (only "
                                "amp ops are compiled)";
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (failed(checkType(op->getLoc(), type, "result #" + Twine(i))))
        return WalkResult::interrupt();
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      Type a = matmul.getLhs().getType().getElementType();
      Type c = matmul.getType().getElementType();
      Type acc = matmul.getAccumulatorType();
      if (a.isF64() || !acc.isF32() || (c != a && !c.isF32()))
        return op->emitError()
               << "the backend runs matmuls on f16, bf16 or f32 operands "
                  "with f32 accumulation and a result of the operand type "
                  "or f32 (as cuBLASLt does); this one has "
               << a << " operands, " << acc << " accumulation and a " << c
               << " result";
    }
    if (auto attention = dyn_cast<AttentionOp>(op)) {
      auto q = attention.getQuery().getType();
      auto v = attention.getValue().getType();
      if (q.getElementType().isF64() || q.getDimSize(3) > 256 ||
          v.getDimSize(3) != q.getDimSize(3))
        return op->emitError()
               << "the backend's attention takes f16, bf16 or f32 heads of "
                  "at most 256 channels, with values as wide as keys";
    }
    if (auto unscale = dyn_cast<UnscaleOp>(op))
      for (Value grad : unscale.getGrads())
        if (!cast<RankedTensorType>(grad.getType()).getElementType().isF32())
          return op->emitError() << "the backend unscales f32 gradients";
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
