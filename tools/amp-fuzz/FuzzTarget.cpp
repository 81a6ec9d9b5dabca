//===- FuzzTarget.cpp - the amp-mlir fuzz target --------------------------===//
//
// Parses the input as a module, verifies it, runs the pass pipelines on
// copies of it (the backend's fusion, planning and C++ emission included;
// the passes that read earlier passes' attributes also on the input as it
// is, and the emitter on the plans it holds) and executes small functions
// in the interpreter. Any crash,
// sanitizer report or hang is a bug: bad input must only ever produce
// diagnostics. Built as a libFuzzer target (clang, -fsanitize=fuzzer) and
// as amp-fuzz-replay, which runs files through the same code.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"
#include "amp/Interpreter/RandomInputs.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

namespace {
/// Work the interpreter may do on one input: keeps the fuzzer fast.
constexpr int64_t kMaxFlops = 2'000'000;
constexpr int64_t kMaxElements = 1 << 16;

const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    amp::registerAllDialects(*r);
    amp::registerAllPasses();
    return r;
  }();
  return *registry;
}

void runPipeline(ModuleOp module, StringRef pipeline) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(pipeline, pm)))
    return;
  (void)pm.run(*copy);
}

/// Whether `func` is small enough to run; interpret() has checked first
/// that no count overflows (getNumElements would wrap around).
bool smallEnough(func::FuncOp func) {
  for (Type type : func.getArgumentTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        tensor.getNumElements() > kMaxElements)
      return false;
  }
  bool small = true;
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        small &=
            tensor.hasStaticShape() && tensor.getNumElements() <= kMaxElements;
  });
  if (!small)
    return false;
  FailureOr<amp::FunctionSummary> summary = amp::summarizeFunction(func);
  return succeeded(summary) && summary->forwardFlops <= kMaxFlops;
}

void interpret(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) // callees run too
    if (failed(amp::interp::verifySizes(func)))
      return;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !smallEnough(func))
      continue;
    std::vector<amp::interp::Tensor> args;
    bool representable = true;
    for (BlockArgument arg : func.getArguments()) {
      auto type = cast<RankedTensorType>(arg.getType());
      if (!amp::interp::getElementKind(type.getElementType())) {
        representable = false;
        break;
      }
      args.push_back(amp::interp::makeRandomInput(arg, 1, {}));
    }
    if (!representable)
      continue;
    amp::interp::InterpreterOptions options;
    options.checkFinite = true;
    (void)amp::interp::Interpreter(module, options).run(func, args);
  }
}
/// C++ emission of every planned function of `module`.
void emitPlanned(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(amp::backend::kArenaSizeAttr))
      (void)amp::translateToCuda(module, llvm::nulls(), func.getSymName(), "");
}

/// The backend on `pipeline`'s result: fusion and buffer planning of every
/// function it accepts, then C++ emission of each planned one.
void compile(ModuleOp module, StringRef pipeline) {
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(*copy)))
    return;
  emitPlanned(*copy);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16))
    return 0;
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Diagnostics are the expected answer to bad input; drop them.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  // MLIR's lexer relies on the terminating NUL that every file buffer has:
  // copy the bytes into a string, which has one.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;
  runPipeline(*module, "builtin.module(canonicalize,cse)");
  runPipeline(*module, "builtin.module(amp-model-summary)");
  runPipeline(*module, "builtin.module(amp-autocast{compute-type=bf16 "
                       "keep-fp32-low-io=true})");
  runPipeline(*module, "builtin.module(amp-train-step{compute-type=f16 "
                       "optimizer=adamw max-grad-norm=1.0 accumulate=2})");
  // The passes that read what an earlier pass left (amp.gradient_of,
  // amp.loss_scaling, the seed), on the input as it is: a gradient function
  // from a file reaches them unchecked by the passes before.
  runPipeline(*module, "builtin.module(amp-loss-scaling{mode=dynamic})");
  runPipeline(*module, "builtin.module(amp-optimizer{optimizer=adamw "
                       "accumulate=2})");
  runPipeline(*module, "builtin.module(amp-optimizer{momentum=0.9})");
  // The plans the input holds (hand-edited IR), as they are and redone.
  {
    OwningOpRef<ModuleOp> copy = module->clone();
    emitPlanned(*copy);
  }
  compile(*module, "builtin.module(func.func(amp-plan-buffers))");
  compile(*module, "builtin.module(func.func(amp-fuse,amp-plan-buffers))");
  compile(*module, "builtin.module(amp-train-step{compute-type=bf16 "
                   "optimizer=sgd momentum=0.9},"
                   "amp-backend{by-size-limit=8})");
  interpret(*module);
  return 0;
}
