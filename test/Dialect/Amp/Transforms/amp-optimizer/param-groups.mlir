// Parameter groups: some parameters read hyperparameters of their own,
// arguments named <group>.<key> that start at the group's values; the
// others read the step's.
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=adamw weight-decay=0.1 param-groups=no_decay:rank<2|pos:weight_decay=0;head:w*:lr=5e-3,beta2=0.95" | FileCheck %s --check-prefix=ADAMW
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd lr=0.5 momentum=0.9 schedule=cosine decay-steps=100 param-groups=slow:b:lr=0.05,momentum=0.5" | FileCheck %s --check-prefix=SGD
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd param-groups=all:rank>=0:weight_decay=1e-4" | FileCheck %s --check-prefix=PLAIN
// A glob's alternatives: {w,pos} selects both, not b.
// RUN: amp-opt %s --amp-autodiff --amp-optimizer="optimizer=sgd param-groups=g:{w,pos}:weight_decay=1e-4" | FileCheck %s --check-prefix=BRACES
// The pipeline takes the option too:
// RUN: amp-opt %s --amp-train-step="compute-type=none optimizer=adamw weight-decay=0.1 param-groups=no_decay:rank<2|pos:weight_decay=0;head:w*:lr=5e-3,beta2=0.95" | FileCheck %s --check-prefix=ADAMW

func.func @model(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param},
                 %pos: tensor<2x3xf32> {amp.param}, %x: tensor<2x4xf32>,
                 %y: tensor<2xi64>) -> tensor<f32> {
  %mm = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %biased = amp.add %mm, %b : tensor<2x3xf32>, tensor<3xf32>
  %logits = amp.add %biased, %pos : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = amp.cross_entropy %logits, %y : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %loss : tensor<f32>
}

// AdamW, the GPT recipe: no decay on the bias (rank 1) and the positions
// (by name); the weight (matched by w*) has a rate and beta2 of its own
// and the step's decay.
// ADAMW-LABEL: func.func @model_step
// ADAMW-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-03 : f64},
// ADAMW-SAME: %[[B1:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "beta1", amp.state = 9.000000e-01 : f64},
// ADAMW-SAME: %[[B2:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "beta2", amp.state = 0.99899999999999999 : f64},
// ADAMW-SAME: %[[EPS:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "eps", amp.state = 1.000000e-08 : f64},
// ADAMW-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 1.000000e-01 : f64},
// ADAMW-SAME: %[[NOWD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "no_decay.weight_decay", amp.state = 0.000000e+00 : f64},
// ADAMW-SAME: %[[HLR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "head.lr", amp.state = 5.000000e-03 : f64},
// ADAMW-SAME: %[[HB2:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "head.beta2", amp.state = 0.94999999999999996 : f64},
// ADAMW-SAME: %{{[a-z0-9]+}}: tensor<2x4xf32> {amp.name = "x"}
// The updates group by group (those in no group first), so that amp-fuse
// merges each group's into one multi-tensor update.
// ADAMW: amp.adamw_update %arg1, {{.*}} lr(%[[LR]]) betas(%[[B1]], %[[B2]]) eps(%[[EPS]]) weight_decay(%[[NOWD]]) : tensor<3xf32>
// ADAMW-NEXT: amp.adamw_update %arg2, {{.*}} lr(%[[LR]]) betas(%[[B1]], %[[B2]]) eps(%[[EPS]]) weight_decay(%[[NOWD]]) : tensor<2x3xf32>
// ADAMW-NEXT: amp.adamw_update %arg0, {{.*}} lr(%[[HLR]]) betas(%[[B1]], %[[HB2]]) eps(%[[EPS]]) weight_decay(%[[WD]]) : tensor<4x3xf32>
// Every hyperparameter is returned as it came.
// ADAMW: return {{.*}}, %[[LR]], %[[B1]], %[[B2]], %[[EPS]], %[[WD]], %[[NOWD]], %[[HLR]], %[[HB2]],

// SGD with momentum and a schedule: the group's rate follows the schedule
// from its own base rate, one amp.lr_schedule per rate.
// SGD-LABEL: func.func @model_step
// SGD-SAME: %[[STEP:[a-z0-9]+]]: tensor<f32> {amp.name = "step", amp.state},
// SGD-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 5.000000e-01 : f64},
// SGD-SAME: %[[MU:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "momentum", amp.state = 9.000000e-01 : f64},
// SGD-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64},
// SGD-SAME: %[[STEPS:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "decay_steps", amp.state = 1.000000e+02 : f64},
// SGD-SAME: %[[MIN:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "min_lr", amp.state = 0.000000e+00 : f64},
// SGD-SAME: %[[SLR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "slow.lr", amp.state = 5.000000e-02 : f64},
// SGD-SAME: %[[SMU:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "slow.momentum", amp.state = 5.000000e-01 : f64},
// SGD: %[[RATE:.*]] = amp.lr_schedule cosine %[[LR]], %[[STEP]](%[[STEPS]], %[[MIN]])
// SGD: amp.sgd_momentum_update %arg0, {{.*}} lr(%[[RATE]]) momentum(%[[MU]]) weight_decay(%[[WD]])
// SGD: amp.sgd_momentum_update %arg2, {{.*}} lr(%[[RATE]]) momentum(%[[MU]]) weight_decay(%[[WD]])
// SGD: %[[SRATE:.*]] = amp.lr_schedule cosine %[[SLR]], %[[STEP]](%[[STEPS]], %[[MIN]])
// SGD: amp.sgd_momentum_update %arg1, {{.*}} lr(%[[SRATE]]) momentum(%[[SMU]]) weight_decay(%[[WD]])
// SGD-NOT: amp.lr_schedule

// Plain SGD, with a group over every parameter.
// PLAIN-LABEL: func.func @model_step
// PLAIN-SAME: %[[LR:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "lr", amp.state = 1.000000e-03 : f64},
// PLAIN-SAME: %{{[a-z0-9]+}}: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64},
// PLAIN-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "all.weight_decay", amp.state = 1.000000e-04 : f64},
// PLAIN-COUNT-3: amp.sgd_update {{.*}} lr(%[[LR]]) weight_decay(%[[WD]])

// BRACES-LABEL: func.func @model_step
// BRACES-SAME: %[[WD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "weight_decay", amp.state = 0.000000e+00 : f64},
// BRACES-SAME: %[[GWD:[a-z0-9]+]]: tensor<f64> {amp.hparam, amp.name = "g.weight_decay", amp.state = 1.000000e-04 : f64},
// BRACES: amp.sgd_update %arg1, {{.*}} weight_decay(%[[WD]])
// BRACES: amp.sgd_update %arg0, {{.*}} weight_decay(%[[GWD]])
// BRACES: amp.sgd_update %arg2, {{.*}} weight_decay(%[[GWD]])
