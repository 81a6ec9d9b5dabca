//===- FuzzTarget.cpp - the amp-mlir fuzz target --------------------------===//
//
// Dispatches on the input's first bytes:
//   "AMPSTATE"          a state file: the runtime's reader (amp_state_load)
//                       and a small step's load, whose value checks run on
//                       what the reader accepts (amp_step_load);
//   "\x93NUMPY"         a .npy file: the runtime's reader (amp_npy_inspect,
//                       amp_npy_read) and the interpreter's (parseNpy);
//   "amp-train-step:"   an option string (up to a newline) for the
//                       amp-train-step pipeline on a fixed small model;
//   anything else       a module: parsed, verified, run through the pass
//                       pipelines on copies of it (the backend's fusion,
//                       planning and C++ emission included; the passes that
//                       read earlier passes' attributes also on the input as
//                       it is, and the emitter on the plans it holds), and
//                       its small functions executed in the interpreter.
// Any crash, sanitizer report or hang is a bug: bad input must only ever
// produce diagnostics or error statuses. Built as a libFuzzer target
// (clang, -fsanitize=fuzzer) and as amp-fuzz-replay, which runs files
// through the same code.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"
#include "amp/Interpreter/Npy.h"
#include "amp/Interpreter/RandomInputs.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "amp_runtime/state_file.h"
#include "amp_runtime/step.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

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
  if (failed(parsePassPipeline(pipeline, pm, llvm::nulls())))
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
  if (failed(parsePassPipeline(pipeline, pm, llvm::nulls())) ||
      failed(pm.run(*copy)))
    return;
  emitPlanned(*copy);
}

//===----------------------------------------------------------------------===//
// The runtime's readers
//===----------------------------------------------------------------------===//

/// An in-memory file that holds the input, named by a path the runtime's
/// readers open like any other (a regular file, never on disk).
class MemoryFile {
public:
  MemoryFile(const uint8_t *data, size_t size) {
    fd = ::memfd_create("amp-fuzz-input", MFD_CLOEXEC);
    if (fd < 0)
      return;
    for (size_t done = 0; done < size;) {
      ssize_t n = ::write(fd, data + done, size - done);
      if (n <= 0) {
        ::close(fd);
        fd = -1;
        return;
      }
      done += static_cast<size_t>(n);
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~MemoryFile() {
    if (fd >= 0)
      ::close(fd);
  }
  MemoryFile(const MemoryFile &) = delete;
  MemoryFile &operator=(const MemoryFile &) = delete;

  /// The path of the file, or null when it could not be made.
  const char *getPath() const { return fd < 0 ? nullptr : path.c_str(); }

private:
  int fd = -1;
  std::string path;
};

void ignore(amp_status_t status) { amp_status_free(status); }

/// A step written by hand, its run trivial: what it holds, not what it
/// computes, is under test. Its state has the names whose values a load
/// checks (the loss scale, torch.optim's and GradScaler's counters, a
/// second moment, a hyperparameter), and the step's counters follow them
/// in its state files (test/Fuzz/seeds/make_seeds.py writes its files).
amp_status_t runHandStep(amp_stream_t *, void *const *, void *, float *loss,
                         float *foundInf, double *counters) {
  *loss = 0;
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

const amp_step_tensor_t kHandTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 3, 0, 0, 0},
    {"w.exp_avg", AMP_STEP_STATE, AMP_ELEMENT_F32, 1, {3}, 0, 0, 0, 0},
    {"w.exp_avg_sq", AMP_STEP_STATE, AMP_ELEMENT_F32, 1, {3}, 0, 0, 0, 0},
    {"loss_scale", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 65536, 0, 0},
    {"step", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 0, 0, 0},
    {"growth_tracker", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 0, 0, 0},
    {"hysteresis_tracker", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 2, 0, 0},
    {"lr", AMP_STEP_HPARAM, AMP_ELEMENT_F64, 0, {}, 0, 0.001, 0, 0},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0, 0, 0},
};
constexpr size_t kHandTensorCount = std::size(kHandTensors);
constexpr int64_t kHandLossScale = 3;

/// The hand step, created once: null if the runtime refused it.
amp_step_t *getHandStep() {
  static amp_step_t *step = [] {
    // The runtime keeps a pointer to the description: static too.
    static amp_step_description_t description{};
    description.abi_version = AMP_STEP_ABI_VERSION;
    description.name = "fuzz_hand";
    description.target = AMP_DEVICE_HOST;
    description.tensor_count = kHandTensorCount;
    description.tensors = kHandTensors;
    description.loss_scale_tensor = kHandLossScale;
    description.arena_size = 64;
    description.run = &runHandStep;
    amp_step_t *created = nullptr;
    amp_status_t status =
        amp_step_create(&description, AMP_DEVICE_HOST, &created);
    if (status) {
      amp_status_free(status);
      return static_cast<amp_step_t *>(nullptr);
    }
    return created;
  }();
  return step;
}

/// A state file read into the hand step's entry table, then loaded into
/// the hand step itself, whose scaler is read back after a load.
void fuzzStateFile(const char *path) {
  std::vector<std::vector<char>> storage;
  std::vector<amp_state_entry_t> entries;
  storage.reserve(kHandTensorCount + 1);
  for (const amp_step_tensor_t &t : kHandTensors) {
    if (t.kind == AMP_STEP_INPUT)
      continue;
    size_t size = amp_element_size(t.type);
    for (int32_t d = 0; d < t.rank; ++d)
      size *= static_cast<size_t>(t.shape[d]);
    storage.emplace_back(size);
    entries.push_back({t.name, storage.back().data(), size});
  }
  storage.emplace_back(2 * sizeof(double));
  entries.push_back(
      {"amp.counters", storage.back().data(), storage.back().size()});
  ignore(amp_state_load(path, entries.size(), entries.data()));

  amp_step_t *step = getHandStep();
  if (!step)
    return;
  amp_status_t loaded = amp_step_load(step, path);
  if (loaded) {
    amp_status_free(loaded);
    return;
  }
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ignore(amp_step_scaler(step, &scale, &steps, &skipped));
}

/// Bytes the .npy reader may read one file into.
constexpr size_t kMaxNpyBytes = 1 << 20;

/// A .npy file through the runtime's reader (inspected, then read as what
/// it says it holds) and the interpreter's (as each element kind).
void fuzzNpy(const char *path, const uint8_t *data, size_t size) {
  amp_step_tensor_t tensor{};
  tensor.name = "fuzz";
  amp_status_t inspected = amp_npy_inspect(path, &tensor);
  if (inspected) {
    amp_status_free(inspected);
  } else {
    size_t bytes = amp_element_size(tensor.type);
    for (int32_t d = 0; d < tensor.rank && bytes <= kMaxNpyBytes; ++d) {
      auto dim = static_cast<size_t>(tensor.shape[d]);
      bytes =
          dim && bytes > kMaxNpyBytes / dim ? kMaxNpyBytes + 1 : bytes * dim;
    }
    if (bytes <= kMaxNpyBytes) {
      std::vector<char> buffer(bytes);
      ignore(amp_npy_read(&tensor, path, buffer.data(), buffer.size()));
    }
  }
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  for (amp::interp::ElementKind kind :
       {amp::interp::ElementKind::F16, amp::interp::ElementKind::BF16,
        amp::interp::ElementKind::F32, amp::interp::ElementKind::F64,
        amp::interp::ElementKind::I1, amp::interp::ElementKind::I32,
        amp::interp::ElementKind::I64}) {
    llvm::Expected<amp::interp::Tensor> tensor =
        amp::interp::parseNpy(bytes, kind, "fuzz.npy");
    if (!tensor)
      llvm::consumeError(tensor.takeError());
  }
}

//===----------------------------------------------------------------------===//
// The pipeline's options
//===----------------------------------------------------------------------===//

/// The model the option strings train: a two-layer classifier, small
/// enough that every pipeline runs in milliseconds.
constexpr const char *kClassifier = R"mlir(
func.func @classifier(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                      %w1: tensor<8x16xf32> {amp.param},
                      %b1: tensor<16xf32> {amp.param},
                      %w2: tensor<16x3xf32> {amp.param},
                      %b2: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %0 = amp.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> to tensor<4x16xf32>
  %1 = amp.add %0, %b1 : tensor<4x16xf32>, tensor<16xf32>
  %2 = amp.relu %1 : tensor<4x16xf32>
  %3 = amp.matmul %2, %w2 : tensor<4x16xf32>, tensor<16x3xf32> to tensor<4x3xf32>
  %4 = amp.add %3, %b2 : tensor<4x3xf32>, tensor<3xf32>
  %5 = amp.cross_entropy %4, %labels : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
  return %5 : tensor<f32>
}
)mlir";

/// amp-train-step with `options` on the classifier. Braces would end the
/// pass's options and start others; a policy file would be read from disk
/// by a name the input chose: neither is fuzzed here.
void fuzzTrainStepOptions(MLIRContext &context, StringRef options) {
  options = options.take_until([](char c) { return c == '\n'; });
  if (options.find_first_of("{}") != StringRef::npos ||
      options.contains("policy"))
    return;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kClassifier, &context);
  if (!module)
    return;
  runPipeline(*module,
              ("builtin.module(amp-train-step{" + options + "})").str());
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16))
    return 0;
  StringRef input(reinterpret_cast<const char *>(data), size);
  if (input.starts_with("AMPSTATE") || input.starts_with("\x93NUMPY")) {
    MemoryFile file(data, size);
    if (!file.getPath())
      return 0;
    if (input.starts_with("AMPSTATE"))
      fuzzStateFile(file.getPath());
    else
      fuzzNpy(file.getPath(), data, size);
    return 0;
  }
  MLIRContext context(getRegistry(), MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  // Diagnostics are the expected answer to bad input; drop them.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  constexpr StringRef kOptionsPrefix = "amp-train-step:";
  if (input.starts_with(kOptionsPrefix)) {
    fuzzTrainStepOptions(context, input.drop_front(kOptionsPrefix.size()));
    return 0;
  }
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
  runPipeline(*module,
              "builtin.module(amp-optimizer{optimizer=sgd momentum=0.9})");
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
