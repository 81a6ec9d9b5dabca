// A buffer that two batch norms update: amp-autodiff cannot tell which
// value is its next one. (Split input keeps no argument names.)
// RUN: amp-opt %s --amp-autodiff -split-input-file -verify-diagnostics

func.func @twice(%x: tensor<4x2xf32>, %w: tensor<2x2xf32> {amp.param},
                 %mean: tensor<2xf32> {amp.buffer},
                 %var: tensor<2xf32> {amp.buffer = 1.0}) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x2xf32>, tensor<2x2xf32> to tensor<4x2xf32>
  %a:3 = amp.batch_norm %h running(%mean, %var : tensor<2xf32>) {training}
      : tensor<4x2xf32>
  // expected-error @+1 {{'amp.batch_norm' op updates buffer argument #2 that an earlier op updates too; amp-autodiff needs one updating op per buffer}}
  %b:3 = amp.batch_norm %a#0 running(%mean, %var : tensor<2xf32>) {training}
      : tensor<4x2xf32>
  %loss = amp.sum %b#0 dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// -----

// In evaluation mode a batch norm only reads its statistics: two may share
// them.
func.func @shared_in_evaluation(%x: tensor<4x2xf32>, %w: tensor<2x2xf32> {amp.param},
                                %mean: tensor<2xf32> {amp.buffer},
                                %var: tensor<2xf32> {amp.buffer = 1.0}) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<4x2xf32>, tensor<2x2xf32> to tensor<4x2xf32>
  %a:3 = amp.batch_norm %h running(%mean, %var : tensor<2xf32>) : tensor<4x2xf32>
  %b:3 = amp.batch_norm %a#0 running(%mean, %var : tensor<2xf32>) : tensor<4x2xf32>
  %loss = amp.sum %b#0 dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}
