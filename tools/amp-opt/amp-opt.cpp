//===- amp-opt.cpp - the amp pass driver ----------------------------------===//
//
// mlir-opt with the amp dialect and passes: every upstream flag works.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAll.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::amp::registerAllDialects(registry);
  mlir::amp::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "amp-mlir optimizer driver\n", registry));
}
