//===- AmpEnums.h - amp dialect enums ---------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPENUMS_H
#define AMP_DIALECT_AMP_IR_AMPENUMS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"

#include "amp/Dialect/Amp/IR/AmpEnums.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPENUMS_H
