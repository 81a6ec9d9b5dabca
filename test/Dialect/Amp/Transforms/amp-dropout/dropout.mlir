// Dropout and its random generator (an amp.rng argument) through the
// passes: amp-autodiff draws the same mask again for the gradient (a
// dropout of the incoming gradient, same generator state and stream);
// amp-optimizer makes the generator step state (amp.state, amp.rng, the
// model's name) after the buffers and advances it every step, a skipped
// step too; amp-evaluation removes the dropouts and the generator.
// RUN: amp-opt %s --amp-autodiff | FileCheck %s --check-prefix=GRAD
// RUN: amp-opt %s --amp-autodiff --amp-loss-scaling=mode=dynamic --amp-optimizer="optimizer=sgd" | FileCheck %s --check-prefix=STEP
// RUN: amp-opt %s --amp-evaluation | FileCheck %s --check-prefix=EVAL

func.func @net(%x: tensor<4x3xf32>, %rng: tensor<2xi64> {amp.rng},
               %w: tensor<3x2xf32> {amp.param}, %y: tensor<4x2xf32>)
    -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x2xf32> to tensor<4x2xf32>
  %d = amp.dropout %h, %rng p = 0.25 stream = 7 training : tensor<4x2xf32>
  %loss = amp.mse_loss %d, %y : tensor<4x2xf32>, tensor<4x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// GRAD-LABEL: func.func @net_grad
// GRAD-SAME: %[[RNG:[a-z0-9]*]]: tensor<2xi64> {amp.name = "rng", amp.rng}
// GRAD: %[[H:.*]] = amp.matmul
// GRAD: amp.dropout %[[H]], %[[RNG]] p = 2.500000e-01 stream = 7 training : tensor<4x2xf32>
// GRAD: %[[G:.*]] = amp.mul %{{.*}}, %{{.*}} : tensor<4x2xf32>, tensor<f32>
// GRAD: %[[GH:.*]] = amp.dropout %[[G]], %[[RNG]] p = 2.500000e-01 stream = 7 training : tensor<4x2xf32>
// GRAD: amp.matmul %{{.*}}, %[[GH]]

// The generator is state after the scaler's, advanced unconditionally.
// STEP-LABEL: func.func @net_step
// STEP-SAME: %[[RNG:[a-z0-9]*]]: tensor<2xi64> {amp.name = "rng", amp.rng, amp.state}, %[[X:[a-z0-9]*]]: tensor<4x3xf32> {amp.name = "x"}, %[[Y:[a-z0-9]*]]: tensor<4x2xf32> {amp.name = "y"})
// STEP: call @net_grad(%[[X]], %[[RNG]], %{{.*}}, %[[Y]], %{{.*}})
// STEP: %[[NEXT:.*]] = amp.rng_advance %[[RNG]] : tensor<2xi64>
// STEP: return {{.*}}, %[[NEXT]], %{{.*}}, %{{.*}} : {{.*}}

// EVAL-LABEL: func.func @net_eval
// EVAL-SAME: (%{{.*}}: tensor<4x3xf32> {amp.name = "x"}, %{{.*}}: tensor<3x2xf32> {amp.name = "w", amp.param}, %{{.*}}: tensor<4x2xf32> {amp.name = "y"})
// EVAL-NOT: amp.dropout
// EVAL: return
