// The gradient ops that first-order VJPs emit are differentiable in turn,
// so that a gradient taken inside a model (a gradient penalty) can be
// differentiated again: each passes gradcheck as an op of its own, with
// both of its operands parameters, the amp-autodiff gradient of a random
// projection of its result, sum(op(x, g) * r), against five-point central
// differences in f64 (amp-run --gradcheck), tolerance 1e-6 relative to the
// largest gradient of each parameter. Its gradient with respect to x is
// the forward op's second derivative (a Hessian-vector product).
// The labels of the cross-entropies lie in [0, 5), their classes.
// RUN: (for f in relu_grad gelu_grad gelu_grad_tanh softmax_grad softmax_grad_outer log_softmax_grad layer_norm_grad layer_norm_grad_axis rms_norm_grad; do \
// RUN:   amp-run %s --function=$f --random-inputs=7 --gradcheck || exit 1; \
// RUN: done; for f in cross_entropy_grad cross_entropy_grad_sum cross_entropy_grad_ignore cross_entropy_grad_ignore_sum embedding_grad; do \
// RUN:   amp-run %s --function=$f --random-inputs=7 --index-bound=5 --gradcheck || exit 1; \
// RUN: done) | FileCheck %s
// CHECK-NOT: FAILED
// The comparison is real: with no tolerance it fails.
// RUN: not amp-run %s --function=gelu_grad --random-inputs=7 --gradcheck --gradcheck-tolerance=0 | FileCheck %s --check-prefix=STRICT
// STRICT: gradcheck @gelu_grad argument #0 'x' {{.*}} FAILED

// CHECK: gradcheck @relu_grad argument #0 {{.*}} ok
// CHECK: gradcheck @relu_grad argument #1 {{.*}} ok
func.func @relu_grad(%x: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.relu_grad %x, %g : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @gelu_grad argument #0 {{.*}} ok
// CHECK: gradcheck @gelu_grad argument #1 {{.*}} ok
func.func @gelu_grad(%x: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.gelu_grad %x, %g : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @gelu_grad_tanh argument #0 {{.*}} ok
// CHECK: gradcheck @gelu_grad_tanh argument #1 {{.*}} ok
func.func @gelu_grad_tanh(%x: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.gelu_grad %x, %g approximate = tanh : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @softmax_grad argument #0 {{.*}} ok
// CHECK: gradcheck @softmax_grad argument #1 {{.*}} ok
func.func @softmax_grad(%z: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.softmax_grad %z, %g dim = 1 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Along the outer dimension, of probabilities from a softmax (as the
// first-order VJP reads them).
// CHECK: gradcheck @softmax_grad_outer argument #0 {{.*}} ok
// CHECK: gradcheck @softmax_grad_outer argument #1 {{.*}} ok
func.func @softmax_grad_outer(%z: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %p = amp.softmax %z dim = 0 : tensor<3x4xf32>
  %y = amp.softmax_grad %p, %g dim = 0 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @log_softmax_grad argument #0 {{.*}} ok
// CHECK: gradcheck @log_softmax_grad argument #1 {{.*}} ok
func.func @log_softmax_grad(%z: tensor<3x4xf32> {amp.param}, %g: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %ls = amp.log_softmax %z dim = 1 : tensor<3x4xf32>
  %y = amp.log_softmax_grad %ls, %g dim = 1 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @layer_norm_grad argument #0 {{.*}} ok
// CHECK: gradcheck @layer_norm_grad argument #1 {{.*}} ok
func.func @layer_norm_grad(%x: tensor<3x5xf32> {amp.param}, %g: tensor<3x5xf32> {amp.param}, %r: tensor<3x5xf32>) -> tensor<f32> {
  %y = amp.layer_norm_grad %x, %g {epsilon = 1.0e-05 : f64} : tensor<3x5xf32>
  %yr = amp.mul %y, %r : tensor<3x5xf32>, tensor<3x5xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Over the two trailing dimensions.
// CHECK: gradcheck @layer_norm_grad_axis argument #0 {{.*}} ok
// CHECK: gradcheck @layer_norm_grad_axis argument #1 {{.*}} ok
func.func @layer_norm_grad_axis(%x: tensor<2x3x4xf32> {amp.param}, %g: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.layer_norm_grad %x, %g {axis = 1 : i64, epsilon = 1.0e-05 : f64} : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @rms_norm_grad argument #0 {{.*}} ok
// CHECK: gradcheck @rms_norm_grad argument #1 {{.*}} ok
func.func @rms_norm_grad(%x: tensor<3x5xf32> {amp.param}, %g: tensor<3x5xf32> {amp.param}, %r: tensor<3x5xf32>) -> tensor<f32> {
  %y = amp.rms_norm_grad %x, %g {epsilon = 1.0e-06 : f64} : tensor<3x5xf32>
  %yr = amp.mul %y, %r : tensor<3x5xf32>, tensor<3x5xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// The loss's gradient: with respect to the logits and to the loss's own
// gradient (a mean, a sum, rows ignored in either).
// CHECK: gradcheck @cross_entropy_grad argument #0 {{.*}} ok
// CHECK: gradcheck @cross_entropy_grad argument #1 {{.*}} ok
func.func @cross_entropy_grad(%z: tensor<4x5xf32> {amp.param}, %dl: tensor<f32> {amp.param}, %y: tensor<4xi64>, %r: tensor<4x5xf32>) -> tensor<f32> {
  %g = amp.cross_entropy_grad %z, %y, %dl : tensor<4x5xf32>, tensor<4xi64>, tensor<f32>
  %gr = amp.mul %g, %r : tensor<4x5xf32>, tensor<4x5xf32>
  %loss = amp.sum %gr dims = [0, 1] : tensor<4x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @cross_entropy_grad_sum argument #0 {{.*}} ok
// CHECK: gradcheck @cross_entropy_grad_sum argument #1 {{.*}} ok
func.func @cross_entropy_grad_sum(%z: tensor<2x3x5xf32> {amp.param}, %dl: tensor<f32> {amp.param}, %y: tensor<2x3xi64>, %r: tensor<2x3x5xf32>) -> tensor<f32> {
  %g = amp.cross_entropy_grad %z, %y, %dl reduction = sum : tensor<2x3x5xf32>, tensor<2x3xi64>, tensor<f32>
  %gr = amp.mul %g, %r : tensor<2x3x5xf32>, tensor<2x3x5xf32>
  %loss = amp.sum %gr dims = [0, 1, 2] : tensor<2x3x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Labels 0 to 4 with ignore_index = 2: rows count for nothing (three of
// the six, [2, 3, 0, 2, 2, 4], with these random inputs).
// CHECK: gradcheck @cross_entropy_grad_ignore argument #0 {{.*}} ok
// CHECK: gradcheck @cross_entropy_grad_ignore argument #1 {{.*}} ok
func.func @cross_entropy_grad_ignore(%z: tensor<6x5xf32> {amp.param}, %dl: tensor<f32> {amp.param}, %y: tensor<6xi64>, %r: tensor<6x5xf32>) -> tensor<f32> {
  %g = amp.cross_entropy_grad %z, %y, %dl ignore_index = 2 : tensor<6x5xf32>, tensor<6xi64>, tensor<f32>
  %gr = amp.mul %g, %r : tensor<6x5xf32>, tensor<6x5xf32>
  %loss = amp.sum %gr dims = [0, 1] : tensor<6x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @cross_entropy_grad_ignore_sum argument #0 {{.*}} ok
// CHECK: gradcheck @cross_entropy_grad_ignore_sum argument #1 {{.*}} ok
func.func @cross_entropy_grad_ignore_sum(%z: tensor<6x5xf32> {amp.param}, %dl: tensor<f32> {amp.param}, %y: tensor<6xi64>, %r: tensor<6x5xf32>) -> tensor<f32> {
  %g = amp.cross_entropy_grad %z, %y, %dl reduction = sum ignore_index = 2 : tensor<6x5xf32>, tensor<6xi64>, tensor<f32>
  %gr = amp.mul %g, %r : tensor<6x5xf32>, tensor<6x5xf32>
  %loss = amp.sum %gr dims = [0, 1] : tensor<6x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @embedding_grad argument #1 {{.*}} ok
func.func @embedding_grad(%ids: tensor<5xi64>, %g: tensor<5x3xf32> {amp.param}, %r: tensor<10x3xf32>) -> tensor<f32> {
  %t = amp.embedding_grad %ids, %g : tensor<5xi64>, tensor<5x3xf32> to tensor<10x3xf32>
  %tr = amp.mul %t, %r : tensor<10x3xf32>, tensor<10x3xf32>
  %loss = amp.sum %tr dims = [0, 1] : tensor<10x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}
