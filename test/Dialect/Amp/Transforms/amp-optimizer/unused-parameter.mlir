// A parameter the loss does not read gets a gradient of zeros from
// amp-autodiff; torch.optim leaves such a parameter (its .grad is None) as
// it is. So does the step: no update, no weight decay, its moments returned
// as they came, with every optimizer and through the loss scaler's unscale.
// (AdamW's decay shrank it by 1 - lr * weight_decay every step.)
// RUN: amp-opt %s --amp-train-step="compute-type=none optimizer=adamw weight-decay=0.1" | FileCheck %s --check-prefix=ADAMW
// RUN: amp-opt %s --amp-train-step="compute-type=none optimizer=sgd momentum=0.9 weight-decay=0.1" | FileCheck %s --check-prefix=MOMENTUM
// RUN: amp-opt %s --amp-train-step="optimizer=adamw compute-type=f16" | FileCheck %s --check-prefix=F16
// The model summary says so.
// RUN: amp-opt %s --amp-model-summary -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY

// ADAMW-LABEL: func.func @m_step
// ADAMW-SAME: (%[[W:[a-z0-9]+]]: tensor<3x5xf32> {amp.name = "w", amp.param}, %[[U:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u", amp.param},
// ADAMW-SAME: %[[WM:[a-z0-9]+]]: tensor<3x5xf32> {amp.name = "w.exp_avg", amp.state}, %[[WV:[a-z0-9]+]]: tensor<3x5xf32> {amp.name = "w.exp_avg_sq", amp.state},
// ADAMW-SAME: %[[UM:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u.exp_avg", amp.state}, %[[UV:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u.exp_avg_sq", amp.state},
// ADAMW: %[[NEW:.*]], %[[NEWM:.*]], %[[NEWV:.*]] = amp.adamw_update %[[W]],
// ADAMW-NOT: amp.adamw_update
// ADAMW: return %[[NEW]], %[[U]], %[[NEWM]], %[[NEWV]], %[[UM]], %[[UV]],

// MOMENTUM-LABEL: func.func @m_step
// MOMENTUM-SAME: %[[U:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u", amp.param},
// MOMENTUM-SAME: %[[WB:[a-z0-9]+]]: tensor<3x5xf32> {amp.name = "w.momentum_buffer", amp.state}, %[[UB:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u.momentum_buffer", amp.state},
// MOMENTUM: %[[NEW:.*]], %[[NEWB:.*]] = amp.sgd_momentum_update
// MOMENTUM-NOT: amp.sgd_momentum_update
// MOMENTUM: return %[[NEW]], %[[U]], %[[NEWB]], %[[UB]],

// With loss scaling the unused gradient passes through amp.unscale; a
// skipped step keeps the parameter as an applied one does.
// F16-LABEL: func.func @m_step
// F16-SAME: %[[U:[a-z0-9]+]]: tensor<5xf32> {amp.name = "u", amp.param},
// F16: amp.adamw_update
// F16-NOT: amp.adamw_update
// F16: amp.select %{{.*}}, %[[U]], %[[U]] : tensor<i1>, tensor<5xf32>, tensor<5xf32>

// SUMMARY: unused-parameter.mlir:[[# @LINE + 2]]:{{[0-9]+}}: warning: @m: argument #3 is a parameter that does not reach what the function returns: it gets no gradient, and the optimizer leaves it as it is (as torch.optim leaves a parameter whose .grad is None)
func.func @m(%x: tensor<4x3xf32>, %labels: tensor<4xi64>,
             %w: tensor<3x5xf32> {amp.param}, %u: tensor<5xf32> {amp.param}) -> tensor<f32> {
  %logits = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32> to tensor<4x5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
