// RUN: amp-opt %s --split-input-file --verify-diagnostics --amp-rebatch=batch=3
// RUN: not amp-opt %S/../../../../../examples/mlp.mlir --amp-rebatch=batch=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: amp-rebatch: batch must be 1 or more, not 0

// A slice of part of the batch cannot follow it.
func.func @part(%x: tensor<4x8xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<2x8xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.slice' takes part of dimension 0, which holds the batch}}
  %0 = amp.slice %x [0, 0] to [2, 8] : tensor<4x8xf32> to tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A reshape that moves the batch inward: [4, 6] as [6, 4], whose rows
// span examples (refused at any batch, 2 too: inward-2.mlir).
func.func @inward(%x: tensor<4x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<6x4xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.reshape' moves the batch from the outermost dimension (input 'tensor<4x6xf32>', result 'tensor<6x4xf32>'): a row of the result spans examples}}
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
// expected-error @+1 {{amp-rebatch: @two's argument #1 is a batch input (no parameter, buffer, generator or state) but not a batch of 4 (its first dimension)}}
func.func @two(%x: tensor<4x2xf32>, %y: tensor<5x2xf32>, %w: tensor<2xf32> {amp.param}) -> tensor<f32> {
  %0 = amp.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expected-error @+1 {{amp-rebatch: @none has no batch inputs (arguments that are no parameter, buffer, generator or state) to give another batch}}
func.func @none(%w: tensor<2xf32> {amp.param}) -> tensor<f32> {
  %0 = amp.sum %w dims = [0] : tensor<2xf32> to tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Two examples in one row of the result: [4, 6] as [2, 12].
func.func @pairs(%x: tensor<4x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<2x12xf32> {
  // expected-error @+1 {{'amp.reshape' moves the batch from the outermost dimension (input 'tensor<4x6xf32>', result 'tensor<2x12xf32>'): a row of the result spans examples}}
  %0 = amp.reshape %x : tensor<4x6xf32> to tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// A broadcast that puts the batch elsewhere than where it was.
func.func @broadcast(%x: tensor<4x1xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<4x4xf32> {
  %t = amp.transpose %x, [1, 0] : tensor<4x1xf32> to tensor<1x4xf32>
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.broadcast_to' broadcasts its batch to another shape}}
  %0 = amp.broadcast_to %t : tensor<1x4xf32> to tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Convolution weights computed from the batch.
func.func @weights(%x: tensor<4x3x6x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<4x4x4x4xf32> {
  %k = amp.slice %x [0, 0, 0, 0] to [4, 3, 3, 3] : tensor<4x3x6x6xf32> to tensor<4x3x3x3xf32>
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.conv2d' has weights computed from the batch}}
  %0 = amp.conv2d %x, %k : tensor<4x3x6x6xf32>, tensor<4x3x3x3xf32> to tensor<4x4x4x4xf32>
  return %0 : tensor<4x4x4x4xf32>
}

// -----

// An op the pass has no rule for (the backend's im2col: the pass runs
// before the backend decomposes).
func.func @norule(%x: tensor<4x3x6x6xf32>, %w: tensor<8xf32> {amp.param}) -> tensor<4x27x16xf32> {
  // expected-error @+1 {{amp-rebatch: at batch 3, 'amp.im2col' has no rule for a batch of another size}}
  %0 = amp.im2col %x {kernel = array<i64: 3, 3>} : tensor<4x3x6x6xf32> to tensor<4x27x16xf32>
  return %0 : tensor<4x27x16xf32>
}
