// Two training dropouts on one stream of one generator would drop the same
// elements: amp-autodiff refuses the model, naming both.
// RUN: amp-opt %s --amp-autodiff -split-input-file -verify-diagnostics

func.func @same_stream(%x: tensor<4x2xf32>, %rng: tensor<2xi64> {amp.rng},
                       %w: tensor<2x2xf32> {amp.param}) -> tensor<f32> {
  // expected-note @+1 {{the earlier dropout}}
  %a = amp.dropout %x, %rng p = 0.1 stream = 3 training : tensor<4x2xf32>
  %h = amp.matmul %a, %w : tensor<4x2xf32>, tensor<2x2xf32> to tensor<4x2xf32>
  // expected-error @+1 {{'amp.dropout' op draws stream 3 of a generator that an earlier dropout draws too, and would drop the same elements; amp-autodiff needs each training dropout on its own stream}}
  %b = amp.dropout %h, %rng p = 0.5 stream = 3 training : tensor<4x2xf32>
  %loss = amp.sum %b dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// -----

// In evaluation mode a dropout draws nothing: two may share a stream.
func.func @evaluation(%x: tensor<4x2xf32>, %rng: tensor<2xi64> {amp.rng},
                      %w: tensor<2x2xf32> {amp.param}) -> tensor<f32> {
  %a = amp.dropout %x, %rng p = 0.1 stream = 3 : tensor<4x2xf32>
  %h = amp.matmul %a, %w : tensor<4x2xf32>, tensor<2x2xf32> to tensor<4x2xf32>
  %b = amp.dropout %h, %rng p = 0.5 stream = 3 training : tensor<4x2xf32>
  %loss = amp.sum %b dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}
