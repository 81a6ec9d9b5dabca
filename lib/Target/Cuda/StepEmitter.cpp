//===- StepEmitter.cpp - the step function and its tables -----------------===//
//
// What every kernel shares: the functors and their launches, the named
// pointers of the step's tensors, the checks of the buffer plan, the
// dispatch of each kernel to the family that prints it, the copies back
// into the step's arguments and the runtime's description table.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp_runtime/launch_grid.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;
using namespace mlir::amp::cuda;

#include "KernelInterfaces.cpp.inc"

void cuda::attachKernelModels(MLIRContext &context) {
  context.getOrLoadDialect<AmpDialect>();
  // Once per context: the models of a later translation are already there.
  if (RegisteredOperationName::lookup(TransposeOp::getOperationName(), &context)
          ->hasInterface<KernelOpInterface>())
    return;
  attachElementwiseModels(context);
  attachReductionModels(context);
  attachRowModels(context);
  attachDataMovementModels(context);
  attachRuntimeCallModels(context);
  attachOptimizerModels(context);
}

SmallVector<StringRef> mlir::amp::getOpsWithoutKernel(MLIRContext &context) {
  cuda::attachKernelModels(context);
  SmallVector<StringRef> missing;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    // A view is memory; a matmul starts a GEMM group; a fusion is the
    // group itself and its yield the group's end; a decomposed op is gone
    // (amp-decompose), and so is an amp.grad (amp-expand-grads).
    if (name.getDialectNamespace() != AmpDialect::getDialectNamespace() ||
        name.hasTrait<OpTrait::amp::MemoryView>() ||
        name.hasTrait<OpTrait::amp::Decomposed>() ||
        name.getStringRef() == GradOp::getOperationName() ||
        name.getStringRef() == MatmulOp::getOperationName() ||
        name.getStringRef() == FusionOp::getOperationName() ||
        name.getStringRef() == YieldOp::getOperationName())
      continue;
    bool emitted = name.hasTrait<OpTrait::amp::FusibleElementwise>()
                       ? name.hasInterface<ScalarKernelOpInterface>()
                       : name.hasInterface<KernelOpInterface>();
    if (!emitted)
      missing.push_back(name.getStringRef());
  }
  return missing;
}

//===----------------------------------------------------------------------===//
// Functor
//===----------------------------------------------------------------------===//

Functor::Functor(StepEmitter &emitter, std::string name,
                 ArrayRef<Operation *> ops)
    : emitter(emitter), name(std::move(name)) {
  emitter.defs() << "// " << this->name << ":\n";
  for (Operation *op : ops)
    emitter.defs() << commentLines("  " + emitter.describe(op), 0);
}

void Functor::defineReduction(StringRef acc, StringRef identity,
                              StringRef baseBody, StringRef loadBody,
                              StringRef combine, StringRef finishBody,
                              int64_t extent, bool adjacent) {
  IndentedText methods;
  raw_indented_ostream &m = methods.os;
  if (adjacent)
    m << "static constexpr bool kAdjacentOutputs = true;\n";
  m << "AMP_HOST_DEVICE " << acc << " identity() const { return " << identity
    << "; }\n";
  m << "AMP_HOST_DEVICE int64_t baseOf([[maybe_unused]] int64_t i) const {\n";
  m.indent() << "int64_t base = 0;\n" << baseBody << "return base;\n";
  m.unindent() << "}\n";
  std::string loadAt = ("AMP_HOST_DEVICE " + acc + " loadAt(").str();
  m << loadAt << "[[maybe_unused]] int64_t base,\n"
    << std::string(loadAt.size(), ' ')
    << "[[maybe_unused]] int64_t r) const {\n";
  m.indent() << loadBody;
  m.unindent() << "}\n";
  m << "AMP_HOST_DEVICE " << acc << " combine(" << acc << " acc, " << acc
    << " v) const {\n";
  m.indent() << "return " << combine << ";\n";
  m.unindent() << "}\n";
  m << "AMP_HOST_DEVICE void finish([[maybe_unused]] int64_t i, " << acc
    << " acc) const {\n";
  m.indent() << finishBody;
  m.unindent() << "}\n";
  reductionMethods = methods.text;
  // The order of amprt::foldReduction, which the interpreter follows too.
  body() << "const int64_t base = baseOf(i);\n"
         << "finish(i, amprt::foldReduction(\n"
         << "              " << extent
         << ", identity(), [&](int64_t r) { return loadAt(base, r); },\n"
         << "              [&](" << acc << " a, " << acc
         << " v) { return combine(a, v); }));\n";
  reductionExtent = extent;
  adjacentOutputs = adjacent;
}

void Functor::launchRows(int64_t rows) {
  rowKernel = true;
  launch(rows);
}

void Functor::launch(int64_t count) {
  IndentedText definition;
  raw_indented_ostream &d = definition.os;
  d.indent();
  params.printMembers(d);
  if (!setupText.text.empty()) {
    d << sharedMembers << "AMP_HOST_DEVICE void setup() {\n";
    d.indent() << params.finalize(setupText.text);
    d.unindent() << "}\n";
  }
  d << params.finalize(reductionMethods);
  // A row kernel runs with its row's context: a warp's lane under nvcc,
  // the emulated warp on the host (amp_runtime/row_context.h).
  if (rowKernel)
    d << "template <typename Row>\n"
         "AMP_HOST_DEVICE void operator()([[maybe_unused]] int64_t i,\n"
         "                                const Row &row) const {\n";
  else
    d << "AMP_HOST_DEVICE void operator()([[maybe_unused]] int64_t i) const "
         "{\n";
  d.indent() << params.finalize(bodyText.text);
  d.unindent() << "}\n";

  // A kernel whose code another already has launches that functor.
  StringRef known = emitter.functorWithDefinition(definition.text, name);
  raw_indented_ostream &defs = emitter.defs();
  if (known.empty())
    defs << "struct " << name << " {\n" << definition.text << "};\n\n";
  else
    defs << "//   runs " << known << ", whose code it shares\n\n";
  StringRef functor = known.empty() ? StringRef(name) : known;

  std::string launch = "AMP_STEP_CHECK(ampstep::";
  launch += rowKernel         ? "launchRows"
            : reductionExtent ? "launchReduce"
                              : "launch";
  launch += "(stream, \"" + name + "\", " + std::to_string(count) + ", ";
  if (reductionExtent)
    launch += std::to_string(reductionExtent) + ", ";
  launch += functor.str() + params.initializer([&](Value v, bool writes) {
    return emitter.pointerOf(v, writes);
  }) + "));";
  emitter.step() << launch << "\n";

  // The cost report sees the launch with the grid step_kernels.h gives it.
  KernelCost cost;
  cost.name = name;
  cost.functor = functor.str();
  amprt::Grid grid = amprt::elementGrid(count);
  cost.strategy = "elementwise";
  if (rowKernel) {
    grid = amprt::rowGrid(count);
    cost.strategy = "rows";
  } else if (reductionExtent) {
    // Slices of an output leave partials for a second launch.
    amprt::ReducePlan plan =
        amprt::planReduction(count, reductionExtent, adjacentOutputs);
    grid = plan.grid;
    cost.launches = plan.launches;
    cost.strategy = plan.threads == 1 ? "reduce-thread" : "reduce-block";
    work.flops += count * reductionExtent; // a combine per value
    // Each thread's fold loads amprt::kLoadsAhead values, an element of
    // each tensor it reads for each, before it combines them.
    int64_t valueBytes = 0;
    for (const auto &[value, writes] : params.getTouched())
      if (!writes)
        valueBytes +=
            getByteSize(value.getType()) / std::max<int64_t>(1, countOf(value));
    cost.bytesInFlight = amprt::kLoadsAhead * std::max<int64_t>(1, valueBytes);
    // The slice that ends last (the counter's atomic says which), or the
    // second launch, loads the slices' results kLoadsAhead at a time.
    if (plan.split.slices > 1)
      cost.finishAccesses =
          (plan.launches == 1 ? 1 : 0) +
          (plan.split.slices + amprt::kLoadsAhead - 1) / amprt::kLoadsAhead;
  }
  cost.blocks = grid.blocks;
  cost.threads = grid.threads;
  cost.bytesRead = rereadBytes;
  cost.flops = work.flops;
  cost.transcendentals = work.transcendentals;
  if (serialAccesses) {
    cost.workers = 1;
    cost.serialAccesses = serialAccesses;
  }
  emitter.recordLaunch(std::move(cost), params.getTouched(), partialReads);
}

KernelCost cuda::multiTensorCost(std::string name, ArrayRef<int64_t> sizes) {
  amprt::MultiTensorPlan plan =
      amprt::planMultiTensor(sizes.data(), static_cast<int64_t>(sizes.size()));
  return {std::move(name), "multi-tensor", plan.launches, plan.grid.blocks,
          plan.grid.threads};
}

void StepEmitter::emitCopy(StringRef launchName, Value from, Value to) {
  if (sameMemory(from, to))
    return;
  int64_t count = countOf(to);
  step() << "AMP_STEP_CHECK(ampstep::launch(stream, \"" << launchName << "\", "
         << count << ", ampstep::Copy{" << pointerOf(from, false) << ", "
         << pointerOf(to, true) << "}));\n";
  amprt::Grid grid = amprt::elementGrid(count);
  KernelCost copy{launchName.str(), "copy", 1, grid.blocks, grid.threads};
  copy.functor = "ampstep::Copy";
  recordLaunch(std::move(copy), {{from, false}, {to, true}});
}

void StepEmitter::recordLaunch(KernelCost kernel,
                               ArrayRef<std::pair<Value, bool>> touched,
                               const llvm::DenseMap<Value, int64_t> &partial) {
  for (const auto &[value, writes] : touched) {
    auto part = partial.find(value);
    int64_t bytes = !writes && part != partial.end()
                        ? std::min(part->second, getByteSize(value.getType()))
                        : getByteSize(value.getType());
    (writes ? kernel.bytesWritten : kernel.bytesRead) += bytes;
    if (!kernel.tensorCore)
      idealBuffers.insert(memoryOf(value));
  }
  cost.kernels.push_back(std::move(kernel));
}

/// The least `kernel` must move and compute (KernelMinimum), from its
/// ops (`ops`, in order) alone.
static KernelMinimum minimumOf(FusionOp kernel, ArrayRef<Operation *> ops,
                               StringRef name, size_t firstLaunch,
                               size_t launchCount) {
  KernelMinimum minimum;
  minimum.name = name.str();
  minimum.kind = stringifyKernelKind(kernel.getKernelAttr().getKind()).str();
  minimum.firstLaunch = firstLaunch;
  minimum.launchCount = launchCount;
  llvm::SmallPtrSet<Operation *, 8> inKernel(ops.begin(), ops.end());
  llvm::MapVector<Value, int64_t> reads;
  int64_t work = 0;
  bool counted = true;
  for (Operation *op : ops) {
    int64_t written = 0;
    for (Value result : op->getResults())
      written += countOf(result);
    // An op that moves data (a gather, a slice, a cast) reads at most one
    // element of an operand for each element it writes.
    bool movesData = op->hasTrait<OpTrait::amp::ShapeFamily>() ||
                     op->hasTrait<OpTrait::amp::DataFamily>();
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && inKernel.contains(producer))
        continue;
      int64_t bytes = getByteSize(operand.getType());
      if (movesData)
        bytes = std::min(
            bytes,
            written * ((elementOf(operand).getIntOrFloatBitWidth() + 7) / 8));
      int64_t &read = reads[operand];
      read = std::max(read, bytes);
    }
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inKernel.contains(user);
          }))
        minimum.bytes += getByteSize(result.getType());
    auto flops = dyn_cast<FlopCountOpInterface>(op);
    bool hasCount = op->hasTrait<OpTrait::amp::ContractionFamily>() ||
                    op->hasTrait<OpTrait::amp::ReductionFamily>() ||
                    op->hasTrait<OpTrait::amp::NormalizationFamily>() ||
                    op->hasTrait<OpTrait::amp::LossFamily>();
    if (isFusibleElementwise(op) && isa<ScalarKernelOpInterface>(op) && flops) {
      ElementCost each = flops.getElementCost();
      work += (each.flops + each.transcendentals) * written;
    } else if (std::optional<int64_t> forward =
                   hasCount && flops ? flops.getForwardFlops() : std::nullopt) {
      work += *forward;
    } else if (!isView(op)) {
      counted = false;
    }
  }
  for (const auto &read : reads)
    minimum.bytes += read.second;
  if (counted)
    minimum.flops = work;
  return minimum;
}

//===----------------------------------------------------------------------===//
// OpKernel
//===----------------------------------------------------------------------===//

Functor &OpKernel::functor() {
  if (!built) {
    // In block order: a reduction's elementwise prologue before it, a
    // loss's gradient after.
    SmallVector<Operation *> listed;
    for (Operation *other : fused)
      if (other->isBeforeInBlock(op))
        listed.push_back(other);
    listed.push_back(op);
    llvm::append_range(listed, guards);
    for (Operation *other : fused)
      if (op->isBeforeInBlock(other))
        listed.push_back(other);
    built.emplace(emitter, name, listed);
  }
  return *built;
}

std::string OpKernel::in(unsigned i) {
  return functor().getParams().add(op->getOperand(i), /*writes=*/false);
}

std::string OpKernel::out(unsigned r) {
  return functor().getParams().add(op->getResult(r), /*writes=*/true);
}

std::string OpKernel::load(unsigned i, StringRef index) {
  return loadExpr(elementOf(op->getOperand(i)), in(i), index);
}

std::string OpKernel::store(unsigned r, StringRef index, StringRef value) {
  if (guards.empty())
    return storeStmt(elementOf(op->getResult(r)), out(r), index, value);
  auto select = cast<SelectOp>(guards[r]);
  KernelParams &params = functor().getParams();
  std::string keep = loadExpr(elementOf(select.getCondition()),
                              params.add(select.getCondition(), false), "0");
  std::string old = loadExpr(elementOf(select.getOnFalse()),
                             params.add(select.getOnFalse(), false), index);
  return storeStmt(elementOf(select.getResult()),
                   params.add(select.getResult(), true), index,
                   "(" + keep + " ? " + value.str() + " : " + old + ")");
}

FailureOr<std::string> OpKernel::scratch(StringRef type) {
  auto at = op->getAttrOfType<IntegerAttr>(kScratchAttr);
  if (!at)
    return op->emitError() << "amp-to-cuda: this op has no scratch memory; "
                              "run --amp-plan-buffers first";
  return functor().getParams().addRaw("scratch", type,
                                      emitter.arenaPointer(type, at.getInt()));
}

raw_indented_ostream &OpKernel::step() { return emitter.step(); }

void OpKernel::comment() {
  step() << "// " << name << ":\n"
         << commentLines("  " + emitter.describe(op), 2);
}

//===----------------------------------------------------------------------===//
// StepEmitter: names, pointers, constants
//===----------------------------------------------------------------------===//

/// The place --amp-plan-buffers gave `value`, the result of a kernel or a
/// view (see Backend.h); null where it gave none.
static PlaceAttr placeOf(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return {};
  auto places = result.getOwner()->getAttrOfType<ArrayAttr>(kPlaceAttr);
  if (!places || result.getResultNumber() >= places.size())
    return {};
  return dyn_cast<PlaceAttr>(places[result.getResultNumber()]);
}

/// What the step outside the kernels calls `value`: the input bound to a
/// region argument, the fusion's result for a value its kernel yields;
/// `value` itself for the rest, and for a value its kernel keeps.
static Value outsideKernels(Value value) {
  value = getOutsideValue(value);
  for (OpOperand &use : value.getUses())
    if (isa<YieldOp>(use.getOwner()))
      return use.getOwner()->getParentOp()->getResult(use.getOperandNumber());
  return value;
}

Value StepEmitter::memoryOf(Value value) {
  value = outsideKernels(value);
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  // verifyPlan checked that an argument's place is an argument.
  PlaceAttr place = placeOf(value);
  if (place && place.getKind() == PlaceKind::arg)
    return func.getArgument(place.getNumber().value_or(0));
  return value;
}

bool StepEmitter::reachesMemory(Value value) {
  Value memory = memoryOf(value);
  return isa<BlockArgument>(memory) || placeOf(memory);
}

bool StepEmitter::sameMemory(Value a, Value b) {
  Value x = memoryOf(a), y = memoryOf(b);
  if (x == y)
    return true;
  // Two values of the arena at one offset: the plan reuses the memory.
  PlaceAttr p = placeOf(x), q = placeOf(y);
  return p && q && p.getKind() == PlaceKind::arena &&
         q.getKind() == PlaceKind::arena && p.getNumber() == q.getNumber();
}

/// Whether the byte ranges [a.first, a.second) and [b.first, b.second)
/// share a byte.
static bool intersect(std::pair<int64_t, int64_t> a,
                      std::pair<int64_t, int64_t> b) {
  return a.first < b.second && b.first < a.second;
}

std::optional<std::pair<int64_t, int64_t>>
StepEmitter::arenaBytes(Value value) {
  Value memory = memoryOf(value);
  PlaceAttr place = placeOf(memory);
  if (!place || place.getKind() != PlaceKind::arena)
    return std::nullopt;
  int64_t at = place.getNumber().value_or(0);
  return std::make_pair(at, at + getByteSize(memory.getType()));
}

bool StepEmitter::overlaps(Value a, Value b) {
  if (memoryOf(a) == memoryOf(b))
    return true;
  std::optional<std::pair<int64_t, int64_t>> x = arenaBytes(a),
                                             y = arenaBytes(b);
  return x && y && intersect(*x, *y);
}

std::string StepEmitter::pointerOf(Value value, bool writes) {
  Value memory = memoryOf(value);
  if (usedBufferSet.insert(memory).second)
    usedBuffers.push_back(memory);
  if (writes)
    writtenBuffers.insert(memory);
  // verifyPlan checked that every value a kernel reads or writes outside
  // its own kernel is an argument or has an arena slot, which nameBuffers
  // named.
  std::string name = bufferNames.lookup(memory);
  assert(!name.empty() && "a value without memory reached pointerOf");
  return name;
}

std::string StepEmitter::arenaPointer(StringRef type, int64_t offset) {
  std::string name = "k" + std::to_string(kernelNumber) + "_scratch";
  scratchOffsets.try_emplace(name, offset);
  return "reinterpret_cast<" + type.str() + " *>(arena + offsets::" + name +
         ")";
}

/// Whether `name` could clash with the names the step function and the
/// runtime use: C++ keywords and types, the step's own variables, the
/// kernels' functors (k<number>...) and the constants' arrays (kData<n>).
static bool isReserved(StringRef name) {
  static const llvm::StringSet<> reserved = {"a",
                                             "amprt",
                                             "ampstep",
                                             "arena",
                                             "auto",
                                             "bool",
                                             "char",
                                             "config",
                                             "const",
                                             "copy",
                                             "offsets",
                                             "counters",
                                             "data",
                                             "default",
                                             "delete",
                                             "do",
                                             "double",
                                             "else",
                                             "exp_avgs",
                                             "float",
                                             "for",
                                             "found_inf",
                                             "g",
                                             "grads",
                                             "if",
                                             "int",
                                             "long",
                                             "loss",
                                             "new",
                                             "params",
                                             "results",
                                             "return",
                                             "short",
                                             "signed",
                                             "sizes",
                                             "static",
                                             "std",
                                             "stream",
                                             "struct",
                                             "switch",
                                             "tensors",
                                             "this",
                                             "unsigned",
                                             "void",
                                             "while",
                                             "exp_avg_sqs",
                                             "momentum_buffers",
                                             "j"};
  return reserved.contains(name) ||
         (name.size() > 1 && name[0] == 'k' &&
          (llvm::isDigit(name[1]) || llvm::isUpper(name[1])));
}

void StepEmitter::nameBuffers() {
  llvm::StringSet<> used;
  auto claim = [&](StringRef wanted) {
    std::string base;
    for (char c : wanted)
      base += llvm::isAlnum(c) ? c : '_';
    if (base.empty() || llvm::isDigit(base[0]))
      base = "t_" + base;
    if (isReserved(base))
      base += "_";
    std::string candidate = base;
    for (int n = 2; !used.insert(candidate).second; ++n)
      candidate = base + "_" + std::to_string(n);
    return candidate;
  };
  for (auto [i, argument] : llvm::enumerate(func.getArguments()))
    bufferNames[argument] = claim(tensorNames[i]);
  // An arena value is named after the model's name of the op that
  // computes it (getSourceNames), the op and its kernel: h1_matmul3, or
  // matmul3 where the model gives none.
  llvm::DenseMap<Operation *, std::string> sourceNames = getSourceNames(func);
  int64_t number = 0;
  for (auto kernel : func.getBody().front().getOps<FusionOp>()) {
    for (auto [result, yielded] :
         llvm::zip(kernel->getResults(), kernel.getYield().getValues())) {
      PlaceAttr place = placeOf(result);
      if (!place || place.getKind() != PlaceKind::arena)
        continue;
      // verifyPlan refused kernels that yield an input: an op computes it.
      auto computed = cast<OpResult>(yielded);
      Operation *op = computed.getOwner();
      std::string model = sourceNames.lookup(op);
      std::string wanted =
          (model.empty() ? "" : model + "_") +
          op->getName().stripDialect().str() + std::to_string(number) +
          (op->getNumResults() > 1
               ? "_" + std::to_string(computed.getResultNumber())
               : std::string());
      bufferNames[result] = claim(wanted);
    }
    ++number;
  }
}

std::string StepEmitter::constantArray(Operation *op, DenseElementsAttr value) {
  auto found = constantArrays.find(op);
  if (found != constantArrays.end())
    return found->second;
  std::string arrayName = "kData" + std::to_string(constantArrays.size());
  constantArrays[op] = arrayName;
  Type element = value.getElementType();
  raw_indented_ostream &constants = constantsText.os;
  constants << commentLines(describe(op), 0) << "AMP_STEP_DATA const "
            << storageType(element) << " " << arrayName << "[] = {";
  bool first = true;
  auto print = [&](const std::string &text) {
    constants << (first ? "" : ", ") << text;
    first = false;
  };
  if (isa<FloatType>(element)) {
    for (const APFloat &v : value.getValues<APFloat>()) {
      if (element.isF16() || element.isBF16())
        print(llvm::formatv("{0:x4}", v.bitcastToAPInt().getZExtValue()).str());
      else if (v.isFinite())
        print(llvm::formatv("{0}", llvm::format("%a", v.convertToDouble()))
                  .str());
      else
        print(literal(v.convertToDouble(), registerType(element)));
    }
  } else {
    for (const APInt &v : value.getValues<APInt>())
      print(element.isInteger(1) ? std::to_string(v.getZExtValue())
                                 : std::to_string(v.getSExtValue()) +
                                       (element.isInteger(64) ? "LL" : ""));
  }
  constants << "};\n\n";
  return arrayName;
}

std::string StepEmitter::describe(Operation *op) {
  // Without the backend's own annotations (amp.scratch, amp.place, ...),
  // which the code around the comment shows.
  SmallVector<NamedAttribute> annotations;
  for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
    if (attr.getName().strref().starts_with("amp.")) {
      annotations.push_back(attr);
      op->removeDiscardableAttr(attr.getName());
    }
  if (!names)
    names.emplace(func, OpPrintingFlags().elideLargeElementsAttrs(4));
  auto nameOf = [&](Value value) {
    std::string name;
    llvm::raw_string_ostream os(name);
    value.printAsOperand(os, *names);
    return name;
  };
  std::string text;
  llvm::raw_string_ostream s(text);
  op->print(s, *names);
  for (NamedAttribute attr : annotations)
    op->setDiscardableAttr(attr.getName(), attr.getValue());
  // Values that cross the kernel's boundary by the names the step gives
  // them outside the kernels (a result `%5:2` printed whole once).
  llvm::StringMap<std::string> outside;
  SmallVector<Value> crossing(op->getOperands());
  llvm::append_range(crossing, op->getResults());
  for (Value value : crossing)
    if (Value named = outsideKernels(value); named != value)
      outside[nameOf(value)] = nameOf(named);
  std::string renamed;
  for (size_t i = 0; i < text.size();) {
    size_t end = i + 1;
    if (text[i] == '%')
      while (end < text.size() &&
             (llvm::isAlnum(text[end]) || text[end] == '_' || text[end] == '#'))
        ++end;
    StringRef token = StringRef(text).slice(i, end);
    auto found = outside.find(token);
    renamed += found == outside.end() ? token.str() : found->second;
    i = end;
  }
  // One line.
  for (char &c : renamed)
    if (c == '\n')
      c = ' ';
  return renamed;
}

std::string StepEmitter::kernelName(ArrayRef<Operation *> ops) {
  // A reshape a kernel computes in its loads moves nothing: not named.
  std::string text = "k" + std::to_string(kernelNumber);
  for (Operation *op : ops) {
    if (text.size() > 40)
      break;
    if (!isView(op) || ops.size() == 1)
      text += "_" + op->getName().stripDialect().str();
  }
  return text;
}

StringRef StepEmitter::functorWithDefinition(StringRef definition,
                                             StringRef kernel) {
  auto [known, isNew] =
      functorOfDefinition.try_emplace(definition, kernel.str());
  return isNew ? StringRef() : StringRef(known->second);
}

//===----------------------------------------------------------------------===//
// StepEmitter: kernels
//===----------------------------------------------------------------------===//

LogicalResult StepEmitter::emitSingle(Operation *op,
                                      ArrayRef<Operation *> guards,
                                      StringRef suffix,
                                      ArrayRef<Operation *> fused) {
  auto kernel = dyn_cast<KernelOpInterface>(op);
  if (!kernel)
    return op->emitError() << "'" << op->getName()
                           << "' is not supported by the backend";
  OpKernel builder(*this, op, guards, kernelName({op}) + suffix.str(), fused);
  return kernel.emitKernel(builder);
}

LogicalResult StepEmitter::emitKernel(FusionOp kernel,
                                      ArrayRef<Operation *> ops) {
  // The kind and root --amp-fuse recorded, which the fusion's verifier
  // checked against its ops (KernelAnalysis.h).
  Operation *root = kernel.getRoot();
  switch (kernel.getKernelAttr().getKind()) {
  case KernelKind::gemm:
    return emitGemm(ops);
  case KernelKind::loop:
    return emitElementwise(ops);
  case KernelKind::updates: {
    SmallVector<Operation *> updates;
    for (Operation *op : ops)
      if (isa<OptimizerUpdateOpInterface>(op))
        updates.push_back(op);
    return emitUpdates(updates);
  }
  case KernelKind::single:
    return emitSingle(root);
  case KernelKind::casts:
    return emitCasts(ops);
  case KernelKind::reduction:
  case KernelKind::rows:
  case KernelKind::gather:
  case KernelKind::loss_grad:
    break;
  }
  // The root computes the others: a reduction or row op as it loads and
  // stores, the last op of a gather as it loads, a loss its gradient.
  SmallVector<Operation *> others;
  for (Operation *op : ops)
    if (op != root)
      others.push_back(op);
  auto model = dyn_cast<KernelOpInterface>(root);
  if (!model)
    return root->emitError()
           << "'" << root->getName() << "' is not supported by the backend";
  OpKernel builder(*this, root, {}, kernelName(ops), others);
  return model.emitKernel(builder);
}

void StepEmitter::emitReductionWaits(ArrayRef<Operation *> ops) {
  // The memory the kernel reads and writes: its values outside it, and
  // its scratch.
  SmallVector<Value> touched;
  llvm::SmallVector<std::pair<int64_t, int64_t>> scratch;
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (reachesMemory(operand))
        touched.push_back(operand);
    for (Value result : op->getResults())
      if (reachesMemory(result))
        touched.push_back(result);
    if (auto offset = op->getAttrOfType<IntegerAttr>(kScratchAttr))
      scratch.push_back(
          {offset.getInt(), offset.getInt() + getScratchBytes(op)});
  }
  auto inScratch = [&](Value value) {
    std::optional<std::pair<int64_t, int64_t>> bytes = arenaBytes(value);
    return bytes &&
           llvm::any_of(scratch, [&](std::pair<int64_t, int64_t> range) {
             return intersect(*bytes, range);
           });
  };
  // The last reduction the kernel touches; the runtime finishes them in
  // the order they started.
  std::optional<size_t> last;
  for (auto [k, reduction] : llvm::enumerate(reductions))
    if (ops.empty() || llvm::any_of(reduction.results, [&](Value result) {
          return inScratch(result) || llvm::any_of(touched, [&](Value value) {
                   return overlaps(result, value);
                 });
        }))
      last = k;
  if (!last)
    return;
  step() << "AMP_STEP_CHECK(amp_replica_all_reduce_wait(stream, "
         << reductions[*last].ticket << "));\n";
  reductions.erase(reductions.begin(), reductions.begin() + *last + 1);
}

LogicalResult StepEmitter::emitReturn() {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  raw_indented_ostream &s = step();
  if (isEvaluation()) {
    s << "// The loss and the named values, to where the runtime reads "
         "them.\n";
    for (auto [k, value] : llvm::enumerate(ret.getOperands())) {
      std::string name = "output_" + std::to_string(k);
      int64_t count = countOf(value);
      s << "AMP_STEP_CHECK(ampstep::launch(stream, \"" << name << "\", "
        << count << ", ampstep::Copy{" << pointerOf(value, false)
        << ", static_cast<" << storageType(elementOf(value)) << " *>(outputs["
        << k << "])}));\n";
      amprt::Grid grid = amprt::elementGrid(count);
      KernelCost copy{name, "copy", 1, grid.blocks, grid.threads};
      copy.functor = "ampstep::Copy";
      copy.bytesWritten = getByteSize(value.getType());
      recordLaunch(std::move(copy), {{value, false}});
    }
    return success();
  }
  SmallVector<unsigned> threaded = getThreadedArguments(func);
  s << "// The new parameters and state, where not already in place.\n";
  for (auto [k, argIndex] : llvm::enumerate(threaded)) {
    emitCopy("copy_" + std::to_string(argIndex), ret.getOperand(k),
             func.getArgument(argIndex));
  }
  Value loss = ret.getOperand(threaded.size());
  bool scaled = ret.getNumOperands() == threaded.size() + 2;
  s << "// The loss, found_inf and the counters.\n"
    << "AMP_STEP_CHECK(ampstep::launch(stream, \"results\", 1, "
       "ampstep::Results{" +
           pointerOf(loss, false) + ", " +
           (scaled ? pointerOf(ret.getOperand(threaded.size() + 1), false)
                   : std::string("nullptr")) +
           ", loss, found_inf, counters}));"
    << "\n";
  SmallVector<std::pair<Value, bool>> read = {{loss, false}};
  if (scaled)
    read.push_back({ret.getOperand(threaded.size() + 1), false});
  KernelCost results{"results", "scalar", 1, 1, amprt::kBlockThreads};
  results.functor = "ampstep::Results";
  // Besides the values: the loss and found_inf (f32) where the runtime
  // reads them, and the two f64 counters, each loaded and stored.
  results.bytesRead = 2 * sizeof(double);
  results.bytesWritten = 2 * sizeof(float) + 2 * sizeof(double);
  recordLaunch(std::move(results), read);
  return success();
}

//===----------------------------------------------------------------------===//
// StepEmitter: the plan's checks
//===----------------------------------------------------------------------===//

LogicalResult StepEmitter::verifyPlan() {
  // amp.arena_size is there (emit checked) and non-negative (the dialect).
  int64_t arenaSize = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt();
  auto bad = [](Operation *op, const Twine &what) {
    return op->emitError() << "amp-to-cuda: " << what
                           << "; run --amp-plan-buffers again";
  };
  auto fits = [&](int64_t at, int64_t bytes) {
    return at >= 0 && at <= arenaSize && bytes <= arenaSize - at;
  };
  // The kernels run in the order of the fusion ops, each after the values
  // it reads (SSA dominance): only their places are left to check.
  for (auto kernel : func.getBody().front().getOps<FusionOp>()) {
    for (auto [i, yielded] : llvm::enumerate(kernel.getYield().getValues()))
      if (isa<BlockArgument>(yielded))
        return kernel.emitError()
               << "amp-to-cuda: this kernel hands on its input as result #" << i
               << "; run --amp-fuse again";
    auto places = kernel->getAttrOfType<ArrayAttr>(kPlaceAttr);
    if (!places || places.size() != kernel->getNumResults())
      return bad(kernel, "this kernel has no place for each result (" +
                             kPlaceAttr + ")");
    for (OpResult result : kernel->getResults()) {
      // The dialect checked that every place is a PlaceAttr.
      PlaceAttr place = placeOf(result);
      std::string which = "result #" + std::to_string(result.getResultNumber());
      int64_t number = place.getNumber().value_or(0);
      if (place.getKind() == PlaceKind::arg) {
        if (number >= static_cast<int64_t>(func.getNumArguments()) ||
            func.getArgument(number).getType() != result.getType())
          return bad(kernel, which + " is placed in argument " +
                                 std::to_string(number) +
                                 ", which is not an argument of its type");
        continue;
      }
      if (place.getKind() != PlaceKind::arena ||
          !fits(number, getByteSize(result.getType()))) {
        std::string text;
        llvm::raw_string_ostream(text) << place;
        return bad(kernel, which + " has no place inside the " +
                               std::to_string(arenaSize) + "-byte arena (" +
                               text + ")");
      }
    }
    for (Operation &op : kernel.getKernelOps())
      if (Attribute scratch = op.getAttr(kScratchAttr)) {
        auto offset = dyn_cast<IntegerAttr>(scratch);
        if (!offset || !fits(offset.getInt(), getScratchBytes(&op)))
          return bad(&op, "its scratch memory (" + kScratchAttr +
                              ") is not inside the arena");
      }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// StepEmitter: the file
//===----------------------------------------------------------------------===//

static StringRef elementEnum(Type element) {
  return element.isF32()         ? "F32"
         : element.isF16()       ? "F16"
         : element.isBF16()      ? "BF16"
         : element.isF64()       ? "F64"
         : element.isInteger(1)  ? "I1"
         : element.isInteger(32) ? "I32"
                                 : "I64";
}

/// One entry of a tensor table: {"name", kind, type, rank, {shape},
/// fan_in, initial, shard, shard_of}.
static void printTensorEntry(raw_ostream &os, StringRef name, StringRef kind,
                             RankedTensorType type, int64_t fanIn,
                             double initial, int shard = 0,
                             int64_t shardOf = 0) {
  os << "  {\"" << cStringBody(name) << "\", " << kind << ", AMP_ELEMENT_"
     << elementEnum(type.getElementType()) << ", " << type.getRank() << ", {";
  for (auto [d, dim] : llvm::enumerate(type.getShape()))
    os << (d ? ", " : "") << dim;
  os << "}, " << fanIn << ", " << llvm::format("%a", initial);
  if (shard)
    os << ", " << shard << ", " << shardOf;
  os << "},\n";
}

void StepEmitter::printTensorTable(ArrayRef<IndexCheck> indexChecks) {
  os << "static const amp_step_tensor_t " << name << "_tensors[] = {\n";
  int64_t scaleSlot = -1;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
    ArgumentKind kind = getArgumentKind(func, i);
    if (func.getArgAttr(i, AmpDialect::kLossScaleAttrName))
      scaleSlot = i;
    double initial = 0;
    if (auto value =
            func.getArgAttrOfType<FloatAttr>(i, AmpDialect::kStateAttrName))
      initial = value.getValueAsDouble();
    // Parameters start as PyTorch starts their layers (getParamInit).
    int64_t fanIn = 1;
    if (kind == ArgumentKind::param) {
      ParamInit init = getParamInit(func, i);
      fanIn = init.fanIn;
      initial = init.initial;
    }
    // A replica's part of a parameter's master weights (2) or moment (1).
    int shard = 0;
    int64_t shardOf = 0;
    if (auto part = func.getArgAttrOfType<DenseI64ArrayAttr>(
            i, AmpDialect::kShardOfAttrName)) {
      shard = part[2] ? 2 : 1;
      shardOf = part[0];
    }
    // The kind's C name, as ArgumentKind mirrors amp_step_tensor_kind_t.
    printTensorEntry(os, tensorNames[i],
                     "AMP_STEP_" + stringifyArgumentKind(kind).upper(), type,
                     fanIn, initial, shard, shardOf);
  }
  if (func.getNumArguments() == 0)
    os << "  {}\n";
  os << "};\n\n";

  // An evaluation's outputs, by the names amp-evaluation gave them.
  if (isEvaluation()) {
    os << "static const amp_step_tensor_t " << name << "_outputs[] = {\n";
    for (unsigned k = 0; k < func.getNumResults(); ++k) {
      auto outputName =
          func.getResultAttrOfType<StringAttr>(k, AmpDialect::kNameAttrName);
      printTensorEntry(os,
                       outputName ? outputName.getValue().str()
                                  : "output" + std::to_string(k),
                       "AMP_STEP_INPUT",
                       cast<RankedTensorType>(func.getResultTypes()[k]), 0, 0);
    }
    os << "};\n\n";
  }

  // The ranges of ids and labels, checked by the runtime before a run.
  os << "static const amp_step_index_check_t " << name
     << "_index_checks[] = {\n";
  for (const IndexCheck &check : indexChecks) {
    std::string reader =
        "read by " + check.reader->getName().getStringRef().str();
    if (std::string at = sourcePosition(check.reader->getLoc()); !at.empty())
      reader += " at " + at;
    os << "  "
       << "{" + std::to_string(check.argument) + ", " +
              std::to_string(check.bound) + ", " + (check.ignored ? "1" : "0") +
              ", " + std::to_string(check.ignored.value_or(0)) + ", \"" +
              cStringBody(reader) + "\"},"
       << "\n";
  }
  if (indexChecks.empty())
    os << "  {}\n";
  int64_t arenaSize = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt();
  os << "};\n\n";
  // A field a line, named by the comment (amp_runtime/step.h).
  SmallVector<std::pair<std::string, StringRef>> fields;
  if (isEvaluation()) {
    os << "static const amp_eval_description_t " << name
       << "_description = {\n";
    fields = {{std::to_string(func.getNumArguments()), "tensor_count"},
              {(name + "_tensors").str(), "tensors"},
              {std::to_string(func.getNumResults()), "output_count"},
              {(name + "_outputs").str(), "outputs"},
              {std::to_string(arenaSize), "arena_size"},
              {(name + "_run").str(), "run"},
              {std::to_string(indexChecks.size()), "index_check_count"},
              {(name + "_index_checks").str(), "index_checks"}};
  } else {
    // The evaluations at other batch sizes, if any.
    if (evaluations.size() > 1) {
      os << "static const amp_eval_description_t *const " << name
         << "_other_evals[] = {\n";
      for (const std::string &other : ArrayRef(evaluations).drop_front())
        os << "  &" << other << ",\n";
      os << "};\n\n";
    }
    os << "static const amp_step_description_t " << name
       << "_description = {\n";
    // Gradient accumulation's counter (amp.micro_batch), if any.
    int64_t accumulate = 0, microBatch = 0;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (auto count = func.getArgAttrOfType<IntegerAttr>(
              i, AmpDialect::kMicroBatchAttrName)) {
        accumulate = count.getInt();
        microBatch = i;
      }
    fields = {{"AMP_STEP_ABI_VERSION", "abi_version"},
              {("\"" + name + "\"").str(), "name"},
              {"ampstep::kDevice", "target"},
              {std::to_string(func.getNumArguments()), "tensor_count"},
              {(name + "_tensors").str(), "tensors"},
              {std::to_string(scaleSlot), "loss_scale_tensor"},
              {std::to_string(arenaSize), "arena_size"},
              {(name + "_run").str(), "run"},
              {std::to_string(indexChecks.size()), "index_check_count"},
              {(name + "_index_checks").str(), "index_checks"},
              {evaluations.empty() ? std::string("nullptr")
                                   : "&" + evaluations.front(),
               "eval"},
              {func.walk([](AllReduceOp) {
                     return WalkResult::interrupt();
                   }).wasInterrupted()
                   ? "1"
                   : "0",
               "data_parallel"},
              {std::to_string([&] {
                 for (unsigned i = 0; i < func.getNumArguments(); ++i)
                   if (auto part = func.getArgAttrOfType<DenseI64ArrayAttr>(
                           i, AmpDialect::kShardOfAttrName))
                     return part[1];
                 return int64_t{0};
               }()),
               "zero_replicas"},
              {std::to_string(accumulate), "accumulate"},
              {std::to_string(microBatch), "micro_batch_tensor"},
              {std::to_string(evaluations.empty() ? 0 : evaluations.size() - 1),
               "other_eval_count"},
              {evaluations.size() > 1 ? (name + "_other_evals").str()
                                      : std::string("nullptr"),
               "other_evals"}};
  }
  for (const auto &[value, field] : fields)
    os << "  " << value << ", // " << field << "\n";
  os << "};\n";
  if (isEvaluation())
    return;
  os << "\nextern \"C\" __attribute__((visibility(\"default\")))\n"
     << "const amp_step_description_t *" << name << "_describe(void) {\n"
     << "  return &" << name << "_description;\n}\n";
}

std::string StepEmitter::offsetTable() {
  SmallVector<std::pair<int64_t, std::string>> entries;
  for (Value buffer : usedBuffers)
    if (!isa<BlockArgument>(buffer))
      entries.push_back({placeOf(buffer).getNumber().value_or(0),
                         bufferNames.lookup(buffer)});
  for (const auto &[name, offset] : scratchOffsets)
    entries.push_back({offset, name});
  if (entries.empty())
    return "";
  llvm::stable_sort(
      entries, [](const auto &a, const auto &b) { return a.first < b.first; });
  std::string text = "// Where the plan puts the values of the arena, in "
                     "bytes. Values at one offset\n// reuse its memory, "
                     "each after the last read of the one before.\n"
                     "namespace offsets {\n";
  for (const auto &[offset, name] : entries)
    text +=
        "constexpr int64_t " + name + " = " + std::to_string(offset) + ";\n";
  return text + "} // namespace offsets\n\n";
}

LogicalResult StepEmitter::emit() {
  if (failed(checkSignature()))
    return failure();
  // Kernels in the order they run.
  SmallVector<FusionOp> kernels;
  for (Operation &op : func.getBody().front())
    if (auto kernel = dyn_cast<FusionOp>(op))
      kernels.push_back(kernel);
    else if (!isView(&op) && !isa<func::ReturnOp>(op))
      return op.emitError() << "amp-to-cuda: this op is in no kernel; run "
                               "--amp-fuse first";
  if (failed(verifyPlan()))
    return failure();
  FailureOr<SmallVector<IndexCheck>> indexChecks = getIndexChecks(func);
  if (failed(indexChecks))
    return failure();
  nameTensors();
  nameBuffers();
  if (failed(emitKernels(kernels)))
    return failure();
  cost.name = name.str();
  for (Value buffer : idealBuffers)
    cost.idealBytes += getByteSize(buffer.getType());
  printFile(kernels.size(), *indexChecks);
  return success();
}

LogicalResult StepEmitter::checkSignature() {
  if (failed(backend::checkCompilable(func)))
    return failure();
  Block &block = func.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  Value loss;
  if (isEvaluation()) {
    if (ret.getNumOperands() == 0)
      return func.emitError()
             << "amp-to-cuda: the evaluation @" << func.getSymName()
             << " returns nothing; its first result must "
                "be the loss";
    loss = ret.getOperand(0);
  } else {
    SmallVector<unsigned> threaded = getThreadedArguments(func);
    if (threaded.empty())
      return func.emitError()
             << "amp-to-cuda: @" << func.getSymName()
             << " is not a training step (its results must be its amp.param "
                "and amp.state arguments, in order, then the loss and, with "
                "loss scaling, found_inf)";
    loss = ret.getOperand(threaded.size());
  }
  auto lossType = tensorOf(loss);
  if (lossType.getRank() != 0 || !lossType.getElementType().isF32())
    return func.emitError() << "amp-to-cuda: the loss must be an f32 scalar; "
                               "it is "
                            << lossType;
  if (!func->getAttr(kArenaSizeAttr))
    return func.emitError()
           << "amp-to-cuda: @" << func.getSymName()
           << " has no buffer plan; run --amp-fuse and --amp-plan-buffers "
              "first";
  return success();
}

void StepEmitter::nameTensors() {
  // Each tensor is called by its argument's `amp.name`; an argument without
  // one gets the first free name of its kind: param0, state0, input0, ...
  // (buffer0, ...: in the step and its evaluation alike, which bind them by
  // name).
  unsigned params = 0, states = 0, inputs = 0, buffers = 0;
  llvm::StringSet<> used;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    used.insert(getArgumentName(func, i));
  auto fallbackName = [&](StringRef kind, unsigned &counter) {
    std::string candidate;
    do
      candidate = (kind + Twine(counter++)).str();
    while (!used.insert(candidate).second);
    return candidate;
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    std::string tensorName = getArgumentName(func, i).str();
    if (tensorName.empty()) {
      switch (getArgumentKind(func, i)) {
      case ArgumentKind::param:
        tensorName = fallbackName("param", params);
        break;
      case ArgumentKind::buffer:
        tensorName = fallbackName("buffer", buffers);
        break;
      case ArgumentKind::input:
        tensorName = fallbackName("input", inputs);
        break;
      default:
        tensorName = fallbackName("state", states);
      }
    }
    tensorNames.push_back(tensorName);
  }
}

LogicalResult StepEmitter::emitKernels(ArrayRef<FusionOp> kernels) {
  step().indent();
  for (auto [number, listed] : llvm::enumerate(kernels)) {
    kernelNumber = number;
    FusionOp kernel = listed;
    SmallVector<Operation *> ops =
        llvm::to_vector(llvm::make_pointer_range(kernel.getKernelOps()));
    emitReductionWaits(ops);
    size_t first = cost.kernels.size();
    if (failed(emitKernel(kernel, ops)))
      return failure();
    // The kernel's launches are named after it, some with a suffix
    // (k19_unscale_zero, k19_unscale): the shortest name is the kernel's.
    ArrayRef<KernelCost> launches = ArrayRef(cost.kernels).drop_front(first);
    if (!launches.empty())
      cost.minimums.push_back(minimumOf(
          kernel, ops,
          llvm::min_element(launches,
                            [](const KernelCost &a, const KernelCost &b) {
                              return a.name.size() < b.name.size();
                            })
              ->name,
          first, launches.size()));
  }
  emitReductionWaits({});
  return emitReturn();
}

void StepEmitter::printFile(size_t kernelCount,
                            ArrayRef<IndexCheck> indexChecks) {
  // The file. An evaluation is a namespace of the step's file, printed
  // before the step, whose table points at it.
  int64_t arenaSize = func->getAttrOfType<IntegerAttr>(kArenaSizeAttr).getInt();
  if (isEvaluation()) {
    os << "// " << name << ": the evaluation @" << func.getSymName()
       << ": the model's loss and named values, forward only.\n"
       << "// " << kernelCount << " kernels; arena " << arenaSize << " bytes.\n"
       << "namespace " << evaluationNamespace << " {\n\n";
  } else {
    os << "// " << name << ": the training step @" << func.getSymName()
       << ", generated by amp-translate --amp-to-cuda.\n"
       << "// Builds with nvcc (cuda target) or a host C++ compiler (host "
          "target);\n// kernel bodies are AMP_HOST_DEVICE. Do not edit: "
          "regenerate.\n//\n"
       << "// " << kernelCount << " kernels; arena " << arenaSize
       << " bytes.\n\n#include \"amp_runtime/step_kernels.h\"\n\n"
       << evaluationText;
  }
  os << "namespace {\n\n"
     << offsetTable() << constantsText.text << defsText.text
     << "} // namespace\n\n"
     << "static amp_status_t " << name
     << (isEvaluation() ? "_run(amp_stream_t *stream, void *const *tensors, "
                          "void *arenaBase, void *const *outputs) {\n"
                        : "_run(amp_stream_t *stream, void *const *tensors, "
                          "void *arenaBase, float *loss, float *found_inf, "
                          "double *counters) {\n")
     << "  [[maybe_unused]] char *arena = static_cast<char *>(arenaBase);\n";
  // The named pointers of the tensors the kernels touch: the arguments,
  // then the arena's values at the offsets of the plan.
  os << "  // The tensors: the " << (isEvaluation() ? "evaluation" : "step")
     << "'s arguments and the arena's values.\n";
  for (Value buffer : usedBuffers) {
    std::string constness = writtenBuffers.contains(buffer) ? "" : "const ";
    std::string type = constness + storageType(elementOf(buffer)) + " *";
    std::string declaration =
        type + "const " + bufferNames.lookup(buffer) + " = ";
    std::string init;
    if (auto argument = dyn_cast<BlockArgument>(buffer))
      init = "static_cast<" + type + ">(tensors[" +
             std::to_string(argument.getArgNumber()) + "]);";
    else
      init = "reinterpret_cast<" + type +
             ">(arena + offsets::" + bufferNames.lookup(buffer) + ");";
    os << "  " << declaration << init << "\n";
  }
  os << stepText.text << "  return nullptr;\n}\n\n";
  printTensorTable(indexChecks);
  if (isEvaluation())
    os << "\n} // namespace " << evaluationNamespace << "\n\n";
}
