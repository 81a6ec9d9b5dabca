//===- Backend.h - shared by the backend passes and emitter -----*- C++ -*-===//
//
// The backend works on one function whose calls are inlined. It classifies
// ops by traits and interfaces only (AmpBase.td, AmpInterfaces.td): an op
// with OpTrait::amp::FusibleElementwise joins elementwise loops, one with
// MemoryView is its operand's memory, one with InPlaceUpdate may store its
// results over the state they replace, and OptimizerUpdateOpInterface says
// which ops are parameter updates and which operand is which. --amp-fuse
// outlines every kernel into an `amp.fusion` op at the position of its
// last op: the kernels run in the order of the fusion ops, and only the
// values a fusion yields leave its kernel. Each fusion states the kind of
// kernel it is and its root (#amp.kernel, from analyzeKernel in
// IR/KernelAnalysis.h, which also gives getGuardSelects). --amp-plan-buffers
// then gives every result of a fusion or view a place (`amp.place`, an array
// with one PlaceAttr per result):
//
//   #amp.place<arena N>  bytes at offset N in the step's arena
//   #amp.place<arg I>    the memory of argument I: a state updated in place
//   #amp.place<view>     the memory of the operand (amp.reshape)
//
// It also places the scratch memory some kernels' ops need (`amp.scratch =
// offset` on the op) and records the arena size and the memory
// (`amp.memory`, MemoryAttr) on the function. The typed attributes are
// declared in IR/AmpAttrs.td and checked by the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_BACKEND_H
#define AMP_DIALECT_AMP_TRANSFORMS_BACKEND_H

#include "amp/Dialect/Amp/IR/AmpTraits.h"
#include "amp/Dialect/Amp/IR/KernelAnalysis.h"

#include "amp_runtime/batch_norm.h"
#include "amp_runtime/conv.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::amp::backend {

constexpr llvm::StringLiteral kPlaceAttr = "amp.place";
constexpr llvm::StringLiteral kArenaSizeAttr = "amp.arena_size";
constexpr llvm::StringLiteral kMemoryAttr = "amp.memory";
constexpr llvm::StringLiteral kScratchAttr = "amp.scratch";

/// Alignment of every arena placement, in bytes (cuBLASLt and vector loads
/// want 16; 256 matches cudaMalloc).
constexpr int64_t kArenaAlignment = 256;

/// Whether the backend computes `op` one element at a time in a loop it
/// fuses with its neighbours' (OpTrait::amp::FusibleElementwise).
inline bool isFusibleElementwise(Operation *op) {
  return op->hasTrait<OpTrait::amp::FusibleElementwise>();
}

/// Marks a slice or transpose that only attentions read, by strides,
/// where its operand lies (markAttentionViews).
constexpr llvm::StringLiteral kAttentionViewAttr = "amp.attention_view";

/// Whether `op`'s result is its operand's memory read another way
/// (OpTrait::amp::MemoryView, or a slice or transpose marked with
/// kAttentionViewAttr).
inline bool isView(Operation *op) {
  return op->hasTrait<OpTrait::amp::MemoryView>() ||
         op->hasAttr(kAttentionViewAttr);
}

/// Where a [batch, heads, seq, head_dim] operand or result of an attention
/// lies in the memory of `owner`: from `offset` elements on, element
/// (b, h, s, c) at b * batch + h * head + s * seq + c
/// (amp_attention_layout_t). `dense` when that is the row-major layout of
/// its own shape at offset 0.
struct AttentionLayout {
  Value owner;
  int64_t offset = 0;
  int64_t batch = 0, head = 0, seq = 0;
  bool dense = true;
};

/// The layout of `value`, a 4-D tensor an attention reads or writes,
/// following the views (isView) it is made of back to the value whose
/// memory they read: None where their strides cannot say it (a reshape
/// that merges what is not contiguous) or the innermost dimension is not
/// contiguous. An attention's result that a marked transpose reads is
/// stored in that transpose's order.
std::optional<AttentionLayout> getAttentionLayout(Value value);

/// Marks (kAttentionViewAttr) the slices and transposes of `body` that the
/// runtime's attention can read or write in place by strides, so that no
/// kernel moves them: a transpose (after slices and reshapes, each read
/// only by the next) that only attentions read as query, key, value,
/// output or output gradient (a head split of a QKV projection, or of an
/// output's gradient); and the transpose that merges the heads of an
/// attention's result, when nothing else but attention gradients reads the
/// result, which is then stored in the transpose's order.
void markAttentionViews(Block &body);

/// Bytes a value of the ranked tensor type `type` takes in memory (i1 as
/// one byte), with 16-bit floats counted as `floatBytes16` (4 gives what
/// the value would take in f32). For the values of a function that
/// checkCompilable accepted, which checked that both fit in int64.
int64_t getByteSize(Type type, int64_t floatBytes16 = 2);

/// Bytes of arena memory the kernel of `op` needs besides its results, for
/// the time of that kernel only: amp.cross_entropy keeps one partial loss
/// per row (in the logits' type) so that rows run in parallel and are then
/// summed in order; amp.embedding_grad buckets the ids' positions by id
/// (an int64 per table row and per id) so that each output element sums
/// only its own. --amp-plan-buffers places it (`amp.scratch = offset`).
int64_t getScratchBytes(Operation *op);

/// The runtime's description (amp_runtime/conv.h) of `op`, an amp.conv2d,
/// amp.conv2d_grad_input or amp.conv2d_grad_weight that the runtime runs
/// whole: f16, bf16 or f32 operands of one type, f32 accumulation, a
/// result of their type (or f32 for amp.conv2d). None for any other op:
/// amp-decompose rewrites it even with keep-convolutions.
std::optional<amp_conv2d_t> getRuntimeConvolution(Operation *op);

/// The runtime's description (amp_runtime/batch_norm.h) of `op`, an
/// amp.batch_norm or amp.batch_norm_grad that the runtime runs whole: f16,
/// bf16 or f32 activations, f32 statistics, and f32 (or no) scale, bias
/// and parameter gradients. None for any other op: amp-decompose rewrites
/// it even with keep-batch-norms.
std::optional<amp_batch_norm_t> getRuntimeBatchNorm(Operation *op);

/// What `value` is outside every amp.fusion: the input bound to it when
/// it is an argument of a fusion's region, `value` itself otherwise.
Value getOutsideValue(Value value);

/// The op that computes `value`, across the boundaries of amp.fusion ops:
/// for a fusion's result, the op in its kernel that computes the value it
/// yields. Null for an argument of the function.
Operation *getComputingOp(Value value);

/// The uses of `value` by the ops that compute, across the boundaries of
/// amp.fusion ops: a use as a fusion's input stands for the uses of the
/// region argument bound to it, and a use by an amp.yield for the uses of
/// the fusion's result.
void getUsesInKernels(Value value, SmallVectorImpl<OpOperand *> &uses);

/// The arguments a step function threads from one call to the next (those
/// marked amp.param or amp.state), in order, when `func` returns them
/// followed by the loss (and found_inf with loss scaling); empty otherwise.
SmallVector<unsigned> getThreadedArguments(func::FuncOp func);

/// Checks that the backend can compile `func`: one block, no calls, static
/// shapes, supported ops and types, tensors that are not empty and whose
/// sizes in bytes (16-bit floats also counted as f32) fit in int64. Emits
/// an error at the first offending argument or op.
LogicalResult checkCompilable(func::FuncOp func);

/// How amp_step_init starts a parameter, as PyTorch initialises the layer
/// it belongs to: uniform in +-1/sqrt(fanIn), or, where fanIn is 0, every
/// element at `initial`.
struct ParamInit {
  int64_t fanIn;
  double initial;
};

/// The initialisation of parameter argument `argument` of `func`: its
/// amp.param_init where amp-decompose left one (a convolution's weight and
/// bias: the fan-in C/G*KH*KW, as torch.nn.Conv2d; a batch norm's scale 1,
/// its bias 0); else read off its uses (through casts): the scale of a
/// layer or RMS norm starts at 1
/// and its bias at 0; the right operand of a matmul has the matmul's inner
/// dimension as fan-in, and a bias added to a matmul's result that of the
/// matmul (torch.nn.Linear's rule for both); anything else its first
/// dimension (1 for a vector or a scalar).
ParamInit getParamInit(func::FuncOp func, unsigned argument);

/// A range that an integer argument of a step must respect: `reader`
/// reads it, possibly through reshapes, transposes, slices, broadcasts and
/// concatenations, as positions in `[0, bound)`; `ignored` is also allowed.
struct IndexCheck {
  unsigned argument;
  int64_t bound;
  std::optional<int64_t> ignored;
  Operation *reader;
};

/// The range checks of `func`'s integer arguments, one per distinct
/// (argument, bound, ignored), in the order of their first reader. Indices
/// that come from constants or iota are checked here instead: an error at
/// the reader if one is out of range, or if indices come from an op whose
/// values cannot be known before the step runs.
FailureOr<SmallVector<IndexCheck>> getIndexChecks(func::FuncOp func);

} // namespace mlir::amp::backend

#endif // AMP_DIALECT_AMP_TRANSFORMS_BACKEND_H
