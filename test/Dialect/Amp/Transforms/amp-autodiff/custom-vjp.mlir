// A function with its own backward (amp.custom_vjp, PyTorch's
// autograd.Function): amp-autodiff calls the backward for a call of it,
// with the call's arguments, its results and their gradients, instead of
// differentiating the body; any other call is differentiated through its
// body, so a backward is differentiated again for a second order.
// RUN: amp-opt %s --amp-autodiff=function=softplus_model | FileCheck %s
// The backward is what the gradient is: a correct one (softplus' = the
// sigmoid) passes f64 gradcheck, and one that differs from the body's
// derivative on purpose (3 x for x * x) fails it, where differentiating
// the body would pass.
// RUN: amp-run %s --function=softplus_model --random-inputs=3 --gradcheck | FileCheck %s --check-prefix=GOOD
// GOOD: gradcheck @softplus_model argument #1 'w' {{.*}} ok
// RUN: not amp-run %s --function=claimed_model --random-inputs=3 --gradcheck | FileCheck %s --check-prefix=CLAIMED
// CLAIMED: gradcheck @claimed_model argument #0 'w' {{.*}} FAILED
// A gradient penalty through the function: its backward inside the
// amp.grad, differentiated again through its body.
// RUN: amp-run %s --function=penalty_model --random-inputs=3 --gradcheck | FileCheck %s --check-prefix=PENALTY
// PENALTY: gradcheck @penalty_model argument #1 'w' {{.*}} ok
// A model with two such functions (one pinned to f32 by amp.cast_inputs)
// under a penalty, which differential.test trains compiled.
// RUN: amp-run %S/../../../../Target/Cuda/Inputs/custom_vjp.mlir --function=custom_vjp --random-inputs=2 --index-bound=4 --gradcheck | FileCheck %s --check-prefix=MODEL
// MODEL-COUNT-3: gradcheck @custom_vjp argument #{{[234]}} {{.*}} ok

// CHECK-LABEL: func.func @softplus_model_grad
// CHECK: %[[H:.*]] = amp.matmul
// CHECK: %[[Y:.*]] = call @stable_softplus(%[[H]])
// CHECK-NOT: amp.softplus
// CHECK: %[[G:.*]] = call @stable_softplus_backward(%[[H]], %[[Y]], %{{.*}}) : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK: amp.matmul %{{.*}}, %[[G]] {transpose_lhs}
func.func private @stable_softplus(%x: tensor<4x3xf32>) -> tensor<4x3xf32>
    attributes {amp.custom_vjp = @stable_softplus_backward} {
  %y = amp.softplus %x : tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
func.func private @stable_softplus_backward(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %s = amp.sigmoid %x : tensor<4x3xf32>
  %d = amp.mul %s, %g : tensor<4x3xf32>, tensor<4x3xf32>
  return %d : tensor<4x3xf32>
}
func.func @softplus_model(%x: tensor<4x5xf32>, %w: tensor<5x3xf32> {amp.param}) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32> to tensor<4x3xf32>
  %y = func.call @stable_softplus(%h) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = amp.sum %y dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

func.func private @square(%x: tensor<4x3xf32>) -> tensor<4x3xf32>
    attributes {amp.custom_vjp = @square_backward} {
  %y = amp.mul %x, %x : tensor<4x3xf32>, tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}
func.func private @square_backward(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %g: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %three = amp.constant dense<3.0> : tensor<f32>
  %t = amp.mul %x, %three : tensor<4x3xf32>, tensor<f32>
  %d = amp.mul %t, %g : tensor<4x3xf32>, tensor<4x3xf32>
  return %d : tensor<4x3xf32>
}
func.func @claimed_model(%w: tensor<4x3xf32> {amp.param}) -> tensor<f32> {
  %y = func.call @square(%w) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %s = amp.sum %y dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
  return %s : tensor<f32>
}

func.func @penalty_model(%x: tensor<4x5xf32>, %w: tensor<5x3xf32> {amp.param}) -> tensor<f32> {
  %v, %gw = amp.grad (%w) : (tensor<5x3xf32>) -> (tensor<f32>, tensor<5x3xf32>) {
  ^bb0(%a: tensor<5x3xf32>):
    %h = amp.matmul %x, %a : tensor<4x5xf32>, tensor<5x3xf32> to tensor<4x3xf32>
    %y = func.call @stable_softplus(%h) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %s = amp.sum %y dims = [0, 1] : tensor<4x3xf32> to tensor<f32>
    amp.yield %s : tensor<f32>
  }
  %sq = amp.mul %gw, %gw : tensor<5x3xf32>, tensor<5x3xf32>
  %pen = amp.sum %sq dims = [0, 1] : tensor<5x3xf32> to tensor<f32>
  %total = amp.add %v, %pen : tensor<f32>, tensor<f32>
  return %total : tensor<f32>
}
