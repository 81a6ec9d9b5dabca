// Buffers (amp.buffer arguments, batch norm's running statistics) through
// the passes: amp-autodiff returns each buffer's next value after the
// gradients and the loss's parts; amp-loss-scaling keeps them as forward
// values; amp-optimizer threads them through the step as state (amp.state
// at their starting value, amp.buffer, the model's names) after the loss
// parts, keeping the old values on a skipped step; amp-evaluation puts the
// batch norms in evaluation mode.
// RUN: amp-opt %s --amp-autodiff | FileCheck %s --check-prefix=GRAD
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd" | FileCheck %s --check-prefix=STEP
// RUN: amp-opt %s --amp-evaluation | FileCheck %s --check-prefix=EVAL

func.func @net(%x: tensor<4x3xf32>, %w: tensor<3x2xf32> {amp.param},
               %mean: tensor<2xf32> {amp.buffer},
               %var: tensor<2xf32> {amp.buffer = 1.0},
               %unused: tensor<2xf32> {amp.buffer = 5.0})
    -> (tensor<f32>, tensor<f32>) {
  %h = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> to tensor<4x2xf32>
  %n:3 = amp.batch_norm %h running(%mean, %var : tensor<2xf32>) {training}
      : tensor<4x2xf32>
  %loss = amp.sum %n#0 dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  %part = amp.mean %n#0 dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  return %loss, %part : tensor<f32>, tensor<f32>
}

// The loss, the gradient, the part, then the three buffers: two updated by
// the batch norm, the third returned as it came.
// GRAD-LABEL: func.func @net_grad
// GRAD-SAME: (%{{.*}}: tensor<4x3xf32> {amp.name = "x"}, %{{.*}}: tensor<3x2xf32> {amp.name = "w", amp.param}, %[[MEAN:.*]]: tensor<2xf32> {amp.buffer, amp.name = "mean"}, %[[VAR:.*]]: tensor<2xf32> {amp.buffer = 1.000000e+00 : f64, amp.name = "var"}, %[[UNUSED:.*]]: tensor<2xf32> {amp.buffer = 5.000000e+00 : f64, amp.name = "unused"})
// GRAD-SAME: -> (tensor<f32>, tensor<3x2xf32>, tensor<f32> {amp.name = "part"}, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
// GRAD: %{{.*}}, %[[NEWMEAN:.*]], %[[NEWVAR:.*]] = amp.batch_norm %{{.*}} running(%[[MEAN]], %[[VAR]] : tensor<2xf32>) {training}
// GRAD: return %{{.*}}, %{{.*}}, %{{.*}}, %[[NEWMEAN]], %[[NEWVAR]], %[[UNUSED]]

// STEP-LABEL: func.func @net_step
// STEP-SAME: %[[MEAN:[a-z0-9]*]]: tensor<2xf32> {amp.buffer, amp.name = "mean", amp.state = 0.000000e+00 : f64}, %[[VAR:[a-z0-9]*]]: tensor<2xf32> {amp.buffer, amp.name = "var", amp.state = 1.000000e+00 : f64}, %[[UNUSED:[a-z0-9]*]]: tensor<2xf32> {amp.buffer, amp.name = "unused", amp.state = 5.000000e+00 : f64}, %[[X:[a-z0-9]*]]: tensor<4x3xf32> {amp.name = "x"})
// STEP: %[[CALL:.*]]:7 = call @net_grad(%[[X]], %{{.*}}, %[[MEAN]], %[[VAR]], %[[UNUSED]], %{{.*}})
// STEP: %[[APPLY:.*]] = amp.compare eq, %[[CALL]]#6
// STEP-DAG: %[[KEEPMEAN:.*]] = amp.select %[[APPLY]], %[[CALL]]#3, %[[MEAN]]
// STEP-DAG: %[[KEEPVAR:.*]] = amp.select %[[APPLY]], %[[CALL]]#4, %[[VAR]]
// STEP-DAG: %[[KEEPUNUSED:.*]] = amp.select %[[APPLY]], %[[CALL]]#5, %[[UNUSED]]
// STEP: return {{.*}}, %[[KEEPMEAN]], %[[KEEPVAR]], %[[KEEPUNUSED]], %[[CALL]]#0, %[[CALL]]#6

// EVAL-LABEL: func.func @net_eval
// EVAL-SAME: %{{.*}}: tensor<2xf32> {amp.buffer, amp.name = "mean"}
// EVAL: amp.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<2xf32>) : tensor<4x2xf32>
// EVAL-NOT: training
