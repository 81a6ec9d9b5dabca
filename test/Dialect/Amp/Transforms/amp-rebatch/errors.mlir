// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-rebatch=batch=3

// A slice of part of the batch cannot follow it.
func.func @part(%x: tensor<4x8xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<2x8xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.slice' takes part of dimension 0, which holds the batch}}
  %0 = amp.slice %x [0, 0] to [2, 8] : tensor<4x8xf32> to tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A reshape that moves the batch inward: [4, 6] as [6, 4].
func.func @inward(%x: tensor<4x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<6x4xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.reshape' moves the batch from the outermost dimension (input 'tensor<4x6xf32>', result 'tensor<6x4xf32>')}}
  %0 = amp.reshape %x : tensor<4x6xf32> to tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// A constant of the old batch's shape meets the batch.
func.func @constant(%x: tensor<4x2xf32>, %w: tensor<2xf32> {amp.param}) -> tensor<4x2xf32> {
  %c = amp.constant dense<1.0> : tensor<4x2xf32>
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.add' has operands whose shapes no longer fit together ('tensor<3x2xf32>', 'tensor<4x2xf32>'): one keeps the old batch}}
  %0 = amp.add %x, %c : tensor<4x2xf32>, tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// A matmul that contracts the batch with a constant's rows: its shape
// follows, and the function does not verify at the new batch.
// expected-error @+1 {{amp-rebatch: @contract does not verify at batch 3 (a value that keeps the batch of 4, such as a constant of that shape, meets the batch inputs)}}
func.func @contract(%x: tensor<4x2xf32>, %w: tensor<2xf32> {amp.param}) -> tensor<2x2xf32> {
  %c = amp.constant dense<1.0> : tensor<4x2xf32>
  // expected-error @+1 {{'amp.matmul' op contracting dimensions differ: lhs has 4, rhs has 3}}
  %0 = amp.matmul %c, %x {transpose_lhs} : tensor<4x2xf32>, tensor<4x2xf32> to tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Batch inputs of different batches.
// expected-error @+1 {{amp-rebatch: @two's argument #1 is a batch input (neither amp.param nor amp.buffer) but not a batch of 4 (its first dimension)}}
func.func @two(%x: tensor<4x2xf32>, %y: tensor<5x2xf32>, %w: tensor<2xf32> {amp.param}) -> tensor<f32> {
  %0 = amp.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{amp-rebatch: @none has no batch inputs (arguments neither amp.param nor amp.buffer) to give another batch}}
func.func @none(%w: tensor<2xf32> {amp.param}) -> tensor<f32> {
  %0 = amp.sum %w dims = [0] : tensor<2xf32> to tensor<f32>
  return %0 : tensor<f32>
}
