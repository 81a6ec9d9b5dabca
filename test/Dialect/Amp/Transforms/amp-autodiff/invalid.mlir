// amp-autodiff errors.
// RUN: amp-opt %s --amp-autodiff -split-input-file -verify-diagnostics
// An error about a function is that line at its location, without a dump
// of the function in generic form after it (a 10 000-op model printed all
// of it).
// (An error at an op is followed by that op, one line.)
// RUN: not amp-opt %s --amp-autodiff -split-input-file 2>&1 | FileCheck %s --check-prefix=NO-DUMP --implicit-check-not='see current operation: "func.func"'
// NO-DUMP: invalid.mlir:1 offset :{{[0-9]+}}:1: error: amp-autodiff: @vector_loss must return its loss

// expected-error @+1 {{amp-autodiff: @vector_loss must return its loss, a 0-d floating-point tensor, then any parts of it as 0-d floating-point tensors; it returns 'tensor<3xf32>' as result #0}}
func.func @vector_loss(%w: tensor<3xf32> {amp.param}) -> tensor<3xf32> {
  return %w : tensor<3xf32>
}

// -----

// A part of the loss is a scalar too.
// expected-error @+1 {{amp-autodiff: @vector_part must return its loss, a 0-d floating-point tensor, then any parts of it as 0-d floating-point tensors; it returns 'tensor<3xf32>' as result #1}}
func.func @vector_part(%w: tensor<3xf32> {amp.param}) -> (tensor<f32>, tensor<3xf32>) {
  %l = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{amp-autodiff: @integer_part must return its loss, a 0-d floating-point tensor, then any parts of it as 0-d floating-point tensors; it returns 'tensor<i64>' as result #1}}
func.func @integer_part(%w: tensor<3xf32> {amp.param}, %n: tensor<i64>) -> (tensor<f32>, tensor<i64>) {
  %l = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %l, %n : tensor<f32>, tensor<i64>
}

// -----

// expected-error @+1 {{amp-autodiff: @no_loss must return its loss, a 0-d floating-point tensor, then any parts of it as 0-d floating-point tensors; it returns nothing}}
func.func @no_loss(%w: tensor<3xf32> {amp.param}) {
  return
}

// -----

// expected-error @+1 {{amp-autodiff: no function has an argument marked amp.param}}
module {
  func.func @no_params(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

// amp.sum_squares is the optimizer's (clipping), never a model's.
func.func @no_vjp(%w: tensor<4x3xf32> {amp.param}) -> tensor<f32> {
  // expected-error @+1 {{'amp.sum_squares' op has no vector-Jacobian product; amp-autodiff cannot differentiate @no_vjp through it}}
  %s = amp.sum_squares %w : tensor<4x3xf32>
  return %s : tensor<f32>
}

// -----

// expected-error @+1 {{amp-autodiff: @clash_grad already exists}}
func.func @clash(%w: tensor<f32> {amp.param}) -> tensor<f32> {
  return %w : tensor<f32>
}
func.func @clash_grad(%w: tensor<f32>) -> tensor<f32> {
  return %w : tensor<f32>
}

// -----

// Attention's log-sum-exp is a residual for its backward, not a value to
// differentiate.
func.func @attention_lse_loss(%q: tensor<1x1x4x8xf32> {amp.param}) -> tensor<f32> {
  // expected-error @+1 {{'amp.attention' op result #1 is not differentiable; amp-autodiff differentiates only the op's first result}}
  %o, %lse = amp.attention %q, %q, %q with_lse : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %l = amp.sum %lse dims = [0, 1, 2] : tensor<1x1x4xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func private @external(%x: tensor<3xf32>) -> tensor<3xf32>

func.func @calls_external(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op calls @external, which has no body; amp-autodiff cannot differentiate @calls_external through it}}
  %y = func.call @external(%w) : (tensor<3xf32>) -> tensor<3xf32>
  %l = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{amp-autodiff: the backward of @no_backward, @missing, is not a function}}
func.func private @no_backward(%x: tensor<3xf32>) -> tensor<3xf32> attributes {amp.custom_vjp = @missing} {
  return %x : tensor<3xf32>
}

func.func @uses_no_backward(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %y = func.call @no_backward(%w) : (tensor<3xf32>) -> tensor<3xf32>
  %l = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func private @scale(%x: tensor<3xf32>, %ids: tensor<3xi64>) -> tensor<3xf32> attributes {amp.custom_vjp = @scale_backward} {
  return %x : tensor<3xf32>
}

// The gradient of the result is missing, and the integer argument gets
// none.
// expected-error @+1 {{amp-autodiff: @scale_backward, the backward of @scale, has type (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi64>); it must take the arguments, the results and the float results' gradients, (tensor<3xf32>, tensor<3xi64>, tensor<3xf32>, tensor<3xf32>), and return the float arguments' (tensor<3xf32>)}}
func.func private @scale_backward(%x: tensor<3xf32>, %ids: tensor<3xi64>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  return %x, %ids : tensor<3xf32>, tensor<3xi64>
}

func.func @uses_scale(%w: tensor<3xf32> {amp.param}, %ids: tensor<3xi64>) -> tensor<f32> {
  %y = func.call @scale(%w, %ids) : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %l = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func private @declared_backward(%x: tensor<3xf32>, %y: tensor<3xf32>, %g: tensor<3xf32>) -> tensor<3xf32>

// expected-error @+1 {{amp-autodiff: the backward of @with_declared, @declared_backward, is a declaration without a body}}
func.func private @with_declared(%x: tensor<3xf32>) -> tensor<3xf32> attributes {amp.custom_vjp = @declared_backward} {
  return %x : tensor<3xf32>
}

func.func @uses_declared(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %y = func.call @with_declared(%w) : (tensor<3xf32>) -> tensor<3xf32>
  %l = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A function that calls itself is written out call by call until the
// nesting gives up.
func.func private @recursive(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'func.call' op calls @recursive through more than 64 nested calls without amp.custom_vjp (a function that calls itself?); amp-autodiff writes each call's body out to differentiate @uses_recursive}}
  %y = func.call @recursive(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}

func.func @uses_recursive(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %y = func.call @recursive(%w) : (tensor<3xf32>) -> tensor<3xf32>
  %l = amp.sum %y dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}
