//===- Optimizer.cpp - --amp-optimizer ------------------------------------===//
//
// Builds @<name>_step around @<name>_grad: gradient accumulation, clipping
// by the global norm, and one fused update op per parameter.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Buffers.h"
#include "amp/Dialect/Amp/Transforms/GradientFunction.h"
#include "amp/Dialect/Amp/Transforms/LrSchedules.h"
#include "amp/Dialect/Amp/Transforms/ParamGroups.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "amp_runtime/hyperparameters.h"

#include <algorithm>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPOPTIMIZER
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct OptimizerConfig {
  bool adamw = false;        // AdamW or Adam: the moments, amp.adamw_update
  bool coupledDecay = false; // Adam: the decay added to the gradient
  double lr, momentum, dampening, weightDecay, beta1, beta2, eps, maxGradNorm;
  bool nesterov;
  int64_t accumulate;
  bool dataParallel = false; // amp.all_reduce the gradients
  double bucketMb = 25;      // MiB of gradients per amp.all_reduce
  int64_t zeroReplicas = 0;  // ZeRO stage 1 over this many replicas, or 0
  std::optional<LrScheduleKind> schedule; // none: a constant rate
  double warmupSteps, warmupStartFactor, decaySteps, minLr, stepSize, gamma;
  SmallVector<ParamGroup, 0> groups; // param-groups

  /// The hyperparameters the update reads per parameter: those a
  /// parameter group may set.
  SmallVector<StringRef> perParameterHyperParameters() const {
    SmallVector<StringRef> keys{"lr", "weight_decay"};
    if (adamw)
      keys.append({"beta1", "beta2", "eps"});
    else if (hasMomentumBuffer())
      keys.push_back("momentum");
    return keys;
  }

  bool hasMomentumBuffer() const { return !adamw && momentum != 0; }
  bool hasStepCounter() const {
    return adamw || hasMomentumBuffer() || schedule;
  }

  /// The schedule's parameters with their compiled values, in the order
  /// of amp.lr_schedule's operands.
  SmallVector<std::pair<StringRef, double>> scheduleParameters() const {
    SmallVector<std::pair<StringRef, double>> list;
    if (!schedule)
      return list;
    llvm::StringMap<double> values{{"warmup_steps", warmupSteps},
                                   {"warmup_start_factor", warmupStartFactor},
                                   {"decay_steps", decaySteps},
                                   {"min_lr", minLr},
                                   {"step_size", stepSize},
                                   {"gamma", gamma}};
    for (StringRef name : LrScheduleOp::getParamNames(*schedule))
      list.push_back({name, values.lookup(name)});
    return list;
  }

  /// The hyperparameters the step reads at run time, by their names in
  /// the step (torch.optim's), with their compiled values, in argument
  /// order. Dampening and Nesterov's look-ahead change the step's code,
  /// not a value: they stay fixed.
  SmallVector<std::pair<StringRef, double>> hyperParameters() const {
    SmallVector<std::pair<StringRef, double>> list{{"lr", lr}};
    if (adamw)
      list.append({{"beta1", beta1}, {"beta2", beta2}, {"eps", eps}});
    else if (hasMomentumBuffer())
      list.push_back({"momentum", momentum});
    list.push_back({"weight_decay", weightDecay});
    if (maxGradNorm > 0)
      list.push_back({"max_grad_norm", maxGradNorm});
    list.append(scheduleParameters());
    for (const ParamGroup &group : groups)
      for (const ParamGroup::Setting &setting : group.settings)
        list.push_back({setting.argName, setting.value});
    return list;
  }
};

class StepBuilder {
public:
  StepBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value scalar(double value, Type element = Type()) {
    Type type = element ? element : b.getF32Type();
    auto tensor = RankedTensorType::get({}, type);
    return b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(tensor, b.getFloatAttr(type, value).getValue()));
  }
  Value zerosLike(Type type) {
    auto tensor = cast<RankedTensorType>(type);
    return b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(
            tensor, b.getFloatAttr(tensor.getElementType(), 0.0).getValue()));
  }
  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value select(Value c, Value t, Value f) {
    return b.create<SelectOp>(loc, c, t, f);
  }
  Value castLike(Value v, Value like) {
    Type element = cast<RankedTensorType>(like.getType()).getElementType();
    auto type = cast<RankedTensorType>(v.getType());
    if (type.getElementType() == element)
      return v;
    return b.create<CastOp>(loc, type.clone(element), v);
  }

  OpBuilder &b;
  Location loc;
};

} // namespace

/// `values` in buckets of at most `megabytes` MiB (a larger value in one
/// of its own), in order: their indices.
static SmallVector<SmallVector<unsigned>> bucketsOf(ArrayRef<Value> values,
                                                    double megabytes) {
  // Bytes, at most 2^62 (one bucket, whatever the option says).
  const auto cap =
      static_cast<int64_t>(std::min(megabytes * 1024 * 1024, 0x1p62));
  SmallVector<SmallVector<unsigned>> buckets;
  int64_t filled = 0;
  for (auto [k, value] : llvm::enumerate(values)) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t bytes = type.getNumElements() *
                    static_cast<int64_t>(type.getElementTypeBitWidth() / 8);
    if (buckets.empty() || (filled > 0 && filled + bytes > cap)) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(static_cast<unsigned>(k));
    filled += bytes;
  }
  return buckets;
}

/// Whether `gradient`, a value the gradient function returns, is zeros
/// whatever the batch: the loss does not read its parameter (amp-autodiff
/// gives it a constant of zeros), seen through casts and the scaler's
/// unscale. torch.optim leaves such a parameter (its .grad is None) as it
/// is: no weight decay, no moments moved.
static bool hasNoGradientPath(Value gradient) {
  while (Operation *def = gradient.getDefiningOp()) {
    if (auto widen = dyn_cast<CastOp>(def)) {
      gradient = widen.getInput();
    } else if (auto unscale = dyn_cast<UnscaleOp>(def)) {
      auto result = cast<OpResult>(gradient);
      if (result.getResultNumber() >= unscale.getGrads().size())
        return false; // found_inf
      gradient = unscale.getGrads()[result.getResultNumber()];
    } else {
      auto constant = dyn_cast<ConstantOp>(def);
      auto splat =
          constant ? dyn_cast<SplatElementsAttr>(constant.getValue()) : nullptr;
      return splat && isa<FloatType>(splat.getElementType()) &&
             splat.getSplatValue<APFloat>().isZero();
    }
  }
  return false;
}

namespace {

/// What a state argument of the step holds.
enum class StateRole {
  master,             // a ZeRO part's f32 master weights
  momentumBuffer,     // SGD's momentum
  expAvg,             // Adam's first moment
  expAvgSq,           // Adam's second moment
  stepCounter,        // the updates applied so far
  hyperParameter,     // set between steps, read by the update
  gradAccumulator,    // the micro-batches' gradient sum
  microBatch,         // the micro-batches run since the last update
  microBatchFoundInf, // found_inf of those micro-batches
  lossScale,          // the scaler's scale
  growthTracker,      // dynamic scaling: steps since the last overflow
  hysteresisTracker,  // dynamic scaling: overflows left before backing off
  lossPart,           // a part of the loss the step reports
  buffer,             // a buffer of the model, by its name
  committedBuffer,    // a buffer's value at the last update applied
  rng,                // the dropouts' generator
};

/// One state argument of the step, in signature order.
struct StateArgument {
  StateRole role;
  /// Which one of its role: the parameter's index among the parameters
  /// (master, moments, accumulator, committed buffer: the buffer's), the
  /// hyperparameter's, the part's, the buffer's; 0 for the others.
  unsigned index;
  Type type;
  Location loc;
  StringAttr name; // null: unnamed
  /// The argument's attributes besides amp.state and amp.name.
  NamedAttrList attrs;
  /// The starting value amp.state holds, when not the unit (zeros).
  std::optional<double> initial;
};

/// The signature of the step, `params, state, batch -> params', state',
/// loss (, found_inf)`, built before its body: which of the model's
/// arguments are parameters, batch inputs, buffers and the generator, and
/// what each state argument holds (its role), so that the body reads its
/// arguments by role instead of by positions kept by hand.
struct StepSignature {
  SmallVector<unsigned> params, batch, buffers; // the model's arguments
  std::optional<unsigned> rng;
  /// Per parameter: its group (param-groups) or null, the type the step
  /// takes it in (a ZeRO weight is kept low-precision), whether a master
  /// part of it is state.
  SmallVector<const ParamGroup *> groupOf;
  SmallVector<Type> workTypes;
  SmallVector<bool> hasMaster;
  SmallVector<std::pair<StringRef, double>> hypers;
  SmallVector<StateArgument> state;
  LossScalingAttr scaling;
  bool dynamicScaling = false;
  ScalerSettings settings;
  /// With accumulation and loss scaling, the buffers' last applied values
  /// are state too.
  bool commitsBuffers = false;
  unsigned numParts = 0;

  unsigned numParams() const { return params.size(); }
  /// The argument of the step that holds state `s`.
  unsigned argumentOf(unsigned s) const { return numParams() + s; }
  /// The argument of the step that holds batch input `k`.
  unsigned batchArgument(unsigned k) const {
    return numParams() + state.size() + k;
  }
  /// The step's argument of the state of `role` (the first of them).
  std::optional<unsigned> find(StateRole role) const {
    for (auto [s, entry] : llvm::enumerate(state))
      if (entry.role == role)
        return argumentOf(s);
    return std::nullopt;
  }
};

/// Builds the signature of the step of `target`: the parameters' groups
/// and ZeRO types, the state in its order, each state named with
/// torch.optim's names after its parameter when it has one (`w1.exp_avg`)
/// and located at its parameter (or the function). A name the model
/// already gives one of its arguments is an error: the state would be left
/// unnamed (and called state0 by the compiled step), so that a data set, a
/// state file or an output file of that name would mean the model's
/// argument.
class SignatureBuilder {
public:
  SignatureBuilder(const GradientFunction &target,
                   const OptimizerConfig &config)
      : grad(target.grad), original(target.original), config(config),
        context(original->getContext()), numParts(target.numLossParts) {}

  FailureOr<StepSignature> build();

private:
  LogicalResult classifyArguments();
  LogicalResult chooseGroups();
  void chooseWorkTypes();
  LogicalResult addState();
  LogicalResult addLossParts();

  /// The name and location of a state of `role`, after the parameter
  /// (argument `param` of the model) when it has one; an unnamed state
  /// when the name is taken (the first such clash is kept for the error).
  std::pair<Location, StringAttr> named(StringRef role,
                                        std::optional<unsigned> param);
  void add(StateRole role, unsigned index, Type type,
           std::pair<Location, StringAttr> where) {
    sig.state.push_back({role, index, type, where.first, where.second,
                         NamedAttrList(), std::nullopt});
  }

  func::FuncOp grad, original;
  const OptimizerConfig &config;
  MLIRContext *context;
  unsigned numParts;
  StepSignature sig;
  llvm::StringSet<> taken;
  std::string clashName;
  StringRef clashRole;
};

FailureOr<StepSignature> SignatureBuilder::build() {
  sig.buffers = getBufferArguments(original);
  if (failed(classifyArguments()) || failed(chooseGroups()))
    return failure();
  chooseWorkTypes();
  for (unsigned i = 0, e = original.getNumArguments(); i < e; ++i)
    if (StringRef name = getArgumentName(original, i); !name.empty())
      taken.insert(name);
  if (failed(addState()))
    return failure();
  return std::move(sig);
}

LogicalResult SignatureBuilder::classifyArguments() {
  for (unsigned i = 0, e = original.getNumArguments(); i < e; ++i) {
    switch (getArgumentKind(original, i)) {
    case ArgumentKind::param:
      sig.params.push_back(i);
      break;
    case ArgumentKind::rng:
      sig.rng = i;
      break;
    case ArgumentKind::buffer:
      break;
    default:
      sig.batch.push_back(i);
    }
  }
  return success();
}

// Each parameter's group (param-groups), or null: it keeps the step's own
// hyperparameters. As torch.optim, a parameter belongs to at most one
// group; a group that selects nothing is a typo more often than not.
LogicalResult SignatureBuilder::chooseGroups() {
  ArrayRef<Type> argTypes = original.getArgumentTypes();
  llvm::SmallDenseSet<const ParamGroup *> used;
  for (unsigned i : sig.params) {
    StringRef paramName = getArgumentName(original, i);
    auto type = dyn_cast<RankedTensorType>(argTypes[i]);
    int64_t rank = type ? type.getRank() : 0;
    const ParamGroup *chosen = nullptr;
    for (const ParamGroup &group : config.groups) {
      if (!group.selects(paramName, rank))
        continue;
      if (chosen)
        return emitError(original.getArgument(i).getLoc())
               << "amp-optimizer: parameter groups '" << chosen->name
               << "' and '" << group.name << "' both select "
               << describeArgument(original, i) << " of @"
               << original.getSymName() << "; a parameter belongs to one group";
      chosen = &group;
    }
    sig.groupOf.push_back(chosen);
    used.insert(chosen);
  }
  for (const ParamGroup &group : config.groups)
    if (!used.contains(&group))
      return emitError(original.getLoc())
             << "amp-optimizer: parameter group '" << group.name
             << "' selects no parameter of @" << original.getSymName();
  return success();
}

// ZeRO stage 1: each parameter the gradient function reads only through
// casts to one low-precision type is kept in that type (the weights the
// replicas gather), with an f32 master part in the state; the others stay
// as they are and are their own masters.
void SignatureBuilder::chooseWorkTypes() {
  for (unsigned i : sig.params) {
    auto type = cast<RankedTensorType>(original.getArgumentTypes()[i]);
    Type low;
    bool onlyCasts = config.zeroReplicas > 0 && type.getElementType().isF32() &&
                     !grad.getArgument(i).use_empty();
    for (Operation *user : grad.getArgument(i).getUsers()) {
      auto cast = dyn_cast<CastOp>(user);
      Type element = cast ? cast.getType().getElementType() : Type();
      if (!element || !(element.isF16() || element.isBF16()) ||
          (low && element != low)) {
        onlyCasts = false;
        break;
      }
      low = element;
    }
    sig.hasMaster.push_back(onlyCasts);
    sig.workTypes.push_back(onlyCasts ? type.clone(low) : type);
  }
}

std::pair<Location, StringAttr>
SignatureBuilder::named(StringRef role, std::optional<unsigned> param) {
  Location loc =
      param ? original.getArgument(*param).getLoc() : original.getLoc();
  std::string name = role.str();
  if (param) {
    StringRef paramName = getArgumentName(original, *param);
    if (paramName.empty())
      return {loc, StringAttr()};
    name = (paramName + "." + role).str();
  }
  if (!taken.insert(name).second) {
    if (clashName.empty()) {
      clashName = name;
      clashRole = role;
    }
    return {loc, StringAttr()};
  }
  return {loc, StringAttr::get(context, name)};
}

LogicalResult SignatureBuilder::addState() {
  ArrayRef<Type> argTypes = original.getArgumentTypes();
  const int64_t zero = config.zeroReplicas;
  Builder b(context);
  // Per parameter: its master part (ZeRO), then its moments; a ZeRO part
  // is ceil(elements / replicas) f32 of each replica.
  for (auto [k, i] : llvm::enumerate(sig.params)) {
    Type momentType = argTypes[i];
    if (zero)
      momentType = RankedTensorType::get(
          {ReplicaShardOp::getPartSize(
              cast<RankedTensorType>(argTypes[i]).getNumElements(), zero)},
          b.getF32Type());
    auto addMoment = [&, k = k, i = i](StateRole role, StringRef name,
                                       bool master = false) {
      add(role, k, momentType, named(name, i));
      if (zero)
        sig.state.back().attrs.set(
            AmpDialect::kShardOfAttrName,
            b.getDenseI64ArrayAttr(
                {static_cast<int64_t>(k), zero, master ? 1 : 0}));
    };
    if (sig.hasMaster[k])
      addMoment(StateRole::master, "master", /*master=*/true);
    if (config.hasMomentumBuffer())
      addMoment(StateRole::momentumBuffer, "momentum_buffer");
    if (config.adamw) {
      addMoment(StateRole::expAvg, "exp_avg");
      addMoment(StateRole::expAvgSq, "exp_avg_sq");
    }
  }
  Type counterType = RankedTensorType::get({}, b.getF32Type());
  if (config.hasStepCounter())
    add(StateRole::stepCounter, 0, counterType, named("step", std::nullopt));
  // The hyperparameters are set by name: a model argument that holds one
  // of their names is an error, not an unnamed hyperparameter. Each starts
  // at its compiled value.
  sig.hypers = config.hyperParameters();
  Type hyperType = RankedTensorType::get({}, b.getF64Type());
  for (auto [k, hyper] : llvm::enumerate(sig.hypers)) {
    auto where = named(hyper.first, std::nullopt);
    if (!where.second)
      return grad.emitError()
             << "amp-optimizer: an argument of @" << original.getSymName()
             << " is named '" << hyper.first
             << "', the name of a hyperparameter of the step; rename it";
    add(StateRole::hyperParameter, k, hyperType, where);
    sig.state.back().attrs.set(AmpDialect::kHyperParameterAttrName,
                               b.getUnitAttr());
    sig.state.back().initial = hyper.second;
  }
  sig.scaling =
      grad->getAttrOfType<LossScalingAttr>(AmpDialect::kLossScalingAttrName);
  sig.dynamicScaling = sig.scaling && sig.scaling.isDynamic();
  sig.settings = sig.scaling ? sig.scaling.getSettings() : ScalerSettings();
  if (config.accumulate > 1) {
    for (auto [k, i] : llvm::enumerate(sig.params))
      add(StateRole::gradAccumulator, k, argTypes[i],
          named("grad_accumulator", i));
    add(StateRole::microBatch, 0, counterType,
        named("micro_batch", std::nullopt));
    sig.state.back().attrs.set(AmpDialect::kMicroBatchAttrName,
                               b.getI64IntegerAttr(config.accumulate));
    if (sig.scaling) // found_inf of the micro-batches
      add(StateRole::microBatchFoundInf, 0, counterType,
          named("micro_batch_found_inf", std::nullopt));
  }
  // Scaler state: the scale (starting at init_scale), then (dynamic) the
  // growth and hysteresis trackers (the latter starting full).
  if (sig.scaling) {
    add(StateRole::lossScale, 0, counterType,
        named("loss_scale", std::nullopt));
    sig.state.back().initial = *sig.settings.initScale;
    sig.state.back().attrs.set(AmpDialect::kLossScaleAttrName, b.getUnitAttr());
  }
  if (sig.dynamicScaling) {
    add(StateRole::growthTracker, 0, counterType,
        named("growth_tracker", std::nullopt));
    add(StateRole::hysteresisTracker, 0, counterType,
        named("hysteresis_tracker", std::nullopt));
    sig.state.back().initial = static_cast<double>(sig.settings.hysteresis);
  }
  if (!clashName.empty())
    return grad.emitError()
           << "amp-optimizer: an argument of @" << original.getSymName()
           << " is named '" << clashName << "', the name of the step's '"
           << clashRole << "' state; rename it";
  if (failed(addLossParts()))
    return failure();
  // The buffers, by the model's names, each starting at its value. With
  // accumulation and loss scaling, each buffer's value at the last update
  // applied: every micro-batch's forward pass moves the buffers, and an
  // update that overflows takes them back there.
  for (auto [k, i] : llvm::enumerate(sig.buffers)) {
    StringRef bufferName = getArgumentName(original, i);
    add(StateRole::buffer, k, argTypes[i],
        {original.getArgument(i).getLoc(),
         bufferName.empty() ? StringAttr()
                            : StringAttr::get(context, bufferName)});
    sig.state.back().attrs.set(AmpDialect::kBufferAttrName, b.getUnitAttr());
    sig.state.back().initial = getBufferInitialValue(original, i);
  }
  sig.commitsBuffers = sig.scaling && config.accumulate > 1;
  if (sig.commitsBuffers)
    for (auto [k, i] : llvm::enumerate(sig.buffers)) {
      add(StateRole::committedBuffer, k, argTypes[i], named("committed", i));
      sig.state.back().initial = getBufferInitialValue(original, i);
    }
  // The random generator, last: amp_step_init seeds it.
  if (sig.rng) {
    StringRef rngName = getArgumentName(original, *sig.rng);
    add(StateRole::rng, 0, argTypes[*sig.rng],
        rngName.empty() ? named("rng", std::nullopt)
                        : std::pair<Location, StringAttr>{
                              original.getArgument(*sig.rng).getLoc(),
                              StringAttr::get(context, rngName)});
    sig.state.back().attrs.set(AmpDialect::kRngAttrName, b.getUnitAttr());
  }
  return success();
}

// The parts of the loss the model returns after it: f32 state each step
// overwrites (amp.loss_part), reported as the loss is, read by nothing.
// Named as amp-autodiff named them, by none of the names the progress
// reports of amp-step and Python give their other fields.
LogicalResult SignatureBuilder::addLossParts() {
  Type counterType = RankedTensorType::get({}, Float32Type::get(context));
  for (StringRef field : {"loss", "step", "epoch", "val_loss", "scale",
                          "skipped", "lr", "steps_per_s"})
    taken.insert(field);
  sig.numParts = numParts;
  for (unsigned k = 0; k < numParts; ++k) {
    unsigned result = 1 + sig.params.size() + k;
    auto name =
        grad.getResultAttrOfType<StringAttr>(result, AmpDialect::kNameAttrName);
    std::string partName =
        name ? name.getValue().str() : "loss_part" + std::to_string(k + 1);
    // The name is a key of amp-step's JSON log and a file name: letters,
    // digits, '_', '.' and '-', as an SSA name is.
    bool plain = !partName.empty() && partName.size() <= 200 &&
                 llvm::all_of(partName, [](char c) {
                   return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-';
                 });
    if (!plain)
      return grad.emitError()
             << "amp-optimizer: part #" << (k + 1) << " of the loss of @"
             << original.getSymName() << " is named '" << partName
             << "'; a part's name is up to 200 letters, digits, '_', '.' "
                "and '-'";
    auto where = named(partName, std::nullopt);
    if (!where.second)
      return grad.emitError()
             << "amp-optimizer: part #" << (k + 1) << " of the loss of @"
             << original.getSymName() << " is named '" << partName
             << "', a name the step's tensors or its progress reports use "
                "already; rename it";
    add(StateRole::lossPart, k, counterType, where);
    sig.state.back().attrs.set(AmpDialect::kLossPartAttrName,
                               Builder(context).getUnitAttr());
  }
  return success();
}

/// Creates the step function of `sig` after `grad`: parameters and batch
/// inputs keep the locations and names of the model's arguments, state is
/// located at its parameter (or the function).
func::FuncOp createStepFunction(OpBuilder &b, const StepSignature &sig,
                                func::FuncOp grad, func::FuncOp original,
                                StringRef name) {
  SmallVector<Type> inputs(sig.workTypes), results(sig.workTypes);
  for (const StateArgument &entry : sig.state) {
    inputs.push_back(entry.type);
    results.push_back(entry.type);
  }
  for (unsigned i : sig.batch)
    inputs.push_back(original.getArgumentTypes()[i]);
  results.push_back(grad.getResultTypes().front());
  Type counterType = RankedTensorType::get({}, b.getF32Type());
  if (sig.scaling)
    results.push_back(counterType); // found_inf

  b.setInsertionPointAfter(grad);
  auto step = b.create<func::FuncOp>(original.getLoc(), name,
                                     b.getFunctionType(inputs, results));
  Block *body = step.addEntryBlock();
  for (auto [k, i] : llvm::enumerate(sig.params))
    body->getArgument(k).setLoc(original.getArgument(i).getLoc());
  for (auto [s, entry] : llvm::enumerate(sig.state))
    body->getArgument(sig.argumentOf(s)).setLoc(entry.loc);
  for (auto [k, i] : llvm::enumerate(sig.batch))
    body->getArgument(sig.batchArgument(k))
        .setLoc(original.getArgument(i).getLoc());
  // All argument attributes at once (one setArgAttr per argument would
  // rebuild the whole list each time: quadratic in the parameter count).
  SmallVector<NamedAttrList> argAttrs(inputs.size());
  auto keepName = [&](unsigned from, unsigned to) {
    if (auto argName = original.getArgAttr(from, AmpDialect::kNameAttrName))
      argAttrs[to].set(AmpDialect::kNameAttrName, argName);
  };
  for (auto [k, i] : llvm::enumerate(sig.params)) {
    argAttrs[k].set(AmpDialect::kParamAttrName, b.getUnitAttr());
    keepName(i, k);
  }
  for (auto [s, entry] : llvm::enumerate(sig.state)) {
    NamedAttrList &attrs = argAttrs[sig.argumentOf(s)];
    attrs.set(AmpDialect::kStateAttrName,
              entry.initial ? Attribute(b.getF64FloatAttr(*entry.initial))
                            : Attribute(b.getUnitAttr()));
    if (entry.name)
      attrs.set(AmpDialect::kNameAttrName, entry.name);
    for (NamedAttribute attr : entry.attrs)
      attrs.set(attr.getName(), attr.getValue());
  }
  for (auto [k, i] : llvm::enumerate(sig.batch))
    keepName(i, sig.batchArgument(k));
  SmallVector<DictionaryAttr> argDicts;
  for (NamedAttrList &attrs : argAttrs)
    argDicts.push_back(attrs.getDictionary(b.getContext()));
  step.setAllArgAttrs(argDicts);
  return step;
}

/// The body of a step: the gradient function's call, then each stage of
/// the update on the values the stages before left (the gradients, the
/// parameters and moments, found_inf, whether this micro-batch updates).
class StepBody {
public:
  StepBody(OpBuilder &b, const StepSignature &sig,
           const OptimizerConfig &config, func::FuncOp grad,
           func::FuncOp original, func::FuncOp step)
      : b(b), sb(b, original.getLoc()), loc(original.getLoc()), sig(sig),
        config(config), grad(grad), original(original),
        body(&step.getBody().front()), numParams(sig.numParams()),
        moments(numParams), masters(numParams) {}

  void build() {
    b.setInsertionPointToStart(body);
    callGradient();
    bindState();
    accumulate();
    reduceAcrossReplicas();
    clip();
    shard();
    update();
    gate();
    finish();
  }

private:
  Value argument(unsigned index) { return body->getArgument(index); }

  void callGradient();
  void bindState();
  void accumulate();
  void reduceAcrossReplicas();
  void clip();
  void shard();
  void update();
  void gate();
  void finish();
  /// Keeps the parameters, moments and step counter unless `apply` holds.
  void gateOptimizerState(Value apply);

  OpBuilder &b;
  StepBuilder sb;
  Location loc;
  const StepSignature &sig;
  const OptimizerConfig &config;
  func::FuncOp grad, original;
  Block *body;
  unsigned numParams;

  func::CallOp call;
  Value loss, foundInf;
  SmallVector<Value> paramValues, grads;
  SmallVector<SmallVector<Value, 2>> moments;
  SmallVector<Value> masters;
  Value counter;
  llvm::StringMap<Value> hyper;
  SmallVector<Value> hyperValues;
  SmallVector<Value> accumulators;
  Value microStep, done, foundSoFar;
  SmallVector<Value> scaler, parts, bufferValues, newBuffers, committed;
  SmallVector<Value> summed;
  Value nextMicro;
  SmallVector<Value> newParams, newState;
  SmallVector<SmallVector<Value, 2>> newMoments;
  Value newCounter;
  SmallVector<Value> newCommitted, newScaler;
};

// The gradient function, called with the arguments in their old order.
void StepBody::callGradient() {
  SmallVector<Value> callArgs(original.getNumArguments());
  // (A low-precision weight widens exactly: the gradient function's casts
  // give it back.)
  for (auto [k, i] : llvm::enumerate(sig.params))
    callArgs[i] = sb.castLike(argument(k), original.getArgument(i));
  for (auto [k, i] : llvm::enumerate(sig.batch))
    callArgs[i] = argument(sig.batchArgument(k));
  for (auto [s, entry] : llvm::enumerate(sig.state))
    if (entry.role == StateRole::buffer)
      callArgs[sig.buffers[entry.index]] = argument(sig.argumentOf(s));
    else if (entry.role == StateRole::rng)
      callArgs[*sig.rng] = argument(sig.argumentOf(s));
  if (sig.scaling)
    callArgs.push_back(argument(*sig.find(StateRole::lossScale)));
  call = b.create<func::CallOp>(loc, grad, callArgs);
  loss = call.getResult(0);
  foundInf = sig.scaling ? call.getResults().back() : Value();
  for (unsigned p = 0; p < numParams; ++p) {
    paramValues.push_back(argument(p));
    grads.push_back(call.getResult(1 + p));
  }
}

// The state arguments, by role.
void StepBody::bindState() {
  for (auto [s, entry] : llvm::enumerate(sig.state)) {
    Value arg = argument(sig.argumentOf(s));
    switch (entry.role) {
    case StateRole::master:
      masters[entry.index] = arg;
      break;
    case StateRole::momentumBuffer:
    case StateRole::expAvg:
    case StateRole::expAvgSq:
      moments[entry.index].push_back(arg);
      break;
    case StateRole::stepCounter:
      counter = arg;
      break;
    case StateRole::hyperParameter:
      hyperValues.push_back(arg);
      hyper[sig.hypers[entry.index].first] = arg;
      break;
    case StateRole::gradAccumulator:
      accumulators.push_back(arg);
      break;
    case StateRole::microBatch:
      microStep = arg;
      break;
    case StateRole::microBatchFoundInf:
      foundSoFar = arg;
      break;
    case StateRole::lossScale:
    case StateRole::growthTracker:
    case StateRole::hysteresisTracker:
      scaler.push_back(arg);
      break;
    case StateRole::lossPart: {
      // Each step reports the parts of its own loss, in f32 (a skipped
      // step too: its loss is reported as well).
      Value part = call.getResult(1 + numParams + entry.index);
      parts.push_back(sb.castLike(part, arg));
      break;
    }
    case StateRole::buffer:
      // The buffers' next values, which the forward pass computed.
      bufferValues.push_back(arg);
      newBuffers.push_back(
          call.getResult(1 + numParams + sig.numParts + entry.index));
      break;
    case StateRole::committedBuffer:
      committed.push_back(arg);
      break;
    case StateRole::rng:
      break;
    }
  }
  // An overflow in any micro-batch spoils the whole effective batch.
  if (foundSoFar)
    foundInf = b.create<MaximumOp>(loc, foundSoFar, foundInf);
}

// Gradient accumulation: the update uses the mean over N micro-batches.
void StepBody::accumulate() {
  if (config.accumulate <= 1)
    return;
  Value n = sb.scalar(static_cast<double>(config.accumulate));
  nextMicro = sb.add(microStep, sb.scalar(1.0));
  done = b.create<CompareOp>(loc, ComparePredicate::ge, nextMicro, n);
  for (unsigned p = 0; p < numParams; ++p) {
    summed.push_back(sb.add(accumulators[p], grads[p]));
    grads[p] = sb.div(summed[p], sb.castLike(n, grads[p]));
  }
}

// Data parallelism: the gradients summed over the replicas, in buckets of
// the last parameters first (those the backward finishes first, as
// DistributedDataParallel buckets them), then divided by the number of
// replicas in one multi-tensor pass that also checks them: an overflow on
// any replica, or in the sum, becomes found_inf on every one, whose
// maximum over the replicas then makes sure they skip together. With
// accumulation, only the N-th micro-batch reduces (`when`).
void StepBody::reduceAcrossReplicas() {
  if (!config.dataParallel)
    return;
  SmallVector<Value> lastFirst(llvm::reverse(grads));
  SmallVector<SmallVector<unsigned>> buckets =
      bucketsOf(lastFirst, config.bucketMb);
  for (SmallVector<unsigned> &bucket : buckets)
    for (unsigned &p : bucket)
      p = numParams - 1 - p;
  SmallVector<Value> reduced(grads);
  for (ArrayRef<unsigned> bucket : buckets) {
    SmallVector<Value> inputs;
    for (unsigned p : bucket)
      inputs.push_back(grads[p]);
    auto sum = b.create<AllReduceOp>(loc, AllReduceKind::sum, inputs, done);
    for (auto [k, p] : llvm::enumerate(bucket))
      reduced[p] = sum.getResult(k);
  }
  Value replicas =
      b.create<ReplicaCountOp>(loc, RankedTensorType::get({}, b.getF32Type()));
  auto mean =
      b.create<UnscaleOp>(loc, sb.div(sb.scalar(1.0), replicas), reduced);
  grads.assign(mean.getUnscaled().begin(), mean.getUnscaled().end());
  if (foundInf) {
    foundInf = b.create<MaximumOp>(loc, foundInf, mean.getFoundInf());
    foundInf = b.create<AllReduceOp>(loc, AllReduceKind::max,
                                     ValueRange{foundInf}, done)
                   .getResult(0);
  }
}

// Clipping by the global 2-norm, as clip_grad_norm_; a norm set to 0 at
// run time turns it off.
void StepBody::clip() {
  if (config.maxGradNorm <= 0)
    return;
  Value total = b.create<SumSquaresOp>(loc, grads);
  Value norm = b.create<SqrtOp>(loc, total);
  Value maxNorm = hyper["max_grad_norm"];
  Value coef =
      sb.div(sb.castLike(maxNorm, norm), sb.add(norm, sb.scalar(1e-6)));
  coef = b.create<MinimumOp>(loc, coef, sb.scalar(1.0));
  Value clips = b.create<CompareOp>(loc, ComparePredicate::gt, maxNorm,
                                    sb.scalar(0.0, b.getF64Type()));
  coef = sb.select(clips, coef, sb.scalar(1.0));
  for (Value &g : grads)
    g = sb.mul(g, sb.castLike(coef, g));
}

// ZeRO stage 1: from here on, each replica's part of every parameter (its
// master, or the f32 weight itself) and of its gradient; the updates,
// elementwise, change each element as without parts.
void StepBody::shard() {
  const int64_t zero = config.zeroReplicas;
  if (!zero)
    return;
  auto part = [&](Value whole) -> Value {
    auto type = cast<RankedTensorType>(whole.getType());
    int64_t count = type.getNumElements();
    return b.create<ReplicaShardOp>(
        loc,
        RankedTensorType::get({ReplicaShardOp::getPartSize(count, zero)},
                              type.getElementType()),
        whole, zero);
  };
  for (unsigned p = 0; p < numParams; ++p) {
    if (!sig.hasMaster[p])
      masters[p] = part(paramValues[p]);
    paramValues[p] = masters[p];
    grads[p] = part(grads[p]);
  }
}

// The updates, those of the parameters in no group first, then group by
// group: amp-fuse merges adjacent updates that read the same
// hyperparameters into one multi-tensor update.
void StepBody::update() {
  // A parameter's hyperparameter: its group's, or the step's.
  auto hyperOf = [&](unsigned p, StringRef key) -> Value {
    if (sig.groupOf[p])
      if (const ParamGroup::Setting *setting = sig.groupOf[p]->find(key))
        return hyper[setting->argName];
    return hyper[key];
  };
  // The rate of this update: the base rate, or the schedule's at the step
  // count (updates applied so far: a skipped one does not advance it). A
  // group with a rate of its own follows the same schedule from it, as
  // torch.optim.lr_scheduler scales each param_group's rate.
  auto scheduled = [&](Value base) -> Value {
    if (!config.schedule)
      return base;
    SmallVector<Value> scheduleArgs;
    for (auto [name, value] : config.scheduleParameters())
      scheduleArgs.push_back(hyper[name]);
    return b.create<LrScheduleOp>(loc, *config.schedule, base, counter,
                                  scheduleArgs);
  };
  Value stepRate = scheduled(hyper["lr"]);
  llvm::SmallDenseMap<const ParamGroup *, Value> groupRates;
  auto rateOf = [&](unsigned p) {
    if (!sig.groupOf[p] || !sig.groupOf[p]->find("lr"))
      return stepRate;
    Value &rate = groupRates[sig.groupOf[p]];
    if (!rate)
      rate = scheduled(hyperOf(p, "lr"));
    return rate;
  };

  SmallVector<unsigned> updateOrder = llvm::to_vector(llvm::seq(numParams));
  auto groupIndex = [&](unsigned p) -> size_t {
    return sig.groupOf[p] ? 1 + (sig.groupOf[p] - config.groups.data()) : 0;
  };
  llvm::stable_sort(updateOrder, [&](unsigned x, unsigned y) {
    return groupIndex(x) < groupIndex(y);
  });
  newParams.resize(numParams);
  newMoments.resize(numParams);
  auto gradReturn =
      cast<func::ReturnOp>(grad.getBody().front().getTerminator());
  for (unsigned p : updateOrder) {
    Value param = paramValues[p], g = grads[p];
    if (hasNoGradientPath(gradReturn.getOperand(1 + p))) {
      newParams[p] = param;
      newMoments[p].assign(moments[p].begin(), moments[p].end());
      continue;
    }
    if (config.adamw) {
      auto op = b.create<AdamwUpdateOp>(
          loc, param, g, moments[p][0], moments[p][1], counter, rateOf(p),
          hyperOf(p, "beta1"), hyperOf(p, "beta2"), hyperOf(p, "eps"),
          hyperOf(p, "weight_decay"),
          config.coupledDecay ? b.getUnitAttr() : UnitAttr());
      newParams[p] = op.getNewParam();
      newMoments[p] = {op.getNewExpAvg(), op.getNewExpAvgSq()};
    } else if (config.hasMomentumBuffer()) {
      auto op = b.create<SgdMomentumUpdateOp>(
          loc, param, g, moments[p][0], counter, rateOf(p),
          hyperOf(p, "momentum"), hyperOf(p, "weight_decay"),
          b.getF64FloatAttr(config.dampening),
          config.nesterov ? b.getUnitAttr() : UnitAttr());
      newParams[p] = op.getNewParam();
      newMoments[p] = {op.getNewBuffer()};
    } else {
      newParams[p] = b.create<SgdUpdateOp>(loc, param, g, rateOf(p),
                                           hyperOf(p, "weight_decay"));
    }
  }
  // The moments in the order of the state arguments.
  for (ArrayRef<Value> updated : newMoments)
    newState.append(updated.begin(), updated.end());
  newCounter = counter ? sb.add(counter, sb.scalar(1.0)) : Value();
}

void StepBody::gateOptimizerState(Value apply) {
  for (unsigned p = 0; p < numParams; ++p)
    newParams[p] = sb.select(apply, newParams[p], paramValues[p]);
  unsigned k = 0;
  for (unsigned p = 0; p < numParams; ++p)
    for (Value old : moments[p])
      newState[k] = sb.select(apply, newState[k], old), ++k;
  if (counter)
    newCounter = sb.select(apply, newCounter, counter);
}

// A step whose gradients overflowed changes no state but the scaler: not
// the buffers either, which PyTorch's GradScaler cannot keep (the forward
// pass has updated them before it sees the gradients). With accumulation,
// each micro-batch's forward pass moves them (as PyTorch's); an update
// that overflows takes them back to where the last applied one left them,
// and one that applies commits them. With accumulation, state changes
// only on the N-th micro-batch.
void StepBody::gate() {
  newCommitted.assign(committed);
  if (sig.scaling) {
    Value apply = b.create<CompareOp>(loc, ComparePredicate::eq, foundInf,
                                      sb.scalar(0.0));
    gateOptimizerState(apply);
    if (!sig.commitsBuffers) {
      for (auto [updated, old] : llvm::zip(newBuffers, bufferValues))
        updated = sb.select(apply, updated, old);
    } else if (!sig.buffers.empty()) {
      // found_inf on the N-th micro-batch, 0 before it.
      Value foundAtUpdate = sb.select(done, foundInf, sb.scalar(0.0));
      Value revert = b.create<CompareOp>(loc, ComparePredicate::ne,
                                         foundAtUpdate, sb.scalar(0.0));
      Value commit = b.create<CompareOp>(
          loc, ComparePredicate::eq, sb.select(done, foundInf, sb.scalar(1.0)),
          sb.scalar(0.0));
      for (auto [updated, last, next] :
           llvm::zip(newBuffers, committed, newCommitted)) {
        next = sb.select(commit, updated, last);
        updated = sb.select(revert, last, updated);
      }
    }
  }
  newScaler.assign(scaler);
  if (sig.dynamicScaling) {
    const ScalerSettings &settings = sig.settings;
    auto clamp = [&](std::optional<double> value) {
      return value ? b.getF64FloatAttr(*value) : FloatAttr();
    };
    auto update = b.create<ScalerUpdateOp>(
        loc, scaler[0], scaler[1], scaler[2], foundInf,
        b.getF64FloatAttr(settings.growthFactor),
        b.getF64FloatAttr(settings.backoffFactor),
        b.getI64IntegerAttr(settings.growthInterval),
        b.getI64IntegerAttr(settings.hysteresis), clamp(settings.minScale),
        clamp(settings.maxScale));
    newScaler.assign(update->result_begin(), update->result_end());
  }
  if (config.accumulate > 1) {
    gateOptimizerState(done);
    for (auto [updated, old] : llvm::zip(newScaler, scaler))
      updated = sb.select(done, updated, old);
  }
}

// The results in the signature's order. ZeRO stage 1: the updated parts,
// in the precision the forward pass reads, gathered in buckets, the first
// parameters' first (the next forward pass reads them first); the masters
// join the state.
void StepBody::finish() {
  const int64_t zero = config.zeroReplicas;
  SmallVector<Value> returned(newParams);
  if (zero) {
    SmallVector<Value> gatheredParts;
    for (unsigned p = 0; p < numParams; ++p) {
      auto work = cast<RankedTensorType>(sig.workTypes[p]);
      auto part = cast<RankedTensorType>(newParams[p].getType());
      gatheredParts.push_back(
          part.getElementType() == work.getElementType()
              ? newParams[p]
              : b.create<CastOp>(loc, part.clone(work.getElementType()),
                                 newParams[p])
                    .getResult());
    }
    for (ArrayRef<unsigned> bucket :
         bucketsOf(gatheredParts, config.bucketMb)) {
      SmallVector<Value> inputs;
      SmallVector<Type> wholes;
      for (unsigned p : bucket) {
        inputs.push_back(gatheredParts[p]);
        wholes.push_back(sig.workTypes[p]);
      }
      // With accumulation, only the update's micro-batch gathers; the
      // others keep the weights they read.
      SmallVector<Value> priors;
      if (done)
        for (unsigned p : bucket)
          priors.push_back(argument(p));
      auto gather =
          b.create<AllGatherOp>(loc, wholes, inputs, priors, done, zero);
      for (auto [k, p] : llvm::enumerate(bucket))
        returned[p] = gather.getResult(k);
    }
    // Each master before its parameter's moments, as in the signature.
    SmallVector<Value> state;
    unsigned k = 0;
    for (unsigned p = 0; p < numParams; ++p) {
      if (sig.hasMaster[p])
        state.push_back(newParams[p]);
      for (size_t m = 0; m < moments[p].size(); ++m)
        state.push_back(newState[k++]);
    }
    newState = std::move(state);
  }
  returned.append(newState);
  if (counter)
    returned.push_back(newCounter);
  returned.append(hyperValues); // set between steps, never by one
  if (config.accumulate > 1) {
    for (unsigned p = 0; p < numParams; ++p)
      returned.push_back(
          sb.select(done, sb.zerosLike(summed[p].getType()), summed[p]));
    returned.push_back(sb.select(done, sb.scalar(0.0), nextMicro));
    if (foundSoFar)
      returned.push_back(sb.select(done, sb.scalar(0.0), foundInf));
  }
  returned.append(newScaler);
  returned.append(parts);
  returned.append(newBuffers);
  returned.append(newCommitted);
  // Every forward pass draws new masks, a skipped step's and each
  // micro-batch's too.
  if (std::optional<unsigned> rng = sig.find(StateRole::rng))
    returned.push_back(b.create<RngAdvanceOp>(loc, argument(*rng)));
  returned.push_back(loss);
  if (sig.scaling)
    returned.push_back(foundInf);
  b.create<func::ReturnOp>(loc, returned);
}

} // namespace

static LogicalResult buildStep(const GradientFunction &target,
                               const OptimizerConfig &config,
                               SymbolTable &symbols) {
  func::FuncOp grad = target.grad, original = target.original;
  std::string name = (original.getSymName() + "_step").str();
  if (symbols.lookup(name))
    return grad.emitError() << "amp-optimizer: @" << name << " already exists";
  FailureOr<StepSignature> sig = SignatureBuilder(target, config).build();
  if (failed(sig))
    return failure();
  OpBuilder b(original->getContext());
  func::FuncOp step = createStepFunction(b, *sig, grad, original, name);
  symbols.insert(step); // a second gradient of the same function collides
  StepBody(b, *sig, config, grad, original, step).build();
  return success();
}

namespace {
struct AmpOptimizerPass
    : amp::SuggestingOptions<amp::impl::AmpOptimizerBase<AmpOptimizerPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    OptimizerConfig config;
    config.adamw = optimizer != OptimizerKind::sgd;
    config.coupledDecay = optimizer == OptimizerKind::adam;
    config.lr = lr;
    config.momentum = momentum;
    config.dampening = dampening;
    config.nesterov = nesterov;
    // -1, the option's default, means the optimizer's own default.
    // (torch.optim's: 1e-2 for AdamW, 0 for Adam and SGD).
    config.weightDecay =
        weightDecay != -1.0
            ? weightDecay.getValue()
            : (config.adamw && !config.coupledDecay ? 1e-2 : 0.0);
    config.beta1 = beta1;
    config.beta2 = beta2;
    config.eps = eps;
    config.maxGradNorm = maxGradNorm;
    config.accumulate = accumulate;
    config.dataParallel = dataParallel;
    config.bucketMb = bucketMb;
    if (schedule != "constant") {
      config.schedule = parseLrSchedule(schedule);
      if (!config.schedule) {
        emitOptionError(&getContext())
            << "amp-optimizer: unknown schedule '" << schedule << "'; expected "
            << listLrSchedules();
        return signalPassFailure();
      }
    }
    config.warmupSteps = warmupSteps;
    config.warmupStartFactor = warmupStartFactor;
    config.decaySteps = decaySteps;
    config.minLr = minLr;
    config.stepSize = stepSize;
    config.gamma = gamma;
    auto num = [](double value) {
      std::string text;
      llvm::raw_string_ostream(text) << value;
      return text;
    };
    auto bad = [&](const Twine &what) {
      emitOptionError(&getContext()) << "amp-optimizer: " << what;
      signalPassFailure();
    };
    // Errors about the module: at its location, without printing it.
    auto badModule = [&](const Twine &what) {
      emitError(module.getLoc()) << "amp-optimizer: " << what;
      signalPassFailure();
    };
    if (!(config.lr >= 0) || !std::isfinite(config.lr))
      return bad("lr must be non-negative and finite, got " + num(config.lr));
    if (config.adamw && !(config.beta1 >= 0 && config.beta1 < 1))
      return bad("beta1 must lie in [0, 1), got " + num(config.beta1));
    if (config.adamw && !(config.beta2 >= 0 && config.beta2 < 1))
      return bad("beta2 must lie in [0, 1), got " + num(config.beta2));
    if (config.adamw && (!(config.eps > 0) || !std::isfinite(config.eps)))
      return bad("eps must be positive and finite, got " + num(config.eps));
    if (!(config.weightDecay >= 0) || !std::isfinite(config.weightDecay))
      return bad("weight-decay must be non-negative and finite, got " +
                 num(config.weightDecay));
    if (!(config.momentum >= 0))
      return bad("momentum must be non-negative, got " + num(config.momentum));
    if (!(config.dampening >= 0 && config.dampening <= 1))
      return bad("dampening must lie in [0, 1], got " + num(config.dampening));
    if (config.nesterov &&
        (config.adamw || config.momentum <= 0 || config.dampening != 0))
      return bad("nesterov needs SGD with a positive momentum and zero "
                 "dampening");
    if (!(config.maxGradNorm >= 0) || !std::isfinite(config.maxGradNorm))
      return bad("max-grad-norm must be non-negative and finite (0: no "
                 "clipping), got " +
                 num(config.maxGradNorm));
    if (config.accumulate < 1)
      return bad("accumulate must be at least 1, got " +
                 Twine(config.accumulate));
    // The micro-batch counter is f32 state: beyond 2^24 it stops counting
    // and no update would ever apply.
    if (config.accumulate > (int64_t(1) << 24))
      return bad("accumulate " + Twine(config.accumulate) +
                 " exceeds 2^24, the largest count the f32 micro-batch "
                 "counter holds exactly");
    if (!(config.bucketMb > 0) || !std::isfinite(config.bucketMb))
      return bad("bucket-mb must be positive and finite, got " +
                 num(config.bucketMb));
    if (zeroStage != 0 && zeroStage != 1)
      return bad("zero-stage must be 0 or 1, got " + Twine(zeroStage));
    if (zeroStage == 1 && replicas < 1)
      return bad("zero-stage=1 needs replicas, the number of replicas the "
                 "optimizer state is sharded over (1 or more), got " +
                 Twine(replicas));
    if (zeroStage == 0 && replicas != 0)
      return bad("replicas=" + Twine(replicas) +
                 " needs zero-stage=1: only a sharded optimizer fixes the "
                 "number of replicas");
    if (zeroStage == 1) {
      config.dataParallel = true;
      config.zeroReplicas = replicas;
    }
    if (std::optional<std::string> error = parseParamGroups(
            paramGroups, config.perParameterHyperParameters(), config.groups))
      return bad("param-groups: " + *error);
    // The schedule's parameters in their ranges (those of
    // amp_runtime/hyperparameters.h, which a value set later meets too).
    for (auto [name, value] : config.scheduleParameters()) {
      const amprt::HyperParameterRange *range =
          amprt::hyperParameterRange(name);
      if (!amprt::inRange(*range, value)) {
        std::string option = name.str();
        std::replace(option.begin(), option.end(), '_', '-');
        return bad(option + " must lie in " + range->words +
                   " for schedule=" + schedule + ", got " + num(value));
      }
    }

    // The state is named after the parameters.
    if (failed(nameArgumentsFromSource(module)))
      return signalPassFailure();
    SymbolTable symbols(module);
    SmallVector<GradientFunction> targets;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(AmpDialect::kGradientOfAttrName))
        continue;
      // Its signature, and amp.loss_scaling (the dialect verified the
      // settings), are read below: checked first.
      FailureOr<GradientFunction> target =
          checkGradientFunction(func, symbols, "amp-optimizer");
      if (failed(target))
        return signalPassFailure();
      targets.push_back(*target);
    }
    if (targets.empty())
      return badModule("no gradient function; run --amp-autodiff first");
    for (const GradientFunction &target : targets)
      if (failed(buildStep(target, config, symbols)))
        return signalPassFailure();
  }
};
} // namespace
