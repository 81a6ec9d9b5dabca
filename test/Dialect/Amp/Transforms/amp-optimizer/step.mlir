// The training step the optimizer builds around @f_grad.
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.1 momentum=0.9 nesterov=true" | FileCheck %s --check-prefix=MOMENTUM
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adamw max-grad-norm=1.0" | FileCheck %s --check-prefix=ADAMW
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adamw accumulate=4" | FileCheck %s --check-prefix=ACCUM
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adam" | FileCheck %s --check-prefix=ADAM
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.5 schedule=warmup-cosine warmup-steps=100 decay-steps=900 min-lr=0.01" | FileCheck %s --check-prefix=SCHEDULE
// The pipeline is the same passes:
// RUN: amp-opt %s --amp-train-step="compute-type=none optimizer=sgd lr=0.5" | FileCheck %s --check-prefix=SGD

// The hyperparameters are f64 arguments that start at the options' values
// (amp.state) and are returned unchanged: a step reads them, whoever runs
// it may set them between steps.
// SGD-LABEL: func.func @linear_step
// SGD-SAME: (%[[W:[a-z0-9]+]]: tensor<4x3xf32> {amp.name = "w", amp.param}, %[[B:[a-z0-9]+]]: tensor<3xf32> {amp.name = "b", amp.param},
// SGD-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 5.000000e-01 : f64}, %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64},
// SGD-SAME: %[[X:[a-z0-9]+]]: tensor<2x4xf32> {amp.name = "x"}, %[[Y:[a-z0-9]+]]: tensor<2xi64> {amp.name = "y"})
// SGD-SAME: -> (tensor<4x3xf32>, tensor<3xf32>, tensor<f64>, tensor<f64>, tensor<f32>)
// SGD: %[[G:.*]]:3 = call @linear_grad(%[[W]], %[[X]], %[[B]], %[[Y]])
// SGD: %[[W2:.*]] = amp.sgd_update %[[W]], %[[G]]#1 lr(%[[LR]]) weight_decay(%[[WD]]) : tensor<4x3xf32>
// SGD: %[[B2:.*]] = amp.sgd_update %[[B]], %[[G]]#2 lr(%[[LR]]) weight_decay(%[[WD]])
// SGD: return %[[W2]], %[[B2]], %[[LR]], %[[WD]], %[[G]]#0

// Momentum: one buffer per parameter and the step counter, named as
// torch.optim.SGD names them.
// MOMENTUM-LABEL: func.func @linear_step
// MOMENTUM-SAME: %{{.*}}: tensor<4x3xf32> {amp.name = "w.momentum_buffer", amp.state}, %{{.*}}: tensor<3xf32> {amp.name = "b.momentum_buffer", amp.state}, %[[STEP:[a-z0-9]+]]: tensor<f32> {amp.name = "step", amp.state},
// MOMENTUM-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-01 : f64}, %[[MU:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "momentum", amp.state = 9.000000e-01 : f64}, %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64}
// MOMENTUM: amp.sgd_momentum_update {{.*}}, %[[STEP]] lr(%[[LR]]) momentum(%[[MU]]) weight_decay(%[[WD]]) {dampening = 0.000000e+00 : f64, nesterov}
// MOMENTUM: %[[ONE:.*]] = amp.constant dense<1.000000e+00> : tensor<f32>
// MOMENTUM: amp.add %[[STEP]], %[[ONE]]

// AdamW: two moments per parameter, PyTorch's defaults, clipping first:
// one sum of squares over every gradient, its square root the global norm;
// a clipping norm set to 0 at run time turns clipping off.
// ADAMW-LABEL: func.func @linear_step
// ADAMW-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-03 : f64},
// ADAMW-SAME: %[[B1:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "beta1", amp.state = 9.000000e-01 : f64},
// ADAMW-SAME: %[[B2:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "beta2", amp.state = 0.99899999999999999 : f64},
// ADAMW-SAME: %[[EPS:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "eps", amp.state = 1.000000e-08 : f64},
// ADAMW-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 1.000000e-02 : f64},
// ADAMW-SAME: %[[MAX:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "max_grad_norm", amp.state = 1.000000e+00 : f64}
// ADAMW: %[[G:.*]]:3 = call @linear_grad
// ADAMW-NOT: amp.sum
// ADAMW: %[[SQ:.*]] = amp.sum_squares %[[G]]#1, %[[G]]#2 : tensor<4x3xf32>, tensor<3xf32>
// ADAMW-NOT: amp.sum
// ADAMW: %[[NORM:[0-9]+]] = amp.sqrt %[[SQ]]
// ADAMW: %[[MAX32:[0-9]+]] = amp.cast %[[MAX]] : tensor<f64> to tensor<f32>
// ADAMW: %[[RATIO:[0-9]+]] = amp.div %[[MAX32]],
// ADAMW: %[[COEF:[0-9]+]] = amp.minimum %[[RATIO]],
// ADAMW: %[[ON:[0-9]+]] = amp.compare gt, %[[MAX]],
// ADAMW: amp.select %[[ON]], %[[COEF]],
// ADAMW: amp.adamw_update {{.*}} lr(%[[LR]]) betas(%[[B1]], %[[B2]]) eps(%[[EPS]]) weight_decay(%[[WD]])

// Adam: AdamW's moments and update with the decay added to the gradient
// (coupled_decay), torch.optim.Adam's default decay 0.
// ADAM-LABEL: func.func @linear_step
// ADAM-SAME: {amp.name = "w.exp_avg", amp.state}
// ADAM-SAME: {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64}
// ADAM: amp.adamw_update {{.*}} {coupled_decay}

// Accumulation: accumulators and a micro-step counter; every state update
// is a select on the N-th micro-batch.
// ACCUM-LABEL: func.func @linear_step
// ACCUM-SAME: {amp.name = "w.exp_avg", amp.state}, %{{[^:]*}}: tensor<4x3xf32> {amp.name = "w.exp_avg_sq", amp.state}
// ACCUM-SAME: {amp.name = "b.exp_avg_sq", amp.state}, %{{[^:]*}}: tensor<f32> {amp.name = "step", amp.state}
// ACCUM-SAME: {amp.name = "w.grad_accumulator", amp.state}, %{{[^:]*}}: tensor<3xf32> {amp.name = "b.grad_accumulator", amp.state}, %{{[^:]*}}: tensor<f32> {amp.micro_batch = 4 : i64, amp.name = "micro_batch", amp.state}
// ACCUM: %[[DONE:.*]] = amp.compare ge
// ACCUM: amp.div
// ACCUM: amp.adamw_update
// ACCUM: amp.select %[[DONE]]
// A schedule: plain SGD gains a step counter; the schedule's parameters
// are hyperparameters after the others; the rate of each update is the
// schedule's at the count of updates before it.
// SCHEDULE-LABEL: func.func @linear_step
// SCHEDULE-SAME: %[[STEP:[a-z0-9]+]]: tensor<f32> {amp.name = "step", amp.state},
// SCHEDULE-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 5.000000e-01 : f64},
// SCHEDULE-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64},
// SCHEDULE-SAME: %[[WARMUP:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "warmup_steps", amp.state = 1.000000e+02 : f64},
// SCHEDULE-SAME: %[[START:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "warmup_start_factor", amp.state = 0.33333333333333331 : f64},
// SCHEDULE-SAME: %[[DECAY:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "decay_steps", amp.state = 9.000000e+02 : f64},
// SCHEDULE-SAME: %[[FLOOR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "min_lr", amp.state = 1.000000e-02 : f64}
// SCHEDULE: %[[RATE:[0-9]+]] = amp.lr_schedule warmup_cosine %[[LR]], %[[STEP]](%[[WARMUP]], %[[START]], %[[DECAY]], %[[FLOOR]]) : tensor<f32>
// SCHEDULE: amp.sgd_update {{.*}} lr(%[[RATE]]) weight_decay(%[[WD]])
// SCHEDULE: amp.sgd_update {{.*}} lr(%[[RATE]]) weight_decay(%[[WD]])
// SCHEDULE: %[[NEXT:[0-9]+]] = amp.add %[[STEP]],
// SCHEDULE: return {{.*}}, %[[NEXT]], %[[LR]], %[[WD]], %[[WARMUP]], %[[START]], %[[DECAY]], %[[FLOOR]],
func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>, %b: tensor<3xf32> {amp.param},
                  %y: tensor<2xi64>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %z = amp.add %h, %b : tensor<2x3xf32>, tensor<3xf32>
  %l = amp.cross_entropy %z, %y : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}
