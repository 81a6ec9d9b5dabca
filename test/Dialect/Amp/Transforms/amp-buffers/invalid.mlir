// Bad buffers: each a diagnostic at its place, exit 1.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'amp.buffer' on argument #0 needs a statically shaped floating-point tensor, got 'tensor<4xi64>'}}
func.func @integer(%b: tensor<4xi64> {amp.buffer}) {
  return
}

// -----

// expected-error @+1 {{argument #0 is both 'amp.buffer' and 'amp.param': an argument is one of a parameter, a buffer, the generator's state, a hyperparameter, a loss part, other state or an input}}
func.func @trained(%b: tensor<4xf32> {amp.buffer, amp.param}) {
  return
}

// -----

// expected-error @+1 {{'amp.buffer' must be a unit attribute or the initial value as a float}}
func.func @initial(%b: tensor<4xf32> {amp.buffer = "one"}) {
  return
}

// -----

// expected-error @+1 {{'amp.buffer' starts argument #0 at 1.000000e+05, which is not finite in 'f16'}}
func.func @too_large(%b: tensor<4xf16> {amp.buffer = 1.0e5}) {
  return
}
