// Bad generators and dropouts: each a diagnostic at its place, exit 1.
// RUN: amp-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'amp.rng' on argument #0 needs a tensor<2xi64> (seed, forward pass), got 'tensor<2xi32>'}}
func.func @narrow(%rng: tensor<2xi32> {amp.rng}) {
  return
}

// -----

// expected-error @+1 {{'amp.rng' on argument #0 needs a tensor<2xi64> (seed, forward pass), got 'tensor<3xi64>'}}
func.func @long(%rng: tensor<3xi64> {amp.rng}) {
  return
}

// -----

// expected-error @+1 {{'amp.rng' on argument #1 and #0: a function has one random generator}}
func.func @two(%a: tensor<2xi64> {amp.rng}, %b: tensor<2xi64> {amp.rng}) {
  return
}

// -----

// expected-error @+1 {{'amp.rng' must be a unit attribute}}
func.func @valued(%rng: tensor<2xi64> {amp.rng = 5}) {
  return
}

// -----

func.func @probability(%x: tensor<4xf32>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'amp.dropout' op p must be in [0, 1), got 1.000000e+00}}
  %0 = amp.dropout %x, %rng p = 1.0 stream = 0 training : tensor<4xf32>
  return
}

// -----

func.func @negative(%x: tensor<4xf32>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'amp.dropout' op p must be in [0, 1), got -5.000000e-01}}
  %0 = amp.dropout %x, %rng p = -0.5 stream = 0 training : tensor<4xf32>
  return
}

// -----

func.func @stream(%x: tensor<4xf32>, %rng: tensor<2xi64>) {
  // expected-error @+1 {{'amp.dropout' op stream must be in [0, 2^32), got 4294967296}}
  %0 = amp.dropout %x, %rng p = 0.5 stream = 4294967296 training : tensor<4xf32>
  return
}

// -----

// The custom form takes the state's type as given; the generic one does not.
func.func @state(%x: tensor<4xf32>, %rng: tensor<2xi32>) {
  // expected-error @+1 {{operand #1 must be a generator state tensor<2xi64> [seed, pass]}}
  %0 = "amp.dropout"(%x, %rng) <{p = 5.0e-01 : f64, stream = 0 : i64, training}> : (tensor<4xf32>, tensor<2xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @advance(%rng: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be a generator state tensor<2xi64> [seed, pass]}}
  %0 = "amp.rng_advance"(%rng) : (tensor<4xi64>) -> tensor<4xi64>
  return
}
