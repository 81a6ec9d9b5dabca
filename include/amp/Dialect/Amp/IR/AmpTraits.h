//===- AmpTraits.h - amp op-family traits -----------------------*- C++ -*-===//
//
// Marker traits naming the family of an amp op. They carry no verification;
// analyses ask `op->hasTrait<...>()` instead of matching op names.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPTRAITS_H
#define AMP_DIALECT_AMP_IR_AMPTRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::OpTrait::amp {

#define AMP_FAMILY_TRAIT(Name)                                                 \
  template <typename ConcreteType>                                             \
  class Name##Family : public TraitBase<ConcreteType, Name##Family> {};

AMP_FAMILY_TRAIT(Elementwise)
AMP_FAMILY_TRAIT(Shape)
AMP_FAMILY_TRAIT(Contraction)
AMP_FAMILY_TRAIT(Reduction)
AMP_FAMILY_TRAIT(Normalization)
AMP_FAMILY_TRAIT(Loss)
AMP_FAMILY_TRAIT(Data)
AMP_FAMILY_TRAIT(Gradient)
AMP_FAMILY_TRAIT(Optimizer)

#undef AMP_FAMILY_TRAIT

/// Default amp-autocast categories, read by PrecisionOpInterface.
#define AMP_CATEGORY_TRAIT(Name)                                               \
  template <typename ConcreteType>                                             \
  class Name##Category : public TraitBase<ConcreteType, Name##Category> {};

AMP_CATEGORY_TRAIT(LowerPrecision)
AMP_CATEGORY_TRAIT(KeepFp32)
AMP_CATEGORY_TRAIT(Promote)
AMP_CATEGORY_TRAIT(Follow)

#undef AMP_CATEGORY_TRAIT

} // namespace mlir::OpTrait::amp

#endif // AMP_DIALECT_AMP_IR_AMPTRAITS_H
