// The default category of every op class, one function each.
// RUN: amp-opt %s --amp-autocast -split-input-file | FileCheck %s

// Lower-precision: matmul runs in f16, accumulates in f32, returns f16.
// CHECK-LABEL: func.func @lower_precision_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>)
// CHECK-DAG: %[[XH:.*]] = amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK-DAG: %[[WH:.*]] = amp.cast %[[W]] : tensor<8x2xf32> to tensor<8x2xf16>
// CHECK: %[[Y:.*]] = amp.matmul %[[XH]], %[[WH]] {acc_type = f32} : tensor<4x8xf16>, tensor<8x2xf16> to tensor<4x2xf16>
// CHECK: %[[R:.*]] = amp.cast %[[Y]] : tensor<4x2xf16> to tensor<4x2xf32>
// CHECK: return %[[R]] : tensor<4x2xf32>
func.func @lower_precision_matmul(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %y = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> to tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

// Lower-precision: attention.
// CHECK-LABEL: func.func @lower_precision_attention
// CHECK: amp.attention %{{.*}}, %{{.*}}, %{{.*}} causal : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>
func.func @lower_precision_attention(%q: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %o = amp.attention %q, %q, %q causal : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// -----

// Lower-precision: conv2d (PyTorch's CUDA autocast list), its operands and
// bias in f16, accumulating in f32; im2col and the poolings follow their
// input.
// CHECK-LABEL: func.func @lower_precision_conv2d
// CHECK-DAG: %[[XH:.*]] = amp.cast %{{.*}} : tensor<2x3x8x8xf32> to tensor<2x3x8x8xf16>
// CHECK-DAG: %[[WH:.*]] = amp.cast %{{.*}} : tensor<4x3x3x3xf32> to tensor<4x3x3x3xf16>
// CHECK-DAG: %[[BH:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[Y:.*]] = amp.conv2d %[[XH]], %[[WH]] bias %[[BH]] {acc_type = f32, padding = array<i64: 1, 1>} : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16>, tensor<4xf16> to tensor<2x4x8x8xf16>
// CHECK: amp.im2col %[[Y]] {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf16> to tensor<2x16x49xf16>
// CHECK: amp.max_pool2d %[[Y]] {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf16> to tensor<2x4x4x4xf16>
// CHECK: amp.avg_pool2d %[[Y]] {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf16> to tensor<2x4x4x4xf16>
func.func @lower_precision_conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<2x16x49xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> to tensor<2x4x8x8xf32>
  %c = amp.im2col %y {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf32> to tensor<2x16x49xf32>
  %p = amp.max_pool2d %y {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf32> to tensor<2x4x4x4xf32>
  %a = amp.avg_pool2d %y {kernel = array<i64: 2, 2>} : tensor<2x4x8x8xf32> to tensor<2x4x4x4xf32>
  return %c, %p, %a : tensor<2x16x49xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
}

// -----

// Batch norm after a convolution: keep-fp32, but fed f16 it takes and
// gives f16 and computes in f32 (cuDNN's contract, as PyTorch runs it
// under autocast); its scale, bias and running statistics keep f32, and
// so do the new running statistics. Fed f32 (a network's first layer) it
// stays f32.
// CHECK-LABEL: func.func @batch_norm_keeps_low_io
// CHECK: %[[Y:.*]] = amp.conv2d {{.*}} to tensor<2x4x8x8xf16>
// CHECK: %{{.*}}, %[[MEAN:.*]], %{{.*}} = amp.batch_norm %[[Y]] running(%{{.*}}, %{{.*}} : tensor<4xf32>) scale(%{{.*}} : tensor<4xf32>) bias(%{{.*}} : tensor<4xf32>) {training} : tensor<2x4x8x8xf16>
// CHECK: %[[F:.*]], %{{.*}}, %{{.*}} = amp.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<3xf32>) {training} : tensor<2x3x8x8xf32>
// CHECK: return %{{.*}}, %[[MEAN]], %[[F]] : tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<2x3x8x8xf32>
func.func @batch_norm_keeps_low_io(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %rm3: tensor<3xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<2x3x8x8xf32>) {
  %y = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> to tensor<2x4x8x8xf32>
  %n:3 = amp.batch_norm %y running(%rm, %rv : tensor<4xf32>) scale(%g : tensor<4xf32>) bias(%b : tensor<4xf32>) {training} : tensor<2x4x8x8xf32>
  %f:3 = amp.batch_norm %x running(%rm3, %rm3 : tensor<3xf32>) {training} : tensor<2x3x8x8xf32>
  return %n#0, %n#1, %f#0 : tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<2x3x8x8xf32>
}

// -----

// A batch norm that reads and writes f16 does not spread keep-fp32: the
// ReLU, the residual add and the pool after it follow its f16 output (as
// under PyTorch's autocast with cuDNN), and the next convolution reads
// them with no cast. A batch norm fed f32 still spreads it: its ReLU runs
// in f32.
// CHECK-LABEL: func.func @batch_norm_output_stays_low
// CHECK: %[[Y:.*]] = amp.conv2d {{.*}} to tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[N:.*]], %{{.*}}, %{{.*}} = amp.batch_norm %[[Y]] {{.*}} : tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[R:.*]] = amp.relu %[[N]] : tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[S:.*]] = amp.add %[[R]], %[[Y]] : tensor<2x4x8x8xf16>, tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[P:.*]] = amp.max_pool2d %[[S]] {{.*}} : tensor<2x4x8x8xf16> to tensor<2x4x4x4xf16>
// CHECK-NEXT: amp.conv2d %[[P]], %{{.*}} {{.*}} : tensor<2x4x4x4xf16>, tensor<4x4x3x3xf16> to tensor<2x4x4x4xf16>
// CHECK: amp.batch_norm %arg0 {{.*}} : tensor<2x3x8x8xf32>
// CHECK-NEXT: amp.relu %{{.*}} : tensor<2x3x8x8xf32>
func.func @batch_norm_output_stays_low(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %w2: tensor<4x4x3x3xf32>, %rm: tensor<4xf32>, %rm3: tensor<3xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>) {
  %y = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> to tensor<2x4x8x8xf32>
  %n:3 = amp.batch_norm %y running(%rm, %rm : tensor<4xf32>) {training} : tensor<2x4x8x8xf32>
  %r = amp.relu %n#0 : tensor<2x4x8x8xf32>
  %s = amp.add %r, %y : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
  %p = amp.max_pool2d %s {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x4x8x8xf32> to tensor<2x4x4x4xf32>
  %z = amp.conv2d %p, %w2 {padding = array<i64: 1, 1>} : tensor<2x4x4x4xf32>, tensor<4x4x3x3xf32> to tensor<2x4x4x4xf32>
  %f:3 = amp.batch_norm %x running(%rm3, %rm3 : tensor<3xf32>) {training} : tensor<2x3x8x8xf32>
  %fr = amp.relu %f#0 : tensor<2x3x8x8xf32>
  return %z, %fr : tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>
}

// -----

// The log-sum-exp stays f32: autocast narrows the tensors attention reads
// and writes and attention_grad's gradients, not the log-sum-exp.
// CHECK-LABEL: func.func @lower_precision_attention_backward
// CHECK: %[[O:.*]], %[[LSE:.*]] = amp.attention %{{.*}}, %{{.*}}, %{{.*}} causal with_lse : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>
// CHECK: amp.attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %[[O]], %[[LSE]], %{{.*}} causal : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4xf32>, tensor<1x2x4x8xf16>
// CHECK-COUNT-3: amp.cast %{{.*}} : tensor<1x2x4x8xf16> to tensor<1x2x4x8xf32>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
func.func @lower_precision_attention_backward(%q: tensor<1x2x4x8xf32>, %do: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %o, %lse = amp.attention %q, %q, %q causal with_lse : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %dq, %dk, %dv = amp.attention_grad %q, %q, %q, %o, %lse, %do causal : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4x8xf32>
  return %dq, %dk, %dv : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Keep-fp32: fed by an f16 matmul, each reads an f32 copy (one cast, shared)
// and computes in f32.
// CHECK-LABEL: func.func @keep_fp32
// CHECK: %[[Y:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: %[[YF:.*]] = amp.cast %[[Y]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK-NOT: amp.cast
// CHECK: amp.exp %[[YF]] : tensor<4x4xf32>
// CHECK: amp.log %[[YF]] : tensor<4x4xf32>
// CHECK: amp.pow %[[YF]], 2.000000e+00 : tensor<4x4xf32>
// CHECK: amp.rsqrt %[[YF]] : tensor<4x4xf32>
// CHECK: amp.softplus %[[YF]] : tensor<4x4xf32>
// CHECK: amp.softmax %[[YF]] dim = 1 : tensor<4x4xf32>
// CHECK: amp.log_softmax %[[YF]] dim = 1 : tensor<4x4xf32>
// CHECK: amp.layer_norm %[[YF]] : tensor<4x4xf32>
// CHECK: amp.rms_norm %[[YF]] : tensor<4x4xf32>
// CHECK: amp.sum %[[YF]] dims = [1] : tensor<4x4xf32> to tensor<4xf32>
// CHECK: amp.mean %[[YF]] dims = [1] : tensor<4x4xf32> to tensor<4xf32>
// CHECK: amp.cross_entropy %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xi64> to tensor<f32>
// CHECK: amp.mse_loss %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32> to tensor<f32>
func.func @keep_fp32(%x: tensor<4x4xf32>, %y: tensor<4xi64>) {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %0 = amp.exp %m : tensor<4x4xf32>
  %1 = amp.log %m : tensor<4x4xf32>
  %2 = amp.pow %m, 2.0 : tensor<4x4xf32>
  %3 = amp.rsqrt %m : tensor<4x4xf32>
  %12 = amp.softplus %m : tensor<4x4xf32>
  %4 = amp.softmax %m dim = 1 : tensor<4x4xf32>
  %5 = amp.log_softmax %m dim = 1 : tensor<4x4xf32>
  %6 = amp.layer_norm %m : tensor<4x4xf32>
  %7 = amp.rms_norm %m : tensor<4x4xf32>
  %8 = amp.sum %m dims = [1] : tensor<4x4xf32> to tensor<4xf32>
  %9 = amp.mean %m dims = [1] : tensor<4x4xf32> to tensor<4xf32>
  %10 = amp.cross_entropy %m, %y : tensor<4x4xf32>, tensor<4xi64> to tensor<f32>
  %11 = amp.mse_loss %m, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<f32>
  return
}

// -----

// Follow: numerically neutral ops fed by a low op take its type.
// CHECK-LABEL: func.func @follow
// CHECK: %[[Y:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: amp.relu %[[Y]] : tensor<4x4xf16>
// CHECK: amp.neg %[[Y]] : tensor<4x4xf16>
// CHECK: amp.abs %[[Y]] : tensor<4x4xf16>
// CHECK: amp.sqrt %[[Y]] : tensor<4x4xf16>
// CHECK: amp.tanh %[[Y]] : tensor<4x4xf16>
// CHECK: amp.sigmoid %[[Y]] : tensor<4x4xf16>
// CHECK: amp.gelu %[[Y]] : tensor<4x4xf16>
// CHECK: amp.maximum %[[Y]], %[[Y]] : tensor<4x4xf16>, tensor<4x4xf16>
// CHECK: amp.minimum %[[Y]], %[[Y]] : tensor<4x4xf16>, tensor<4x4xf16>
// CHECK: amp.reshape %[[Y]] : tensor<4x4xf16> to tensor<16xf16>
// CHECK: amp.transpose %[[Y]], [1, 0] : tensor<4x4xf16> to tensor<4x4xf16>
// CHECK: amp.slice %[[Y]] [0, 0] to [2, 4] : tensor<4x4xf16> to tensor<2x4xf16>
// CHECK: amp.broadcast_to %[[Y]] : tensor<4x4xf16> to tensor<2x4x4xf16>
// CHECK: amp.max %[[Y]] dims = [0] : tensor<4x4xf16> to tensor<4xf16>
func.func @follow(%x: tensor<4x4xf32>) {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %0 = amp.relu %m : tensor<4x4xf32>
  %1 = amp.neg %m : tensor<4x4xf32>
  %2 = amp.abs %m : tensor<4x4xf32>
  %3 = amp.sqrt %m : tensor<4x4xf32>
  %4 = amp.tanh %m : tensor<4x4xf32>
  %5 = amp.sigmoid %m : tensor<4x4xf32>
  %6 = amp.gelu %m : tensor<4x4xf32>
  %7 = amp.maximum %m, %m : tensor<4x4xf32>, tensor<4x4xf32>
  %8 = amp.minimum %m, %m : tensor<4x4xf32>, tensor<4x4xf32>
  %9 = amp.reshape %m : tensor<4x4xf32> to tensor<16xf32>
  %10 = amp.transpose %m, [1, 0] : tensor<4x4xf32> to tensor<4x4xf32>
  %11 = amp.slice %m [0, 0] to [2, 4] : tensor<4x4xf32> to tensor<2x4xf32>
  %12 = amp.broadcast_to %m : tensor<4x4xf32> to tensor<2x4x4xf32>
  %13 = amp.max %m dims = [0] : tensor<4x4xf32> to tensor<4xf32>
  return
}

// -----

// Follow: an embedding of an f32 table stays f32 (its input is f32).
// CHECK-LABEL: func.func @follow_f32_input
// CHECK-NOT: amp.cast
// CHECK: amp.embedding %{{.*}}[%{{.*}}] : tensor<8x4xf32>, tensor<3xi64>
func.func @follow_f32_input(%table: tensor<8x4xf32> {amp.param}, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %e = amp.embedding %table[%ids] : tensor<8x4xf32>, tensor<3xi64>
  return %e : tensor<3x4xf32>
}

// -----

// Promote: the widest input wins. An f16 matmul result plus an f32 argument
// (not between two low ops) computes in f32.
// CHECK-LABEL: func.func @promote
// CHECK: %[[Y:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: %[[YF:.*]] = amp.cast %[[Y]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: amp.add %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>
// CHECK: amp.sub %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>
// CHECK: amp.mul %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>
// CHECK: amp.div %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>
// CHECK: amp.select %{{.*}}, %[[YF]], %{{.*}} : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: amp.concat %[[YF]], %{{.*}} dim = 0 : tensor<4x4xf32>, tensor<1x4xf32> to tensor<5x4xf32>
// CHECK: amp.compare lt, %[[YF]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>
func.func @promote(%x: tensor<4x4xf32>, %b: tensor<4xf32>, %c: tensor<4x4xi1>, %r: tensor<1x4xf32>) {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %0 = amp.add %m, %b : tensor<4x4xf32>, tensor<4xf32>
  %1 = amp.sub %m, %b : tensor<4x4xf32>, tensor<4xf32>
  %2 = amp.mul %m, %b : tensor<4x4xf32>, tensor<4xf32>
  %3 = amp.div %m, %b : tensor<4x4xf32>, tensor<4xf32>
  %4 = amp.select %c, %m, %b : tensor<4x4xi1>, tensor<4x4xf32>, tensor<4xf32>
  %5 = amp.concat %m, %r dim = 0 : tensor<4x4xf32>, tensor<1x4xf32> to tensor<5x4xf32>
  %6 = amp.compare lt, %m, %b : tensor<4x4xf32>, tensor<4xf32>
  return
}

// -----

// Arith and math ops take part through external models.
// CHECK-LABEL: func.func @upstream_ops
// CHECK: %[[Y:.*]] = amp.matmul {{.*}} to tensor<4x4xf16>
// CHECK: %[[YF:.*]] = amp.cast %[[Y]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: arith.negf %[[Y]] : tensor<4x4xf16>
// CHECK: math.tanh %[[Y]] : tensor<4x4xf16>
// CHECK: math.exp %[[YF]] : tensor<4x4xf32>
// CHECK: arith.addf %[[YF]], %{{.*}} : tensor<4x4xf32>
func.func @upstream_ops(%x: tensor<4x4xf32>) {
  %m = amp.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> to tensor<4x4xf32>
  %0 = arith.negf %m : tensor<4x4xf32>
  %1 = math.tanh %m : tensor<4x4xf32>
  %2 = math.exp %m : tensor<4x4xf32>
  %3 = arith.addf %m, %x : tensor<4x4xf32>
  return
}

// -----

// Keep-fp32 means f32: an op fed in f16 reads an f32 copy, and the
// function's f16 result is cast back.
// CHECK-LABEL: func.func @keep_fp32_on_f16_input
// CHECK-SAME: (%[[A:.*]]: tensor<4xf16>) -> tensor<4xf16>
// CHECK-NEXT: %[[UP:.*]] = amp.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK-NEXT: %[[E:.*]] = amp.exp %[[UP]] : tensor<4xf32>
// CHECK-NEXT: %[[DOWN:.*]] = amp.cast %[[E]] : tensor<4xf32> to tensor<4xf16>
// CHECK-NEXT: return %[[DOWN]]
func.func @keep_fp32_on_f16_input(%a: tensor<4xf16>) -> tensor<4xf16> {
  %e = amp.exp %a : tensor<4xf16>
  return %e : tensor<4xf16>
}

// -----

// Follow: dropout after a matmul drops in f16 (its generator state is no
// floating-point operand and keeps its type); on an f32 input it stays f32.
// CHECK-LABEL: func.func @follow_dropout
// CHECK-SAME: %[[RNG:[a-z0-9]*]]: tensor<2xi64> {amp.rng}
// CHECK: %[[Y:.*]] = amp.matmul {{.*}} to tensor<4x2xf16>
// CHECK: %[[D:.*]] = amp.dropout %[[Y]], %[[RNG]] p = 1.000000e-01 stream = 0 training : tensor<4x2xf16>
// CHECK: amp.dropout %{{.*}}, %[[RNG]] p = 1.000000e-01 stream = 1 training : tensor<4x8xf32>
func.func @follow_dropout(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>, %rng: tensor<2xi64> {amp.rng}) -> (tensor<4x2xf32>, tensor<4x8xf32>) {
  %y = amp.matmul %x, %w : tensor<4x8xf32>, tensor<8x2xf32> to tensor<4x2xf32>
  %d = amp.dropout %y, %rng p = 0.1 stream = 0 training : tensor<4x2xf32>
  %e = amp.dropout %x, %rng p = 0.1 stream = 1 training : tensor<4x8xf32>
  return %d, %e : tensor<4x2xf32>, tensor<4x8xf32>
}

// -----

// Follow: adaptive average pooling after a convolution pools in f16.
// CHECK-LABEL: func.func @follow_adaptive_avg_pool2d
// CHECK: %[[Y:.*]] = amp.conv2d {{.*}} to tensor<2x4x8x8xf16>
// CHECK: amp.adaptive_avg_pool2d %[[Y]] output_size = [3, 3] : tensor<2x4x8x8xf16> to tensor<2x4x3x3xf16>
func.func @follow_adaptive_avg_pool2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x3x3xf32> {
  %y = amp.conv2d %x, %w {padding = array<i64: 1, 1>} : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> to tensor<2x4x8x8xf32>
  %p = amp.adaptive_avg_pool2d %y output_size = [3, 3] : tensor<2x4x8x8xf32> to tensor<2x4x3x3xf32>
  return %p : tensor<2x4x3x3xf32>
}
