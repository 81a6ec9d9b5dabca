//===- AmpAttrs.h - amp dialect attributes ----------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRS_H
#define AMP_DIALECT_AMP_IR_AMPATTRS_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttrs.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPATTRS_H
