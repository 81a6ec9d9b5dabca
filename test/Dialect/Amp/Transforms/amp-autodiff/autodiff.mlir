// The structure of the derived gradient function.
// RUN: amp-opt %s --amp-autodiff -split-input-file | FileCheck %s

// @f stays; @f_grad returns the loss, then one gradient per parameter in
// argument order. The input %x gets none, the matmul's dx is not built.
// CHECK-LABEL: func.func @linear(
// CHECK-LABEL: func.func @linear_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32> {amp.param}, %[[X:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<3xf32> {amp.param})
// CHECK-SAME: -> (tensor<f32>, tensor<4x3xf32>, tensor<3xf32>)
// CHECK: %[[Y:.*]] = amp.matmul %[[X]], %[[W]]
// CHECK: %[[Z:.*]] = amp.add %[[Y]], %[[B]]
// CHECK: %[[L:.*]] = amp.sum %[[Z]] dims = [0, 1]
// CHECK: %[[SEED:.*]] = amp.constant {amp.seed} dense<1.000000e+00> : tensor<f32>
// CHECK: %[[GZ:.*]] = amp.broadcast_to %{{.*}} : tensor<1x1xf32> to tensor<2x3xf32>
// The bias was broadcast over the rows: its gradient sums them.
// CHECK: %[[GB:.*]] = amp.sum %[[GZ]] dims = [0] keepdims : tensor<2x3xf32> to tensor<1x3xf32>
// CHECK: %[[GBR:.*]] = amp.reshape %[[GB]] : tensor<1x3xf32> to tensor<3xf32>
// CHECK: %[[GW:.*]] = amp.matmul %[[X]], %[[GZ]] {transpose_lhs} : tensor<2x4xf32>, tensor<2x3xf32> to tensor<4x3xf32>
// CHECK-NOT: amp.matmul
// CHECK: return %[[L]], %[[GW]], %[[GBR]]
func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>, %b: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %y = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %z = amp.add %y, %b : tensor<2x3xf32>, tensor<3xf32>
  %l = amp.sum %z dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A weight shared by every batch: its gradient is one GEMM over the
// flattened batch and row dimensions (k = 2 * 5), with no [2, 4, 3] partial
// and no sum; a transposed weight gets the transposed product.
// CHECK-LABEL: func.func @batched_weight_grad
// CHECK-SAME: (%[[W:.*]]: tensor<4x3xf32> {amp.param}, %[[V:.*]]: tensor<3x4xf32> {amp.param}, %[[X:.*]]: tensor<2x5x4xf32>)
// CHECK: %[[XV:.*]] = amp.reshape %[[X]] : tensor<2x5x4xf32> to tensor<10x4xf32>
// CHECK: %[[GFV:.*]] = amp.reshape %{{.*}} : tensor<2x5x3xf32> to tensor<10x3xf32>
// CHECK: %[[GV:.*]] = amp.matmul %[[GFV]], %[[XV]] {transpose_lhs} : tensor<10x3xf32>, tensor<10x4xf32> to tensor<3x4xf32>
// CHECK: %[[XW:.*]] = amp.reshape %[[X]] : tensor<2x5x4xf32> to tensor<10x4xf32>
// CHECK: %[[GFW:.*]] = amp.reshape %{{.*}} : tensor<2x5x3xf32> to tensor<10x3xf32>
// CHECK: %[[GW:.*]] = amp.matmul %[[XW]], %[[GFW]] {transpose_lhs} : tensor<10x4xf32>, tensor<10x3xf32> to tensor<4x3xf32>
// CHECK-NOT: amp.sum
// CHECK: return %{{.*}}, %[[GW]], %[[GV]]
func.func @batched_weight(%w: tensor<4x3xf32> {amp.param}, %v: tensor<3x4xf32> {amp.param}, %x: tensor<2x5x4xf32>) -> tensor<f32> {
  %y = amp.matmul %x, %w : tensor<2x5x4xf32>, tensor<4x3xf32> to tensor<2x5x3xf32>
  %z = amp.matmul %x, %v {transpose_rhs} : tensor<2x5x4xf32>, tensor<3x4xf32> to tensor<2x5x3xf32>
  %s = amp.add %y, %z : tensor<2x5x3xf32>, tensor<2x5x3xf32>
  %l = amp.sum %s dims = [0, 1, 2] : tensor<2x5x3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// An activation used transposed cannot be flattened over its batches: the
// weight's gradient stays a batched product summed over the batch.
// CHECK-LABEL: func.func @batched_transposed_activation_grad
// CHECK: %[[P:.*]] = amp.matmul %{{.*}}, %{{.*}} : tensor<2x4x5xf32>, tensor<2x5x3xf32> to tensor<2x4x3xf32>
// CHECK: amp.sum %[[P]] dims = [0] keepdims : tensor<2x4x3xf32> to tensor<1x4x3xf32>
func.func @batched_transposed_activation(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4x5xf32>) -> tensor<f32> {
  %y = amp.matmul %x, %w {transpose_lhs} : tensor<2x4x5xf32>, tensor<4x3xf32> to tensor<2x5x3xf32>
  %l = amp.sum %y dims = [0, 1, 2] : tensor<2x5x3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value used twice receives the sum of both contributions.
// CHECK-LABEL: func.func @two_uses_grad
// CHECK: %[[E:.*]] = amp.exp %[[W:.*]] :
// CHECK-DAG: %[[G1:.*]] = amp.mul %{{.*}}, %[[E]]
// CHECK-DAG: %[[G2:.*]] = amp.mul %{{.*}}, %[[E]]
// CHECK: amp.add
func.func @two_uses(%w: tensor<3xf32> {amp.param}) -> tensor<f32> {
  %e = amp.exp %w : tensor<3xf32>
  %p = amp.mul %e, %e : tensor<3xf32>, tensor<3xf32>
  %l = amp.sum %p dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// The gradient of a cast is the reverse cast: an f32 parameter used in f16
// gets an f32 gradient; backward ops run in f16 like their forward ops.
// CHECK-LABEL: func.func @autocast_grad
// CHECK: amp.matmul %{{.*}}, %{{.*}} {acc_type = f32, transpose_lhs} : tensor<2x4xf16>, tensor<2x3xf16> to tensor<4x3xf16>
// CHECK: %[[G:.*]] = amp.cast %{{.*}} : tensor<4x3xf16> to tensor<4x3xf32>
// CHECK: return %{{.*}}, %[[G]] : tensor<f32>, tensor<4x3xf32>
func.func @autocast(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf16>, %y: tensor<2xi64>) -> tensor<f32> {
  %wh = amp.cast %w : tensor<4x3xf32> to tensor<4x3xf16>
  %z = amp.matmul %x, %wh {acc_type = f32} : tensor<2x4xf16>, tensor<4x3xf16> to tensor<2x3xf16>
  %l = amp.cross_entropy %z, %y : tensor<2x3xf16>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A parameter the loss does not depend on gets a zero gradient.
// CHECK-LABEL: func.func @unused_grad
// CHECK: %[[Z:.*]] = amp.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]]
func.func @unused(%w: tensor<3xf32> {amp.param}, %v: tensor<2xf32> {amp.param}) -> tensor<f32> {
  %l = amp.sum %w dims = [0] : tensor<3xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// Cross-entropy with ignore_index: the mean's gradient is the seed divided
// by the number of rows that count (at least one), on a summed gradient
// that leaves the ignored rows zero.
// CHECK-LABEL: func.func @ignored_labels_grad
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<4x3xf32> {amp.param}, %[[Y:.*]]: tensor<4xi64>)
// CHECK-DAG: %[[SEED:.*]] = amp.constant {amp.seed} dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[IGNORED:.*]] = amp.constant dense<-100> : tensor<i64>
// CHECK: %[[COUNTS:.*]] = amp.compare ne, %[[Y]], %[[IGNORED]] : tensor<4xi64>, tensor<i64>
// CHECK: %[[ONES:.*]] = amp.select %[[COUNTS]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<f32>, tensor<f32>
// CHECK: %[[COUNT:.*]] = amp.sum %[[ONES]] dims = [0] : tensor<4xf32> to tensor<f32>
// CHECK: %[[ATLEASTONE:.*]] = amp.maximum %[[COUNT]], %{{.*}} : tensor<f32>, tensor<f32>
// CHECK: %[[G:.*]] = amp.div %[[SEED]], %[[ATLEASTONE]] : tensor<f32>, tensor<f32>
// CHECK: amp.cross_entropy_grad %[[LOGITS]], %[[Y]], %[[G]] reduction = sum ignore_index = -100 : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
func.func @ignored_labels(%logits: tensor<4x3xf32> {amp.param}, %y: tensor<4xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y ignore_index = -100 : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// With reduction = sum nothing is counted: the rows that count get the
// seed, the ignored ones zero.
// CHECK-LABEL: func.func @ignored_labels_sum_grad
// CHECK-NOT: amp.compare
// CHECK: amp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} reduction = sum ignore_index = 0 : tensor<4x3xf32>, tensor<4xi64>, tensor<f32>
func.func @ignored_labels_sum(%logits: tensor<4x3xf32> {amp.param}, %y: tensor<4xi64>) -> tensor<f32> {
  %l = amp.cross_entropy %logits, %y reduction = sum ignore_index = 0 : tensor<4x3xf32>, tensor<4xi64> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// Attention's backward is one amp.attention_grad on the forward's output
// and log-sum-exp: the forward op is rebuilt with_lse (the one without is
// gone) and no [B, H, T, S] scores exist. The gradients come out in the
// operands' f16, each rounded once; q is also the key, so its two add.
// CHECK-LABEL: func.func @attention_grad
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x4x8xf16> {amp.param}, %[[V:.*]]: tensor<1x2x4x8xf16> {amp.param})
// CHECK: %[[O:.*]], %[[LSE:.*]] = amp.attention %[[Q]], %[[Q]], %[[V]] causal with_lse {scale = 2.500000e-01 : f64}
// CHECK-NOT: amp.attention %
// CHECK: %[[GQ:.*]], %[[GK:.*]], %[[GV:.*]] = amp.attention_grad %[[Q]], %[[Q]], %[[V]], %[[O]], %[[LSE]], %{{.*}} causal {scale = 2.500000e-01 : f64} : {{.*}}, tensor<1x2x4xf32>, tensor<1x2x4x8xf16>
// CHECK-NOT: amp.matmul
// CHECK-NOT: amp.softmax
// CHECK-NOT: amp.cast
// CHECK: %[[DQK:.*]] = amp.add %[[GQ]], %[[GK]] : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>
// CHECK: return %{{.*}}, %[[DQK]], %[[GV]]
func.func @attention(%q: tensor<1x2x4x8xf16> {amp.param}, %v: tensor<1x2x4x8xf16> {amp.param}) -> tensor<f32> {
  %o = amp.attention %q, %q, %v causal {scale = 0.25} : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>
  %w = amp.cast %o : tensor<1x2x4x8xf16> to tensor<1x2x4x8xf32>
  %l = amp.sum %w dims = [0, 1, 2, 3] : tensor<1x2x4x8xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A forward that already has its log-sum-exp (not differentiated) is used
// as it is.
// CHECK-LABEL: func.func @attention_with_lse_grad
// CHECK: %[[O:.*]], %[[LSE:.*]] = amp.attention {{.*}} with_lse
// CHECK-NOT: amp.attention %
// CHECK: amp.attention_grad {{.*}}, %[[O]], %[[LSE]],
func.func @attention_with_lse(%q: tensor<1x1x4x8xf32> {amp.param}) -> tensor<f32> {
  %o, %lse = amp.attention %q, %q, %q with_lse : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %l = amp.sum %o dims = [0, 1, 2, 3] : tensor<1x1x4x8xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// The gradients of slices of one tensor, each its piece padded with zeros,
// are merged into one concat where no part of the tensor has two: a fused
// QKV projection's gradient is the concat of q's, k's and v's, not a sum
// of padded tensors. An overlapping slice's is added.
// CHECK-LABEL: func.func @split_grad
// CHECK: amp.broadcast_to
// CHECK-NEXT: %[[DQ:.*]] = amp.mul
// CHECK-NEXT: %[[DK:.*]] = amp.mul
// CHECK-NEXT: %[[Z:.*]] = amp.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: %[[G:.*]] = amp.concat %[[DQ]], %[[DK]], %[[Z]] dim = 1 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32> to tensor<2x6xf32>
// CHECK-NOT: amp.add
// CHECK: return %{{.*}}, %[[G]]
func.func @split(%x: tensor<2x6xf32> {amp.param}) -> tensor<f32> {
  %q = amp.slice %x [0, 0] to [2, 2] : tensor<2x6xf32> to tensor<2x2xf32>
  %k = amp.slice %x [0, 2] to [2, 4] : tensor<2x6xf32> to tensor<2x2xf32>
  %qk = amp.mul %q, %k : tensor<2x2xf32>, tensor<2x2xf32>
  %l = amp.sum %qk dims = [0, 1] : tensor<2x2xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @overlap_grad
// CHECK: amp.concat
// CHECK: amp.concat
// CHECK: %[[G:.*]] = amp.add
// CHECK: return %{{.*}}, %[[G]]
func.func @overlap(%x: tensor<2x6xf32> {amp.param}) -> tensor<f32> {
  %a = amp.slice %x [0, 0] to [2, 3] : tensor<2x6xf32> to tensor<2x3xf32>
  %b = amp.slice %x [0, 2] to [2, 5] : tensor<2x6xf32> to tensor<2x3xf32>
  %ab = amp.mul %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
  %l = amp.sum %ab dims = [0, 1] : tensor<2x3xf32> to tensor<f32>
  return %l : tensor<f32>
}
