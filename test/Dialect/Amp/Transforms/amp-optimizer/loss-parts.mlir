// The parts of the loss a model returns after it: state arguments of the
// step (amp.state, amp.loss_part, f32, named as the model names them)
// after the scaler's, overwritten by every step, skipped ones included.
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd" | FileCheck %s
// RUN: amp-opt %s --amp-train-step="compute-type=bf16 optimizer=sgd" | FileCheck %s --check-prefix=BF16

func.func @regularized(%w: tensor<3xf32> {amp.param}, %x: tensor<3xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %d = amp.sub %w, %x : tensor<3xf32>, tensor<3xf32>
  %sq = amp.mul %d, %d : tensor<3xf32>, tensor<3xf32>
  %fit = amp.sum %sq dims = [0] : tensor<3xf32> to tensor<f32>
  %ww = amp.mul %w, %w : tensor<3xf32>, tensor<3xf32>
  %l2 = amp.sum %ww dims = [0] : tensor<3xf32> to tensor<f32>
  %c = amp.constant dense<0.25> : tensor<f32>
  %reg = amp.mul %l2, %c : tensor<f32>, tensor<f32>
  %loss = amp.add %fit, %reg : tensor<f32>, tensor<f32>
  return %loss, %fit, %l2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @regularized_step
// CHECK-SAME: {amp.loss_scale, amp.name = "loss_scale", amp.state = 6.553600e+04 : f64}
// CHECK-SAME: {amp.name = "growth_tracker", amp.state}
// CHECK-SAME: {amp.name = "hysteresis_tracker", amp.state = 1.000000e+00 : f64},
// CHECK-SAME: %[[FIT:[a-z0-9]+]]: tensor<f32> {amp.loss_part, amp.name = "fit", amp.state},
// CHECK-SAME: %[[L2:[a-z0-9]+]]: tensor<f32> {amp.loss_part, amp.name = "l2", amp.state},
// CHECK-SAME: %{{[a-z0-9]+}}: tensor<3xf32> {amp.name = "x"})
// CHECK: %[[G:.*]]:5 = call @regularized_grad
// CHECK-NOT: %[[FIT]]
// CHECK-NOT: %[[L2]]
// CHECK: amp.scaler_update
// The parts are the step's own, never gated by found_inf; then the loss
// and found_inf.
// CHECK: return {{.*}}, %[[G]]#2, %[[G]]#3, %[[G]]#0, %[[G]]#4 :

// With bf16 autocast the parts stay f32 (sums keep f32): no cast.
// BF16-LABEL: func.func @regularized_step
// BF16-SAME: {amp.loss_part, amp.name = "fit", amp.state}
// BF16: %[[G:.*]]:4 = call @regularized_grad
// BF16: return {{.*}}, %[[G]]#2, %[[G]]#3, %[[G]]#0 :
