//===- amp-translate.cpp - translations out of the amp dialect ------------===//
//
// mlir-translate with --amp-to-cuda: a planned step as CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::amp::registerToCudaTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv,
                                              "amp-mlir translation driver\n"))
             ? 1
             : 0;
}
