//===- StepEmitter.h - the state of one step's translation ------*- C++ -*-===//
//
// The CUDA target prints a planned step in three parts: the kernels'
// functors (defs), the step function that launches them in order (step),
// and the tables the runtime reads. StepEmitter holds the three and knows
// where each value lives; it knows no op. Each op's kernel comes from the
// file of its family through the interfaces of KernelInterfaces.td:
//
//   ElementwiseKernels.cpp   fused elementwise kernels, one index per element
//   ReductionKernels.cpp     sum, mean, max and the losses' reductions
//   RowKernels.cpp           softmax, the norms and cross-entropy, per row
//   DataMovementKernels.cpp  transpose, slice, concat and the embeddings
//   RuntimeCalls.cpp         GEMMs, attention and loss scaling
//   OptimizerKernels.cpp     the optimizer updates
//
// Private to lib/Target/Cuda.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TARGET_CUDA_STEPEMITTER_H
#define AMP_LIB_TARGET_CUDA_STEPEMITTER_H

#include "CSource.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Target/Cuda/CostReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Support/IndentedOstream.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <string>

namespace mlir::amp {
class FusionOp;
} // namespace mlir::amp

namespace mlir::amp::cuda {

class StepEmitter;
class ElementwiseKernel;
class OpKernel;

} // namespace mlir::amp::cuda

#include "KernelInterfaces.h.inc"

namespace mlir::amp::cuda {

/// Attaches the kernel interfaces to the amp ops, once per context.
void attachKernelModels(MLIRContext &context);
/// The models of each family (the files above).
void attachElementwiseModels(MLIRContext &context);
void attachReductionModels(MLIRContext &context);
void attachRowModels(MLIRContext &context);
void attachDataMovementModels(MLIRContext &context);
void attachRuntimeCallModels(MLIRContext &context);
void attachOptimizerModels(MLIRContext &context);

/// The KernelOpInterface model of `Op`: its kernel is `Emit`'s.
template <typename Op, LogicalResult (*Emit)(Op, OpKernel &)>
struct KernelModel
    : KernelOpInterface::ExternalModel<KernelModel<Op, Emit>, Op> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    return Emit(cast<Op>(op), kernel);
  }
};

/// The cost record of one of the runtime's multi-tensor operations over
/// tensors of `sizes` elements: a launch per amprt::kMultiTensorChunk of
/// them, its blocks those of the largest launch's grid (launch_grid.h).
KernelCost multiTensorCost(std::string name, ArrayRef<int64_t> sizes);

/// A text built through an indenting stream.
struct IndentedText {
  std::string text;
  llvm::raw_string_ostream raw{text};
  raw_indented_ostream os{raw};
};

/// A generated kernel: a functor whose operator() runs one index, and its
/// launch. Add its members through getParams(), print its body through
/// body(), then launch() it.
class Functor {
public:
  /// Starts the functor `name` for `ops` (listed in its comment).
  Functor(StepEmitter &emitter, std::string name, ArrayRef<Operation *> ops);

  StringRef getName() const { return name; }
  KernelParams &getParams() { return params; }
  /// The body of operator()(int64_t i), printed without indentation.
  raw_indented_ostream &body() { return bodyText.os; }
  /// Members computed once per launch by setup(): their declarations
  /// (`T name{};`) and the statements of setup().
  void addSharedMember(StringRef declaration) {
    sharedMembers += declaration.str() + "\n";
  }
  raw_indented_ostream &setup() { return setupText.os; }
  /// Makes the functor a reduction of `extent` values per output, launched
  /// with ampstep::launchReduce: operator() folds loadAt(baseOf(i), r) for r
  /// in order with `combine` from `identity` and hands the result to
  /// finish(i, acc), which is what the host runs; under nvcc long
  /// reductions give each output a block that folds in the same order
  /// (ampstep::blockPerOutput). The fragments are C++
  /// statements without indentation: `baseBody` sets `int64_t base` from
  /// i, `loadBody` returns the r-th value from base and r, `combine` is an
  /// expression of `acc` and `v`, `finishBody` stores from i and acc.
  /// `adjacentOutputs`: the outputs' values lie side by side in memory (a
  /// reduction over leading dimensions), so threads take the outputs
  /// (amprt::reducesPerThread).
  void defineReduction(StringRef acc, StringRef identity, StringRef baseBody,
                       StringRef loadBody, StringRef combine,
                       StringRef finishBody, int64_t extent,
                       bool adjacentOutputs = false);
  /// Prints the functor (or names the one with the same code) and its
  /// launch over `count` indices.
  void launch(int64_t count);
  /// The same for a row kernel, launched with ampstep::launchRows: its
  /// operator()(i, row) works on row i with the row context `row` (the
  /// first argument of row_math.h's functions), the same code on the host
  /// and, a warp per row, under nvcc.
  void launchRows(int64_t rows);
  /// Adds to the work the cost report counts for the launch (a reduction
  /// counts a combine per value by itself).
  void addWork(int64_t flops, int64_t transcendentals = 0) {
    work.flops += flops;
    work.transcendentals += transcendentals;
  }
  /// `perElement`'s work for each of `elements`.
  void addWork(ElementCost perElement, int64_t elements) {
    addWork(perElement.flops * elements, perElement.transcendentals * elements);
  }
  /// Says that the launch's work is one thread's, `accesses` of them
  /// waiting on one another (a serial phase; the cost report charges each
  /// the memory's latency).
  void setSerial(int64_t accesses) { serialAccesses = accesses; }
  /// Counts `bytes` of `value`, not all of it, as read in the cost report
  /// (a gather reads only the elements it copies); summed over calls.
  void readsPart(Value value, int64_t bytes) { partialReads[value] += bytes; }
  /// Counts `bytes` more as read: a row kernel's passes over rows the
  /// caches cannot hold (getRowRereadBytes); summed over calls.
  void rereads(int64_t bytes) { rereadBytes += bytes; }

private:
  StepEmitter &emitter;
  std::string name;
  KernelParams params;
  IndentedText bodyText, setupText;
  std::string sharedMembers, reductionMethods;
  int64_t reductionExtent = 0;
  bool adjacentOutputs = false;
  bool rowKernel = false;
  ElementCost work;
  int64_t serialAccesses = 0;
  int64_t rereadBytes = 0;
  llvm::DenseMap<Value, int64_t> partialReads;
};

/// One op emitted as a kernel of its own (KernelOpInterface): a functor,
/// runtime calls in the step, or both.
class OpKernel {
public:
  OpKernel(StepEmitter &emitter, Operation *op, ArrayRef<Operation *> guards,
           std::string name, ArrayRef<Operation *> fused = {})
      : emitter(emitter), op(op), guards(guards), fused(fused),
        name(std::move(name)) {}

  Operation *getOp() const { return op; }
  StringRef getName() const { return name; }
  StepEmitter &getEmitter() const { return emitter; }
  /// The found_inf selects fused into an optimizer update, one per result
  /// (see getGuardSelects); empty for other ops.
  ArrayRef<Operation *> getGuards() const { return guards; }
  /// The other ops of the kernel, which the op's model computes with it
  /// (a reduction's or row op's prologue and epilogue, a gather's
  /// transposes, a loss's gradient: KernelAnalysis.h); empty for most.
  ArrayRef<Operation *> getFused() const { return fused; }

  /// Starts the op's generated functor (listing the op and its guards).
  Functor &functor();
  /// The functor's member for operand `i` or result `r`.
  std::string in(unsigned i);
  std::string out(unsigned r);
  /// Operand `i` at `index`, in its register type.
  std::string load(unsigned i, StringRef index);
  /// The statement storing `value` as result `r` at `index`. A guarded
  /// result is stored through its select: the new value where the step is
  /// kept, the old one (read before the store) where it is skipped.
  std::string store(unsigned r, StringRef index, StringRef value);
  /// A member pointing at the op's scratch memory (amp.scratch) as `type`.
  FailureOr<std::string> scratch(StringRef type);

  /// The step function's body, for runtime calls; comment() names the
  /// kernel and its op there first.
  raw_indented_ostream &step();
  void comment();

private:
  StepEmitter &emitter;
  Operation *op;
  ArrayRef<Operation *> guards;
  ArrayRef<Operation *> fused;
  std::string name;
  std::optional<Functor> built;
};

/// The namespace of a step's evaluation in the step's file.
inline constexpr llvm::StringLiteral kEvaluationNamespace = "evaluation";

/// The translation of one planned step function, or of the evaluation
/// (amp.evaluation_of) that goes with one: a namespace printed into the
/// step's file first.
class StepEmitter {
public:
  StepEmitter(func::FuncOp func, StringRef name, raw_ostream &os)
      : func(func), name(name), os(os) {}

  /// Gives the step the evaluations `text` (evaluations' emit()s, one
  /// after another) whose tables are `descriptions`: the first the step's
  /// `eval`, the others its evaluations at other batch sizes.
  void setEvaluations(std::string text, SmallVector<std::string> descriptions) {
    evaluationText = std::move(text);
    evaluations = std::move(descriptions);
  }
  /// The namespace an evaluation is printed in (kEvaluationNamespace
  /// unless told).
  void setNamespace(std::string name) { evaluationNamespace = std::move(name); }

  LogicalResult emit();

  func::FuncOp getFunction() const { return func; }
  bool isEvaluation() const {
    return func->hasAttr(AmpDialect::kEvaluationOfAttrName);
  }
  /// The expression of the pointer to `value`'s memory inside the step
  /// function: the named pointer of its argument or arena slot.
  std::string pointerOf(Value value, bool writes);
  /// Whether `a` and `b` are the same memory.
  bool sameMemory(Value a, Value b);
  /// Whether `value` is in memory: an argument, a value of the arena, or a
  /// view of one; false for a value its kernel keeps to itself.
  bool reachesMemory(Value value);
  /// The pointer to the current kernel's scratch memory, `offset` bytes
  /// into the arena, as `type`; the offset joins the table as
  /// `k<kernel>_scratch`.
  std::string arenaPointer(StringRef type, int64_t offset);
  /// The name of the kernel being emitted: `k<number>_<op names>`.
  std::string kernelName(ArrayRef<Operation *> ops);
  /// The op printed on one line, without the backend's annotations.
  std::string describe(Operation *op);
  /// Defines the elements of a non-splat constant as an array of the
  /// library (once per op) and returns its name.
  std::string constantArray(Operation *op, DenseElementsAttr value);

  raw_indented_ostream &defs() { return defsText.os; }
  raw_indented_ostream &step() { return stepText.os; }
  /// The name of the functor already defined with `definition`, or "" after
  /// recording `kernel` as the one that has it.
  StringRef functorWithDefinition(StringRef definition, StringRef kernel);

  /// A GEMM group: the matmul, with the bias add and relu its epilogue
  /// names (RuntimeCalls.cpp).
  LogicalResult emitGemm(ArrayRef<Operation *> ops);
  /// Prints and records a launch named `launchName` copying `from` into
  /// `to` (ampstep::Copy), unless the plan put them in the same memory.
  void emitCopy(StringRef launchName, Value from, Value to);
  /// Records `kernel` in the cost report; `touched` are the values whose
  /// memory it reads (false) or writes (true), which add their bytes, once
  /// whatever the launches (a multi-tensor launch each takes other tensors),
  /// but those of `partial` only the bytes given (a slice reads its part).
  void recordLaunch(KernelCost kernel, ArrayRef<std::pair<Value, bool>> touched,
                    const llvm::DenseMap<Value, int64_t> &partial);
  void recordLaunch(KernelCost kernel,
                    ArrayRef<std::pair<Value, bool>> touched) {
    recordLaunch(std::move(kernel), touched, llvm::DenseMap<Value, int64_t>());
  }
  /// The cost report of the launches printed so far.
  const StepCost &getCost() const { return cost; }
  /// Records that the runtime reduces `results` from here on under the
  /// ticket `ticket` (amp_replica_all_reduce_start): the step waits for it
  /// before the first kernel that touches their memory.
  void startReduction(std::string ticket, ArrayRef<Value> results) {
    reductions.push_back({std::move(ticket), llvm::to_vector(results)});
  }

  /// The optimizer updates of one kernel with their guards
  /// (OptimizerKernels.cpp).
  LogicalResult emitUpdates(ArrayRef<Operation *> updates);
  /// A group of fusible elementwise ops (ElementwiseKernels.cpp).
  LogicalResult emitElementwise(ArrayRef<Operation *> ops);
  /// A run of casts of the function's arguments, one launch
  /// (ElementwiseKernels.cpp).
  LogicalResult emitCasts(ArrayRef<Operation *> casts);
  /// Prints to `out` the statements computing `ops` (fusible elementwise)
  /// at `index` of the last one's shape, as a part of `functor`, with
  /// `known` values already in registers, and storing the values read
  /// elsewhere (unless not `storeValues`: a row kernel's loads compute its
  /// stored input again where its stores store it); returns the register
  /// of the last one's value. A reduction's
  /// loads compute the ops that feed it so, a row kernel's stores the ops
  /// that read its result.
  FailureOr<std::string>
  emitElementwiseAt(Functor &functor, ArrayRef<Operation *> ops,
                    StringRef index, raw_ostream &out,
                    ArrayRef<std::pair<Value, std::string>> known = {},
                    bool storeValues = true);
  /// One op through its KernelOpInterface, with the ops of its kernel
  /// that it computes (`fused`: an update's gradient scale).
  LogicalResult emitSingle(Operation *op, ArrayRef<Operation *> guards = {},
                           StringRef suffix = {},
                           ArrayRef<Operation *> fused = {});

private:
  /// Checks the buffer plan the emitted code trusts (see StepEmitter.cpp).
  LogicalResult verifyPlan();
  /// One amp.fusion, by the kind of kernel it states (#amp.kernel); `ops`
  /// are its ops, in order.
  LogicalResult emitKernel(FusionOp kernel, ArrayRef<Operation *> ops);
  /// Waits for the reductions under way that `ops` (one kernel) touch the
  /// memory of, and those started before them; for all with no `ops`.
  void emitReductionWaits(ArrayRef<Operation *> ops);
  /// Whether `a` and `b` share a byte of memory.
  bool overlaps(Value a, Value b);
  /// The bytes [begin, end) of the arena that `value`'s memory takes, if
  /// the plan put it in the arena.
  std::optional<std::pair<int64_t, int64_t>> arenaBytes(Value value);
  /// Checks that the function is a step (or an evaluation) with an f32
  /// scalar loss and a buffer plan.
  LogicalResult checkSignature();
  /// Names each tensor of the table by its argument's amp.name, or the
  /// first free name of its kind.
  void nameTensors();
  /// Each of `kernels` into the step's text, with its cost.
  LogicalResult emitKernels(ArrayRef<FusionOp> kernels);
  /// The file: the evaluation's namespace or the step's header, the
  /// offsets, the kernels' definitions, the run function and the table.
  void printFile(size_t kernelCount, ArrayRef<backend::IndexCheck> indexChecks);
  LogicalResult emitReturn();
  /// Names each argument and arena value the step touches.
  void nameBuffers();
  /// The `offsets` namespace: a constexpr offset per arena value the step
  /// touches, named as its pointer, in the order of the arena.
  std::string offsetTable();
  void printTensorTable(ArrayRef<backend::IndexCheck> indexChecks);
  /// Where `value`'s memory is: the value outside the kernels that owns it
  /// (through views), or the argument the plan put it in.
  Value memoryOf(Value value);

  func::FuncOp func;
  StringRef name;
  raw_ostream &os;
  /// The step's evaluation and its table's name, or "".
  std::string evaluationText;
  SmallVector<std::string> evaluations;
  std::string evaluationNamespace = kEvaluationNamespace.str();
  IndentedText defsText, stepText, constantsText;
  int64_t kernelNumber = 0;
  llvm::DenseMap<Operation *, std::string> constantArrays;
  llvm::StringMap<std::string> functorOfDefinition;
  /// The name of each argument and arena value's pointer, and which names
  /// the step used.
  llvm::DenseMap<Value, std::string> bufferNames;
  /// The scratch memory of each kernel that has some, by its name.
  std::map<std::string, int64_t> scratchOffsets;
  llvm::SmallVector<Value> usedBuffers;
  llvm::DenseSet<Value> usedBufferSet;
  llvm::DenseSet<Value> writtenBuffers;
  /// The names of the step's values in describe()'s text.
  std::optional<AsmState> names;
  /// The argument names of the tensor table.
  SmallVector<std::string> tensorNames;
  StepCost cost;
  /// The memory the non-GEMM launches touch (the ideal's bytes).
  llvm::SetVector<Value> idealBuffers;
  /// The reductions started and not yet waited for, oldest first.
  struct Reduction {
    std::string ticket;
    SmallVector<Value> results;
  };
  SmallVector<Reduction> reductions;
};

} // namespace mlir::amp::cuda

#endif // AMP_LIB_TARGET_CUDA_STEPEMITTER_H
