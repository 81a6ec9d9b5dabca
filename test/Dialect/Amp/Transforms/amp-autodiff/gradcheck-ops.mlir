// Every differentiable op passes gradcheck: the amp-autodiff gradient of a
// random projection of its result, sum(op(...) * r), against five-point
// central differences in f64 (amp-run --gradcheck), tolerance 1e-6 relative
// to the largest gradient of each parameter.
// RUN: for f in neg abs exp log sqrt rsqrt pow_fraction tanh sigmoid softplus relu gelu gelu_tanh pow add sub mul maximum minimum add_both_broadcast div select cast reshape transpose broadcast_to slice slices_merged concat embedding dropout dropout_f16 dropout_eval matmul matmul_transposed matmul_transpose_lhs matmul_transpose_rhs matmul_batched matmul_batched_transpose_rhs matmul_batched_transpose_lhs matmul_batched_4d matmul_bias conv2d conv2d_strided conv2d_grouped conv2d_grad_input conv2d_grad_input_grouped conv2d_depthwise im2col col2im max_pool2d max_pool2d_overlapping avg_pool2d adaptive_avg_pool2d adaptive_avg_pool2d_tiled adaptive_avg_pool2d_upsample attention attention_causal sum sum_keepdims mean max softmax softmax_outer log_softmax layer_norm layer_norm_axis layer_norm_plain rms_norm rms_norm_plain batch_norm batch_norm_plain batch_norm_eval cross_entropy cross_entropy_sum cross_entropy_ignore cross_entropy_ignore_sum mse_loss mse_loss_sum; do \
// RUN:   amp-run %s --function=$f --random-inputs=7 --gradcheck || exit 1; \
// RUN: done | FileCheck %s
// CHECK-NOT: FAILED
// The comparison is real: with no tolerance it fails.
// RUN: not amp-run %s --function=tanh --random-inputs=7 --gradcheck --gradcheck-tolerance=0 | FileCheck %s --check-prefix=STRICT
// STRICT: gradcheck @tanh argument #0 'x' tensor<3x4xf32>: 12 elements (0 at a kink skipped), largest gradient {{.*}}, worst relative error {{.*}} FAILED

// CHECK: gradcheck @neg argument #0 {{.*}} ok
func.func @neg(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.neg %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @abs argument #0 {{.*}} ok
func.func @abs(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.abs %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @exp argument #0 {{.*}} ok
func.func @exp(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.exp %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @log argument #0 {{.*}} ok
func.func @log(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %sq = amp.mul %x, %x : tensor<3x4xf32>, tensor<3x4xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %p = amp.add %sq, %one : tensor<3x4xf32>, tensor<f32>
  %y = amp.log %p : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @sqrt argument #0 {{.*}} ok
func.func @sqrt(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %sq = amp.mul %x, %x : tensor<3x4xf32>, tensor<3x4xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %p = amp.add %sq, %one : tensor<3x4xf32>, tensor<f32>
  %y = amp.sqrt %p : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @rsqrt argument #0 {{.*}} ok
func.func @rsqrt(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %sq = amp.mul %x, %x : tensor<3x4xf32>, tensor<3x4xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %p = amp.add %sq, %one : tensor<3x4xf32>, tensor<f32>
  %y = amp.rsqrt %p : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @pow_fraction argument #0 {{.*}} ok
func.func @pow_fraction(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %sq = amp.mul %x, %x : tensor<3x4xf32>, tensor<3x4xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %p = amp.add %sq, %one : tensor<3x4xf32>, tensor<f32>
  %y = amp.pow %p, 1.5 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @tanh argument #0 {{.*}} ok
func.func @tanh(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.tanh %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @sigmoid argument #0 {{.*}} ok
func.func @sigmoid(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.sigmoid %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Both sides of the threshold: the scale puts some inputs above 20.
// CHECK: gradcheck @softplus argument #0 {{.*}} ok
func.func @softplus(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %c = amp.constant dense<16.0> : tensor<f32>
  %xs = amp.mul %x, %c : tensor<3x4xf32>, tensor<f32>
  %y = amp.softplus %xs : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @relu argument #0 {{.*}} ok
func.func @relu(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.relu %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @gelu argument #0 {{.*}} ok
func.func @gelu(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.gelu %x : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @gelu_tanh argument #0 {{.*}} ok
func.func @gelu_tanh(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.gelu %x approximate = tanh : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @pow argument #0 {{.*}} ok
func.func @pow(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.pow %x, 3.0 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @add argument #0 {{.*}} ok
func.func @add(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.add %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @sub argument #0 {{.*}} ok
func.func @sub(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.sub %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @mul argument #0 {{.*}} ok
func.func @mul(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.mul %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @maximum argument #0 {{.*}} ok
func.func @maximum(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.maximum %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @minimum argument #0 {{.*}} ok
func.func @minimum(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.minimum %a, %b : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @add_both_broadcast argument #0 {{.*}} ok
func.func @add_both_broadcast(%a: tensor<3x1xf32> {amp.param}, %b: tensor<1x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.add %a, %b : tensor<3x1xf32>, tensor<1x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @div argument #0 {{.*}} ok
func.func @div(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %bb = amp.mul %b, %b : tensor<4xf32>, tensor<4xf32>
  %one = amp.constant dense<1.0> : tensor<f32>
  %d = amp.add %bb, %one : tensor<4xf32>, tensor<f32>
  %y = amp.div %a, %d : tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @select argument #0 {{.*}} ok
func.func @select(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<3x4xf32>, %m: tensor<3x4xi1>) -> tensor<f32> {
  %y = amp.select %m, %a, %b : tensor<3x4xi1>, tensor<3x4xf32>, tensor<4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @cast argument #0 {{.*}} ok
func.func @cast(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %h = amp.cast %x : tensor<3x4xf32> to tensor<3x4xf16>
  %y = amp.cast %h : tensor<3x4xf16> to tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @reshape argument #0 {{.*}} ok
func.func @reshape(%x: tensor<3x4xf32> {amp.param}, %r: tensor<2x6xf32>) -> tensor<f32> {
  %y = amp.reshape %x : tensor<3x4xf32> to tensor<2x6xf32>
  %yr = amp.mul %y, %r : tensor<2x6xf32>, tensor<2x6xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @transpose argument #0 {{.*}} ok
func.func @transpose(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<4x2x3xf32>) -> tensor<f32> {
  %y = amp.transpose %x, [2, 0, 1] : tensor<2x3x4xf32> to tensor<4x2x3xf32>
  %yr = amp.mul %y, %r : tensor<4x2x3xf32>, tensor<4x2x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<4x2x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @broadcast_to argument #0 {{.*}} ok
func.func @broadcast_to(%x: tensor<3x1xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.broadcast_to %x : tensor<3x1xf32> to tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @slice argument #0 {{.*}} ok
func.func @slice(%x: tensor<4x5xf32> {amp.param}, %r: tensor<2x3xf32>) -> tensor<f32> {
  %y = amp.slice %x [1, 1] to [3, 4] : tensor<4x5xf32> to tensor<2x3xf32>
  %yr = amp.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Slices of one tensor whose gradients amp-autodiff merges into one concat
// (q, k and v of a fused projection), and one overlapping them, added.
// CHECK: gradcheck @slices_merged argument #0 {{.*}} ok
func.func @slices_merged(%x: tensor<2x6xf32> {amp.param}, %r: tensor<2x2xf32>) -> tensor<f32> {
  %q = amp.slice %x [0, 0] to [2, 2] : tensor<2x6xf32> to tensor<2x2xf32>
  %k = amp.slice %x [0, 2] to [2, 4] : tensor<2x6xf32> to tensor<2x2xf32>
  %v = amp.slice %x [0, 4] to [2, 6] : tensor<2x6xf32> to tensor<2x2xf32>
  %o = amp.slice %x [0, 3] to [2, 5] : tensor<2x6xf32> to tensor<2x2xf32>
  %qk = amp.mul %q, %k : tensor<2x2xf32>, tensor<2x2xf32>
  %qkv = amp.mul %qk, %v : tensor<2x2xf32>, tensor<2x2xf32>
  %all = amp.add %qkv, %o : tensor<2x2xf32>, tensor<2x2xf32>
  %yr = amp.mul %all, %r : tensor<2x2xf32>, tensor<2x2xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @concat argument #0 {{.*}} ok
func.func @concat(%a: tensor<2x3xf32> {amp.param}, %b: tensor<2x2xf32> {amp.param}, %r: tensor<2x5xf32>) -> tensor<f32> {
  %y = amp.concat %a, %b dim = 1 : tensor<2x3xf32>, tensor<2x2xf32> to tensor<2x5xf32>
  %yr = amp.mul %y, %r : tensor<2x5xf32>, tensor<2x5xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @embedding argument #0 {{.*}} ok
func.func @embedding(%table: tensor<5x3xf32> {amp.param}, %r: tensor<2x4x3xf32>, %ids: tensor<2x4xi64>) -> tensor<f32> {
  %y = amp.embedding %table[%ids] : tensor<5x3xf32>, tensor<2x4xi64>
  %yr = amp.mul %y, %r : tensor<2x4x3xf32>, tensor<2x4x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x4x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Dropout: a fixed mask for the generator state the random inputs start
// at (their seed, pass 0), drawn again in the backward; in f16 too (the
// random projection in f32), and the identity in evaluation.
// CHECK: gradcheck @dropout argument #0 {{.*}} ok
func.func @dropout(%x: tensor<4x6xf32> {amp.param}, %rng: tensor<2xi64> {amp.rng}, %r: tensor<4x6xf32>) -> tensor<f32> {
  %y = amp.dropout %x, %rng p = 0.4 stream = 2 training : tensor<4x6xf32>
  %yr = amp.mul %y, %r : tensor<4x6xf32>, tensor<4x6xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<4x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @dropout_f16 argument #0 {{.*}} ok
func.func @dropout_f16(%x: tensor<16xf16> {amp.param}, %rng: tensor<2xi64> {amp.rng}, %r: tensor<16xf32>) -> tensor<f32> {
  %y = amp.dropout %x, %rng p = 0.5 stream = 0 training : tensor<16xf16>
  %y32 = amp.cast %y : tensor<16xf16> to tensor<16xf32>
  %yr = amp.mul %y32, %r : tensor<16xf32>, tensor<16xf32>
  %loss = amp.sum %yr dims = [0] : tensor<16xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @dropout_eval argument #0 {{.*}} ok
func.func @dropout_eval(%x: tensor<5xf32> {amp.param}, %rng: tensor<2xi64> {amp.rng}, %r: tensor<5xf32>) -> tensor<f32> {
  %y = amp.dropout %x, %rng p = 0.4 stream = 0 : tensor<5xf32>
  %yr = amp.mul %y, %r : tensor<5xf32>, tensor<5xf32>
  %loss = amp.sum %yr dims = [0] : tensor<5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul argument #0 {{.*}} ok
func.func @matmul(%a: tensor<3x4xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %r: tensor<3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b : tensor<3x4xf32>, tensor<4x2xf32> to tensor<3x2xf32>
  %yr = amp.mul %y, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_transposed argument #0 {{.*}} ok
func.func @matmul_transposed(%a: tensor<4x3xf32> {amp.param}, %b: tensor<2x4xf32> {amp.param}, %r: tensor<3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<4x3xf32>, tensor<2x4xf32> to tensor<3x2xf32>
  %yr = amp.mul %y, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_transpose_lhs argument #0 {{.*}} ok
func.func @matmul_transpose_lhs(%a: tensor<4x3xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %r: tensor<3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b {transpose_lhs} : tensor<4x3xf32>, tensor<4x2xf32> to tensor<3x2xf32>
  %yr = amp.mul %y, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_transpose_rhs argument #0 {{.*}} ok
func.func @matmul_transpose_rhs(%a: tensor<3x4xf32> {amp.param}, %b: tensor<2x4xf32> {amp.param}, %r: tensor<3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b {transpose_rhs} : tensor<3x4xf32>, tensor<2x4xf32> to tensor<3x2xf32>
  %yr = amp.mul %y, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_batched argument #0 {{.*}} ok
func.func @matmul_batched(%a: tensor<2x3x4xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %r: tensor<2x3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b : tensor<2x3x4xf32>, tensor<4x2xf32> to tensor<2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x3x2xf32>, tensor<2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// A weight shared by the batches gets one flattened GEMM (k = batch * rows)
// unless the activation is transposed; each form is checked.
// CHECK: gradcheck @matmul_batched_transpose_rhs argument #0 {{.*}} ok
// CHECK: gradcheck @matmul_batched_transpose_rhs argument #1 {{.*}} ok
func.func @matmul_batched_transpose_rhs(%a: tensor<2x3x4xf32> {amp.param}, %b: tensor<2x4xf32> {amp.param}, %r: tensor<2x3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b {transpose_rhs} : tensor<2x3x4xf32>, tensor<2x4xf32> to tensor<2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x3x2xf32>, tensor<2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_batched_transpose_lhs argument #0 {{.*}} ok
// CHECK: gradcheck @matmul_batched_transpose_lhs argument #1 {{.*}} ok
func.func @matmul_batched_transpose_lhs(%a: tensor<2x4x3xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %r: tensor<2x3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b {transpose_lhs} : tensor<2x4x3xf32>, tensor<4x2xf32> to tensor<2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x3x2xf32>, tensor<2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @matmul_batched_4d argument #0 {{.*}} ok
// CHECK: gradcheck @matmul_batched_4d argument #1 {{.*}} ok
func.func @matmul_batched_4d(%a: tensor<2x2x3x4xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %r: tensor<2x2x3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b : tensor<2x2x3x4xf32>, tensor<4x2xf32> to tensor<2x2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// The bias of every row: its gradient sums over the rows of both batches.
// CHECK: gradcheck @matmul_bias argument #0 {{.*}} ok
// CHECK: gradcheck @matmul_bias argument #1 {{.*}} ok
// CHECK: gradcheck @matmul_bias argument #2 {{.*}} ok
func.func @matmul_bias(%a: tensor<2x3x4xf32> {amp.param}, %b: tensor<4x2xf32> {amp.param}, %c: tensor<2xf32> {amp.param}, %r: tensor<2x3x2xf32>) -> tensor<f32> {
  %y = amp.matmul %a, %b bias %c : tensor<2x3x4xf32>, tensor<4x2xf32>, tensor<2xf32> to tensor<2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x3x2xf32>, tensor<2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @conv2d argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d argument #1 {{.*}} ok
// CHECK: gradcheck @conv2d argument #2 {{.*}} ok
func.func @conv2d(%x: tensor<2x3x5x5xf32> {amp.param}, %w: tensor<4x3x3x3xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<2x4x5x5xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>} : tensor<2x3x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> to tensor<2x4x5x5xf32>
  %yr = amp.mul %y, %r : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x4x5x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Strides, explicit padding and dilations: (7 + 1 + 2 - 2 * 2 - 1) / 2 + 1
// = 3 rows, (6 + 0 + 1 - 1 - 1) / 1 + 1 = 6 columns.
// CHECK: gradcheck @conv2d_strided argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_strided argument #1 {{.*}} ok
func.func @conv2d_strided(%x: tensor<2x2x7x6xf32> {amp.param}, %w: tensor<3x2x3x2xf32> {amp.param}, %r: tensor<2x3x3x6xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 1>} : tensor<2x2x7x6xf32>, tensor<3x2x3x2xf32> to tensor<2x3x3x6xf32>
  %yr = amp.mul %y, %r : tensor<2x3x3x6xf32>, tensor<2x3x3x6xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x3x3x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @conv2d_grouped argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_grouped argument #1 {{.*}} ok
func.func @conv2d_grouped(%x: tensor<2x4x5x5xf32> {amp.param}, %w: tensor<6x2x3x3xf32> {amp.param}, %r: tensor<2x6x2x2xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w {strides = array<i64: 2, 2>, groups = 2 : i64} : tensor<2x4x5x5xf32>, tensor<6x2x3x3xf32> to tensor<2x6x2x2xf32>
  %yr = amp.mul %y, %r : tensor<2x6x2x2xf32>, tensor<2x6x2x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x6x2x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// conv2d_grad_input as a forward op (PyTorch's conv_transpose2d, stride 2,
// kernel 2): 3x3 up to 6x6.
// CHECK: gradcheck @conv2d_grad_input argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_grad_input argument #1 {{.*}} ok
func.func @conv2d_grad_input(%x: tensor<2x4x3x3xf32> {amp.param}, %w: tensor<4x3x2x2xf32> {amp.param}, %r: tensor<2x3x6x6xf32>) -> tensor<f32> {
  %y = amp.conv2d_grad_input %x, %w {strides = array<i64: 2, 2>} : tensor<2x4x3x3xf32>, tensor<4x3x2x2xf32> to tensor<2x3x6x6xf32>
  %yr = amp.mul %y, %r : tensor<2x3x6x6xf32>, tensor<2x3x6x6xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x3x6x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Grouped, padded, and one more row and column than the stride gives back
// (PyTorch's output_padding = 1): (6 + 2 - 3) / 2 + 1 = 3.
// CHECK: gradcheck @conv2d_grad_input_grouped argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_grad_input_grouped argument #1 {{.*}} ok
func.func @conv2d_grad_input_grouped(%x: tensor<1x4x3x3xf32> {amp.param}, %w: tensor<4x1x3x3xf32> {amp.param}, %r: tensor<1x2x6x6xf32>) -> tensor<f32> {
  %y = amp.conv2d_grad_input %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, groups = 2 : i64} : tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32> to tensor<1x2x6x6xf32>
  %yr = amp.mul %y, %r : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x6x6xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @conv2d_depthwise argument #0 {{.*}} ok
// CHECK: gradcheck @conv2d_depthwise argument #1 {{.*}} ok
// CHECK: gradcheck @conv2d_depthwise argument #2 {{.*}} ok
func.func @conv2d_depthwise(%x: tensor<1x3x4x4xf32> {amp.param}, %w: tensor<3x1x3x3xf32> {amp.param}, %b: tensor<3xf32> {amp.param}, %r: tensor<1x3x4x4xf32>) -> tensor<f32> {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>, groups = 3 : i64} : tensor<1x3x4x4xf32>, tensor<3x1x3x3xf32>, tensor<3xf32> to tensor<1x3x4x4xf32>
  %yr = amp.mul %y, %r : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x3x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @im2col argument #0 {{.*}} ok
func.func @im2col(%x: tensor<1x2x4x4xf32> {amp.param}, %r: tensor<1x8x9xf32>) -> tensor<f32> {
  %y = amp.im2col %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<1x2x4x4xf32> to tensor<1x8x9xf32>
  %yr = amp.mul %y, %r : tensor<1x8x9xf32>, tensor<1x8x9xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<1x8x9xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @col2im argument #0 {{.*}} ok
func.func @col2im(%c: tensor<1x8x9xf32> {amp.param}, %r: tensor<1x2x4x4xf32>) -> tensor<f32> {
  %y = amp.col2im %c {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, dilations = array<i64: 2, 2>} : tensor<1x8x9xf32> to tensor<1x2x4x4xf32>
  %yr = amp.mul %y, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Random inputs have no equal maxima, where max pooling has no gradient.
// CHECK: gradcheck @max_pool2d argument #0 {{.*}} ok
func.func @max_pool2d(%x: tensor<1x2x4x4xf32> {amp.param}, %r: tensor<1x2x2x2xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 2, 2>} : tensor<1x2x4x4xf32> to tensor<1x2x2x2xf32>
  %yr = amp.mul %y, %r : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x2x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @max_pool2d_overlapping argument #0 {{.*}} ok
func.func @max_pool2d_overlapping(%x: tensor<2x1x5x5xf32> {amp.param}, %r: tensor<2x1x3x3xf32>) -> tensor<f32> {
  %y = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x1x5x5xf32> to tensor<2x1x3x3xf32>
  %yr = amp.mul %y, %r : tensor<2x1x3x3xf32>, tensor<2x1x3x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x1x3x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @avg_pool2d argument #0 {{.*}} ok
func.func @avg_pool2d(%x: tensor<2x1x5x5xf32> {amp.param}, %r: tensor<2x1x3x5xf32>) -> tensor<f32> {
  %y = amp.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 1>, padding = array<i64: 1, 1>} : tensor<2x1x5x5xf32> to tensor<2x1x3x5xf32>
  %yr = amp.mul %y, %r : tensor<2x1x3x5xf32>, tensor<2x1x3x5xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x1x3x5xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Adaptive average pooling: uneven, overlapping windows (the VJP's 0/1
// matmuls), windows that tile (amp.avg_pool2d's VJP) and an output larger
// than the input (windows repeat positions).
// CHECK: gradcheck @adaptive_avg_pool2d argument #0 {{.*}} ok
func.func @adaptive_avg_pool2d(%x: tensor<2x2x5x7xf32> {amp.param}, %r: tensor<2x2x3x2xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 2] : tensor<2x2x5x7xf32> to tensor<2x2x3x2xf32>
  %yr = amp.mul %y, %r : tensor<2x2x3x2xf32>, tensor<2x2x3x2xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x2x3x2xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @adaptive_avg_pool2d_tiled argument #0 {{.*}} ok
func.func @adaptive_avg_pool2d_tiled(%x: tensor<2x2x4x6xf32> {amp.param}, %r: tensor<2x2x2x3xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [2, 3] : tensor<2x2x4x6xf32> to tensor<2x2x2x3xf32>
  %yr = amp.mul %y, %r : tensor<2x2x2x3xf32>, tensor<2x2x2x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x2x2x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @adaptive_avg_pool2d_upsample argument #0 {{.*}} ok
func.func @adaptive_avg_pool2d_upsample(%x: tensor<1x2x2x3xf32> {amp.param}, %r: tensor<1x2x3x4xf32>) -> tensor<f32> {
  %y = amp.adaptive_avg_pool2d %x output_size = [3, 4] : tensor<1x2x2x3xf32> to tensor<1x2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @attention argument #0 {{.*}} ok
func.func @attention(%q: tensor<1x2x3x4xf32> {amp.param}, %k: tensor<1x2x5x4xf32> {amp.param}, %v: tensor<1x2x5x3xf32> {amp.param}, %r: tensor<1x2x3x3xf32>) -> tensor<f32> {
  %y = amp.attention %q, %k, %v : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x3xf32>
  %yr = amp.mul %y, %r : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x3x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @attention_causal argument #0 {{.*}} ok
func.func @attention_causal(%q: tensor<1x2x4x4xf32> {amp.param}, %k: tensor<1x2x4x4xf32> {amp.param}, %v: tensor<1x2x4x4xf32> {amp.param}, %r: tensor<1x2x4x4xf32>) -> tensor<f32> {
  %y = amp.attention %q, %k, %v causal {scale = 0.3} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %yr = amp.mul %y, %r : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<1x2x4x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @sum argument #0 {{.*}} ok
func.func @sum(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<3xf32>) -> tensor<f32> {
  %y = amp.sum %x dims = [0, 2] : tensor<2x3x4xf32> to tensor<3xf32>
  %yr = amp.mul %y, %r : tensor<3xf32>, tensor<3xf32>
  %loss = amp.sum %yr dims = [0] : tensor<3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @sum_keepdims argument #0 {{.*}} ok
func.func @sum_keepdims(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x1x4xf32>) -> tensor<f32> {
  %y = amp.sum %x dims = [1] keepdims : tensor<2x3x4xf32> to tensor<2x1x4xf32>
  %yr = amp.mul %y, %r : tensor<2x1x4xf32>, tensor<2x1x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x1x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @mean argument #0 {{.*}} ok
func.func @mean(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x3xf32>) -> tensor<f32> {
  %y = amp.mean %x dims = [2] : tensor<2x3x4xf32> to tensor<2x3xf32>
  %yr = amp.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @max argument #0 {{.*}} ok
func.func @max(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x4xf32>) -> tensor<f32> {
  %y = amp.max %x dims = [1] : tensor<2x3x4xf32> to tensor<2x4xf32>
  %yr = amp.mul %y, %r : tensor<2x4xf32>, tensor<2x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<2x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @softmax argument #0 {{.*}} ok
func.func @softmax(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.softmax %x dim = 1 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @softmax_outer argument #0 {{.*}} ok
func.func @softmax_outer(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.softmax %x dim = 0 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @log_softmax argument #0 {{.*}} ok
func.func @log_softmax(%x: tensor<3x4xf32> {amp.param}, %r: tensor<3x4xf32>) -> tensor<f32> {
  %y = amp.log_softmax %x dim = 1 : tensor<3x4xf32>
  %yr = amp.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @layer_norm argument #0 {{.*}} ok
func.func @layer_norm(%x: tensor<2x3x4xf32> {amp.param}, %w: tensor<4xf32> {amp.param}, %b: tensor<4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.layer_norm %x scale(%w : tensor<4xf32>) bias(%b : tensor<4xf32>) : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @layer_norm_axis argument #0 {{.*}} ok
func.func @layer_norm_axis(%x: tensor<2x3x4xf32> {amp.param}, %w: tensor<3x4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.layer_norm %x scale(%w : tensor<3x4xf32>) {axis = 1, epsilon = 1.0e-3} : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @layer_norm_plain argument #0 {{.*}} ok
func.func @layer_norm_plain(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.layer_norm %x : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @rms_norm argument #0 {{.*}} ok
func.func @rms_norm(%x: tensor<2x3x4xf32> {amp.param}, %w: tensor<4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.rms_norm %x scale(%w : tensor<4xf32>) : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @rms_norm_plain argument #0 {{.*}} ok
func.func @rms_norm_plain(%x: tensor<2x3x4xf32> {amp.param}, %r: tensor<2x3x4xf32>) -> tensor<f32> {
  %y = amp.rms_norm %x {axis = 1} : tensor<2x3x4xf32>
  %yr = amp.mul %y, %r : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %loss = amp.sum %yr dims = [0, 1, 2] : tensor<2x3x4xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Batch norm in training mode: the statistics depend on the input, the
// full formula. Its running statistics are constants here (a random
// variance could be negative).
// CHECK: gradcheck @batch_norm argument #0 {{.*}} ok
// CHECK: gradcheck @batch_norm argument #1 {{.*}} ok
// CHECK: gradcheck @batch_norm argument #2 {{.*}} ok
func.func @batch_norm(%x: tensor<3x2x2x3xf32> {amp.param}, %g: tensor<2xf32> {amp.param}, %b: tensor<2xf32> {amp.param}, %r: tensor<3x2x2x3xf32>) -> tensor<f32> {
  %rm = amp.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %rv = amp.constant dense<[2.0, 0.25]> : tensor<2xf32>
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<2xf32>) scale(%g : tensor<2xf32>) bias(%b : tensor<2xf32>) {training} : tensor<3x2x2x3xf32>
  %yr = amp.mul %y#0, %r : tensor<3x2x2x3xf32>, tensor<3x2x2x3xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<3x2x2x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: gradcheck @batch_norm_plain argument #0 {{.*}} ok
func.func @batch_norm_plain(%x: tensor<5x3xf32> {amp.param}, %r: tensor<5x3xf32>) -> tensor<f32> {
  %rm = amp.constant dense<0.0> : tensor<3xf32>
  %rv = amp.constant dense<1.0> : tensor<3xf32>
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<3xf32>) {training, epsilon = 1.0e-3} : tensor<5x3xf32>
  %yr = amp.mul %y#0, %r : tensor<5x3xf32>, tensor<5x3xf32>
  %loss = amp.sum %yr dims = [0, 1] : tensor<5x3xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// Evaluation: the running statistics normalise, a constant affine map.
// CHECK: gradcheck @batch_norm_eval argument #0 {{.*}} ok
// CHECK: gradcheck @batch_norm_eval argument #1 {{.*}} ok
// CHECK: gradcheck @batch_norm_eval argument #2 {{.*}} ok
func.func @batch_norm_eval(%x: tensor<2x2x3x1xf32> {amp.param}, %g: tensor<2xf32> {amp.param}, %b: tensor<2xf32> {amp.param}, %r: tensor<2x2x3x1xf32>) -> tensor<f32> {
  %rm = amp.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %rv = amp.constant dense<[2.0, 0.25]> : tensor<2xf32>
  %y:3 = amp.batch_norm %x running(%rm, %rv : tensor<2xf32>) scale(%g : tensor<2xf32>) bias(%b : tensor<2xf32>) : tensor<2x2x3x1xf32>
  %yr = amp.mul %y#0, %r : tensor<2x2x3x1xf32>, tensor<2x2x3x1xf32>
  %loss = amp.sum %yr dims = [0, 1, 2, 3] : tensor<2x2x3x1xf32> to tensor<f32>
  return %loss : tensor<f32>
}

// The losses are differentiated directly.
// CHECK: gradcheck @cross_entropy argument #0 {{.*}} ok
func.func @cross_entropy(%logits: tensor<2x3x5xf32> {amp.param}, %y: tensor<2x3xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y : tensor<2x3x5xf32>, tensor<2x3xi64> to tensor<f32>
  return %l : tensor<f32>
}

// CHECK: gradcheck @cross_entropy_sum argument #0 {{.*}} ok
func.func @cross_entropy_sum(%logits: tensor<4x5xf32> {amp.param}, %y: tensor<4xi32>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y reduction = sum : tensor<4x5xf32>, tensor<4xi32> to tensor<f32>
  return %l : tensor<f32>
}

// Rows whose label is ignore_index (here a class the seeded labels hold,
// so that some rows are ignored and others not) have no gradient; the mean
// is over the others.
// CHECK: gradcheck @cross_entropy_ignore argument #0 {{.*}} ok
func.func @cross_entropy_ignore(%logits: tensor<2x3x5xf32> {amp.param}, %y: tensor<2x3xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y ignore_index = 2 : tensor<2x3x5xf32>, tensor<2x3xi64> to tensor<f32>
  return %l : tensor<f32>
}

// CHECK: gradcheck @cross_entropy_ignore_sum argument #0 {{.*}} ok
func.func @cross_entropy_ignore_sum(%logits: tensor<4x5xf32> {amp.param}, %y: tensor<4xi32>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y reduction = sum ignore_index = 2 : tensor<4x5xf32>, tensor<4xi32> to tensor<f32>
  return %l : tensor<f32>
}

// CHECK: gradcheck @mse_loss argument #0 {{.*}} ok
// CHECK: gradcheck @mse_loss argument #1 {{.*}} ok
func.func @mse_loss(%a: tensor<3x4xf32> {amp.param}, %b: tensor<3x4xf32> {amp.param}) -> tensor<f32> {
  %l = amp.mse_loss %a, %b : tensor<3x4xf32>, tensor<3x4xf32> to tensor<f32>
  return %l : tensor<f32>
}

// CHECK: gradcheck @mse_loss_sum argument #0 {{.*}} ok
func.func @mse_loss_sum(%a: tensor<3x4xf32> {amp.param}, %b: tensor<3x4xf32>) -> tensor<f32> {
  %l = amp.mse_loss %a, %b reduction = sum : tensor<3x4xf32>, tensor<3x4xf32> to tensor<f32>
  return %l : tensor<f32>
}
