//===- AmpTraits.h - amp op-family traits -----------------------*- C++ -*-===//
//
// Marker traits naming the family of an amp op, its default autocast
// category and what the backend asks of it. They carry no verification;
// analyses ask `op->hasTrait<...>()` instead of matching op names. One trait
// every amp op has, StorableTensors, verifies the sizes of its tensors.
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

/// What the backend asks of an op (AmpBase.td documents each): fused into
/// an elementwise loop, a view of its operand's memory, an update that may
/// store its results over the state they replace, a row kernel, a kernel
/// that can compute its operands in its loads.
#define AMP_BACKEND_TRAIT(Name)                                                \
  template <typename ConcreteType>                                             \
  class Name : public TraitBase<ConcreteType, Name> {};

AMP_BACKEND_TRAIT(FusibleElementwise)
AMP_BACKEND_TRAIT(MemoryView)
AMP_BACKEND_TRAIT(InPlaceUpdate)
AMP_BACKEND_TRAIT(RowKernel)
AMP_BACKEND_TRAIT(OperandsInLoads)
AMP_BACKEND_TRAIT(Decomposed)

#undef AMP_BACKEND_TRAIT

namespace impl {
LogicalResult verifyStorableTensors(Operation *op);
} // namespace impl

/// Every tensor an amp op reads or writes can be stored: no empty dimension
/// (an empty batch trains nothing) and a size in bytes that fits in int64
/// (mlir::amp::verifyStorableTensor). The passes and the backend compute
/// sizes from these types without checking again.
template <typename ConcreteType>
class StorableTensors : public TraitBase<ConcreteType, StorableTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return impl::verifyStorableTensors(op);
  }
};

} // namespace mlir::OpTrait::amp

#endif // AMP_DIALECT_AMP_IR_AMPTRAITS_H
