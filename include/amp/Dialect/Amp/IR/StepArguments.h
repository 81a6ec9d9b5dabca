//===- StepArguments.h - what each argument of a step is --------*- C++ -*-===//
//
// The kind of each argument of a model or training step, decoded from its
// amp.* argument attributes (AmpBase.td) in one place: the kinds of the
// compiled step's tensor table (amp_step_tensor_kind_t in
// amp_runtime/step.h), which the emitter, the interpreter's random inputs
// and the tools read instead of asking for the attributes themselves.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_STEPARGUMENTS_H
#define AMP_DIALECT_AMP_IR_STEPARGUMENTS_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::amp {

/// What an argument is (ArgumentKind, AmpAttrs.td, whose values are
/// amp_step_tensor_kind_t's):
/// - param: a trainable parameter (amp.param);
/// - buffer: a buffer the model updates itself (amp.buffer; in a step also
///   amp.state, which holds its starting value);
/// - rng: the state of the dropouts' generator (amp.rng; in a step also
///   amp.state);
/// - hparam: a hyperparameter the optimizer reads (amp.hparam, a state);
/// - loss_part: a part of the loss the step reports (amp.loss_part, a
///   state);
/// - state: other optimizer or loss-scaler state (amp.state);
/// - input: part of the batch, none of the above.
///
/// The kind of argument `index` of `function`: the first of the list
/// above that its attributes say (the verifier leaves one).
ArgumentKind getArgumentKind(FunctionOpInterface function, unsigned index);

/// Whether the step keeps argument `index` from one run to the next (a
/// parameter or any state): everything but a batch input.
inline bool isPersistent(FunctionOpInterface function, unsigned index) {
  return getArgumentKind(function, index) != ArgumentKind::input;
}

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_STEPARGUMENTS_H
