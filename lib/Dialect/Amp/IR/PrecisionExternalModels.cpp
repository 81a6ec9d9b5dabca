//===- PrecisionExternalModels.cpp - autocast categories of upstream ops --===//
//
// Graphs may hold arith and math ops next to amp ones. These models give
// them the categories of their amp counterparts, so that amp-autocast asks
// one interface for every op.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
template <typename OpT, PrecisionCategory Category>
struct FixedCategoryModel
    : PrecisionOpInterface::ExternalModel<FixedCategoryModel<OpT, Category>,
                                          OpT> {
  PrecisionCategory getDefaultPrecisionCategory(Operation *) const {
    return Category;
  }
};

template <PrecisionCategory Category, typename... Ops>
void attach(MLIRContext *context) {
  (Ops::template attachInterface<FixedCategoryModel<Ops, Category>>(*context),
   ...);
}
} // namespace

void amp::registerPrecisionExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attach<PrecisionCategory::Promote, arith::AddFOp, arith::SubFOp,
           arith::MulFOp, arith::DivFOp>(context);
    attach<PrecisionCategory::Follow, arith::NegFOp, arith::MaximumFOp,
           arith::MinimumFOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    // As PyTorch's CUDA lists: exp, log, pow, rsqrt in f32; the rest in
    // their input's type.
    attach<PrecisionCategory::KeepFp32, math::ExpOp, math::Exp2Op,
           math::ExpM1Op, math::LogOp, math::Log2Op, math::Log10Op,
           math::Log1pOp, math::PowFOp, math::RsqrtOp>(context);
    attach<PrecisionCategory::Follow, math::SqrtOp, math::TanhOp, math::ErfOp,
           math::AbsFOp>(context);
  });
}
