// The gradient ops of the convolutional and attention layers are
// differentiable too: amp.conv2d_grad_weight by a closed form (the
// convolution is bilinear), and amp.batch_norm_grad, amp.max_pool2d_grad
// and amp.attention_grad, which have none, by amp-autodiff writing them as
// differentiable steps in their place. Each passes gradcheck as an op of
// its own, every floating operand a parameter: the amp-autodiff gradient of
// a random projection of its results against five-point central
// differences in f64 (amp-run --gradcheck), tolerance 1e-6 relative to the
// largest gradient of each parameter. Its gradient with respect to the
// forward op's input is the op's second derivative.
// RUN: (for f in conv2d_grad_weight conv2d_grad_weight_grouped max_pool2d_grad max_pool2d_grad_tiled max_pool2d_grad_padded batch_norm_grad batch_norm_grad_eval attention_grad attention_grad_causal; do \
// RUN:   amp-run %s --function=$f --random-inputs=7 --gradcheck || exit 1; \
// RUN: done) | FileCheck %s
// CHECK-NOT: FAILED
// The steps replace the ops in the gradient function:
// RUN: amp-opt %s --amp-autodiff=function=batch_norm_grad | FileCheck %s --check-prefix=STEPS
// STEPS-LABEL: func.func @batch_norm_grad_grad
// STEPS-NOT: amp.batch_norm_grad
// STEPS: amp.mean
// STEPS: return
// The comparison is real: with no tolerance it fails.
// RUN: not amp-run %s --function=attention_grad --random-inputs=7 --gradcheck --gradcheck-tolerance=0 | FileCheck %s --check-prefix=STRICT
// STRICT: gradcheck @attention_grad argument #0 'q' {{.*}} FAILED

// CHECK: gradcheck @conv2d_grad_weight argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_grad_weight argument #1 {{.*}} ok
func.func @conv2d_grad_weight(%x: tensor<2x3x6x6xf32> {amp.param}, %dy: tensor<2x4x3x3xf32> {amp.param}, %r: tensor<4x3x3x3xf32>) -> tensor<f32> {
  %dw = amp.conv2d_grad_weight %x, %dy {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x6xf32>, tensor<2x4x3x3xf32> to tensor<4x3x3x3xf32>
  %wr = amp.mul %dw, %r : tensor<4x3x3x3xf32>, tensor<4x3x3x3xf32>
  %loss = amp.sum %wr dims = [0, 1, 2, 3] : tensor<4x3x3x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Two groups, dilated.
// CHECK: gradcheck @conv2d_grad_weight_grouped argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_grad_weight_grouped argument #1 {{.*}} ok
func.func @conv2d_grad_weight_grouped(%x: tensor<1x4x7x7xf32> {amp.param}, %dy: tensor<1x6x3x3xf32> {amp.param}, %r: tensor<6x2x3x3xf32>) -> tensor<f32> {
  %dw = amp.conv2d_grad_weight %x, %dy {dilations = array<i64: 2, 2>, groups = 2 : i64}
      : tensor<1x4x7x7xf32>, tensor<1x6x3x3xf32> to tensor<6x2x3x3xf32>
  %wr = amp.mul %dw, %r : tensor<6x2x3x3xf32>, tensor<6x2x3x3xf32>
  %loss = amp.sum %wr dims = [0, 1, 2, 3] : tensor<6x2x3x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Flat in the input (its maxima do not move under small steps), linear in
// the gradient.
// CHECK: gradcheck @max_pool2d_grad argument #0 {{.*}} ok
// CHECK: gradcheck @max_pool2d_grad argument #1 {{.*}} ok
func.func @max_pool2d_grad(%x: tensor<2x3x4x4xf32> {amp.param}, %dy: tensor<2x3x3x3xf32> {amp.param}, %r: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %dx = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>}
      : tensor<2x3x4x4xf32>, tensor<2x3x3x3xf32> to tensor<2x3x4x4xf32>
  %xr = amp.mul %dx, %r : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %loss = amp.sum %xr dims = [0, 1, 2, 3] : tensor<2x3x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// The strides default to the kernel (amp.im2col's to 1).
// CHECK: gradcheck @max_pool2d_grad_tiled argument #0 {{.*}} ok
// CHECK: gradcheck @max_pool2d_grad_tiled argument #1 {{.*}} ok
func.func @max_pool2d_grad_tiled(%x: tensor<1x2x4x4xf32> {amp.param}, %dy: tensor<1x2x2x2xf32> {amp.param}, %r: tensor<1x2x4x4xf32>) -> tensor<f32> {
  %dx = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>}
      : tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32> to tensor<1x2x4x4xf32>
  %xr = amp.mul %dx, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %loss = amp.sum %xr dims = [0, 1, 2, 3] : tensor<1x2x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Padded and strided: the padding's zeros never win over a negative
// window.
// CHECK: gradcheck @max_pool2d_grad_padded argument #0 {{.*}} ok
// CHECK: gradcheck @max_pool2d_grad_padded argument #1 {{.*}} ok
func.func @max_pool2d_grad_padded(%x: tensor<1x2x5x5xf32> {amp.param}, %dy: tensor<1x2x3x3xf32> {amp.param}, %r: tensor<1x2x5x5xf32>) -> tensor<f32> {
  %dx = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32> to tensor<1x2x5x5xf32>
  %xr = amp.mul %dx, %r : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>
  %loss = amp.sum %xr dims = [0, 1, 2, 3] : tensor<1x2x5x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// All three results projected; the scale a parameter too.
// CHECK: gradcheck @batch_norm_grad argument #0 {{.*}} ok
// CHECK: gradcheck @batch_norm_grad argument #1 {{.*}} ok
// CHECK: gradcheck @batch_norm_grad argument #2 {{.*}} ok
func.func @batch_norm_grad(%x: tensor<2x3x4x4xf32> {amp.param}, %dy: tensor<2x3x4x4xf32> {amp.param}, %w: tensor<3xf32> {amp.param}, %rm: tensor<3xf32>, %rv: tensor<3xf32>, %r: tensor<2x3x4x4xf32>, %rs: tensor<3xf32>, %rb: tensor<3xf32>) -> tensor<f32> {
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>) scale(%w : tensor<3xf32>)
      {training} : tensor<2x3x4x4xf32> -> tensor<3xf32>, tensor<3xf32>
  %xr = amp.mul %d#0, %r : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %a = amp.sum %xr dims = [0, 1, 2, 3] : tensor<2x3x4x4xf32> to tensor<f32>
  %sr = amp.mul %d#1, %rs : tensor<3xf32>, tensor<3xf32>
  %b = amp.sum %sr dims = [0] : tensor<3xf32> to tensor<f32>
  %br = amp.mul %d#2, %rb : tensor<3xf32>, tensor<3xf32>
  %c = amp.sum %br dims = [0] : tensor<3xf32> to tensor<f32>
  %ab = amp.add %a, %b : tensor<f32>, tensor<f32>
  %loss = amp.add %ab, %c : tensor<f32>, tensor<f32>
  return %loss : tensor<f32>
}

// Evaluation mode: the running statistics (a variance made positive).
// CHECK: gradcheck @batch_norm_grad_eval argument #0 {{.*}} ok
// CHECK: gradcheck @batch_norm_grad_eval argument #1 {{.*}} ok
func.func @batch_norm_grad_eval(%x: tensor<2x3x4x4xf32> {amp.param}, %dy: tensor<2x3x4x4xf32> {amp.param}, %rm: tensor<3xf32>, %v: tensor<3xf32>, %r: tensor<2x3x4x4xf32>) -> tensor<f32> {
  %v2 = amp.mul %v, %v : tensor<3xf32>, tensor<3xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %rv = amp.add %v2, %one : tensor<3xf32>, tensor<f32>
  %d:3 = amp.batch_norm_grad %x, %dy running(%rm, %rv : tensor<3xf32>)
      : tensor<2x3x4x4xf32> -> tensor<3xf32>, tensor<3xf32>
  %xr = amp.mul %d#0, %r : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
  %loss = amp.sum %xr dims = [0, 1, 2, 3] : tensor<2x3x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// The output and log-sum-exp it reads come from amp.attention of the same
// operands, as the first-order VJP emits them; all three gradients
// projected.
// CHECK: gradcheck @attention_grad argument #0 {{.*}} ok
// CHECK: gradcheck @attention_grad argument #1 {{.*}} ok
// CHECK: gradcheck @attention_grad argument #2 {{.*}} ok
// CHECK: gradcheck @attention_grad argument #3 {{.*}} ok
func.func @attention_grad(%q: tensor<1x2x3x4xf32> {amp.param}, %k: tensor<1x2x5x4xf32> {amp.param}, %v: tensor<1x2x5x4xf32> {amp.param}, %do: tensor<1x2x3x4xf32> {amp.param}, %rq: tensor<1x2x3x4xf32>, %rk: tensor<1x2x5x4xf32>, %rv: tensor<1x2x5x4xf32>) -> tensor<f32> {
  %o, %lse = amp.attention %q, %k, %v with_lse : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>
  %dq, %dk, %dv = amp.attention_grad %q, %k, %v, %o, %lse, %do
      : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3xf32>, tensor<1x2x3x4xf32>
  %a0 = amp.mul %dq, %rq : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %a = amp.sum %a0 dims = [0, 1, 2, 3] : tensor<1x2x3x4xf32> to tensor<f32>
  %b0 = amp.mul %dk, %rk : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>
  %b = amp.sum %b0 dims = [0, 1, 2, 3] : tensor<1x2x5x4xf32> to tensor<f32>
  %c0 = amp.mul %dv, %rv : tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>
  %c = amp.sum %c0 dims = [0, 1, 2, 3] : tensor<1x2x5x4xf32> to tensor<f32>
  %ab = amp.add %a, %b : tensor<f32>, tensor<f32>
  %loss = amp.add %ab, %c : tensor<f32>, tensor<f32>
  return %loss : tensor<f32>
}

// Causal, with an explicit scale.
// CHECK: gradcheck @attention_grad_causal argument #0 {{.*}} ok
// CHECK: gradcheck @attention_grad_causal argument #1 {{.*}} ok
// CHECK: gradcheck @attention_grad_causal argument #2 {{.*}} ok
// CHECK: gradcheck @attention_grad_causal argument #3 {{.*}} ok
func.func @attention_grad_causal(%q: tensor<1x2x4x4xf32> {amp.param}, %k: tensor<1x2x4x4xf32> {amp.param}, %v: tensor<1x2x4x4xf32> {amp.param}, %do: tensor<1x2x4x4xf32> {amp.param}, %rq: tensor<1x2x4x4xf32>) -> tensor<f32> {
  %o, %lse = amp.attention %q, %k, %v causal with_lse {scale = 0.3 : f64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %dq, %dk, %dv = amp.attention_grad %q, %k, %v, %o, %lse, %do causal {scale = 0.3 : f64}
      : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4x4xf32>
  %a0 = amp.mul %dq, %rq : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %b0 = amp.mul %dk, %rq : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %c0 = amp.mul %dv, %rq : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %ab = amp.add %a0, %b0 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %abc = amp.add %ab, %c0 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %loss = amp.sum %abc dims = [0, 1, 2, 3] : tensor<1x2x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}
