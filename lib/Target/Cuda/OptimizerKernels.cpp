//===- OptimizerKernels.cpp - SGD, SGD with momentum and AdamW ------------===//
//
// The updates of one kernel run as one call of the runtime's multi-tensor
// update (amp_sgd_apply, amp_adamw_apply) where every tensor allows it,
// else as a generated functor per update. Both compute each element with
// amprt::sgdElement / amprt::adamwElement (amp_runtime/scalar_math.h).
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

namespace {

/// The runtime's hyperparameters of `update`'s optimizer, declared as
/// `hparams` (the addresses of its hyperparameter operands, which
/// `pointer` gives), and the function that applies it; nothing where the
/// runtime has no multi-tensor kernel for the op.
struct RuntimeUpdate {
  std::string hparams, function;
  bool withStep = true;
};

std::optional<RuntimeUpdate>
getRuntimeUpdate(Operation *update, function_ref<std::string(Value)> pointer) {
  RuntimeUpdate call;
  // Clipping's coefficient, multiplied in as the update loads each
  // gradient (getGradientScale).
  Value factor = getGradientScaleFactor(update);
  std::string gradScale = factor ? pointer(factor) : "nullptr";
  if (auto sgd = dyn_cast<SgdUpdateOp>(update)) {
    call.hparams =
        designatedInit("amp_sgd_hparams_t", "hparams",
                       {{"lr", pointer(sgd.getLr())},
                        {"momentum", "nullptr"},
                        {"weight_decay", pointer(sgd.getWeightDecay())},
                        {"dampening", "0.0"},
                        {"nesterov", "0"},
                        {"grad_scale", gradScale}},
                       /*isConst=*/true);
    call.function = "amp_sgd_apply";
    call.withStep = false;
    return call;
  }
  if (auto sgd = dyn_cast<SgdMomentumUpdateOp>(update)) {
    call.hparams = designatedInit(
        "amp_sgd_hparams_t", "hparams",
        {{"lr", pointer(sgd.getLr())},
         {"momentum", pointer(sgd.getMomentum())},
         {"weight_decay", pointer(sgd.getWeightDecay())},
         {"dampening", hexLiteral(sgd.getDampening().convertToDouble())},
         {"nesterov", sgd.getNesterov() ? "1" : "0"},
         {"grad_scale", gradScale}},
        /*isConst=*/true);
    call.function = "amp_sgd_apply";
    return call;
  }
  if (auto adam = dyn_cast<AdamwUpdateOp>(update)) {
    call.hparams =
        designatedInit("amp_adamw_hparams_t", "hparams",
                       {{"lr", pointer(adam.getLr())},
                        {"beta1", pointer(adam.getBeta1())},
                        {"beta2", pointer(adam.getBeta2())},
                        {"eps", pointer(adam.getEps())},
                        {"weight_decay", pointer(adam.getWeightDecay())},
                        {"coupled_decay", adam.getCoupledDecay() ? "1" : "0"},
                        {"grad_scale", gradScale}},
                       /*isConst=*/true);
    call.function = "amp_adamw_apply";
    return call;
  }
  return std::nullopt;
}

/// The value of `update`'s result `r` that reaches memory: the result, or
/// its guard's select.
Value storedResult(Operation *update, ArrayRef<Operation *> guards,
                   unsigned r) {
  return guards.empty() ? update->getResult(r) : guards[r]->getResult(0);
}

/// The value a hyperparameter has when the step starts: a constant's, or
/// the amp.state of the step's argument it is (through the fusions that
/// pass it on); nothing where it is computed.
std::optional<double> compiledValue(Value hyper) {
  while (auto arg = dyn_cast<BlockArgument>(hyper)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto fusion = dyn_cast<FusionOp>(owner)) {
      hyper = fusion.getInputs()[arg.getArgNumber()];
      continue;
    }
    auto func = dyn_cast<func::FuncOp>(owner);
    auto initial = func ? func.getArgAttrOfType<FloatAttr>(
                              arg.getArgNumber(), AmpDialect::kStateAttrName)
                        : FloatAttr();
    if (!initial)
      return std::nullopt;
    return initial.getValueAsDouble();
  }
  return getConstantScalar(hyper);
}

/// The work per element of an update, counted in scalar_math.h's
/// adamwElement (the decay, the choice of the moment's form and its
/// update, the second moment, the denominator with its square root, the
/// step: 14 FLOPs and a sqrt) and sgdElement (the weight decay, the
/// momentum buffer, Nesterov's look-ahead, the step), and the gradient's
/// scale where the update multiplies it in. SGD's decay, and
/// Adam's (added to the gradient), cost 2 FLOPs where it is on: at the
/// value the step starts with (it can change at run time), and wherever
/// that value is not known.
ElementCost updateCost(Operation *update) {
  // The gradient's scale, where the update multiplies it in.
  const int64_t scale = getGradientScale(update) ? 1 : 0;
  ElementCost cost{2 + scale, 0};
  Value decay;
  if (auto adam = dyn_cast<AdamwUpdateOp>(update)) {
    cost = {14 + scale, 1};
    if (!adam.getCoupledDecay())
      return cost;
    decay = adam.getWeightDecay();
  }
  if (auto sgd = dyn_cast<SgdUpdateOp>(update))
    decay = sgd.getWeightDecay();
  if (auto sgd = dyn_cast<SgdMomentumUpdateOp>(update)) {
    decay = sgd.getWeightDecay();
    cost.flops += sgd.getNesterov() ? 5 : 3;
  }
  if (compiledValue(decay).value_or(1.0) != 0)
    cost.flops += 2;
  return cost;
}

} // namespace

/// The call (and the lines declaring its lists) that runs those of
/// `updates` the runtime can in one launch: each with every tensor f32 and
/// updated in place. The group needs its guard (if any) to be
/// `found_inf == 0` on an f32 flag in memory, its hyperparameters in
/// memory and no tensor updated twice. The others are appended
/// to `rest`; the call is empty when none is left.
static std::string runtimeUpdateCall(StepEmitter &emitter,
                                     ArrayRef<Operation *> updates,
                                     SmallVectorImpl<Operation *> &rest) {
  // Until the checks of the whole group pass, nothing runs on the runtime.
  rest.assign(updates.begin(), updates.end());
  auto isF32 = [&](Value v) { return elementOf(v).isF32(); };
  auto hasMemory = [&](Value v) { return emitter.reachesMemory(v); };

  // The guard: `compare eq %found_inf, 0` on an f32 scalar in memory.
  Value foundInf;
  SmallVector<Operation *> firstGuards = getGuardSelects(updates.front());
  if (!firstGuards.empty()) {
    auto compare = dyn_cast_or_null<CompareOp>(
        getComputingOp(cast<SelectOp>(firstGuards.front()).getCondition()));
    if (!compare || compare.getPredicate() != ComparePredicate::eq)
      return "";
    Value flag = compare.getLhs();
    auto zero = dyn_cast_or_null<ConstantOp>(getComputingOp(compare.getRhs()));
    auto splat = zero ? dyn_cast<SplatElementsAttr>(zero.getValue())
                      : SplatElementsAttr();
    if (!splat || !isa<FloatType>(splat.getElementType()) ||
        !splat.getSplatValue<APFloat>().isPosZero() || !isF32(flag) ||
        tensorOf(flag).getNumElements() != 1 || !hasMemory(flag))
      return "";
    foundInf = flag;
  }

  Operation *first = updates.front();
  OperandRange hypers =
      cast<OptimizerUpdateOpInterface>(first).getHyperParameterOperands();
  if (!llvm::all_of(hypers, hasMemory))
    return "";
  // One gradient scale for the group (isLikeUpdate), read where it is.
  Value factor = getGradientScaleFactor(first);
  if (factor && !hasMemory(factor))
    return "";
  std::optional<RuntimeUpdate> call = getRuntimeUpdate(
      first, [&](Value v) { return emitter.pointerOf(v, false); });
  if (!call)
    return "";
  Value step;
  if (call->withStep) {
    step = cast<OptimizerUpdateOpInterface>(first).getStepOperand();
    if (!isF32(step) || !hasMemory(step))
      return "";
  }

  // A tensor updated twice keeps the program's order, so then none runs
  // on the runtime.
  SmallVector<Value> written;
  for (Operation *update : updates) {
    SmallVector<Operation *> guards = getGuardSelects(update);
    for (unsigned r = 0; r < update->getNumResults(); ++r) {
      Value stored = storedResult(update, guards, r);
      if (llvm::any_of(written, [&](Value other) {
            return emitter.sameMemory(stored, other);
          }))
        return "";
      written.push_back(stored);
    }
  }

  // The lists: the parameter, the gradient, then the state in result order.
  rest.clear();
  unsigned states = first->getNumResults() - 1;
  SmallVector<SmallVector<std::string>> lists(2 + states);
  SmallVector<std::string> sizes;
  for (Operation *update : updates) {
    auto optimizer = cast<OptimizerUpdateOpInterface>(update);
    SmallVector<Operation *> guards = getGuardSelects(update);
    bool inPlace = true;
    for (unsigned r = 0; r < update->getNumResults(); ++r)
      inPlace &= emitter.sameMemory(storedResult(update, guards, r),
                                    optimizer.getReplacedOperand(r).get());
    // Every tensor f32 (the hyperparameters are f64 and read in place),
    // a scaled gradient read before its scale.
    SmallVector<Value> tensors;
    for (Value operand : update->getOperands().take_front(
             optimizer.getHyperParameterOperands().getBeginOperandIndex()))
      tensors.push_back(operand == optimizer.getGradOperand()
                            ? getUnscaledGradient(update)
                            : operand);
    if (!inPlace || !llvm::all_of(tensors, isF32) ||
        !llvm::all_of(tensors, hasMemory) ||
        !llvm::equal(optimizer.getHyperParameterOperands(), hypers)) {
      rest.push_back(update);
      continue;
    }
    for (unsigned r = 0; r < update->getNumResults(); ++r)
      lists[r == 0 ? 0 : r + 1].push_back(
          emitter.pointerOf(storedResult(update, guards, r), true));
    lists[1].push_back(emitter.pointerOf(getUnscaledGradient(update), true));
    sizes.push_back(std::to_string(countOf(update->getResult(0))));
  }
  size_t n = sizes.size();
  if (n == 0)
    return "";

  std::string text = call->hparams + "\n";
  SmallVector<StringRef, 4> names{"params", "grads"};
  if (isa<AdamwUpdateOp>(first))
    names.append({"exp_avgs", "exp_avg_sqs"});
  else if (states)
    names.push_back("momentum_buffers");
  for (auto [i, list] : llvm::enumerate(lists))
    text += "float *const " + names[i].str() + "[] = {" +
            llvm::join(list, ", ") + "};" + "\n";
  text += "const size_t sizes[] = {" + llvm::join(sizes, ", ") + "};" + "\n";
  auto listOf = [&](StringRef name) {
    return "amp_tensor_list_t{" + std::to_string(n) + ", " + name.str() +
           ", sizes}";
  };
  std::string apply = "AMP_STEP_CHECK(" + call->function +
                      "(stream, &hparams, " + listOf("params") + ", " +
                      listOf("grads") + ", ";
  if (isa<SgdUpdateOp>(first))
    apply += "amp_tensor_list_t{0, nullptr, nullptr}, ";
  for (unsigned s = 0; s < states; ++s)
    apply += listOf(names[2 + s]) + ", ";
  apply +=
      (step ? emitter.pointerOf(step, false) : std::string("nullptr")) + ", " +
      (foundInf ? emitter.pointerOf(foundInf, false) : std::string("nullptr")) +
      ", amp_copy_list_t{AMP_F32, nullptr}));";
  return text + apply + "\n";
}

LogicalResult StepEmitter::emitUpdates(ArrayRef<Operation *> updates) {
  SmallVector<Operation *> rest;
  std::string call = runtimeUpdateCall(*this, updates, rest);
  // The updates of one kernel touch disjoint memory: any order will do.
  if (!call.empty()) {
    size_t n = updates.size() - rest.size();
    raw_indented_ostream &s = step();
    s << commentLines(kernelName({updates.front()}) +
                          ": the runtime's multi-tensor update over " +
                          std::to_string(n) +
                          (n == 1 ? " tensor" : " tensors") +
                          (getGuardSelects(updates.front()).empty()
                               ? ""
                               : ", skipped when found_inf is set") +
                          (getGradientScale(updates.front())
                               ? ", each gradient scaled as it is read"
                               : ""),
                      2);
    for (Operation *update : updates) {
      if (llvm::is_contained(rest, update))
        continue;
      if (Operation *scale = getGradientScale(update))
        s << commentLines("  " + describe(scale), 2);
      s << commentLines("  " + describe(update), 2);
    }
    s << "{\n";
    s.indent() << call;
    s.unindent() << "}\n";
    // Each tensor's parameter and state read and written, its gradient
    // read, at the work per element of its update.
    SmallVector<int64_t> sizes;
    for (Operation *update : updates)
      if (!llvm::is_contained(rest, update))
        sizes.push_back(countOf(update->getResult(0)));
    KernelCost cost = multiTensorCost(kernelName({updates.front()}), sizes);
    SmallVector<std::pair<Value, bool>> touched;
    for (Operation *update : updates) {
      if (llvm::is_contained(rest, update))
        continue;
      auto optimizer = cast<OptimizerUpdateOpInterface>(update);
      ElementCost work = updateCost(update);
      int64_t count = countOf(update->getResult(0));
      cost.flops += work.flops * count;
      cost.transcendentals += work.transcendentals * count;
      touched.push_back({getUnscaledGradient(update), false});
      if (Value factor = getGradientScaleFactor(update))
        touched.push_back({factor, false});
      SmallVector<Operation *> guards = getGuardSelects(update);
      for (unsigned r = 0; r < update->getNumResults(); ++r) {
        touched.push_back({optimizer.getReplacedOperand(r).get(), false});
        touched.push_back({storedResult(update, guards, r), true});
      }
    }
    recordLaunch(std::move(cost), touched);
  }
  size_t first = call.empty() ? 0 : 1;
  for (auto [i, update] : llvm::enumerate(rest)) {
    SmallVector<Operation *> fused;
    if (Operation *scale = getGradientScale(update))
      fused.push_back(scale);
    if (failed(emitSingle(update, getGuardSelects(update),
                          first + i ? "_" + std::to_string(first + i) : "",
                          fused)))
      return failure();
  }
  return success();
}

namespace {

/// The gradient an update's functor reads at `i`: its operand, or where
/// the kernel computes getGradientScale's multiply, that product, printed
/// to the body as the elementwise kernels compute it.
FailureOr<std::string> gradientAt(Operation *update, OpKernel &kernel) {
  // Every update's operands start with the parameter and its gradient.
  Operation *scale = getGradientScale(update);
  if (!scale || !llvm::is_contained(kernel.getFused(), scale))
    return kernel.load(1, "i");
  Functor &functor = kernel.functor();
  return kernel.getEmitter().emitElementwiseAt(functor, {scale}, "i",
                                               functor.body());
}

/// An exact C literal of a double.
std::string d(double v) {
  return std::isfinite(v) ? hexLiteral(v) : literal(v, "double");
}

template <typename Op> LogicalResult emitSgd(Op op, OpKernel &kernel) {
  Type type = elementOf(op->getResult(0));
  std::string t = registerType(type);
  // Each load names a kernel parameter as it is made: one statement each,
  // so that the parameters' order is the operands'.
  std::string lr = kernel.load(op.getLrMutable().getOperandNumber(), "0");
  std::string momentum = "0.0", dampening = "0.0";
  bool nesterov = false;
  constexpr bool hasBuffer = std::is_same_v<Op, SgdMomentumUpdateOp>;
  if constexpr (hasBuffer) {
    momentum = kernel.load(op.getMomentumMutable().getOperandNumber(), "0");
    dampening = d(op.getDampening().convertToDouble());
    nesterov = op.getNesterov();
  }
  std::string wd =
      kernel.load(op.getWeightDecayMutable().getOperandNumber(), "0");
  std::string param = kernel.load(0, "i");
  FailureOr<std::string> grad = gradientAt(op, kernel);
  if (failed(grad))
    return failure();
  std::string first = hasBuffer ? kernel.load(3, "0") + " == 0" : "false";
  // The scalars once per launch, from the hyperparameters' f64 values.
  Functor &functor = kernel.functor();
  functor.addSharedMember("amprt::SgdScalars<" + t + "> s{};");
  functor.setup() << "s = amprt::sgdScalars<" + t + ">(" + lr + ", " +
                         momentum + ", " + dampening + ", " + wd + ", " +
                         (nesterov ? "true" : "false") + ");"
                  << "\n";
  raw_indented_ostream &body = functor.body();
  if (hasBuffer)
    body << t << " buf = " << kernel.load(2, "i") << ";\n";
  body << "const " + t + " p = amprt::sgdElement<" + t + ">(s, " + param +
              ", " + *grad + ", " + (hasBuffer ? "&buf" : "nullptr") + ", " +
              first + ");"
       << "\n";
  if (hasBuffer)
    body << kernel.store(1, "i", roundExpr(type, "buf")) << "\n";
  body << kernel.store(0, "i", roundExpr(type, "p")) << "\n";
  int64_t count = countOf(op->getResult(0));
  kernel.functor().addWork(updateCost(op), count);
  kernel.functor().launch(count);
  return success();
}

LogicalResult emitAdamw(AdamwUpdateOp op, OpKernel &kernel) {
  Type type = elementOf(op->getResult(0));
  std::string t = registerType(type);
  Functor &functor = kernel.functor();
  // The scalars once per launch (setup()): the bias corrections in f64
  // from the step count, as torch.optim computes them on the host.
  functor.addSharedMember("amprt::AdamwScalars<" + t + "> scalars{};");
  // The hyperparameters in operand order, which is adamwScalars', then
  // the step count.
  std::string args;
  OperandRange hypers = op.getHyperParameterOperands();
  for (unsigned k = hypers.getBeginOperandIndex(), e = k + hypers.size(); k < e;
       ++k)
    args += kernel.load(k, "0") + ", ";
  functor.setup() << "scalars = amprt::adamwScalars<" + t + ">(" + args +
                         "static_cast<double>(" +
                         kernel.load(op.getStepMutable().getOperandNumber(),
                                     "0") +
                         "), " + (op.getCoupledDecay() ? "true" : "false") +
                         ");"
                  << "\n";
  raw_indented_ostream &body = functor.body();
  std::string param = kernel.load(0, "i");
  FailureOr<std::string> grad = gradientAt(op, kernel);
  if (failed(grad))
    return failure();
  body << t << " p = " << param << ";\n"
       << "const " << t << " g = " << *grad << ";\n"
       << t << " m = " << kernel.load(2, "i") << ";\n"
       << t << " v = " << kernel.load(3, "i") << ";\n"
       << "amprt::adamwElement<" << t << ">(scalars, p, g, m, v);\n"
       << kernel.store(0, "i", roundExpr(type, "p")) << "\n"
       << kernel.store(1, "i", roundExpr(type, "m")) << "\n"
       << kernel.store(2, "i", roundExpr(type, "v")) << "\n";
  int64_t count = countOf(op->getResult(0));
  functor.addWork(updateCost(op), count);
  functor.launch(count);
  return success();
}

/// The scheduled rate, one thread: amprt::scheduledRate on the values the
/// base rate, the step count and the parameters hold when it runs (a cos
/// or a pow and a few FLOPs).
LogicalResult emitLrSchedule(LrScheduleOp op, OpKernel &kernel) {
  // One load per statement: the kernel's parameters follow the operands.
  std::string lr = kernel.load(0, "0");
  std::string step = kernel.load(1, "0");
  SmallVector<std::string> params;
  for (unsigned k = 2; k < op->getNumOperands(); ++k)
    params.push_back(kernel.load(k, "0"));
  Functor &functor = kernel.functor();
  raw_indented_ostream &body = functor.body();
  body << "const double p[] = {" << llvm::join(params, ", ") << "};\n"
       << kernel.store(
              0, "0",
              "amprt::scheduledRate(static_cast<amprt::LrScheduleKind>(" +
                  std::to_string(static_cast<int>(op.getKind())) + "), " + lr +
                  ", static_cast<double>(" + step + "), p)")
       << "\n";
  functor.addWork({8, 1}, 1);
  functor.launch(1);
  return success();
}

} // namespace

void cuda::attachOptimizerModels(MLIRContext &context) {
  LrScheduleOp::attachInterface<KernelModel<LrScheduleOp, emitLrSchedule>>(
      context);
  SgdUpdateOp::attachInterface<KernelModel<SgdUpdateOp, emitSgd<SgdUpdateOp>>>(
      context);
  SgdMomentumUpdateOp::attachInterface<
      KernelModel<SgdMomentumUpdateOp, emitSgd<SgdMomentumUpdateOp>>>(context);
  AdamwUpdateOp::attachInterface<KernelModel<AdamwUpdateOp, emitAdamw>>(
      context);
}
