//===- InitAll.cpp - register every amp dialect and pass ------------------===//

#include "amp/InitAll.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/VJP.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/Passes.h"

void mlir::amp::registerAllDialects(DialectRegistry &registry) {
  registry.insert<AmpDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect>();
  func::registerInlinerExtension(registry);
  registerPrecisionExternalModels(registry);
  registerDifferentiableExternalModels(registry);
}

void mlir::amp::registerAllPasses() {
  registerAmpPasses();
  registerAmpPipelines();
  registerCanonicalizerPass();
  registerCSEPass();
  registerInlinerPass();
  registerSymbolDCEPass();
  registerSymbolPrivatizePass();
  registerLoopInvariantCodeMotionPass();
  registerTopologicalSortPass();
  registerStripDebugInfoPass();
  registerPrintOpStatsPass();
  registerViewOpGraphPass();
}
