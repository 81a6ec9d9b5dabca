// The training step the optimizer builds around @f_grad.
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.1 momentum=0.9 nesterov=true" | FileCheck %s --check-prefix=MOMENTUM
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adamw max-grad-norm=1.0" | FileCheck %s --check-prefix=ADAMW
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adamw accumulate=4" | FileCheck %s --check-prefix=ACCUM
// The pipeline is the same passes:
// RUN: amp-opt %s --amp-train-step="optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD

// SGD-LABEL: func.func @linear_step
// SGD-SAME: (%[[W:.*]]: tensor<4x3xf32> {amp.name = "w", amp.param}, %[[B:.*]]: tensor<3xf32> {amp.name = "b", amp.param}, %[[X:.*]]: tensor<2x4xf32> {amp.name = "x"}, %[[Y:.*]]: tensor<2xi64> {amp.name = "y"})
// SGD-SAME: -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>)
// SGD: %[[G:.*]]:3 = call @linear_grad(%[[W]], %[[X]], %[[B]], %[[Y]])
// SGD: %[[W2:.*]] = amp.sgd_update %[[W]], %[[G]]#1 {lr = 5.000000e-01 : f64, weight_decay = 0.000000e+00 : f64} : tensor<4x3xf32>
// SGD: %[[B2:.*]] = amp.sgd_update %[[B]], %[[G]]#2
// SGD: return %[[W2]], %[[B2]], %[[G]]#0

// Momentum: one buffer per parameter and the step counter, named as
// torch.optim.SGD names them.
// MOMENTUM-LABEL: func.func @linear_step
// MOMENTUM-SAME: %{{.*}}: tensor<4x3xf32> {amp.name = "w.momentum_buffer", amp.state}, %{{.*}}: tensor<3xf32> {amp.name = "b.momentum_buffer", amp.state}, %[[STEP:.*]]: tensor<f32> {amp.name = "step", amp.state}
// MOMENTUM: amp.sgd_momentum_update {{.*}}, %[[STEP]] {dampening = 0.000000e+00 : f64, lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov, weight_decay = 0.000000e+00 : f64}
// MOMENTUM: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f32>
// MOMENTUM: amp.add %[[STEP]], %[[ONE]]

// AdamW: two moments per parameter, PyTorch's defaults, clipping first:
// one sum of squares over every gradient, its square root the global norm.
// ADAMW-LABEL: func.func @linear_step
// ADAMW: %[[G:.*]]:3 = call @linear_grad
// ADAMW-NOT: amp.sum
// ADAMW: %[[SQ:.*]] = amp.sum_squares %[[G]]#1, %[[G]]#2 : tensor<4x3xf32>, tensor<3xf32>
// ADAMW-NOT: amp.sum
// ADAMW: amp.sqrt %[[SQ]]
// ADAMW: amp.minimum
// ADAMW: amp.adamw_update {{.*}} {beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, eps = 1.000000e-08 : f64, lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}

// Accumulation: accumulators and a micro-step counter; every state update
// is a select on the N-th micro-batch.
// ACCUM-LABEL: func.func @linear_step
// ACCUM-SAME: {amp.name = "w.exp_avg", amp.state}, %{{[^:]*}}: tensor<4x3xf32> {amp.name = "w.exp_avg_sq", amp.state}
// ACCUM-SAME: {amp.name = "b.exp_avg_sq", amp.state}, %{{[^:]*}}: tensor<f32> {amp.name = "step", amp.state}
// ACCUM-SAME: {amp.name = "w.grad_accumulator", amp.state}, %{{[^:]*}}: tensor<3xf32> {amp.name = "b.grad_accumulator", amp.state}, %{{[^:]*}}: tensor<f32> {amp.name = "micro_batch", amp.state}
// ACCUM: %[[DONE:.*]] = amp.compare ge
// ACCUM: amp.div
// ACCUM: amp.adamw_update
// ACCUM: amp.select %[[DONE]]
func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>, %b: tensor<3xf32> {amp.param},
                  %y: tensor<2xi64>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %z = amp.add %h, %b : tensor<2x3xf32>, tensor<3xf32>
  %l = amp.cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}
